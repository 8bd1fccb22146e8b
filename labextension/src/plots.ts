/**
 * Plotly traces and axes built from the routes' data: the optimization history,
 * metric curves, parallel coordinates and parameter importance. Pure functions;
 * drawing happens in the views.
 */

import type { ICurve, IHistoryPoint, IImportance, ILeaderboardRow, IObjective, IParameterKind, IParcoordsData } from './api';
import { formatScore } from './format';
import type { Mode } from './leaderboard';
import { LOOK } from './look';
import type { IParallelDimension, IParallelLines, IParallelTrace } from './parallelCoordinates';

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

/** One axis of the parallel-coordinates plot. */
export type IDimension = IParallelDimension;

/** The parallel coordinates, as their renderer (parallelCoordinates.ts) draws them. */
export interface IParcoordsTrace extends IParallelTrace {
  /** Trial id of each line, in the order of the values. */
  ids: number[];
}

/** Viridis, dark to bright. */
const VIRIDIS = ['#440154', '#472d7b', '#3b528b', '#2c728e', '#21918c', '#28ae80', '#5ec962', '#addc30', '#fde725'];
/** Top of the colour scale: the best lines. */
const SCALE_TOP = 1;

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

function widened([low, high]: [number, number]): [number, number] {
  return low === high ? [low - 0.5, high + 0.5] : [low, high];
}

/** Log10 axis with ticks at the powers of ten it spans. */
function logDimension(label: string, raw: unknown[], kind: IParameterKind): IDimension {
  const values = raw.map(value => (typeof value === 'number' && value > 0 ? Math.log10(value) : NaN));
  const [low, high] = kind.min && kind.max ? [Math.log10(kind.min), Math.log10(kind.max)] : extent(values);
  const decades: number[] = [];
  for (let k = Math.floor(low); k <= Math.ceil(high); k++) {
    decades.push(k);
  }
  return { label, values, range: widened([low, high]), tickvals: decades, ticktext: decades.map(k => `1e${k}`) };
}

/**
 * The axis of one parameter: integers with integer ticks, log-scaled numbers on
 * a log10 axis, categories as labelled positions (choices the spec names first,
 * then any other value seen), other numbers as they are; ranges from the spec,
 * else from the values.
 */
export function parameterDimension(kind: IParameterKind, raw: unknown[]): IDimension {
  const label = kind.name;
  if (kind.kind === 'categorical') {
    // a parameter a trial did not have (inactive under a when:) is null: blank, not a category
    const text = raw.map(value =>
      value === null || value === undefined ? null : typeof value === 'string' ? value : JSON.stringify(value)
    );
    const categories = [...(kind.choices ?? [])];
    for (const value of text) {
      if (value !== null && !categories.includes(value)) {
        categories.push(value);
      }
    }
    return {
      label,
      values: text.map(value => (value === null ? NaN : categories.indexOf(value))),
      range: [0, Math.max(1, categories.length - 1)],
      tickvals: categories.map((_, index) => index),
      ticktext: categories
    };
  }
  if (kind.log) {
    return logDimension(label, raw, kind);
  }
  const values = raw.map(value => (typeof value === 'number' ? value : NaN));
  const range = widened(kind.min !== undefined && kind.max !== undefined ? [kind.min, kind.max] : extent(values));
  if (kind.kind === 'int') {
    const ticks = integerTicks(range[0], range[1]);
    return { label, values, range, tickvals: ticks, ticktext: ticks.map(String) };
  }
  return { label, values, range };
}

/** The tick of the slot below an axis for the trials without that parameter (inactive under a when:). */
export const INACTIVE_LABEL = '(inactive)';

/**
 * The dimension with the trials flagged `missing` on a slot labelled {@link INACTIVE_LABEL}
 * below its range: a line broken at the axis would not say which trials lacked the parameter.
 */
export function withInactiveSlot(dim: IDimension, missing: boolean[]): IDimension {
  if (!missing.some(Boolean)) {
    return dim;
  }
  const [low, high] = widened(dim.range ?? extent(dim.values));
  const slot = low - 0.2 * (high - low);
  const ticks = dim.tickvals ?? [0, 1, 2, 3, 4].map(k => low + ((high - low) * k) / 4);
  const text = dim.ticktext ?? ticks.map(tick => String(Number(tick.toPrecision(3))));
  return {
    label: dim.label,
    values: dim.values.map((value, i) => (missing[i] ? slot : value)),
    range: [slot, high],
    tickvals: [slot, ...ticks],
    ticktext: [INACTIVE_LABEL, ...text]
  };
}

