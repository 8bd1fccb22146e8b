import { canCompare, comparisonRows, comparisonTitle, toggle } from '../src/selection';

describe('choosing searches to compare', () => {
  it('toggles names in the order they were ticked', () => {
    const checked: string[] = [];
    toggle(checked, 'b');
    toggle(checked, 'a');
    expect(checked).toEqual(['b', 'a']);
    toggle(checked, 'b');
    expect(checked).toEqual(['a']);
  });
  it('compares two to twelve searches', () => {
    expect([0, 1, 2, 12, 13].map(canCompare)).toEqual([false, false, true, true, false]);
  });
  it('names and sums up a comparison', () => {
    expect(comparisonTitle(['a', 'b'])).toBe('a vs b');
    expect(comparisonTitle(['a', 'b', 'c', 'd', 'e'])).toBe('a vs b vs c +2');
    const rows = comparisonRows([
      { name: 'a', metric: 'loss', mode: 'min', start: 0, trial_ids: [0, 1], seconds: [1, 2], best: [0.5, 0.25], best_at_time: [0.5, 0.25] }
    ]);
    expect(rows).toEqual([['a', 'min loss', '2', '0.25']]);
  });
});
