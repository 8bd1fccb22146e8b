import type { IExperimentSummary } from '../src/api';
import { groupByOwner } from '../src/ownerGroups';

function summary(name: string, group?: 'mine' | 'team'): IExperimentSummary {
  return { name, group, owner: group === 'team' ? 'bob@gpu-7' : 'me@here' } as IExperimentSummary;
}

const grouped = (shown: IExperimentSummary[]): string[] =>
  groupByOwner(shown, experiment => experiment.name, text => `# ${text}`);

describe('the sidebar of a team store', () => {
  it("lists mine, then the team's, under a heading each", () => {
    const shown = [summary('theirs', 'team'), summary('a', 'mine'), summary('old')];
    expect(grouped(shown)).toEqual(['# Mine', 'a', 'old', "# The team's", 'theirs']);
  });
  it('adds no heading to a store of one person', () => {
    expect(grouped([summary('a', 'mine'), summary('b')])).toEqual(['a', 'b']);
  });
  it("shows the team's heading alone when none is mine", () => {
    expect(grouped([summary('x', 'team')])).toEqual(["# The team's", 'x']);
  });
});
