/**
 * No two modules of labextension/src import each other, directly or through others.
 *
 * Every relative import counts: `import type`, `export ... from`, a bare `import './x'`,
 * `import('./x')` and `require('./x')`; the TypeScript scanner finds them, so an import
 * in a comment or a string does not.
 */

import { readdirSync, readFileSync } from 'fs';
import * as path from 'path';
import * as ts from 'typescript';

const SRC = path.resolve(__dirname, '..', 'src');

type ImportGraph = Map<string, Set<string>>;

/** The module a source file stands for: its name without `.ts` (`api`, `plotly.d`). */
function moduleName(file: string): string {
  return file.replace(/\.tsx?$/, '');
}

/** The modules of `modules` that `source` (a module of the folder `folder`) imports. */
function importsOf(source: string, modules: Set<string>, folder = SRC): Set<string> {
  const found = new Set<string>();
  for (const { fileName } of ts.preProcessFile(source, true, true).importedFiles) {
    if (!fileName.startsWith('.')) {
      continue;
    }
    const target = path.relative(folder, path.resolve(folder, fileName)).replace(/\.(js|ts)$/, '');
    for (const candidate of [target, `${target}.d`, path.join(target, 'index')]) {
      if (modules.has(candidate)) {
        found.add(candidate);
        break;
      }
    }
  }
  return found;
}

/** The modules of labextension/src and, for each, the modules of src it imports. */
function importGraph(): ImportGraph {
  const files = readdirSync(SRC).filter(file => /\.tsx?$/.test(file));
  const modules = new Set(files.map(moduleName));
  const graph: ImportGraph = new Map();
  for (const file of files) {
    const imports = importsOf(readFileSync(path.join(SRC, file), 'utf8'), modules);
    imports.delete(moduleName(file));
    graph.set(moduleName(file), imports);
  }
  return graph;
}

/** One import cycle of `graph` (its modules in order, the first repeated at the end), or null. */
function findCycle(graph: ImportGraph): string[] | null {
  const done = new Set<string>();
  const trail: string[] = [];
  const visit = (node: string): string[] | null => {
    if (trail.includes(node)) {
      return [...trail.slice(trail.indexOf(node)), node];
    }
    if (done.has(node)) {
      return null;
    }
    trail.push(node);
    for (const target of [...(graph.get(node) ?? [])].sort()) {
      const cycle = visit(target);
      if (cycle) {
        return cycle;
      }
    }
    trail.pop();
    done.add(node);
    return null;
  };
  for (const start of [...graph.keys()].sort()) {
    const cycle = visit(start);
    if (cycle) {
      return cycle;
    }
  }
  return null;
}

function graphOf(edges: Record<string, string[]>): ImportGraph {
  return new Map(Object.entries(edges).map(([node, targets]) => [node, new Set(targets)]));
}

describe('findCycle', () => {
  it('finds a planted cycle, in import order', () => {
    expect(findCycle(graphOf({ a: ['b'], b: ['c'], c: ['a'], d: [] }))).toEqual(['a', 'b', 'c', 'a']);
  });
  it('finds a cycle reached from a module outside it', () => {
    expect(findCycle(graphOf({ a: ['b'], b: ['c'], c: ['b'] }))).toEqual(['b', 'c', 'b']);
  });
  it('finds none in a graph without one, even where two paths meet', () => {
    expect(findCycle(graphOf({ a: ['b', 'c'], b: ['d'], c: ['d'], d: [] }))).toBeNull();
  });
});

describe('importsOf', () => {
  const modules = new Set(['api', 'viewTypes', 'leaderboard', 'format', 'plotly.d']);

  it('counts type-only, multi-line, re-exported, bare, dynamic and .js imports', () => {
    const source = [
      "import type { ITrial } from './api';",
      "import {\n  type Mode,\n  compare\n} from './leaderboard.js';",
      "export type { IObjective } from './viewTypes';",
      "import './format';",
      "type Plot = typeof import('./plotly');"
    ].join('\n');
    expect([...importsOf(source, modules)].sort()).toEqual(['api', 'format', 'leaderboard', 'plotly.d', 'viewTypes']);
  });
  it('ignores packages, imports in comments and strings, and files outside src', () => {
    const source = [
      "import { Widget } from '@lumino/widgets';",
      "// import { ITrial } from './api';",
      "const text = \"import { Mode } from './leaderboard'\";",
      "import * as style from '../style/api';"
    ].join('\n');
    expect([...importsOf(source, modules)]).toEqual([]);
  });
});

describe('labextension/src', () => {
  it('has no import cycle', () => {
    const graph = importGraph();
    expect(graph.get('index')?.has('api')).toBe(true); // the graph sees the imports
    expect(graph.get('api')?.has('viewTypes')).toBe(true);
    expect(findCycle(graph)?.join(' -> ') ?? null).toBeNull();
  });
});
