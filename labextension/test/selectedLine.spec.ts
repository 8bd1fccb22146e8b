import type { IParallelDimension } from '../src/parallelCoordinates';
import { sameAxes, selectedLineOf } from '../src/selectedLine';

const dimensions: IParallelDimension[] = [
  { label: 'layers', values: [1, 4], range: [1, 4] },
  { label: 'lr', values: [-1, -3], range: [-5, -1] },
  { label: 'score', values: [0.5, 0.25], range: [0, 1] }
];

describe('the selected trial in the parallel coordinates', () => {
  it('is drawn on the plot when the plot does not hold it only when adding it changes no axis', () => {
    const wider = dimensions.map(d => (d.label === 'score' ? { ...d, range: [0, 2] as [number, number] } : d));
    expect(sameAxes(dimensions, dimensions.map(d => ({ ...d, values: [...d.values, 0] })))).toBe(true);
    expect(sameAxes(dimensions, wider)).toBe(false);
    expect(sameAxes(dimensions, dimensions.slice(1))).toBe(false);
  });
  it('is found by its trial id among the lines the server sent', () => {
    const trace = { dimensions, ids: [7, 3], line: { color: [], colorscale: [], cmin: 0, cmax: 1, showscale: false, colorbar: {} } };
    expect(selectedLineOf(trace, 3)).toEqual({ dimensions, index: 1 });
    expect(selectedLineOf(trace, 5)).toBeNull();
    expect(selectedLineOf(trace, null)).toBeNull();
    expect(selectedLineOf(null, 3)).toBeNull();
  });
});
