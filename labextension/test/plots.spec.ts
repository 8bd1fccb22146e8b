import type { IHistoryPoint, ILeaderboardRow, IParcoordsData } from '../src/api';
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
  parameterDimension,
  parcoordsTrace,
  plotlyDate,
  rowInHistory,
  stepAxis
} from '../src/plots';

function parcoords(scores: (number | null)[], mode: 'min' | 'max' = 'min'): IParcoordsData {
  return {
    metric: 'acc',
    mode,
    parameters: [
      { name: 'layers', kind: 'int', log: false, min: 1, max: 4 },
      { name: 'lr', kind: 'float', log: true, min: 1e-4, max: 1e-1 },
      { name: 'opt', kind: 'categorical', log: false, choices: ['sgd', 'adam'] }
    ],
    trials: scores.map((score, i) => ({
      trial_id: i,
      params: { layers: 1 + (i % 4), lr: 10 ** -(1 + (i % 3)), opt: i % 2 ? 'adam' : 'sgd' },
      score
    })),
    scored: scores.length,
    best: scores.length,
    sampled: 0
  };
}

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

describe('parameterDimension', () => {
  it('draws integers with integer ticks over the spec range', () => {
    const axis = parameterDimension({ name: 'layers', kind: 'int', log: false, min: 1, max: 4 }, [1, 3]);
    expect(axis.tickvals).toEqual([1, 2, 3, 4]);
    expect(axis.ticktext).toEqual(['1', '2', '3', '4']);
    expect(axis.range).toEqual([1, 4]);
  });
  it('draws log-scaled numbers as log10 with ticks at powers of ten', () => {
    const axis = parameterDimension({ name: 'lr', kind: 'float', log: true, min: 1e-4, max: 1e-1 }, [1e-3, 1e-2]);
    expect(axis.values.map(v => Math.round(v))).toEqual([-3, -2]);
    expect(axis.ticktext).toEqual(['1e-4', '1e-3', '1e-2', '1e-1']);
  });
  it('draws categories in the spec order, unseen values after them', () => {
    const axis = parameterDimension({ name: 'opt', kind: 'categorical', log: false, choices: ['sgd', 'adam'] }, [
      'adam',
      'rms',
      'sgd'
    ]);
    expect(axis.values).toEqual([1, 2, 0]);
    expect(axis.ticktext).toEqual(['sgd', 'adam', 'rms']);
  });
});

describe('parcoordsTrace', () => {
  it('ranges the metric axis and the colour bar over the scores themselves', () => {
    const trace = parcoordsTrace(parcoords([0.87, 0.97, 0.9, null], 'max'))!;
    const metric = trace.dimensions[trace.dimensions.length - 1];
    expect(metric.range).toEqual([0.87, 0.97]);
    expect(trace.line.colorbar.ticktext).toEqual(['0.87', '0.92', '0.97']);
    expect(trace.ids).toEqual([0, 1, 2]);
  });
  it('spans the metric axis over every scored trial when the route gives the range, not only those sent', () => {
    const trace = parcoordsTrace({ ...parcoords([0.87, 0.97], 'max'), ranges: { acc: [0.5, 0.99] } })!;
    expect(trace.dimensions[trace.dimensions.length - 1].range).toEqual([0.5, 0.99]);
  });
  it('colours the best trial brightest whatever the mode', () => {
    const max = parcoordsTrace(parcoords([0.1, 0.9], 'max'))!;
    const min = parcoordsTrace(parcoords([0.1, 0.9], 'min'))!;
    expect(max.line.color[1]).toBeGreaterThan(max.line.color[0]);
    expect(min.line.color[0]).toBeGreaterThan(min.line.color[1]);
  });
  it('keeps its lines in order and its colours to the scores (the selected trial is drawn over them)', () => {
    const trace = parcoordsTrace(parcoords([0.1, 0.5, 0.9]))!;
    expect(trace.ids).toEqual([0, 1, 2]);
    expect(trace.line.color).toEqual([1, 0.5, 0]);
    expect(trace.line.colorscale.map(([, colour]) => colour)).not.toContain(SELECTED_COLOR);
  });
  it('is null when no trial has a score', () => {
    expect(parcoordsTrace(parcoords([null, null]))).toBeNull();
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