/** Position on the colour scale: best scores brightest, in [0, SCALE_TOP]. */
function colourPosition(score: number, [low, high]: [number, number], mode: Mode): number {
  if (high === low) {
    return SCALE_TOP;
  }
  const t = (score - low) / (high - low);
  return SCALE_TOP * (mode === 'min' ? 1 - t : t);
}

function colourScale(): [number, string][] {
  return VIRIDIS.map((colour, i) => [i / (VIRIDIS.length - 1), colour]);
}

type ParcoordsTrial = IParcoordsData['trials'][number];

/** How the lines are coloured: a position on the colour scale per line, and the colour bar. */
interface ILineColours {
  positions: number[];
  colorbar: IParallelLines['colorbar'];
}

function isNumber(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value);
}

/** Whether a trial has what its line needs: a score, or (several objectives) a Pareto rank and every value. */
function hasScores(trial: ParcoordsTrial, objectives: readonly IObjective[]): boolean {
  if (objectives.length < 2) {
    return isNumber(trial.score);
  }
  return isNumber(trial.pareto_rank) && objectives.every(o => isNumber(trial.values?.[o.name]));
}

/**
 * One objective: its score's axis over the scores' own range (over every
 * scored trial, when the route says it), lines coloured by score (best brightest).
 */
function scoreAxis(data: IParcoordsData, ordered: readonly ParcoordsTrial[]): [IDimension[], ILineColours] {
  const scores = ordered.map(trial => trial.score as number);
  const span = data.ranges?.[data.metric] ?? extent(scores);
  const ticks = [span[0], (span[0] + span[1]) / 2, span[1]];
  return [
    [{ label: data.metric, values: scores, range: widened(span) }],
    {
      positions: scores.map(score => colourPosition(score, span, data.mode)),
      colorbar: { title: { text: data.metric }, tickvals: ticks.map(t => colourPosition(t, span, data.mode)), ticktext: ticks.map(formatScore) }
    }
  ];
}

/** Several objectives: an axis each, lines coloured by Pareto rank (the front brightest). */
function objectiveAxes(
  objectives: readonly IObjective[],
  ordered: readonly ParcoordsTrial[],
  ranges: IParcoordsData['ranges']
): [IDimension[], ILineColours] {
  const dims = objectives.map(o => {
    const values = ordered.map(trial => trial.values?.[o.name] as number);
    return { label: `${o.name} (${o.mode})`, values, range: widened(ranges?.[o.name] ?? extent(values)) };
  });
  const ranks = ordered.map(trial => trial.pareto_rank as number);
  const worst = Math.max(0, ...ranks);
  const position = (rank: number) => (worst === 0 ? SCALE_TOP : SCALE_TOP * (1 - rank / worst));
  const ticks = [...new Set([0, Math.round(worst / 2), worst])];
  return [dims, { positions: ranks.map(position), colorbar: { title: { text: 'Pareto rank' }, tickvals: ticks.map(position), ticktext: ticks.map(String) } }];
}

/**
 * Parallel coordinates of the trials the route sent: one axis per parameter,
 * then the score's (lines coloured by score, best brightest whatever the mode)
 * or, with several objectives, one axis per objective (lines coloured by
 * Pareto rank, the front brightest). The selected trial is drawn over them
 * (see selectedLine.ts), so selecting one redraws nothing here. Null when
 * no trial has a score.
 */
export function parcoordsTrace(data: IParcoordsData): IParcoordsTrace | null {
  const objectives = data.objectives ?? [];
  const scored = data.trials.filter(trial => hasScores(trial, objectives));
  if (scored.length === 0) {
    return null;
  }
  const dimensions = data.parameters.map(kind =>
    withInactiveSlot(
      parameterDimension(
        kind,
        scored.map(trial => trial.params[kind.name] ?? null)
      ),
      scored.map(trial => !(kind.name in trial.params))
    )
  );
  const [axes, colours] = objectives.length > 1 ? objectiveAxes(objectives, scored, data.ranges) : scoreAxis(data, scored);
  return {
    dimensions: [...dimensions, ...axes],
    ids: scored.map(trial => trial.trial_id),
    line: {
      color: colours.positions,
      colorscale: colourScale(),
      cmin: 0,
      cmax: SCALE_TOP,
      showscale: true,
      colorbar: colours.colorbar
    }
  };
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
