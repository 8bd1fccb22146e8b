import { compareTraces, contourTraces, LOG_TICKS, parameterAxis, slicePositions, sliceTraces } from '../src/analysisPlots';
import type { ICompared, ISlice } from '../src/api';
import { SELECTED_COLOR } from '../src/plots';

const opt: ISlice = {
  axis: { name: 'opt', kind: 'categorical', log: false, choices: ['sgd', 'adam'] },
  trial_ids: [0, 1, 2],
  values: ['adam', 'sgd', 'adam'],
  scores: [0.3, 0.5, 0.2]
};

describe('slices', () => {
  it('places categories at their position in the spec', () => {
    expect(slicePositions(opt)).toEqual([1, 0, 1]);
    expect(parameterAxis(opt.axis, [0, 1]).ticktext).toEqual(['sgd', 'adam']);
  });
  it('draws log-scaled parameters on a log axis and integers with integer ticks', () => {
    expect(parameterAxis({ name: 'lr', kind: 'float', log: true, choices: [] }, [1e-3]).type).toBe('log');
    expect(parameterAxis({ name: 'n', kind: 'int', log: false, choices: [] }, [1, 2, 3]).tickvals).toEqual([1, 2, 3]);
  });
  it('marks the selected trial', () => {
    const traces = sliceTraces(opt, 2);
    expect(traces).toHaveLength(2);
    expect(traces[1].x).toEqual([1]);
    expect((traces[1].marker as { color: string }).color).toBe(SELECTED_COLOR);
  });
});

describe('contourTraces', () => {
  it('draws the grid and the trials on it', () => {
    const [levels, trials] = contourTraces(
      {
        x: { name: 'a', kind: 'float', log: false, choices: [] },
        y: { name: 'b', kind: 'float', log: false, choices: [] },
        x_grid: [0, 1],
        y_grid: [0, 1],
        z: [
          [1, 2],
          [3, 4]
        ],
        trial_ids: [7],
        x_values: [0.5],
        y_values: [0.5],
        scores: [2.5]
      },
      'loss',
      true
    );
    expect(levels.type).toBe('contour');
    expect(levels.reversescale).toBe(true);
    expect(trials.customdata).toEqual([7]);
  });

  it('draws a categorical parameter as one band of cells per category, not blended', () => {
    const [levels] = contourTraces(
      {
        x: { name: 'gamma', kind: 'float', log: true, choices: [] },
        y: { name: 'kernel', kind: 'categorical', log: false, choices: ['rbf', 'poly'] },
        x_grid: [0.001, 0.01],
        y_grid: [0, 1],
        z: [
          [1, 2],
          [3, 4]
        ],
        trial_ids: [],
        x_values: [],
        y_values: [],
        scores: []
      },
      'loss',
      false
    );
    expect(levels.type).toBe('heatmap');
    expect(levels.contours).toBeUndefined();
    expect(parameterAxis({ name: 'gamma', kind: 'float', log: true, choices: [] }, []).tickformat).toBe(LOG_TICKS);
  });
});

describe('compareTraces', () => {
  const search: ICompared = {
    name: 'a',
    metric: 'loss',
    mode: 'min',
    start: 0,
    trial_ids: [0, 1, 2],
    seconds: [120, 60, null],
    best: [0.5, 0.4, 0.3],
    best_at_time: [0.4, 0.4, 0.3]
  };
  it('draws best so far against trial number', () => {
    const [trace] = compareTraces([search], false);
    expect(trace.x).toEqual([0, 1, 2]);
    expect(trace.y).toEqual([0.5, 0.4, 0.3]);
  });
  it('draws best so far against minutes, in time order, skipping trials without an end', () => {
    const [trace] = compareTraces([search], true);
    expect(trace.x).toEqual([1, 2]);
    expect(trace.y).toEqual([0.4, 0.4]);
  });
});
