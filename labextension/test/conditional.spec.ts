import { INACTIVE_LABEL, parameterDimension, parcoordsTrace } from '../src/plots';

describe('a parameter inactive in some trials (a when: condition)', () => {
  it('is blank on a categorical axis instead of a category of its own', () => {
    const axis = parameterDimension({ name: 'schedule', kind: 'categorical', log: false, choices: ['step', 'cosine'] }, [
      'step',
      null,
      'cosine'
    ]);
    expect(axis.ticktext).toEqual(['step', 'cosine']);
    expect(axis.values).toEqual([0, NaN, 1]);
  });

  it('is blank on numeric and log axes', () => {
    const linear = parameterDimension({ name: 'momentum', kind: 'float', log: false, min: 0.5, max: 0.99 }, [0.9, null]);
    const log = parameterDimension({ name: 'lr', kind: 'float', log: true, min: 1e-4, max: 1e-1 }, [null, 1e-2]);
    expect(linear.values).toEqual([0.9, NaN]);
    expect(log.values).toEqual([NaN, -2]);
  });
});

describe('parallel coordinates of a conditional search', () => {
  it('put the trials without a parameter on a labelled slot below its axis', () => {
    const trace = parcoordsTrace({
      metric: 'loss',
      mode: 'min',
      parameters: [
        { name: 'optimizer', kind: 'categorical', log: false, choices: ['sgd', 'adam'] },
        { name: 'momentum', kind: 'float', log: false, min: 0.5, max: 1.0 }
      ],
      trials: [
        { trial_id: 0, params: { optimizer: 'sgd', momentum: 0.9 }, score: 0.2 },
        { trial_id: 1, params: { optimizer: 'adam' }, score: 0.4 }
      ],
      scored: 2,
      best: 0,
      sampled: 2
    });
    const [optimizer, momentum] = trace!.dimensions;
    expect(optimizer.ticktext).toEqual(['sgd', 'adam']);
    expect(momentum.values[0]).toBe(0.9);
    expect(momentum.values[1]).toBeCloseTo(0.4);
    expect(momentum.range![0]).toBeCloseTo(0.4);
    expect(momentum.ticktext![0]).toBe(INACTIVE_LABEL);
    expect(momentum.tickvals!.length).toBe(6);
  });
});
