/**
 * Writes the parallel-coordinates renderer (src/parallelCoordinates.ts) as the standalone
 * JavaScript module that the cell's dashboard prepends to its plot widget
 * (hpnb/jupyter/dashboard/parallel_coordinates.js). Run by `jlpm build` and `jlpm build:prod`;
 * test/widgetBuild.spec.ts checks that the file in the package is what this writes.
 */

const fs = require('fs');
const path = require('path');
const ts = require('typescript');

const SOURCE = path.join(__dirname, '..', 'src', 'parallelCoordinates.ts');
const TARGET = path.join(__dirname, '..', '..', 'hpnb', 'jupyter', 'dashboard', 'parallel_coordinates.js');
const HEADER = '// Built from labextension/src/parallelCoordinates.ts by `jlpm build` (scripts/build-widget.js): do not edit.\n';

/** The module's text: the TypeScript source with its types taken out. */
function widgetSource() {
  const { outputText } = ts.transpileModule(fs.readFileSync(SOURCE, 'utf8'), {
    compilerOptions: { target: ts.ScriptTarget.ES2019, module: ts.ModuleKind.ESNext, newLine: ts.NewLineKind.LineFeed },
    fileName: 'parallelCoordinates.ts',
    reportDiagnostics: false
  });
  return HEADER + outputText;
}

if (require.main === module) {
  fs.writeFileSync(TARGET, widgetSource());
}

module.exports = { SOURCE, TARGET, widgetSource };
