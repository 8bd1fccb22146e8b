import type { IResult, ITrial } from '../src/api';
import { curveTraces, parcoordsTrace } from '../src/plots';

function result(trial_id: number, seq: number, step: number | null, value: number | null): IResult {
  return { trial_id, seq, step, time: seq, value, metrics: {} };
}

function trial(trial_id: number, params: Record<string, unknown>, score: number | null): ITrial {
  return {
    trial_id,
    params,
    state: 'COMPLETED',
    start: null,
    end: null,
    value: score,
    best: score,
    score,
    last_step: null,
    error: null
  };
}

describe('curveTraces', () => {
  it('makes one trace per trial, in trial order, value against step', () => {
    const traces = curveTraces([
      result(1, 1, 0, 0.9),
      result(0, 1, 0, 1.0),
      result(1, 2, 1, 0.7),
      result(0, 2, 1, 0.8),
      result(0, 3, 2, 0.6)
    ]);
    expect(traces.map(t => t.name)).toEqual(['trial 0', 'trial 1']);
    expect(traces[0].x).toEqual([0, 1, 2]);
    expect(traces[0].y).toEqual([1.0, 0.8, 0.6]);
    expect(traces[1].y).toEqual([0.9, 0.7]);
  });
  it('numbers results without a step by their order and skips missing values', () => {
    const [trace] = curveTraces([result(3, 1, null, 2), result(3, 2, null, null), result(3, 3, null, 1)]);
    expect(trace.x).toEqual([0, 1]);
    expect(trace.y).toEqual([2, 1]);
  });
  it('is empty without results', () => {
    expect(curveTraces([])).toEqual([]);
  });
});

describe('parcoordsTrace', () => {
  const trials = [
    trial(0, { lr: 0.1, optimizer: 'sgd' }, 0.5),
    trial(1, { lr: 0.02, optimizer: 'adam' }, 0.2),
    trial(2, { lr: 0.001, optimizer: 'sgd' }, null)
  ];

  it('has one axis per parameter and a last one for the score, scored trials only', () => {
    const trace = parcoordsTrace(trials, 'val_loss', 'min');
    expect(trace).not.toBeNull();
    const labels = trace!.dimensions.map(d => d.label);
    expect(labels).toEqual(['lr', 'optimizer', 'val_loss']);
    expect(trace!.dimensions[0].values).toEqual([0.1, 0.02]);
    expect(trace!.dimensions[2].values).toEqual([0.5, 0.2]);
    expect(trace!.line.color).toEqual([0.5, 0.2]);
  });
  it('puts numbers spanning decades on a log axis labelled in the original units', () => {
    const spread = [trial(0, { lr: 1e-4 }, 1), trial(1, { lr: 0.05 }, 2)];
    const lr = parcoordsTrace(spread, 'loss', 'min')!.dimensions[0];
    expect(lr.values.map(v => Number(v.toFixed(6)))).toEqual([-4, Number(Math.log10(0.05).toFixed(6))]);
    expect(lr.tickvals).toEqual([-4, -3, -2, -1]);
    expect(lr.ticktext).toEqual(['1e-4', '1e-3', '1e-2', '1e-1']);
    const narrow = parcoordsTrace([trial(0, { x: 1 }, 1), trial(1, { x: 50 }, 2)], 'loss', 'min')!;
    expect(narrow.dimensions[0].tickvals).toBeUndefined();
  });
  it('gives categorical parameters labelled ticks', () => {
    const optimizer = parcoordsTrace(trials, 'val_loss', 'min')!.dimensions[1];
    expect(optimizer.ticktext).toEqual(['adam', 'sgd']);
    expect(optimizer.tickvals).toEqual([0, 1]);
    expect(optimizer.values).toEqual([1, 0]);
  });
  it('colours the best scores brightest whatever the mode', () => {
    expect(parcoordsTrace(trials, 'loss', 'min')!.line.reversescale).toBe(true);
    expect(parcoordsTrace(trials, 'acc', 'max')!.line.reversescale).toBe(false);
  });
  it('is null when no trial has a score', () => {
    expect(parcoordsTrace([trial(0, { lr: 1 }, null)], 'loss', 'min')).toBeNull();
  });
});
