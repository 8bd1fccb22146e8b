import { markCentre, type IPlotAxis } from '../src/pointMark';

/** A linear axis as plotly sets it up: `offset` px from the plot's edge, `length` px long, over [low, high]. */
function axis(offset: number, length: number, [low, high]: [number, number], downwards = false): IPlotAxis {
  const toPixels = (value: number) => ((value - low) / (high - low)) * length;
  return { _offset: offset, _length: length, d2c: value => Number(value), c2p: value => (downwards ? length - toPixels(value) : toPixels(value)) };
}

describe('the selected trial marked over the history', () => {
  const xaxis = axis(60, 400, [0, 100]);
  const yaxis = axis(30, 200, [0, 1], true);

  it('is centred where the axes put its data, in pixels of the plot', () => {
    expect(markCentre(xaxis, yaxis, { trialId: 25, x: 25, y: 0.5 })).toEqual([160, 130]);
    expect(markCentre(xaxis, yaxis, { trialId: 0, x: 0, y: 1 })).toEqual([60, 30]);
  });
  it('is not drawn outside the axes (zoomed away) or for a value they cannot place', () => {
    expect(markCentre(xaxis, yaxis, { trialId: 150, x: 150, y: 0.5 })).toBeNull();
    expect(markCentre(xaxis, yaxis, { trialId: 5, x: 5, y: 2 })).toBeNull();
    expect(markCentre(xaxis, yaxis, { trialId: 5, x: 'not a number', y: 0.5 })).toBeNull();
  });
});
