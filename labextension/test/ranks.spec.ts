import { rankBadgeClass, rankCountLabel, rankLines, ranksChanged, ranksHeading } from '../src/ranks';
import type { ITrialRanks } from '../src/viewTypes';

function gang(attempt: number, ...states: string[]): ITrialRanks {
  const ranks = states.map((state, rank) => ({ rank, worker: `tcp://10.0.0.${rank + 1}:40123`, host: `10.0.0.${rank + 1}:40123`, state }));
  return { trial_id: 3, attempt, summary: '', ranks };
}

describe("a gang trial's ranks", () => {
  it('are counted in its row and headed with the attempt after a retry', () => {
    expect(rankCountLabel(gang(0, 'running', 'running'))).toBe('2 ranks');
    expect(rankCountLabel(gang(0, 'running'))).toBe('1 rank');
    expect(ranksHeading(gang(0, 'running', 'running'))).toBe('2 ranks');
    expect(ranksHeading(gang(1, 'running', 'starting'))).toBe('2 ranks · attempt 2');
  });
  it('are listed in rank order with their host and state', () => {
    const shuffled = gang(0, 'running', 'failed');
    shuffled.ranks.reverse();
    expect(rankLines(shuffled).map(line => [line.rank, line.host, line.state])).toEqual([
      ['0', '10.0.0.1:40123', 'running'],
      ['1', '10.0.0.2:40123', 'failed']
    ]);
  });
  it('take the colour of the trial state they are most like; a lost rank is a failure', () => {
    expect(rankBadgeClass('running')).toContain('hpnb-state-running');
    expect(rankBadgeClass('lost')).toContain('hpnb-state-failed');
    expect(rankBadgeClass('starting')).toContain('hpnb-state-starting');
    expect(rankBadgeClass('draining')).not.toMatch(/hpnb-state-(running|failed|completed)/);
  });
  it('are redrawn only when a rank changed or a new attempt began', () => {
    expect(ranksChanged(gang(0, 'running', 'running'), gang(0, 'running', 'running'))).toBe(false);
    expect(ranksChanged(gang(0, 'running', 'running'), gang(0, 'running', 'failed'))).toBe(true);
    expect(ranksChanged(gang(0, 'running'), gang(1, 'running'))).toBe(true);
    expect(ranksChanged(null, undefined)).toBe(false);
    expect(ranksChanged(null, gang(0, 'starting'))).toBe(true);
  });
});
