/**
 * Client of the server extension's REST routes under `hpnb/api`.
 *
 * The HTTP call itself is injected (`Requester`), so URL building and paging
 * stay plain functions; the plugin passes one built on `ServerConnection`,
 * which adds the server's authentication and XSRF headers.
 */

import type { CommandKind, ICommandAnswer } from './commands';
import type { Mode } from './leaderboard';
import type {
  SortOrder,
  ILeaderboardPage,
  IHistory,
  ICurves,
  IParcoordsData,
  IImportance,
  IObjective,
  IPareto,
  ITrialLog,
  ISlices,
  ICompared,
  ITrial
} from './viewTypes';

/** Best trial of an experiment. */
export interface IBest {
  trial_id: number;
  value: number;
  params: Record<string, unknown>;
}

/** One experiment as the sidebar lists it. */
export interface IExperimentSummary {
  name: string;
  /** CREATED, RUNNING, COMPLETED, STOPPED, FAILED, or INTERRUPTED when its driver died. */
  state: string;
  /** A driver works on it (a stop request makes sense), as the summary decided. */
  active: boolean;
  /** No driver works on it, so `resume` can continue it, as the summary decided. */
  resumable: boolean;
  strategy: string;
  /** What `auto` chose and why, e.g. `gp: 40 trials, 6 continuous parameters` (null for other strategies). */
  strategy_choice?: string | null;
  metric: string;
  mode: Mode;
  budget: number | null;
  done: number;
  pending?: number;
  running: number;
  completed?: number;
  failed: number;
  stopped: number;
  /** Trials a dead driver left running or pending. */
  interrupted?: number;
  /** The per-trial resource that lets fewer trials run than `parallel` asks (the experiment's own route, while it runs). */
  limited_by?: string | null;
  /** `host:pid` of the driving process, when one ever claimed it. */
  driver?: string | null;
  /** Who started it, `user@host` (null for searches stored before owners were kept). */
  owner?: string | null;
  /** `mine` (started by the server's user on its host) or `team` (a shared store's others). */
  group?: 'mine' | 'team';
  /** Null with several objectives: they have a front. */
  best: IBest | null;
  /** What the search optimises (absent from older servers). */
  objectives?: IObjective[];
  /** Trials on the Pareto front (several objectives). */
  front_size?: number;
  created: number;
  updated: number;
  message: string | null;
  stop_requested: boolean;
  /** How many trials run at once. */
  parallel?: number | null;
}

/** One reported result of a trial. */
export interface IResult {
  trial_id: number;
  seq: number;
  step: number | null;
  time: number;
  value: number | null;
  metrics: Record<string, number>;
}

export type { ITrial, IObjective, IObjectiveValues, IImportanceBar, IPareto, IParetoPoint, IParameterKind, ILeaderboardRow, SortOrder, ILeaderboardPage, IHistoryPoint, IHistory, ICurve, ICurves, IParcoordsData, IImportance, ITrialLog, ITrialRanks, IRankState, ISliceAxis, ISlice, IContour, ISlices, ICompared } from './viewTypes';
export { MAX_COMPARED } from './viewTypes';

/** Performs a request for a path relative to the server's base URL. */
export type Requester = (path: string, init?: RequestInit) => Promise<Response>;

/** Largest page the server hands out (it rejects bigger `limit`s). */
export const MAX_PAGE = 1000;

/** Experiment names the server accepts; anything else is never sent. */
export const EXPERIMENT_NAME = /^[A-Za-z0-9_.-]{1,128}$/;

/** The server answered with an error status. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string
  ) {
    super(message);
  }
}

function checkedName(name: string): string {
  if (!EXPERIMENT_NAME.test(name)) {
    throw new ApiError(400, `not an experiment name: ${JSON.stringify(name)}`);
  }
  return encodeURIComponent(name);
}

function experimentPath(name: string): string {
  return `hpnb/api/experiments/${checkedName(name)}`;
}

function withQuery(path: string, query: Record<string, number | string | undefined>): string {
  const parts = Object.keys(query)
    .filter(key => query[key] !== undefined)
    .map(key => `${encodeURIComponent(key)}=${encodeURIComponent(String(query[key]))}`);
  return parts.length ? `${path}?${parts.join('&')}` : path;
}

/** Path of the experiment list. */
export function experimentsUrl(): string {
  return 'hpnb/api/experiments';
}

