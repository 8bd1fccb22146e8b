/**
 * Writes the modules the cell's dashboard shares with the Lab extension into the Python package,
 * from their TypeScript sources here: the parallel-coordinates renderer
 * (src/parallelCoordinates.ts -> hpnb/jupyter/dashboard/parallel_coordinates.js, which the
 * dashboard prepends to its plot widget) and the look (src/look.ts ->
 * hpnb/jupyter/dashboard/look.js, which look.py reads). Run by `jlpm build` and
 * `jlpm build:prod`; test/widgetBuild.spec.ts checks that the files in the package are what this
 * writes.
 */

const fs = require('fs');
const path = require('path');
const ts = require('typescript');

const SOURCES = path.join(__dirname, '..', 'src');
const PACKAGE = path.join(__dirname, '..', '..', 'hpnb', 'jupyter', 'dashboard');

/** Each built module: its TypeScript source and the file written into the package. */
const MODULES = [
  { source: path.join(SOURCES, 'parallelCoordinates.ts'), target: path.join(PACKAGE, 'parallel_coordinates.js') },
  { source: path.join(SOURCES, 'look.ts'), target: path.join(PACKAGE, 'look.js') }
];

/** A module's text: its TypeScript source with the types taken out. */
function moduleSource(source) {
  const name = path.basename(source);
  const { outputText } = ts.transpileModule(fs.readFileSync(source, 'utf8'), {
    compilerOptions: { target: ts.ScriptTarget.ES2019, module: ts.ModuleKind.ESNext, newLine: ts.NewLineKind.LineFeed },
    fileName: name,
    reportDiagnostics: false
  });
  return `// Built from labextension/src/${name} by \`jlpm build\` (scripts/build-widget.js): do not edit.\n` + outputText;
}

if (require.main === module) {
  for (const { source, target } of MODULES) {
    fs.writeFileSync(target, moduleSource(source));
  }
}

module.exports = { MODULES, moduleSource };
