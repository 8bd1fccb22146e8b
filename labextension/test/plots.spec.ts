import type { IHistoryPoint, ILeaderboardRow } from '../src/api';
import {
  CURVE_COLORS,
  SELECTED_COLOR,
  WEBGL_POINTS,
  curveSelection,
  curveTraces,
  historyPosition,
  historyTraces,
  importanceTrace,
  integerStep,
  integerTicks,
  plotlyDate,
  rowInHistory,
  stepAxis
} from '../src/plots';

describe('integer ticks', () => {
  it('never falls between two integers', () => {
    expect(integerTicks(1, 4)).toEqual([1, 2, 3, 4]);
    expect(integerTicks(0, 26)).toEqual([0, 5, 10, 15, 20, 25]);
    expect(integerTicks(2.5, 2.7)).toEqual([3]);
    expect(integerTicks(0, 1000).every(Number.isInteger)).toBe(true);
  });
  it('picks 1, 2, 5 steps for about ten ticks', () => {
    expect(integerStep(0, 9)).toBe(1);
    expect(integerStep(0, 15)).toBe(2);
    expect(integerStep(0, 40)).toBe(5);
    expect(integerStep(0, 199)).toBe(20);
  });
});

function point(trial_id: number, score: number, best: number): IHistoryPoint {
  return { trial_id, state: 'COMPLETED', score, end: 1_700_000_000 + trial_id, best, is_best: score === best };
}

describe('historyTraces', () => {
  it('draws the scores and a best-so-far step line, and no trace for the selected trial (a mark over the plot)', () => {
    const traces = historyTraces([point(0, 0.5, 0.5), point(1, 0.7, 0.5), point(2, 0.2, 0.2)], false);
    expect(traces[0].y).toEqual([0.5, 0.7, 0.2]);
    expect(traces[0].customdata).toEqual([0, 1, 2]);
    expect(traces[1].y).toEqual([0.5, 0.5, 0.2]);
    expect((traces[1].line as { shape: string }).shape).toBe('hv');
    expect(traces).toHaveLength(2);
  });
  it('uses WebGL only past WEBGL_POINTS points', () => {
    expect(historyTraces(Array.from({ length: 2000 }, (_, i) => point(i, i, 0)), false)[0].type).toBe('scatter');
    const many = Array.from({ length: WEBGL_POINTS + 1 }, (_, i) => point(i, i, 0));
    expect(historyTraces(many, false)[0].type).toBe('scattergl');
  });
});

describe('where the history marks a trial', () => {
  const row = (state: string, score: number | null): ILeaderboardRow => ({
    trial_id: 7, params: {}, state, start: 1_700_000_000, end: 1_700_000_060, value: score, best: score, score, last_step: 3, error: null, rank: 1, duration: 60
  });
  it('puts a point at its trial number, or at its end time, and its score', () => {
    const p = point(3, 0.4, 0.2);
    expect(historyPosition(p, false)).toEqual([3, 0.4]);
    expect(historyPosition(p, true)).toEqual([plotlyDate(p.end as number), 0.4]);
  });
  it('places a finished row the thinned history left out where the history would have it', () => {
    expect(rowInHistory(row('COMPLETED', 0.3), false)).toEqual({ trial_id: 7, score: 0.3, end: 1_700_000_060 });
    expect(rowInHistory(row('STOPPED', 0.3), false)?.score).toBe(0.3);
  });
  it('leaves out running, failed and unscored rows, and searches of several objectives', () => {
    expect(rowInHistory(row('RUNNING', 0.3), false)).toBeNull();
    expect(rowInHistory(row('FAILED', null), false)).toBeNull();
    expect(rowInHistory(row('COMPLETED', null), false)).toBeNull();
    expect(rowInHistory(row('COMPLETED', 0.3), true)).toBeNull(); // its score is not the first objective's
    expect(rowInHistory(undefined, false)).toBeNull();
  });
});

describe('curves', () => {
  it('restyle the curves drawn for another selected trial: red and thick, the others faded', () => {
    expect(curveSelection([5, 3, 8], 3)).toEqual({
      'line.color': [CURVE_COLORS[0], SELECTED_COLOR, CURVE_COLORS[2]],
      'line.width': [1.5, 4, 1.5],
      opacity: [0.45, 1, 0.45]
    });
    expect(curveSelection([5, 3], null).opacity).toEqual([1, 1]);
    const many = curveSelection(Array.from({ length: 20 }, (_, i) => i), 19)['line.color'];
    expect(many.filter(colour => colour === SELECTED_COLOR)).toHaveLength(1); // no other curve is red
  });
  it('draws the selected curve last and thick, the others faded', () => {
    const curves = [
      { trial_id: 3, state: 'COMPLETED', x: [0, 1], y: [1, 0.5] },
      { trial_id: 5, state: 'RUNNING', x: [0, 1, 2], y: [1, 0.7, 0.6] }
    ];
    const traces = curveTraces(curves, 3);
    expect(traces.map(t => t.name)).toEqual(['trial 5', 'trial 3']);
    expect((traces[1].line as { color: string }).color).toBe(SELECTED_COLOR);
    expect(traces[0].opacity).toBeLessThan(1);
  });
  it('puts step ticks on integers', () => {
    expect(stepAxis([{ trial_id: 0, state: 'COMPLETED', x: [0, 1, 2, 3], y: [1, 1, 1, 1] }]).dtick).toBe(1);
  });
});

describe('importanceTrace', () => {
  it('puts the most important parameter on top', () => {
    const trace = importanceTrace({
      evaluator: 'fanova',
      metric: 'loss',
      completed: 9,
      message: null,
      importance: [
        { name: 'lr', value: 0.8 },
        { name: 'layers', value: 0.2 }
      ]
    })!;
    expect(trace.y).toEqual(['layers', 'lr']);
    expect(trace.text).toEqual(['20.0 %', '80.0 %']);
  });
  it('is null when there is no importance yet', () => {
    expect(importanceTrace({ evaluator: 'fanova', metric: 'loss', completed: 1, message: 'too few', importance: null })).toBeNull();
  });
});
