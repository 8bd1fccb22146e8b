import { colourAt, dimensionRange, formatTick, frame, linePath, lineValues, niceTicks, withinBrushes } from '../src/parallelCoordinates';
import type { IParallelDimension } from '../src/parallelCoordinates';

const dimensions: IParallelDimension[] = [
  { label: 'layers', values: [1, 4, 2], range: [1, 4] },
  { label: 'lr', values: [-1, -3, NaN], range: [-5, -1] },
  { label: 'score', values: [0.5, 0.25, 1] }
];
const margin = { t: 50, r: 20, b: 20, l: 60 };

describe('the parallel coordinates renderer', () => {
  it('spreads the axes evenly between the margins, leaving the colour bar its column', () => {
    const place = frame(dimensions, 500, 300, margin, true);
    expect(place.axes.map(axis => axis.x)).toEqual([60, 240, 420]);
    expect([place.top, place.bottom]).toEqual([50, 280]);
    expect(frame(dimensions, 500, 300, margin, false).axes[2].x).toBe(480);
    expect(frame(dimensions.slice(0, 1), 500, 300, margin, false).axes[0].x).toBe(270);
  });
  it('puts a value on its axis by its range, the low end at the bottom', () => {
    const place = frame(dimensions, 500, 300, margin, true);
    const [layers, , score] = place.axes;
    expect(place.y(layers, 1)).toBe(280);
    expect(place.y(layers, 4)).toBe(50);
    expect(place.y(score, 0.625)).toBe(165); // no range given: the values' own, 0.25 to 1
    expect(place.y(layers, NaN)).toBeNull();
    expect(place.y(layers, null)).toBeNull();
  });
  it('reads a line as its value on each axis, in the axes order', () => {
    expect(lineValues({ dimensions }, 1)).toEqual([4, -3, 0.25]);
  });
  it('draws a line through each axis and breaks it where a value is missing', () => {
    const place = frame(dimensions, 500, 300, margin, true);
    expect(linePath(place, [1, -3, 0.25])).toBe('M60.0,280.0L240.0,165.0L420.0,280.0');
    expect(linePath(place, [2, NaN, 1])).toBe('M60.0,203.3M420.0,50.0');
    expect(linePath(place, [NaN, NaN, NaN])).toBeNull();
  });
  it('widens an axis whose values are all equal, and keeps a given range', () => {
    expect(dimensionRange({ label: 'x', values: [3, 3] })).toEqual([2.5, 3.5]);
    expect(dimensionRange({ label: 'x', values: [3, 3], range: [0, 10] })).toEqual([0, 10]);
    expect(dimensionRange({ label: 'x', values: [] })).toEqual([0, 1]);
  });
  it('puts round ticks on axes without their own', () => {
    expect(niceTicks(0, 1)).toEqual([0, 0.2, 0.4, 0.6, 0.8, 1]);
    expect(niceTicks(0.87, 0.97)).toEqual([0.88, 0.9, 0.92, 0.94, 0.96]);
    expect(niceTicks(-130, 970)).toEqual([0, 200, 400, 600, 800]);
    expect(niceTicks(2, 2)).toEqual([2]);
    expect([0.30000000000000004, 1234567, 0.000123456].map(formatTick)).toEqual(['0.3', '1235000', '0.0001235']);
  });
  it('colours a line from the colour scale, between its stops', () => {
    const scale: [number, string][] = [[0, '#000000'], [0.5, '#ff0000'], [1, '#ffffff']];
    expect(colourAt(scale, 0)).toBe('#000000');
    expect(colourAt(scale, 0.25)).toBe('rgb(128,0,0)');
    expect(colourAt(scale, 0.75)).toBe('rgb(255,128,128)');
    expect(colourAt(scale, 2)).toBe('#ffffff');
  });
  it('keeps in colour the lines within every brushed range', () => {
    const brushes = new Map<string, [number, number]>([['layers', [1.5, 4]]]);
    const labels = dimensions.map(d => d.label);
    expect(withinBrushes(labels, [2, -1, 0.5], brushes)).toBe(true);
    expect(withinBrushes(labels, [1, -1, 0.5], brushes)).toBe(false);
    expect(withinBrushes(labels, [NaN, -1, 0.5], brushes)).toBe(false);
    expect(withinBrushes(labels, [NaN, -1, 0.5], new Map())).toBe(true);
  });
});
