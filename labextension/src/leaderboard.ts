/**
 * The leaderboard's columns, its sort and its pages (the server sorts and ranks the trials).
 */

import { formatScore } from './format';

/** A rank as the notebook's table shows it: `1 (tied)` when scores are equal; an em dash for none. */
export function rankText(row: { rank: number | null; tied?: boolean }): string {
  if (row.rank === null) {
    return '—';
  }
  return row.tied ? `${row.rank} (tied)` : String(row.rank);
}

/** A score, marked `(partial)` while its trial is under way (it may still change). */
export function scoreText(value: number | null, partial = false): string {
  const text = formatScore(value);
  return partial && value !== null && Number.isFinite(value) ? `${text} (partial)` : text;
}

/** Optimisation direction of a search. */
export type Mode = 'min' | 'max';

/** The column a leaderboard is sorted by, and in which direction. */
export interface ISortState {
  column: string;
  order: 'asc' | 'desc';
}

/** How the leaderboard marks a trial that fails a constraint (as the cell's dashboard does). */
export const INFEASIBLE = '(infeasible)';

/**
 * The score cell's text and tooltip: an infeasible trial's score is marked, and its
 * tooltip says which constraints it fails.
 */
export function scoreCell(score: string, row: { feasible?: boolean; infeasible_because?: string[] }): {
  text: string;
  title: string;
} {
  if (row.feasible !== false || !score) {
    return { text: score, title: '' };
  }
  return { text: `${score} ${INFEASIBLE}`, title: `infeasible: ${(row.infeasible_because ?? []).join('; ')}` };
}

/** How the leaderboard opens: best first. */
export const DEFAULT_SORT: ISortState = { column: 'rank', order: 'asc' };

/**
 * The sort after a click on `column`: the same column flips its direction; a
 * new one starts ascending (rank and score: best first).
 */
export function nextSort(current: ISortState, column: string): ISortState {
  if (current.column === column) {
    return { column, order: current.order === 'asc' ? 'desc' : 'asc' };
  }
  return { column, order: 'asc' };
}

/** One column of the leaderboard table: the server's sort key and the header text. */
export interface IColumn {
  key: string;
  label: string;
}

/** What a column needs to know of an objective. */
export interface IColumnObjective {
  name: string;
  mode: Mode;
}

/** Sort key of an objective's column. */
export function objectiveColumn(name: string): string {
  return `objective:${name}`;
}

/**
 * The table's columns: rank, trial, the metric, state, one per parameter
 * (sort key `param:NAME`), then duration and start time. With several
 * objectives, the Pareto rank and one column per objective (`objective:NAME`)
 * take the metric's place.
 */
export function leaderboardColumns(metric: string, parameters: readonly string[], objectives: readonly IColumnObjective[] = []): IColumn[] {
  const scores: IColumn[] =
    objectives.length > 1
      ? [{ key: 'pareto', label: 'Pareto rank' }, ...objectives.map(o => ({ key: objectiveColumn(o.name), label: `${o.name} (${o.mode})` }))]
      : [{ key: 'score', label: metric }];
  return [
    { key: 'rank', label: '#' },
    { key: 'trial', label: 'trial' },
    ...scores,
    { key: 'state', label: 'state' },
    ...parameters.map(name => ({ key: `param:${name}`, label: name })),
    { key: 'duration', label: 'duration' },
    { key: 'start', label: 'started' }
  ];
}

/** `101–200 of 10,000`: the rows a page shows. */
export function pageLabel(offset: number, shown: number, total: number): string {
  if (total === 0) {
    return 'no trials yet';
  }
  return `${offset + 1}–${offset + shown} of ${total.toLocaleString('en-US')}`;
}
