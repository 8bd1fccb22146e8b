/**
 * Text shown for numbers, times, states and progress; pure functions only.
 */

import { LOOK } from './look';

/**
 * A score with the shared number of significant digits (four), written as the
 * notebook's dashboard writes it (Python's `g` format): `0.0001963`, `1.963e-05`,
 * `1.234e+04`; an em dash when there is none.
 */
export function formatScore(value: number | null | undefined): string {
  if (value === null || value === undefined || !Number.isFinite(value)) {
    return '—';
  }
  const digits = LOOK.numbers.significant;
  const exponent = value === 0 ? 0 : Math.floor(Math.log10(Math.abs(Number(value.toPrecision(digits)))));
  if (exponent < -4 || exponent >= digits) {
    const [mantissa, power] = value.toExponential(digits - 1).split('e');
    const trimmed = mantissa.includes('.') ? mantissa.replace(/0+$/, '').replace(/\.$/, '') : mantissa;
    const sign = power.startsWith('-') ? '-' : '+';
    return `${trimmed}e${sign}${power.replace(/^[-+]/, '').padStart(2, '0')}`;
  }
  return String(Number(value.toPrecision(digits)));
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

/** `lr=0.01, layers=2` from a parameter object, in its order (the spec's, as the server sends it). */
export function formatParams(params: Record<string, unknown> | null | undefined): string {
  if (!params) {
    return '';
  }
  return Object.keys(params)
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
 * The states the counts name, in the notebook's order: each one some trial is
 * in (interrupted: trials a dead driver left unfinished).
 */
export const COUNTED_STATES = ['running', 'pending', 'paused', 'interrupted', 'failed', 'stopped'] as const;

/** How many trials are in each state, as the summary sends them (absent: none). */
export type StateCounts = Partial<Record<(typeof COUNTED_STATES)[number], number>>;

/**
 * `12 / 40` trials done, then how many trials are in each state some trial is
 * in, and what limits the running count (`4 running, limited by gpu`).
 */
export function formatProgress(
  progress: StateCounts & { done: number; budget: number | null; limited_by?: string | null }
): string {
  const total = progress.budget === null ? '?' : String(progress.budget);
  const parts = [`${progress.done} / ${total}`];
  for (const state of COUNTED_STATES) {
    const count = progress[state] ?? 0;
    if (count > 0) {
      const limit = state === 'running' && progress.limited_by ? `, limited by ${progress.limited_by}` : '';
      parts.push(`${count} ${state}${limit}`);
    }
  }
  return parts.join(' · ');
}

/** The strategy, with what `auto` chose and why: `auto → gp: 40 trials, 6 continuous parameters`. */
export function formatStrategy(search: { strategy: string; strategy_choice?: string | null }): string {
  return search.strategy_choice ? `${search.strategy} → ${search.strategy_choice}` : search.strategy;
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

/** What the server's summary decided of an experiment's liveness (the Lab does not re-decide it). */
export interface IExperimentLiveness {
  state: string;
  /** A driver works on it right now: a stop request makes sense. */
  active: boolean;
  /** No driver works on it: `resume` can continue (or extend) it. */
  resumable: boolean;
}

/** Whether a driver works on the experiment (a Stop button makes sense), as the server says. */
export function isActive(experiment: IExperimentLiveness): boolean {
  return experiment.active;
}

/** Whether `resume` can continue the experiment, as the server says. */
export function isResumable(experiment: IExperimentLiveness): boolean {
  return experiment.resumable;
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

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

function twoDigits(value: number): string {
  return String(value).padStart(2, '0');
}

/**
 * An epoch time (seconds) as a clock time in the browser's time zone: `04:49`
 * today, `Nov 30 14:02` earlier this year, `Nov 30 2025 14:02` before; an em
 * dash when missing. `now` is in seconds too.
 */
export function formatClock(epochSeconds: number | null | undefined, now: number): string {
  if (epochSeconds === null || epochSeconds === undefined || !Number.isFinite(epochSeconds)) {
    return '—';
  }
  const moment = new Date(epochSeconds * 1000);
  const today = new Date(now * 1000);
  const hours = `${twoDigits(moment.getHours())}:${twoDigits(moment.getMinutes())}`;
  if (moment.toDateString() === today.toDateString()) {
    return hours;
  }
  const day = `${MONTHS[moment.getMonth()]} ${moment.getDate()}`;
  return moment.getFullYear() === today.getFullYear() ? `${day} ${hours}` : `${day} ${moment.getFullYear()} ${hours}`;
}

/**
 * A length of time in its two largest units, as the notebook's dashboard
 * writes it: `420 ms`, `1.5 s`, `12 s`, `1 min 20 s`, `2 h 5 min`.
 */
export function formatDuration(seconds: number | null | undefined): string {
  if (seconds === null || seconds === undefined || !Number.isFinite(seconds) || seconds < 0) {
    return '—';
  }
  if (seconds < 0.9995) {
    return `${Math.round(seconds * 1000)} ms`; // "0.0 s" says nothing of a fast trial
  }
  if (seconds < 10) {
    return `${seconds.toFixed(1)} s`;
  }
  let rest = Math.round(seconds);
  const parts: string[] = [];
  for (const [size, unit] of [
    [86400, 'd'],
    [3600, 'h'],
    [60, 'min'],
    [1, 's']
  ] as [number, string][]) {
    const count = Math.floor(rest / size);
    rest -= count * size;
    if (count || parts.length) {
      parts.push(`${count} ${unit}`);
    }
    if (parts.length === 2) {
      break;
    }
  }
  while (parts.length > 1 && parts[parts.length - 1].startsWith('0 ')) {
    parts.pop();
  }
  return parts.join(' ');
}

/** `1.5 GiB`, `300 MiB`: a size in bytes as people read it; an em dash when unknown. */
export function formatBytes(bytes: number | null | undefined): string {
  if (bytes === null || bytes === undefined || !Number.isFinite(bytes) || bytes < 0) {
    return '—';
  }
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return unit === 0 ? `${value} B` : `${value.toFixed(value < 10 ? 1 : 0)} ${units[unit]}`;
}

/** The facts line of a trial's log: state, worker, peak memory. */
export function logSummary(log: {
  trial_id: number;
  state: string;
  worker: string | null;
  peak_memory_bytes: number | null;
}): string {
  const parts = [`trial ${log.trial_id}`, log.state.toLowerCase()];
  if (log.worker) {
    parts.push(`on ${log.worker}`);
  }
  parts.push(`peak memory ${formatBytes(log.peak_memory_bytes)}`);
  return parts.join(' · ');
}
