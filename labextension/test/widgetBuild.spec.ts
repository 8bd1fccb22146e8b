import { readFileSync } from 'fs';

// eslint-disable-next-line @typescript-eslint/no-var-requires
const build = require('../scripts/build-widget.js') as { TARGET: string; widgetSource(): string };

describe("the cell's dashboard's copy of the renderer", () => {
  it('is what `jlpm build` writes from src/parallelCoordinates.ts (run it after changing the source)', () => {
    expect(readFileSync(build.TARGET, 'utf8')).toBe(build.widgetSource());
  });
  it('imports nothing, so that it can be prepended to the plot widget', () => {
    expect(build.widgetSource()).not.toMatch(/^import /m);
  });
});
