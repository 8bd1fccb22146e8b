import { DEFAULT_SORT, leaderboardColumns, nextSort, pageLabel, rankText, scoreCell, scoreText } from '../src/leaderboard';

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

describe('a search with constraints', () => {
  it('marks an infeasible trial and says why in its tooltip', () => {
    const row = { feasible: false, infeasible_because: ['never reported size', 'latency_ms = 30, not latency_ms <= 20'] };
    expect(scoreCell('0.25', row)).toEqual({
      text: '0.25 (infeasible)',
      title: 'infeasible: never reported size; latency_ms = 30, not latency_ms <= 20'
    });
  });
  it('leaves feasible trials, searches without constraints and missing scores as they are', () => {
    expect(scoreCell('0.25', { feasible: true, infeasible_because: [] })).toEqual({ text: '0.25', title: '' });
    expect(scoreCell('0.25', {})).toEqual({ text: '0.25', title: '' });
    expect(scoreCell('', { feasible: false })).toEqual({ text: '', title: '' });
  });
});

describe('ranks and scores as the notebook shows them', () => {
  it('shows equal scores as one rank, tied', () => {
    expect([{ rank: 1, tied: true }, { rank: 3, tied: false }, { rank: null }].map(rankText)).toEqual(['1 (tied)', '3', '—']);
  });
  it('marks the score of a trial under way partial', () => {
    expect(scoreText(0.9685, true)).toBe('0.9685 (partial)');
    expect(scoreText(0.0001963, false)).toBe('0.0001963');
    expect(scoreText(null, true)).toBe('—');
  });
});
