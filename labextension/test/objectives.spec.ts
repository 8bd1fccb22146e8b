import { viewUrl, type ICompared, type IImportance, type IPareto } from '../src/api';
import { leaderboardColumns } from '../src/leaderboard';
import {
  BEHIND_COLOR,
  FRONT_COLOR,
  frontShape,
  goalText,
  importanceTraces,
  outcomeText,
  paretoMessage,
  paretoTraces,
  rankOpacity
} from '../src/objectives';
import { SELECTED_COLOR } from '../src/plots';
import { comparisonRows, severalObjectivesNote } from '../src/selection';

const TWO = [
  { name: 'val_loss', mode: 'min' as const },
  { name: 'latency_ms', mode: 'min' as const }
];

function pareto(objectives = TWO): IPareto {
  const points = [
    { trial_id: 0, x: 0.2, y: 9, rank: 0, state: 'COMPLETED' },
    { trial_id: 1, x: 0.5, y: 5, rank: 0, state: 'COMPLETED' },
    { trial_id: 2, x: 0.9, y: 1, rank: 0, state: 'COMPLETED' },
    { trial_id: 3, x: 0.6, y: 7, rank: 1, state: 'COMPLETED' },
    { trial_id: 4, x: 0.9, y: 9, rank: 3, state: 'COMPLETED' }
  ];
  return { x: objectives[0], y: objectives[1], objectives, points, front: points.slice(0, 3), scored: 5, front_size: 3 };
}

describe('what a search with several objectives shows for itself', () => {
  const search = { metric: 'val_loss', mode: 'min' as const, best: null, objectives: TWO, front_size: 12 };
  it('says the size of its front instead of a best value', () => {
    expect(outcomeText(search)).toBe('Pareto front: 12 trials');
    expect(outcomeText({ ...search, front_size: 1 }, '')).toBe('Pareto front: 1 trial');
    expect(goalText(search)).toBe('minimise val_loss, minimise latency_ms');
  });
  it('keeps the best value of a search with one objective', () => {
    const one = { metric: 'acc', mode: 'max' as const, best: { value: 0.91234 }, objectives: [{ name: 'acc', mode: 'max' as const }] };
    expect(outcomeText(one)).toBe('best max acc: 0.9123');
    expect(outcomeText({ ...one, best: null }, '')).toBe('max acc: —');
  });
});

describe('the Pareto view', () => {
  it('draws the front in colour, the others grey and fainter by rank, and a step line along the front', () => {
    const [behind, line, front] = paretoTraces(pareto());
    expect(front.customdata).toEqual([0, 1, 2]);
    expect((front.marker as { color: string }).color).toBe(FRONT_COLOR);
    expect(behind.customdata).toEqual([3, 4]);
    expect((behind.marker as { color: string; opacity: number[] }).color).toBe(BEHIND_COLOR);
    expect((behind.marker as { opacity: number[] }).opacity).toEqual([rankOpacity(1), rankOpacity(3)]);
    expect(rankOpacity(3)).toBeLessThan(rankOpacity(1));
    expect(line.x).toEqual([0.2, 0.5, 0.9]);
    expect(line.y).toEqual([9, 5, 1]);
    expect((line.line as { shape: string }).shape).toBe('hv');
  });
  it('steps the line the other way when x is maximised', () => {
    expect(frontShape('min')).toBe('hv');
    expect(frontShape('max')).toBe('vh');
  });
  it('circles the selected trial in red', () => {
    const traces = paretoTraces(pareto(), 3);
    const chosen = traces[traces.length - 1];
    expect([chosen.x, chosen.y, chosen.name]).toEqual([[0.6], [7], 'trial 3']);
    expect((chosen.marker as { color: string }).color).toBe(SELECTED_COLOR);
    expect(paretoTraces(pareto(), 99)).toHaveLength(3);
  });
  it('says how many trials are on the front, and which pair the line is of when there are more objectives', () => {
    expect(paretoMessage(pareto())).toBe('3 trials on the Pareto front, of 5 trials with every objective.');
    const three = [...TWO, { name: 'memory_mb', mode: 'min' as const }];
    expect(paretoMessage(pareto(three))).toContain('the line joins the trials no other beats on val_loss and latency_ms');
    expect(paretoMessage({ ...pareto(), points: [], front: [], scored: 0, front_size: 0 })).toBe('No trial has a value for every objective yet.');
  });
  it('is asked of the pareto route with the chosen pair and the selected trial', () => {
    expect(viewUrl('two-goals', 'pareto', { x: 'latency_ms', y: 'val_loss', trial: 4 })).toBe('hpnb/api/experiments/two-goals/pareto?x=latency_ms&y=val_loss&trial=4');
  });
});

describe('the leaderboard of several objectives', () => {
  it('has the Pareto rank and a column per objective where the metric was', () => {
    const keys = leaderboardColumns('val_loss', ['depth'], TWO).map(c => c.key);
    expect(keys).toEqual(['rank', 'trial', 'pareto', 'objective:val_loss', 'objective:latency_ms', 'state', 'param:depth', 'duration', 'start']);
    expect(leaderboardColumns('val_loss', [], TWO)[3].label).toBe('val_loss (min)');
    expect(leaderboardColumns('val_loss', [], TWO.slice(0, 1)).map(c => c.key)).toContain('score');
  });
});

describe('importance of several objectives', () => {
  it('groups one bar set per objective, parameters in the first one\'s order', () => {
    const data: IImportance = {
      evaluator: 'fanova',
      metric: 'val_loss',
      completed: 30,
      importance: [{ name: 'width', value: 0.8 }, { name: 'depth', value: 0.2 }],
      objectives: [
        { ...TWO[0], importance: [{ name: 'width', value: 0.8 }, { name: 'depth', value: 0.2 }] },
        { ...TWO[1], importance: [{ name: 'depth', value: 0.7 }, { name: 'width', value: 0.3 }] }
      ],
      message: null
    };
    const traces = importanceTraces(data);
    expect(traces.map(t => t.name)).toEqual(['val_loss (min)', 'latency_ms (min)']);
    expect(traces.map(t => t.y)).toEqual([['depth', 'width'], ['depth', 'width']]);
    expect(traces[1].x).toEqual([0.7, 0.3]);
  });
  it('is one bar set for one objective, none without importance', () => {
    const one: IImportance = { evaluator: 'fanova', metric: 'loss', completed: 9, importance: [{ name: 'lr', value: 1 }], message: null };
    expect(importanceTraces(one)).toHaveLength(1);
    expect(importanceTraces({ ...one, importance: null, objectives: null, message: 'too few' })).toEqual([]);
  });
});

describe('comparing searches with several objectives', () => {
  const compared = (name: string, objectives: typeof TWO): ICompared => ({
    name, metric: objectives[0].name, mode: 'min', objectives, start: 0, trial_ids: [0], seconds: [1], best: [0.5], best_at_time: [0.5]
  });
  it('says plainly that they are compared by their first objective', () => {
    const searches = [compared('two-goals', TWO), compared('one-goal', TWO.slice(0, 1))];
    expect(severalObjectivesNote(searches)).toBe('two-goals (val_loss, latency_ms) has several objectives: compared here by the first objective alone; open a search for its Pareto front.');
    expect(comparisonRows(searches).map(row => row[1])).toEqual(['min val_loss (first of 2 objectives)', 'min val_loss']);
    expect(severalObjectivesNote(searches.slice(1))).toBe('');
  });
});
