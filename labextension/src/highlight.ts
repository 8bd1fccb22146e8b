/**
 * YAML highlighting for the body of `%%hpsearch` cells.
 *
 * A CodeMirror 6 extension with a compartment that holds the YAML language,
 * at the highest precedence so it wins over the notebook's Python, exactly
 * while the document's first line starts with the `%%hpsearch` magic. Edits
 * switch it in the same transaction; a document that starts as a spec cell
 * switches right after the editor is created. Other editors are untouched.
 */

import type { LanguageSupport } from '@codemirror/language';
import { Compartment, EditorState, Prec, type Extension, type Text } from '@codemirror/state';
import { ViewPlugin, type EditorView } from '@codemirror/view';

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

function startsWithMagic(doc: Text): boolean {
  return isHpsearchCell(doc.line(1).text);
}

/** The editor extension; `yaml` is the YAML language support to use. */
export function hpsearchHighlighting(yaml: LanguageSupport): Extension {
  const slot = new Compartment();
  const active = Prec.highest(yaml);

  const switchOnEdit = EditorState.transactionExtender.of(transaction => {
    if (!transaction.docChanged) {
      return null;
    }
    const wanted = startsWithMagic(transaction.newDoc);
    const holding = slot.get(transaction.startState) === active;
    return wanted === holding ? null : { effects: slot.reconfigure(wanted ? active : []) };
  });

  // A new editor's first content is not a transaction: check it once the view exists.
  const switchOnCreate = ViewPlugin.define((view: EditorView) => {
    if (startsWithMagic(view.state.doc) && slot.get(view.state) !== active) {
      queueMicrotask(() => {
        if (startsWithMagic(view.state.doc) && slot.get(view.state) !== active) {
          view.dispatch({ effects: slot.reconfigure(active) });
        }
      });
    }
    return {};
  });

  return [slot.of([]), switchOnEdit, switchOnCreate];
}
