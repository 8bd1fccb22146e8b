/**
 * Searches with several objectives: what their header and sidebar row say
 * (the Pareto front's size, not a best value), the Pareto view's traces and
 * the importance bars grouped per objective. Pure functions.
 */

import type { IImportance, IObjective, IPareto, IParetoPoint } from './api';
import { formatScore } from './format';
import type { Mode } from './leaderboard';
import { importanceTrace, SELECTED_COLOR, type Trace } from './plots';

/** Colour of the Pareto front: its points and the line through them. */
export const FRONT_COLOR = '#1f77b4';
/** Colour of the trials behind the front, faded more the higher their rank. */
export const BEHIND_COLOR = '#7f7f7f';

/** Whether these objectives make a Pareto front (two or more). */
export function hasSeveral(objectives: readonly IObjective[] | null | undefined): objectives is IObjective[] {
  return Array.isArray(objectives) && objectives.length > 1;
}

/** `val_loss (min)`: an objective as an axis or a column names it. */
export function objectiveLabel(objective: IObjective): string {
  return `${objective.name} (${objective.mode})`;
}

/** `1 trial`, `12 trials`. */
function trials(count: number): string {
  return `${count} ${count === 1 ? 'trial' : 'trials'}`;
}

/** What a search has to show for itself, as the sidebar and the view's header need it. */
export interface IOutcome {
  metric: string;
  mode: Mode;
  best: { value: number } | null;
  objectives?: IObjective[];
  front_size?: number;
}

/**
 * What a search found: `Pareto front: 12 trials` with several objectives,
 * else `best min val_loss: 0.123` (an em dash before any score; `lead` is
 * what comes before the mode).
 */
export function outcomeText(search: IOutcome, lead = 'best '): string {
  if (hasSeveral(search.objectives)) {
    return `Pareto front: ${trials(search.front_size ?? 0)}`;
  }
  return `${lead}${search.mode} ${search.metric}: ${search.best ? formatScore(search.best.value) : '—'}`;
}

/** `minimise val_loss, minimise latency_ms`: what the search aims at, for a tooltip. */
export function goalText(search: IOutcome): string {
  const objectives = search.objectives?.length ? search.objectives : [{ name: search.metric, mode: search.mode }];
  return objectives.map(o => `${o.mode === 'min' ? 'minimise' : 'maximise'} ${o.name}`).join(', ');
}

/**
 * The plotly line shape that draws the boundary of what the front dominates,
 * the front's points in order along x: for x minimised, across then up or
 * down to the next point (`hv`); for x maximised, the other way round (`vh`).
 */
export function frontShape(xMode: Mode): 'hv' | 'vh' {
  return xMode === 'min' ? 'hv' : 'vh';
}

/** Opacity of a trial behind the front: fainter the higher its rank, never invisible. */
export function rankOpacity(rank: number): number {
  return rank <= 0 ? 1 : Math.max(0.15, 0.6 - 0.1 * (rank - 1));
}

function markers(points: readonly IParetoPoint[], name: string, marker: Trace): Trace {
  return {
    type: 'scatter',
    mode: 'markers',
    name,
    x: points.map(p => p.x),
    y: points.map(p => p.y),
    text: points.map(p => `trial ${p.trial_id} · Pareto rank ${p.rank}`),
    hoverinfo: 'x+y+text',
    customdata: points.map(p => p.trial_id),
    marker
  };
}

/**
 * The Pareto view: the trials behind the front grey, fainter by rank; the
 * front's trials (rank 0 over every objective) in colour; a step line along
 * the front of the two shown objectives; the selected trial circled in red.
 */
export function paretoTraces(data: IPareto, selected: number | null = null): Trace[] {
  const behind = data.points.filter(p => p.rank > 0);
  const front = data.points.filter(p => p.rank === 0);
  const traces: Trace[] = [
    markers(behind, 'other trials', { size: 7, color: BEHIND_COLOR, opacity: behind.map(p => rankOpacity(p.rank)) }),
    {
      type: 'scatter',
      mode: 'lines',
      name: 'front of these two',
      x: data.front.map(p => p.x),
      y: data.front.map(p => p.y),
      line: { shape: frontShape(data.x.mode), color: FRONT_COLOR, width: 2 },
      hoverinfo: 'skip'
    },
    markers(front, 'Pareto front', { size: 10, color: FRONT_COLOR, line: { color: 'white', width: 1 } })
  ];
  const chosen = data.points.find(p => p.trial_id === selected);
  if (chosen) {
    traces.push({
      ...markers([chosen], `trial ${chosen.trial_id}`, { size: 15, color: SELECTED_COLOR, symbol: 'circle-open', line: { width: 3 } }),
      hoverinfo: 'skip'
    });
  }
  return traces;
}

/** The axes of the Pareto view: each objective named with its direction. */
export function paretoLayout(data: IPareto): Record<string, unknown> {
  return {
    xaxis: { title: { text: objectiveLabel(data.x) } },
    yaxis: { title: { text: objectiveLabel(data.y) } },
    legend: { orientation: 'h', y: 1.12 },
    hovermode: 'closest'
  };
}

/** The line above the Pareto view: how many trials are on the front, and what the line is. */
export function paretoMessage(data: IPareto): string {
  if (data.scored === 0) {
    return 'No trial has a value for every objective yet.';
  }
  const shown = data.points.length < data.scored ? ` (${data.points.length} of them drawn: the front and a sample)` : '';
  const pair = data.objectives.length > 2 ? `; the line joins the trials no other beats on ${data.x.name} and ${data.y.name}` : '';
  return `${trials(data.front_size)} on the Pareto front, of ${trials(data.scored)} with every objective${shown}${pair}.`;
}

/**
 * Horizontal bars of importance: one bar per parameter, or with several
 * objectives one set per objective side by side, parameters in the order of
 * the first objective's importance (the most important on top).
 */
export function importanceTraces(data: IImportance): Trace[] {
  const sets = data.objectives ?? [];
  if (sets.length < 2) {
    const single = importanceTrace(data);
    return single ? [single] : [];
  }
  const order = [...sets[0].importance].reverse().map(bar => bar.name);
  return sets.map(set => {
    const byName = new Map(set.importance.map(bar => [bar.name, bar.value]));
    const values = order.map(name => byName.get(name) ?? 0);
    return {
      type: 'bar',
      orientation: 'h',
      name: objectiveLabel(set),
      x: values,
      y: order,
      text: values.map(value => `${(100 * value).toFixed(1)} %`),
      textposition: 'auto'
    };
  });
}
