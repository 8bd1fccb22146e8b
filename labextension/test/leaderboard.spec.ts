import { parameterNames, rankTrials } from '../src/leaderboard';

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
