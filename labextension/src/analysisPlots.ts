/**
 * Plotly traces and axes of the analyses: slices, the contour of two
 * parameters and the comparison of searches. Pure functions.
 */

import type { ICompared, IContour, ISlice, ISliceAxis } from './api';
import { integerTicks, SELECTED_COLOR, type Trace } from './plots';

/** Tick labels of a log axis: one format for every tick (as in the notebook's dashboard). */
export const LOG_TICKS = '.2~e';

/**
 * The layout axis of a parameter: log for log-scaled ones, integer ticks for
 * integers, the categories in the spec's order (at positions 0, 1, ...) for
 * categorical ones. `values` are the numbers drawn on it.
 */
export function parameterAxis(axis: ISliceAxis, values: readonly number[]): Trace {
  const base = { title: { text: axis.name } };
  if (axis.kind === 'categorical') {
    return { ...base, tickvals: axis.choices.map((_, i) => i), ticktext: axis.choices, range: [-0.5, axis.choices.length - 0.5] };
  }
  if (axis.log) {
    return { ...base, type: 'log', tickformat: LOG_TICKS };
  }
  if (axis.kind === 'int') {
    const finite = values.filter(Number.isFinite);
    const ticks = finite.length ? integerTicks(Math.min(...finite), Math.max(...finite)) : [0];
    return { ...base, tickvals: ticks, ticktext: ticks.map(String) };
  }
  return base;
}

/** A slice's values as numbers on its axis: categories as their positions. */
export function slicePositions(piece: ISlice): number[] {
  if (piece.axis.kind !== 'categorical') {
    return piece.values.map(value => (typeof value === 'number' ? value : NaN));
  }
  return piece.values.map(value => {
    const index = piece.axis.choices.indexOf(typeof value === 'string' ? value : JSON.stringify(value));
    return index >= 0 ? index : NaN;
  });
}

/** One slice: a marker per trial (score against the parameter), the selected trial red. */
export function sliceTraces(piece: ISlice, selected: number | null = null): Trace[] {
  const x = slicePositions(piece);
  const traces: Trace[] = [
    {
      type: piece.scores.length > 1000 ? 'scattergl' : 'scatter',
      mode: 'markers',
      name: piece.axis.name,
      x,
      y: piece.scores,
      text: piece.trial_ids.map(id => `trial ${id}`),
      customdata: piece.trial_ids,
      marker: { size: 7, opacity: 0.7, color: piece.scores, colorscale: 'Viridis' }
    }
  ];
  const index = selected === null ? -1 : piece.trial_ids.indexOf(selected);
  if (index >= 0) {
    traces.push({
      type: 'scatter',
      mode: 'markers',
      name: `trial ${selected}`,
      x: [x[index]],
      y: [piece.scores[index]],
      marker: { size: 13, color: SELECTED_COLOR, symbol: 'circle-open', line: { width: 3 } }
    });
  }
  return traces;
}

/**
 * The contour's filled levels and the trials on top, coloured by the same scores.
 * With a categorical parameter, one band of cells per category (a heat-map):
 * no colour is interpolated between categories.
 */
export function contourTraces(contour: IContour, metric: string, reverse: boolean): Trace[] {
  const categorical = contour.x.kind === 'categorical' || contour.y.kind === 'categorical';
  const levels = categorical ? { type: 'heatmap' } : { type: 'contour', contours: { coloring: 'heatmap' }, line: { width: 0.5 } };
  return [
    {
      ...levels,
      x: contour.x_grid,
      y: contour.y_grid,
      z: contour.z,
      colorscale: 'Viridis',
      reversescale: reverse,
      colorbar: { title: { text: metric } }
    },
    {
      type: 'scatter',
      mode: 'markers',
      name: 'trials',
      x: contour.x_values,
      y: contour.y_values,
      text: contour.trial_ids.map((id, i) => `trial ${id}: ${contour.scores[i]}`),
      customdata: contour.trial_ids,
      marker: { size: 6, color: 'white', line: { color: 'black', width: 1 } }
    }
  ];
}

/**
 * One step line per search: best so far against trial number, or (`byTime`)
 * against minutes since the search started.
 */
export function compareTraces(searches: readonly ICompared[], byTime: boolean): Trace[] {
  return searches.map(search => {
    if (!byTime) {
      return { type: 'scatter', mode: 'lines', line: { shape: 'hv', width: 2 }, name: search.name, x: search.trial_ids, y: search.best };
    }
    const timed = search.seconds
      .map((seconds, i) => [seconds, search.best_at_time[i]] as [number | null, number])
      .filter((pair): pair is [number, number] => pair[0] !== null)
      .sort((a, b) => a[0] - b[0]);
    return {
      type: 'scatter',
      mode: 'lines',
      line: { shape: 'hv', width: 2 },
      name: search.name,
      x: timed.map(([seconds]) => seconds / 60),
      y: timed.map(([, best]) => best)
    };
  });
}
