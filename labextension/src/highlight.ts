/**
 * YAML highlighting for the body of `%%hpsearch` cells.
 *
 * A CodeMirror 6 extension that, while the document's first line starts with
 * the `%%hpsearch` magic, provides the YAML language with the highest
 * precedence, so it wins over the notebook's Python for that editor only.
 * Other editors keep their language.
 */

import { language, type Language } from '@codemirror/language';
import { Prec, StateField, type EditorState, type Extension } from '@codemirror/state';

/** The cell magic whose body is a YAML search spec. */
export const MAGIC = '%%hpsearch';

/** Whether a cell's source is a `%%hpsearch` cell (magic on the first line). */
export function isHpsearchCell(source: string): boolean {
  if (!source.startsWith(MAGIC)) {
    return false;
  }
  const next = source.charAt(MAGIC.length);
  return next === '' || /\s/.test(next);
}

function firstLineIsMagic(state: EditorState): boolean {
  return isHpsearchCell(state.doc.line(1).text);
}

/**
 * The editor extension: YAML (`yaml`, the language support's language) for
 * documents whose first line is the magic, nothing otherwise.
 */
export function hpsearchHighlighting(yaml: Language): Extension {
  const isSpecCell = StateField.define<boolean>({
    create: firstLineIsMagic,
    update: (value, transaction) => (transaction.docChanged ? firstLineIsMagic(transaction.state) : value)
  });
  return [
    isSpecCell,
    Prec.highest(language.computeN([isSpecCell], state => (state.field(isSpecCell) ? [yaml] : [])))
  ];
}
