/**
 * Plotly traces built from API data: metric curves and parallel coordinates.
 * Pure functions; drawing happens in the experiment view.
 */

import type { IResult, ITrial } from './api';
import { parameterNames, type Mode } from './leaderboard';

/** One line of the metric-curve plot. */
export interface ICurveTrace {
  type: 'scatter';
  mode: 'lines+markers';
  name: string;
  x: number[];
  y: number[];
}

/** One axis of the parallel-coordinates plot. */
export interface IDimension {
  label: string;
  values: number[];
  tickvals?: number[];
  ticktext?: string[];
}

/** The parallel-coordinates trace. */
export interface IParcoordsTrace {
  type: 'parcoords';
  dimensions: IDimension[];
  line: { color: number[]; colorscale: string; reversescale: boolean; showscale: boolean };
}

/**
 * One trace per trial: the metric value against the step (or, for results
 * reported without a step, their order within the trial). Results without a
 * value are left out; traces come in trial order.
 */
export function curveTraces(results: readonly IResult[]): ICurveTrace[] {
  const byTrial = new Map<number, ICurveTrace>();
  for (const result of results) {
    if (typeof result.value !== 'number' || !Number.isFinite(result.value)) {
      continue;
    }
    let trace = byTrial.get(result.trial_id);
    if (!trace) {
      trace = { type: 'scatter', mode: 'lines+markers', name: `trial ${result.trial_id}`, x: [], y: [] };
      byTrial.set(result.trial_id, trace);
    }
    trace.x.push(result.step ?? trace.x.length);
    trace.y.push(result.value);
  }
  return [...byTrial.keys()].sort((a, b) => a - b).map(id => byTrial.get(id) as ICurveTrace);
}

/** Positive values spanning this factor or more get a log axis. */
export const LOG_AXIS_SPAN = 100;

function logDimension(label: string, values: number[]): IDimension {
  const logs = values.map(Math.log10);
  const decades: number[] = [];
  for (let k = Math.floor(Math.min(...logs)); k <= Math.ceil(Math.max(...logs)); k++) {
    decades.push(k);
  }
  return { label, values: logs, tickvals: decades, ticktext: decades.map(k => `1e${k}`) };
}

function dimension(label: string, raw: unknown[]): IDimension {
  if (raw.every(value => typeof value === 'number' && Number.isFinite(value))) {
    const values = raw as number[];
    const positive = values.every(value => value > 0);
    const span = Math.max(...values) / Math.min(...values);
    return positive && span >= LOG_AXIS_SPAN ? logDimension(label, values) : { label, values };
  }
  const text = raw.map(value => (typeof value === 'string' ? value : JSON.stringify(value)));
  const categories = [...new Set(text)].sort();
  return {
    label,
    values: text.map(value => categories.indexOf(value)),
    tickvals: categories.map((_, index) => index),
    ticktext: categories
  };
}

/**
 * Parallel coordinates over the scored trials: one axis per parameter
 * (categorical ones get labelled ticks, positive numbers spanning two decades
 * or more a log scale) and a last axis for the score, which
 * also colours the lines, best scores brightest. Null when no trial has a score.
 */
export function parcoordsTrace(
  trials: readonly ITrial[],
  metric: string,
  mode: Mode
): IParcoordsTrace | null {
  const scored = trials.filter(trial => typeof trial.score === 'number' && Number.isFinite(trial.score));
  if (scored.length === 0) {
    return null;
  }
  const scores = scored.map(trial => trial.score as number);
  const dimensions = parameterNames(scored).map(name =>
    dimension(
      name,
      scored.map(trial => trial.params[name] ?? null)
    )
  );
  dimensions.push({ label: metric, values: scores });
  return {
    type: 'parcoords',
    dimensions,
    line: { color: scores, colorscale: 'Viridis', reversescale: mode === 'min', showscale: true }
  };
}
