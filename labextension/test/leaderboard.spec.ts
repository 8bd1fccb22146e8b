import { DEFAULT_SORT, leaderboardColumns, nextSort, pageLabel, parameterNames, rankTrials } from '../src/leaderboard';

const trials = [
  { trial_id: 0, score: 0.5 },
  { trial_id: 1, score: null },
  { trial_id: 2, score: 0.1 },
  { trial_id: 3, score: 0.9 },
  { trial_id: 4, score: 0.1 },
  { trial_id: 5, score: NaN }
];

describe('rankTrials', () => {
  it('puts the lowest score first for min, ties by trial id, unscored last', () => {
    expect(rankTrials(trials, 'min').map(t => t.trial_id)).toEqual([2, 4, 0, 3, 1, 5]);
  });
  it('puts the highest score first for max', () => {
    expect(rankTrials(trials, 'max').map(t => t.trial_id)).toEqual([3, 0, 2, 4, 1, 5]);
  });
  it('leaves its input alone', () => {
    const before = trials.map(t => t.trial_id);
    rankTrials(trials, 'min');
    expect(trials.map(t => t.trial_id)).toEqual(before);
  });
});

describe('parameterNames', () => {
  it('collects every parameter of every trial, sorted', () => {
    expect(parameterNames([{ params: { lr: 1, b: 2 } }, { params: { a: 'x', lr: 3 } }])).toEqual(['a', 'b', 'lr']);
  });
});

describe('sorting the table', () => {
  it('flips the direction on the same column and starts ascending on a new one', () => {
    const once = nextSort(DEFAULT_SORT, 'param:lr');
    expect(once).toEqual({ column: 'param:lr', order: 'asc' });
    expect(nextSort(once, 'param:lr')).toEqual({ column: 'param:lr', order: 'desc' });
    expect(nextSort({ column: 'param:lr', order: 'desc' }, 'duration')).toEqual({ column: 'duration', order: 'asc' });
  });
  it('has a column per parameter between state and duration', () => {
    const keys = leaderboardColumns('loss', ['lr', 'opt']).map(c => c.key);
    expect(keys).toEqual(['rank', 'trial', 'score', 'state', 'param:lr', 'param:opt', 'duration', 'start']);
  });
  it('labels a page', () => {
    expect(pageLabel(100, 100, 10000)).toBe('101–200 of 10,000');
    expect(pageLabel(0, 0, 0)).toBe('no trials yet');
  });
});