/** Path of one page of an experiment's trials. */
export function trialsUrl(name: string, offset = 0, limit = MAX_PAGE): string {
  return withQuery(`${experimentPath(name)}/trials`, { offset, limit });
}

/**
 * Path of a page of results: after the cursor `after` of the previous page,
 * or, with `trial`, that trial's results after its sequence number `after`.
 */
export function resultsUrl(
  name: string,
  options: { after?: number; trial?: number; limit?: number } = {}
): string {
  return withQuery(`${experimentPath(name)}/results`, {
    trial: options.trial,
    after: options.after ?? 0,
    limit: options.limit ?? MAX_PAGE
  });
}

/** Path of the stop request of an experiment. */
export function stopUrl(name: string): string {
  return `${experimentPath(name)}/stop`;
}

/** Path of the commands of an experiment (stop, stop, pause or resume a trial, extend, parallel). */
export function commandsUrl(name: string): string {
  return `${experimentPath(name)}/commands`;
}

/** Path of one command of an experiment, to read its answer. */
export function commandUrl(name: string, id: number): string {
  if (!Number.isInteger(id) || id < 0) {
    throw new ApiError(400, `not a command id: ${JSON.stringify(id)}`);
  }
  return `${commandsUrl(name)}/${id}`;
}

/** Path of a sorted page of the leaderboard. */
export function leaderboardUrl(
  name: string,
  options: { offset?: number; limit?: number; sort?: string; order?: SortOrder } = {}
): string {
  return withQuery(`${experimentPath(name)}/leaderboard`, {
    offset: options.offset ?? 0,
    limit: options.limit ?? 100,
    sort: options.sort,
    order: options.order
  });
}

/** Path of one of an experiment's plot routes; `trial` marks the selected trial. */
export function viewUrl(
  name: string,
  route: 'history' | 'curves' | 'parcoords' | 'importance' | 'slices' | 'pareto',
  query: Record<string, number | string | undefined> = {}
): string {
  return withQuery(`${experimentPath(name)}/${route}`, query);
}

/** Path of one of a trial's routes (`logs`, `artifacts`). */
function trialPath(name: string, trial: number, route: 'logs' | 'artifacts'): string {
  if (!Number.isInteger(trial) || trial < 0) {
    throw new ApiError(400, `not a trial id: ${JSON.stringify(trial)}`);
  }
  return `${experimentPath(name)}/trials/${trial}/${route}`;
}

/** Path of a trial's log. */
export function trialLogUrl(name: string, trial: number): string {
  return trialPath(name, trial, 'logs');
}

/** Path of the list of a trial's artifacts. */
export function trialArtifactsUrl(name: string, trial: number): string {
  return trialPath(name, trial, 'artifacts');
}

/** A file a trial recorded with `hpnb.artifact`; `url` serves it (to an authenticated client). */
export interface IArtifact {
  name: string;
  size: number;
  url: string;
}

/** Path of the comparison of several experiments. */
export function compareUrl(names: readonly string[]): string {
  return `hpnb/api/compare?${names.map(name => `name=${checkedName(name)}`).join('&')}`;
}

/** Typed calls to the hpnb routes. */
export class HpnbClient {
  constructor(private readonly request: Requester) {}

  /** Every experiment in the store, newest first. */
  async experiments(): Promise<IExperimentSummary[]> {
    const body = await this.json<{ experiments: IExperimentSummary[] }>(experimentsUrl());
    return body.experiments;
  }

  /** One experiment. */
  async experiment(name: string): Promise<IExperimentSummary> {
    return this.json<IExperimentSummary>(experimentPath(name));
  }

  /** All trials of an experiment, fetched page by page. */
  async trials(name: string): Promise<ITrial[]> {
    const trials: ITrial[] = [];
    for (;;) {
      const page = await this.json<{ trials: ITrial[]; total: number }>(
        trialsUrl(name, trials.length, MAX_PAGE)
      );
      trials.push(...page.trials);
      if (page.trials.length < MAX_PAGE || trials.length >= page.total) {
        return trials;
      }
    }
  }

