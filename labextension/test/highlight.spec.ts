import { language, LanguageSupport, StreamLanguage, type Language } from '@codemirror/language';
import { EditorState, type Extension } from '@codemirror/state';

import { hpsearchHighlighting, isHpsearchCell } from '../src/highlight';

function plainLanguage(name: string): Language {
  return StreamLanguage.define({
    name,
    token: stream => {
      stream.skipToEnd();
      return null;
    }
  });
}

describe('isHpsearchCell', () => {
  it('accepts the magic on the first line, with or without arguments', () => {
    expect(isHpsearchCell('%%hpsearch train --name x\nmetric: loss')).toBe(true);
    expect(isHpsearchCell('%%hpsearch')).toBe(true);
    expect(isHpsearchCell('%%hpsearch\tf')).toBe(true);
  });
  it('refuses other magics, later lines and look-alikes', () => {
    expect(isHpsearchCell('%%time\n%%hpsearch f')).toBe(false);
    expect(isHpsearchCell('x = 1\n%%hpsearch f')).toBe(false);
    expect(isHpsearchCell(' %%hpsearch f')).toBe(false);
    expect(isHpsearchCell('%%hpsearchx f')).toBe(false);
    expect(isHpsearchCell('%hpsearch list')).toBe(false);
  });
});

describe('hpsearchHighlighting', () => {
  const yaml = plainLanguage('yaml');
  const python = plainLanguage('python');

  function edit(state: EditorState, from: number, to: number, insert: string): EditorState {
    return state.update({ changes: { from, to, insert } }).state;
  }

  function create(doc: string, languages: Extension[] = [python]): EditorState {
    return EditorState.create({ doc, extensions: [...languages, hpsearchHighlighting(new LanguageSupport(yaml))] });
  }

  it('switches to YAML when the first line becomes the magic, and back', () => {
    let state = create('x = 1');
    expect(state.facet(language)).toBe(python);
    state = edit(state, 0, 5, '%%hpsearch f\nlr: 0.1');
    expect(state.facet(language)).toBe(yaml);
    state = edit(state, state.doc.length, state.doc.length, '\nmetric: loss');
    expect(state.facet(language)).toBe(yaml);
    state = edit(state, 0, 2, '# ');
    expect(state.facet(language)).toBe(python);
  });
  it('leaves editors without the magic as they are, even with no language yet', () => {
    const state = edit(create('import yaml', []), 0, 0, 'x = 1\n');
    expect(state.facet(language)).toBeNull();
    expect(edit(create('metric: loss'), 0, 0, '# ').facet(language)).toBe(python);
  });
});
