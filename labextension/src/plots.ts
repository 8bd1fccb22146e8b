/**
 * Plotly traces and axes built from the routes' data: the optimization history,
 * metric curves and parameter importance. Pure functions; drawing happens in
 * the views. (The parallel coordinates come finished from their route: see
 * parallelCoordinates.ts.)
 */

import type { ICurve, IHistoryPoint, IImportance, ILeaderboardRow } from './api';
import { LOOK } from './look';

/** Colour of the selected trial wherever it is drawn (as in the notebook's dashboard). */
export const SELECTED_COLOR = LOOK.colors.selected;
/** Colour of the best-so-far line (as in the notebook's dashboard). */
export const BEST_COLOR = LOOK.colors.best;

/**
 * Past this many points the history is drawn with WebGL. Creating a WebGL
 * context costs seconds where the browser renders it in software, so the
 * server's thinned history (2,000 points at most) stays SVG.
 */
export const WEBGL_POINTS = 5000;

/** A plotly trace: plain JSON. */
export type Trace = Record<string, unknown>;

/** A step between integer ticks so that about `most` of them span [low, high]: 1, 2, 5, 10, 20, ... */
export function integerStep(low: number, high: number, most = 10): number {
  const span = Math.max(0, high - low);
  for (let decade = 1; ; decade *= 10) {
    for (const step of [1, 2, 5]) {
      if (span / (step * decade) <= most) {
        return step * decade;
      }
    }
  }
}

/** Integer ticks from `low` to `high` (both rounded inwards), a nice step apart. */
export function integerTicks(low: number, high: number, most = 10): number[] {
  const first = Math.ceil(low);
  const last = Math.floor(high);
  const step = integerStep(first, last, most);
  const ticks: number[] = [];
  for (let tick = Math.ceil(first / step) * step; tick <= last; tick += step) {
    ticks.push(tick);
  }
  return ticks.length ? ticks : [first];
}

function extent(values: readonly number[]): [number, number] {
  const finite = values.filter(Number.isFinite);
  return finite.length ? [Math.min(...finite), Math.max(...finite)] : [0, 1];
}

/** A moment (epoch seconds) as plotly reads a date: local clock time, no time zone. */
export function plotlyDate(epochSeconds: number): string {
  const d = new Date(epochSeconds * 1000);
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;
}

/**
 * The optimization history: each finished trial's score (markers) and the best
 * score so far (a step line), against trial number or end time. Past
 * {@link WEBGL_POINTS} points, WebGL draws them. The selected trial is marked
 * over the plot (pointMark.ts): marking another draws no point again.
 */
export function historyTraces(points: readonly IHistoryPoint[], byEnd: boolean): Trace[] {
  const x = (point: IHistoryPoint) => historyX(point, byEnd);
  const kind = points.length > WEBGL_POINTS ? 'scattergl' : 'scatter';
  return [
    {
      type: kind,
      mode: 'markers',
      name: 'trial score',
      x: points.map(x),
      y: points.map(point => point.score),
      text: points.map(point => `trial ${point.trial_id}`),
      customdata: points.map(point => point.trial_id),
      marker: { size: 6, opacity: 0.6 }
    },
    {
      type: kind,
      mode: 'lines',
      name: 'best so far',
      line: { shape: 'hv', color: BEST_COLOR, width: 2 },
      x: points.map(x),
      y: points.map(point => point.best)
    }
  ];
}

/** Where a trial stands in the history: its number, or its end time. */
function historyX(point: Pick<IHistoryPoint, 'trial_id' | 'end'>, byEnd: boolean): number | string {
  return byEnd && point.end !== null ? plotlyDate(point.end) : point.trial_id;
}

/** A trial as the history marks it: a history point, or a finished trial's leaderboard row. */
export type MarkedTrial = Pick<IHistoryPoint, 'trial_id' | 'score' | 'end'>;

/**
 * A leaderboard row as the history would place it, for a trial the thinned
 * history left out: a finished trial with a score, in a search of one
 * objective (the row's score is then the history's). Null otherwise.
 */
export function rowInHistory(row: ILeaderboardRow | undefined, severalObjectives: boolean): MarkedTrial | null {
  const finished = row?.state === 'COMPLETED' || row?.state === 'STOPPED';
  if (!row || !finished || typeof row.score !== 'number' || severalObjectives) {
    return null;
  }
  return { trial_id: row.trial_id, score: row.score, end: row.end };
}

/** Where the history places a trial, as plotly reads it: x (its number, or its end as a date) and y (its score). */
export function historyPosition(trial: MarkedTrial, byEnd: boolean): [number | string, number] | null {
  return Number.isFinite(trial.score) ? [historyX(trial, byEnd), trial.score] : null;
}

/** Colours of the curves not selected: plotly's own, without the red kept for the selected trial. */
export const CURVE_COLORS = ['#1f77b4', '#ff7f0e', '#2ca02c', '#9467bd', '#8c564b', '#e377c2', '#7f7f7f', '#bcbd22', '#17becf'];

/**
 * The look of each drawn curve (`ids`: their trial ids in the order drawn)
 * with `selected` chosen: its line red and thick, the others thin and faded.
 * A style edit of the curves (`Plotly.restyle`), so nothing is drawn again.
 */
export function curveSelection(ids: readonly number[], selected: number | null): Record<string, unknown[]> {
  return {
    'line.color': ids.map((id, i) => (id === selected ? SELECTED_COLOR : CURVE_COLORS[i % CURVE_COLORS.length])),
    'line.width': ids.map(id => (id === selected ? 4 : 1.5)),
    opacity: ids.map(id => (selected === null || id === selected ? 1 : 0.45))
  };
}

/** One line per curve, thin, in colours other than red; the selected trial's red and thick, drawn last. */
export function curveTraces(curves: readonly ICurve[], selected: number | null = null): Trace[] {
  const ordered = [...curves.filter(c => c.trial_id !== selected), ...curves.filter(c => c.trial_id === selected)];
  const look = curveSelection(ordered.map(curve => curve.trial_id), selected);
  return ordered.map((curve, i) => ({
    type: 'scatter',
    mode: curve.x.length > 1 ? 'lines' : 'markers',
    name: `trial ${curve.trial_id}`,
    x: curve.x,
    y: curve.y,
    customdata: curve.x.map(() => curve.trial_id),
    line: { color: look['line.color'][i], width: look['line.width'][i] },
    opacity: look.opacity[i]
  }));
}

/** X axis of steps: integer ticks (never 2.5) over the steps drawn. */
export function stepAxis(curves: readonly ICurve[]): Trace {
  const [low, high] = extent(curves.flatMap(curve => curve.x));
  return { title: { text: 'step' }, tick0: 0, dtick: integerStep(low, high), tickformat: 'd' };
}

/** Horizontal bars, the most important parameter on top. */
export function importanceTrace(importance: IImportance): Trace | null {
  if (!importance.importance || importance.importance.length === 0) {
    return null;
  }
  const bars = [...importance.importance].reverse();
  return {
    type: 'bar',
    orientation: 'h',
    x: bars.map(bar => bar.value),
    y: bars.map(bar => bar.name),
    text: bars.map(bar => `${(100 * bar.value).toFixed(1)} %`),
    textposition: 'auto',
    marker: { color: '#1f77b4' }
  };
}
