/**
 * Text shown for numbers, times, states and progress; pure functions only.
 */

/** States an experiment or a trial can be in, as the server reports them. */
export type RunState =
  | 'CREATED'
  | 'RUNNING'
  | 'COMPLETED'
  | 'STOPPED'
  | 'FAILED'
  | 'INTERRUPTED'
  | 'PENDING'
  | 'PRUNED';

/** A score with four significant digits; an em dash when there is none. */
export function formatScore(value: number | null | undefined): string {
  if (value === null || value === undefined || !Number.isFinite(value)) {
    return '—';
  }
  if (value !== 0 && (Math.abs(value) >= 1e5 || Math.abs(value) < 1e-3)) {
    return value.toExponential(3);
  }
  return String(Number(value.toPrecision(4)));
}

/** A parameter value as short text: numbers like scores, the rest as JSON. */
export function formatParam(value: unknown): string {
  if (typeof value === 'number') {
    return formatScore(value);
  }
  if (typeof value === 'string') {
    return value;
  }
  return JSON.stringify(value);
}

/** `lr=0.01, layers=2` from a parameter object, keys sorted. */
export function formatParams(params: Record<string, unknown> | null | undefined): string {
  if (!params) {
    return '';
  }
  return Object.keys(params)
    .sort()
    .map(key => `${key}=${formatParam(params[key])}`)
    .join(', ');
}

/** How long ago an epoch time (in seconds) was, relative to `now` (seconds). */
export function formatAge(epochSeconds: number | null | undefined, now: number): string {
  if (epochSeconds === null || epochSeconds === undefined) {
    return '—';
  }
  const seconds = Math.max(0, Math.round(now - epochSeconds));
  if (seconds < 60) {
    return `${seconds} s ago`;
  }
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) {
    return `${minutes} min ago`;
  }
  const hours = Math.floor(minutes / 60);
  if (hours < 48) {
    return `${hours} h ago`;
  }
  return `${Math.floor(hours / 24)} d ago`;
}

/**
 * `12 / 40` trials done, with running, interrupted and failed counts when
 * there are any (interrupted: trials a dead driver left unfinished).
 */
export function formatProgress(progress: {
  done: number;
  budget: number | null;
  running: number;
  failed: number;
  interrupted?: number;
}): string {
  const total = progress.budget === null ? '?' : String(progress.budget);
  const parts = [`${progress.done} / ${total}`];
  if (progress.running > 0) {
    parts.push(`${progress.running} running`);
  }
  if ((progress.interrupted ?? 0) > 0) {
    parts.push(`${progress.interrupted} interrupted`);
  }
  if (progress.failed > 0) {
    parts.push(`${progress.failed} failed`);
  }
  return parts.join(' · ');
}

/** Fraction of the budget done, clamped to [0, 1]; 0 without a budget. */
export function progressFraction(done: number, budget: number | null): number {
  if (!budget || budget <= 0) {
    return 0;
  }
  return Math.min(1, Math.max(0, done / budget));
}

/** CSS class of the badge for a state: `hpnb-state-running` and so on. */
export function stateClass(state: string): string {
  const known = /^[A-Z]+$/.test(state) ? state.toLowerCase() : 'unknown';
  return `hpnb-state-${known}`;
}

/** What the server says of an experiment's liveness; older servers send only `state`. */
export interface IExperimentLiveness {
  state: string;
  /** A driver works on it right now: a stop request makes sense. */
  active?: boolean;
  /** No driver works on it: `resume` can continue (or extend) it. */
  resumable?: boolean;
}

/**
 * Whether a driver works on the experiment (a Stop button makes sense): the
 * server's `active` field, else (a server without it) judged by the state.
 */
export function isActive(experiment: IExperimentLiveness): boolean {
  if (typeof experiment.active === 'boolean') {
    return experiment.active;
  }
  return experiment.state === 'RUNNING' || experiment.state === 'CREATED';
}

/** Whether `resume` can continue the experiment: the server's `resumable`, else not active. */
export function isResumable(experiment: IExperimentLiveness): boolean {
  if (typeof experiment.resumable === 'boolean') {
    return experiment.resumable;
  }
  return !isActive(experiment);
}

/** The action a view offers for an experiment: stop it, explain how to resume it, or none. */
export type ExperimentAction = 'stop' | 'resume' | null;

/**
 * Stop while a driver works on it; Resume… for a search whose driver died
 * (INTERRUPTED, so it needs someone to continue it); nothing otherwise.
 */
export function experimentAction(experiment: IExperimentLiveness): ExperimentAction {
  if (isActive(experiment)) {
    return 'stop';
  }
  if (experiment.state === 'INTERRUPTED' && isResumable(experiment)) {
    return 'resume';
  }
  return null;
}

/** The two ways to continue a stored search; the browser cannot run its objective. */
export interface IResumeCommands {
  /** Line magic, in a notebook whose kernel defines the objective. */
  notebook: string;
  /** Shell command, with the objective named as `module:function`. */
  terminal: string;
}

/** The commands that continue the search `name`. */
export function resumeCommands(name: string): IResumeCommands {
  return {
    notebook: `%hpsearch resume ${name}`,
    terminal: `hpnb resume ${name} --objective MODULE:FUNCTION`
  };
}
