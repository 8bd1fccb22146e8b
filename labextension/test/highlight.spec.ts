import { language, StreamLanguage, type Language } from '@codemirror/language';
import { EditorState } from '@codemirror/state';

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

  function stateWith(doc: string): EditorState {
    return EditorState.create({ doc, extensions: [python, hpsearchHighlighting(yaml)] });
  }

  it('gives a %%hpsearch document the YAML language', () => {
    expect(stateWith('%%hpsearch f\nmetric: loss').facet(language)).toBe(yaml);
  });
  it('leaves other documents in their own language', () => {
    expect(stateWith('import yaml\nx = 1').facet(language)).toBe(python);
  });
  it('follows edits of the first line both ways', () => {
    let state = stateWith('x = 1');
    state = state.update({ changes: { from: 0, to: 5, insert: '%%hpsearch f\nlr: 0.1' } }).state;
    expect(state.facet(language)).toBe(yaml);
    state = state.update({ changes: { from: 0, to: 2, insert: '# ' } }).state;
    expect(state.facet(language)).toBe(python);
  });
});
