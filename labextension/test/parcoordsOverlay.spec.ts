import { overlayPath, sameAxes, type IDrawnAxis } from '../src/parcoordsOverlay';
import type { IDimension } from '../src/plots';

/** Axes as plotly lays them out: 204 px high with 2 px of padding at each end, in any order. */
function axis(label: string, x: number): IDrawnAxis {
  return { label, x, height: 204, unitToPaddedPx: { range: () => [2, 202] } };
}
const axes = [axis('score', 300), axis('layers', 0), axis('lr', 150)];
const dimensions: IDimension[] = [
  { label: 'layers', values: [1, 4], range: [1, 4] },
  { label: 'lr', values: [-1, -3], range: [-5, -1] },
  { label: 'score', values: [0.5, 0.25], range: [0, 1] }
];

describe('the selected trial over the parallel coordinates', () => {
  it('crosses each axis where its value lies in the range, left to right, y downwards', () => {
    expect(overlayPath(axes, { dimensions, index: 0 })).toBe('M0.0,202.0L150.0,2.0L300.0,102.0');
    expect(overlayPath(axes, { dimensions, index: 1 })).toBe('M0.0,2.0L150.0,102.0L300.0,152.0');
  });
  it('is no line for a trial that is not drawn, or an axis it does not cross', () => {
    expect(overlayPath(axes, { dimensions, index: 2 })).toBeNull();
    expect(overlayPath(axes, { dimensions: dimensions.slice(0, 2), index: 0 })).toBeNull();
    expect(overlayPath(axes, { dimensions: dimensions.map(d => ({ ...d, values: [NaN] })), index: 0 })).toBeNull();
  });
  it('draws a trial the plot does not hold only when adding it changes no axis', () => {
    const wider = dimensions.map(d => (d.label === 'score' ? { ...d, range: [0, 2] as [number, number] } : d));
    expect(sameAxes(dimensions, dimensions.map(d => ({ ...d, values: [...d.values, 0] })))).toBe(true);
    expect(sameAxes(dimensions, wider)).toBe(false);
    expect(sameAxes(dimensions, dimensions.slice(1))).toBe(false);
  });
});
