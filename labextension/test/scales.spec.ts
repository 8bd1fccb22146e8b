import { LOOK } from '../src/look';
import { valueAxis, valueRange, waitingLayout } from '../src/scales';

describe('a metric axis', () => {
  it('centres a flat series on a small span (never 0–1.8 for equal accuracies)', () => {
    expect(valueRange([0.9685, 0.9685, 0.9685, 0.9685])).toEqual([0.95881, 0.97819]);
    expect(valueRange([0, 0])).toEqual([0, 0.01]);
    expect(valueRange([-3, -3])).toEqual([-3.03, -2.97]);
  });
  it('spans the data with a margin under a fifth of the span, as the cell does', () => {
    expect(valueRange([0.2, 1.0])).toEqual([0.136, 1.0]);
    const [low, high] = valueRange([12, 20, 15]) as [number, number];
    expect(low).toBeCloseTo(12 - 8 * LOOK.scales.margin);
    expect(high).toBeCloseTo(20 + 8 * LOOK.scales.margin);
    expect(high - low - 8).toBeLessThanOrEqual(0.2 * 8);
  });
  it('keeps bounded metrics within their bounds', () => {
    expect(valueRange([0.01, 0.99])).toEqual([0, 1]);
    expect((valueRange([0.5, 30]) as number[])[0]).toBe(0);
    expect((valueRange([-1, 1]) as number[])[0]).toBeLessThan(-1);
  });
  it('leaves out missing values and has no range without data', () => {
    expect(valueRange([null, NaN, undefined])).toBeNull();
    expect(valueRange([null, 0.5, Infinity, 0.7])).toEqual(valueRange([0.5, 0.7]));
    expect(valueAxis('loss', [])).toEqual({ title: { text: 'loss' } });
    expect(valueAxis('loss', [1, 2])).toMatchObject({ range: [0.92, 2.08], autorange: false });
  });
});

describe('a plot waiting for data', () => {
  it('hides its axes and says what it waits for', () => {
    const layout = waitingLayout('waiting for the first finished trial') as { xaxis: { visible: boolean }; annotations: { text: string }[] };
    expect(layout.xaxis.visible).toBe(false);
    expect(layout.annotations[0].text).toBe('waiting for the first finished trial');
  });
});
