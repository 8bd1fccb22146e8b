import { readFileSync } from 'fs';
import * as path from 'path';

// eslint-disable-next-line @typescript-eslint/no-var-requires
const build = require('../scripts/build-widget.js') as {
  MODULES: { source: string; target: string }[];
  moduleSource(source: string): string;
};

describe("the cell's dashboard's copies of the Lab's modules", () => {
  it.each(build.MODULES.map(m => [path.basename(m.target), m]))(
    '%s is what `jlpm build` writes from its source (run it after changing the source)',
    (_name, module) => {
      expect(readFileSync(module.target, 'utf8')).toBe(build.moduleSource(module.source));
    }
  );
  it.each(build.MODULES.map(m => [path.basename(m.target), m]))('%s imports nothing', (_name, module) => {
    expect(build.moduleSource(module.source)).not.toMatch(/^import /m);
  });
});
