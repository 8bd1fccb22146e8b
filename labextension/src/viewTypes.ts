/**
 * What the experiment view's routes answer (see hpnb/jupyter/server/view_routes.py).
 *
 * It imports nothing of `api.ts`, which re-exports these types with the client's own.
 */

import type { Mode } from './leaderboard';
import type { IParallelTrace } from './parallelCoordinates';

/** How a parameter is drawn: its kind, log scale, and its range or choices. */
export interface IParameterKind {
  name: string;
  kind: 'int' | 'float' | 'categorical';
  log: boolean;
  min?: number;
  max?: number;
  choices?: string[];
}

/** One objective of a search: a metric and whether lower or higher is better. */
export interface IObjective {
  name: string;
  mode: Mode;
}

/** What a row shows of a trial's objectives (absent from older servers). */
export interface IObjectiveValues {
  /** Each objective's value (null when the trial has none). */
  values?: Record<string, number | null>;
  /** Non-domination rank over all objectives (0: on the Pareto front); null with one objective. */
  pareto_rank?: number | null;
  /** With constraints: whether the trial satisfies them all, and why not (absent without). */
  feasible?: boolean;
  infeasible_because?: string[];
}

/** One trial of an experiment. */
export interface ITrial {
  trial_id: number;
  params: Record<string, unknown>;
  state: string;
  start: number | null;
  end: number | null;
  value: number | null;
  best: number | null;
  /** What the leaderboard ranks by: the best value seen, else the final value. */
  score: number | null;
  last_step: number | null;
  error: string | null;
}

/** One row of the leaderboard: a trial with its rank (null without a score) and duration. */
export interface ILeaderboardRow extends ITrial, IObjectiveValues {
  /** Equal scores share a rank (`tied`); trials under way rank after the finished ones. */
  rank: number | null;
  tied?: boolean;
  /** The trial is under way: its score may still change. */
  partial?: boolean;
  duration: number | null;
  /** A trial that spans several workers: its ranks (absent otherwise). */
  ranks?: ITrialRanks;
}

/** Sort direction of a column. */
export type SortOrder = 'asc' | 'desc';

/** One sorted page of the leaderboard. */
export interface ILeaderboardPage {
  rows: ILeaderboardRow[];
  total: number;
  offset: number;
  limit: number;
  sort: string;
  order: SortOrder;
  parameters: IParameterKind[];
  columns: string[];
  metric: string;
  mode: Mode;
  /** What the search optimises; several: the table has a column per objective and the Pareto rank. */
  objectives?: IObjective[];
}

/** One finished trial in the optimization history. */
export interface IHistoryPoint {
  trial_id: number;
  state: string;
  score: number;
  end: number | null;
  best: number;
  is_best: boolean;
}

/** The optimization history (thinned past a few thousand trials; `total` counts them all). */
export interface IHistory {
  order: 'trial' | 'end';
  metric: string;
  mode: Mode;
  total: number;
  points: IHistoryPoint[];
}

/** One trial's curve, thinned. */
export interface ICurve {
  trial_id: number;
  state: string;
  x: number[];
  y: number[];
}

/** Curves of the few trials worth drawing. */
export interface ICurves {
  metric: string;
  curves: ICurve[];
  trials_with_steps: number;
}

/**
 * The parallel coordinates as the server built them (the best trials and a sample of the
 * others, their axes, colours and the selected line): the renderer only draws `trace`.
 */
export interface IParcoordsData {
  metric: string;
  mode: Mode;
  /** Several: one axis per objective, lines coloured by Pareto rank. */
  objectives?: IObjective[];
  /** Null while no trial has a score. */
  trace: IParallelTrace | null;
  scored: number;
  best: number;
  sampled: number;
}

/** Parameter importance, or (importance null) the message that says why there is none. */
export interface IImportance {
  evaluator: string;
  metric: string;
  completed: number;
  importance: IImportanceBar[] | null;
  /** One bar set per objective (absent from older servers). */
  objectives?: (IObjective & { importance: IImportanceBar[] })[] | null;
  message: string | null;
}

/** How much of the spread of an objective one parameter explains. */
export interface IImportanceBar {
  name: string;
  value: number;
}

/** One trial in the Pareto view: two objectives' values and its rank over all objectives. */
export interface IParetoPoint {
  trial_id: number;
  x: number;
  y: number;
  rank: number;
  state: string;
}

/** Two objectives against each other: the trials (at most 2,000) and the front of the two. */
export interface IPareto {
  x: IObjective;
  y: IObjective;
  objectives: IObjective[];
  points: IParetoPoint[];
  /** The trials no other beats on `x` and `y`, along `x`: the line to draw. */
  front: IParetoPoint[];
  /** Trials with a value for every objective. */
  scored: number;
  /** Trials on the front of all objectives. */
  front_size: number;
}

/** One rank of a trial that spans several workers: its worker (and its host, without the protocol) and state. */
export interface IRankState {
  rank: number;
  worker: string;
  host: string;
  /** `starting`, `running`, `completed`, `failed`, `stopped` or `lost` (its worker died or left). */
  state: string;
}

/** The ranks of a trial's latest attempt, with the line that sums them up. */
export interface ITrialRanks {
  trial_id: number;
  /** 0 for the first attempt; higher after retries. */
  attempt: number;
  summary: string;
  ranks: IRankState[];
}

/** What a trial printed, its traceback, where it ran and its peak memory. */
export interface ITrialLog {
  trial_id: number;
  state: string;
  stdout: string;
  stderr: string;
  traceback: string | null;
  worker: string | null;
  peak_memory_bytes: number | null;
  truncated?: boolean;
  note?: string | null;
  /** A trial that spans several workers: its ranks; null otherwise. */
  ranks?: ITrialRanks | null;
}

/** How the slices route describes a parameter's axis. */
export interface ISliceAxis {
  name: string;
  kind: 'int' | 'float' | 'categorical';
  log: boolean;
  choices: string[];
}

/** The score of the finished trials against one parameter. */
export interface ISlice {
  axis: ISliceAxis;
  trial_ids: number[];
  values: unknown[];
  scores: number[];
}

/** Interpolated scores over two parameters (`z[j][i]` at `x_grid[i]`, `y_grid[j]`) and the trials. */
export interface IContour {
  x: ISliceAxis;
  y: ISliceAxis;
  x_grid: number[];
  y_grid: number[];
  z: number[][];
  trial_ids: number[];
  x_values: number[];
  y_values: number[];
  scores: number[];
}

/** Slices of every parameter and the contour (null with a message when it cannot be drawn). */
export interface ISlices {
  metric: string;
  mode: Mode;
  slices: ISlice[];
  contour: IContour | null;
  contour_message: string | null;
}

/** One search in a comparison: best so far by trial number and by seconds since it started. */
export interface ICompared {
  name: string;
  metric: string;
  mode: Mode;
  /** Every objective of the search (absent from older servers); it is compared by the first. */
  objectives?: IObjective[];
  start: number;
  trial_ids: number[];
  seconds: (number | null)[];
  best: number[];
  best_at_time: number[];
}

/** Most searches one comparison may name (the server refuses more). */
export const MAX_COMPARED = 12;