  /**
   * Results stored after `cursor` (0: from the start), page by page, and the
   * cursor to pass next time to get only newer ones.
   */
  async results(name: string, cursor = 0): Promise<{ results: IResult[]; next: number }> {
    const results: IResult[] = [];
    let next = cursor;
    for (;;) {
      const page = await this.json<{ results: IResult[]; next: number }>(resultsUrl(name, { after: next }));
      results.push(...page.results);
      next = page.next;
      if (page.results.length < MAX_PAGE) {
        return { results, next };
      }
    }
  }

  /** One sorted page of the leaderboard. */
  async leaderboard(
    name: string,
    options: { offset?: number; limit?: number; sort?: string; order?: SortOrder } = {}
  ): Promise<ILeaderboardPage> {
    return this.json<ILeaderboardPage>(leaderboardUrl(name, options));
  }

  /** The optimization history, by trial number or by end time. */
  async history(name: string, order: 'trial' | 'end' = 'trial', trial?: number): Promise<IHistory> {
    return this.json<IHistory>(viewUrl(name, 'history', { order, trial }));
  }

  /** Curves of the best, running and selected trials, thinned. */
  async curves(name: string, trial?: number): Promise<ICurves> {
    return this.json<ICurves>(viewUrl(name, 'curves', { trial }));
  }

  /** The trials parallel coordinates draw. */
  async parcoords(name: string, trial?: number, lines: 'all' | 'selected' = 'all'): Promise<IParcoordsData> {
    return this.json<IParcoordsData>(viewUrl(name, 'parcoords', { trial, lines: lines === 'all' ? undefined : lines }));
  }

  /** Parameter importance (fanova or ped-anova). */
  async importance(name: string, evaluator = 'fanova'): Promise<IImportance> {
    return this.json<IImportance>(viewUrl(name, 'importance', { evaluator }));
  }

  /** Slices of every parameter and a contour (of `x` and `y`, else the two most important). */
  async slices(name: string, x?: string, y?: string): Promise<ISlices> {
    return this.json<ISlices>(viewUrl(name, 'slices', { x, y }));
  }

  /** Two objectives (`x`, `y`; default the first two) against each other, and their front. */
  async pareto(name: string, x?: string, y?: string, trial?: number): Promise<IPareto> {
    return this.json<IPareto>(viewUrl(name, 'pareto', { x, y, trial }));
  }

  /** Best so far of several searches. */
  async compare(names: readonly string[]): Promise<ICompared[]> {
    return (await this.json<{ searches: ICompared[] }>(compareUrl(names))).searches;
  }

  /** What a trial printed. */
  async trialLog(name: string, trial: number): Promise<ITrialLog> {
    return this.json<ITrialLog>(trialLogUrl(name, trial));
  }

  /** The files a trial recorded with `hpnb.artifact`, by name. */
  async trialArtifacts(name: string, trial: number): Promise<IArtifact[]> {
    return (await this.json<{ artifacts: IArtifact[] }>(trialArtifactsUrl(name, trial))).artifacts;
  }

  /** Asks a running experiment to stop; resolves once the flag is stored. */
  async stop(name: string): Promise<void> {
    await this.json<unknown>(stopUrl(name), { method: 'POST' });
  }

  /**
   * Sends a command to the search's driver, wherever it runs, and resolves
   * with its answer: done, or pending when the driver has not answered within
   * the server's wait. A refusal rejects with an `ApiError` of status 409
   * whose message is the reason.
   */
  async command(name: string, kind: CommandKind, value: number | null = null): Promise<ICommandAnswer> {
    const body = JSON.stringify(value === null ? { kind } : { kind, value });
    return this.json<ICommandAnswer>(commandsUrl(name), { method: 'POST', body });
  }

  /** A command sent before, as stored now: done, refused (with the reason) or still pending. */
  async commandAnswer(name: string, id: number): Promise<ICommandAnswer> {
    return this.json<ICommandAnswer>(commandUrl(name, id));
  }

  private async json<T>(path: string, init?: RequestInit): Promise<T> {
    const response = await this.request(path, init);
    const text = await response.text();
    const body = text ? JSON.parse(text) : {};
    if (!response.ok) {
      throw new ApiError(response.status, body.message ?? response.statusText);
    }
    return body as T;
  }
}
