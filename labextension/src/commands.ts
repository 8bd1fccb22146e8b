/**
 * The commands the experiment view sends to a running search (through the
 * server's `commands` route and the store, to the search's driver wherever it
 * runs): which control makes sense when, what a count typed in may be, and
 * what the status line says of the driver's answer. Pure functions only.
 */

/** What a command may ask; all but `stop` carry a number (a trial id or a count). */
export type CommandKind = 'stop' | 'stop_trial' | 'pause_trial' | 'resume_trial' | 'extend' | 'parallel';

/** The commands whose number is a count, and the largest count the server takes. */
export const MAX_COUNT = { extend: 100000, parallel: 10000 } as const;

/**
 * A command as the server answers it: carried out (`done`), not answered yet
 * (`pending`), or, read again later, `refused` (a refusal when sending is a 409).
 */
export interface ICommandAnswer {
  id: number;
  kind: CommandKind;
  value: number | null;
  state: 'done' | 'pending' | 'refused';
  /** The driver's reply (what it did, or why not), or that it has not answered yet. */
  reply: string;
}

/** One control: whether it can be used now and what its tooltip says. */
export interface IControl {
  enabled: boolean;
  title: string;
}

/** The view's controls of the search's selected trial and budget (its Stop is the header's). */
export interface IControls {
  stopTrial: IControl;
  pauseTrial: IControl;
  resumeTrial: IControl;
  extend: IControl;
  parallel: IControl;
}

/** The search as far as its controls care: whether a driver runs it, anywhere. */
export interface ISteeredSearch {
  state: string;
  active: boolean;
}

/** The selected trial; `state` null when the view does not know it (not on the leaderboard's page). */
export interface ISelectedTrial {
  trial_id: number;
  state: string | null;
}

function control(enabled: boolean, title: string, why: string): IControl {
  return { enabled, title: enabled ? title : why };
}

/** The states in which a trial can be stopped, and paused. */
const STOPPABLE = ['RUNNING', 'PENDING', 'PAUSED'];
const PAUSABLE = ['RUNNING', 'PENDING'];

function trialControls(selected: ISelectedTrial | null): Pick<IControls, 'stopTrial' | 'pauseTrial' | 'resumeTrial'> {
  if (selected === null) {
    const why = 'select a trial in the leaderboard or a plot first';
    return { stopTrial: control(false, '', why), pauseTrial: control(false, '', why), resumeTrial: control(false, '', why) };
  }
  const id = selected.trial_id;
  const state = selected.state;
  const known = state !== null;
  const shown = (state ?? '').toLowerCase();
  return {
    stopTrial: control(!known || STOPPABLE.includes(state), `stop trial ${id}`, `trial ${id} is ${shown}: it has ended`),
    pauseTrial: control(
      !known || PAUSABLE.includes(state),
      `pause trial ${id}: its slot is freed, and it resumes later from its latest checkpoint`,
      `trial ${id} is ${shown}: only a running or pending trial can be paused`
    ),
    resumeTrial: control(!known || state === 'PAUSED', `resume trial ${id} at the next free slot`, `trial ${id} is ${shown}, not paused`)
  };
}

/**
 * Which controls make sense: every one needs a driver running the search
 * (in any process); those of a trial also need a trial selected in a state
 * they apply to (when its state is not known, the driver decides).
 */
export function controlStates(search: ISteeredSearch, selected: ISelectedTrial | null): IControls {
  const notRunning = `the search is ${search.state.toLowerCase()}: only a running search takes commands`;
  if (!search.active) {
    const off = control(false, '', notRunning);
    return { stopTrial: off, pauseTrial: off, resumeTrial: off, extend: off, parallel: off };
  }
  return {
    ...trialControls(selected),
    extend: control(true, 'add trials to the budget', ''),
    parallel: control(true, 'how many trials run at once', '')
  };
}

/**
 * The count typed for `kind` as a number, or why it cannot be sent (the
 * server says the same; this says it before a request).
 */
export function checkedCount(kind: keyof typeof MAX_COUNT, text: string): number | string {
  const trimmed = text.trim();
  const what = kind === 'extend' ? 'the number of trials to add' : 'the number of trials at once';
  if (!/^\d+$/.test(trimmed)) {
    return `${kind}: ${what} must be a whole number (got ${JSON.stringify(trimmed.slice(0, 20))})`;
  }
  const count = Number(trimmed);
  if (count < 1) {
    return `${kind}: ${what} must be at least 1 (got ${count})`;
  }
  if (count > MAX_COUNT[kind]) {
    return `${kind}: ${what} must be at most ${MAX_COUNT[kind]} (got ${trimmed})`;
  }
  return count;
}

/** `pause trial 3`, `extend by 10`, `set parallel to 2`, `stop the search`: what was asked. */
export function commandLabel(kind: CommandKind, value: number | null): string {
  switch (kind) {
    case 'stop':
      return 'stop the search';
    case 'extend':
      return `extend by ${value}`;
    case 'parallel':
      return `set parallel to ${value}`;
    default:
      return `${kind.replace('_trial', '')} trial ${value}`;
  }
}

/** What the status line shows, and how (`done`, `pending`, `refused`: its colour). */
export interface IStatus {
  text: string;
  kind: 'done' | 'pending' | 'refused';
}

/** The status line of an answer: the driver's reply (done or refused) or that it has not answered yet. */
export function answerStatus(answer: ICommandAnswer): IStatus {
  return { text: answer.reply, kind: answer.state };
}

/**
 * The status line of a command that failed: a refusal (409: the driver, or
 * the server for it, said why not) shows its reason; any other error says
 * what could not be done and why.
 */
export function failureStatus(kind: CommandKind, value: number | null, error: { status?: number; message: string }): IStatus {
  if (error.status === 409) {
    return { text: error.message, kind: 'refused' };
  }
  return { text: `Cannot ${commandLabel(kind, value)}: ${error.message}`, kind: 'refused' };
}

/** `sending pause trial 3…`: the status line while a command waits for its answer. */
export function sendingStatus(kind: CommandKind, value: number | null): IStatus {
  return { text: `Sending ${commandLabel(kind, value)}…`, kind: 'pending' };
}
