/**
 * The experiment view's controls of a running search, the cell dashboard's
 * own: stop, pause or resume the selected trial, extend the budget, set how
 * many trials run at once; and a status line with the driver's answer to the
 * last command (what it did, or why it refused). What is enabled when, and
 * the words, are the pure functions of `commands.ts`; this is the DOM.
 */

import type { HpnbClient } from './api';
import {
  answerStatus,
  checkedCount,
  controlStates,
  failureStatus,
  MAX_COUNT,
  sendingStatus,
  type CommandKind,
  type IControl,
  type ISelectedTrial,
  type IStatus,
  type ISteeredSearch
} from './commands';
import { element } from './resume';

function button(className: string, label: string): HTMLButtonElement {
  const node = element('button', `${className} jp-mod-styled`, label);
  node.type = 'button';
  return node;
}

function countInput(className: string, value: number, max: number): HTMLInputElement {
  const input = element('input', `${className} jp-mod-styled`);
  Object.assign(input, { type: 'number', min: '1', max: String(max), step: '1', value: String(value) });
  return input;
}

function group(title: string, ...children: HTMLElement[]): HTMLElement {
  const box = element('div', 'hpnb-control-group');
  box.append(element('span', 'hpnb-group-title', title), ...children);
  return box;
}

function apply(node: HTMLButtonElement, state: IControl, busy: boolean): void {
  node.disabled = busy || !state.enabled;
  node.title = state.title;
}

/** The controls bar and status line; `update` after each refresh and selection. */
export class SearchControls {
  readonly node = element('div', 'hpnb-controls');
  /** The status line: kept when the bar hides (the search ended), so the last answer stays shown. */
  readonly status = element('div', 'hpnb-command-status');
  private readonly selectedLabel = element('span', 'hpnb-selected-trial');
  private readonly stopTrial = button('hpnb-stop-trial', 'Stop');
  private readonly pauseTrial = button('hpnb-pause-trial', 'Pause');
  private readonly resumeTrial = button('hpnb-resume-trial', 'Resume');
  private readonly extend = button('hpnb-extend', 'Extend by');
  private readonly extendBy = countInput('hpnb-extend-by', 10, MAX_COUNT.extend);
  private readonly parallel = button('hpnb-set-parallel', 'Set parallel');
  private readonly parallelTo = countInput('hpnb-parallel-to', 1, MAX_COUNT.parallel);
  /** The parallelism last shown in the field, to keep what the user typed since. */
  private shownParallel: number | null = null;
  private busy = false;
  /** The last command, while its answer has not come: read again at each update. */
  private pending: number | null = null;
  private following = false;
  private search: ISteeredSearch | null = null;
  private selected: ISelectedTrial | null = null;

  constructor(
    private readonly client: HpnbClient,
    private readonly name: string,
    /** Called after each answer (to refresh the view at once). */
    private readonly onAnswer: () => void
  ) {
    const onTrial = (kind: CommandKind) => () => {
      if (this.selected) {
        void this.send(kind, this.selected.trial_id);
      }
    };
    this.stopTrial.addEventListener('click', onTrial('stop_trial'));
    this.pauseTrial.addEventListener('click', onTrial('pause_trial'));
    this.resumeTrial.addEventListener('click', onTrial('resume_trial'));
    this.extend.addEventListener('click', () => void this.sendCount('extend', this.extendBy.value));
    this.parallel.addEventListener('click', () => void this.sendCount('parallel', this.parallelTo.value));
    this.node.append(
      group('selected', this.selectedLabel, this.stopTrial, this.pauseTrial, this.resumeTrial),
      group('budget', this.extend, this.extendBy, this.parallel, this.parallelTo)
    );
    this.node.hidden = true;
  }

  /** Enables what makes sense for the search and the selected trial, and shows its parallelism. */
  update(search: ISteeredSearch & { parallel?: number | null }, selected: ISelectedTrial | null): void {
    this.search = search;
    this.selected = selected;
    const states = controlStates(search, selected);
    this.node.hidden = !search.active;
    this.selectedLabel.textContent = selected === null ? 'none' : `trial ${selected.trial_id}${selected.state ? ` · ${selected.state.toLowerCase()}` : ''}`;
    apply(this.stopTrial, states.stopTrial, this.busy);
    apply(this.pauseTrial, states.pauseTrial, this.busy);
    apply(this.resumeTrial, states.resumeTrial, this.busy);
    apply(this.extend, states.extend, this.busy);
    apply(this.parallel, states.parallel, this.busy);
    if (this.pending !== null && !this.following) {
      void this.follow(this.pending);
    }
    const now = search.parallel ?? null;
    if (now !== null && now !== this.shownParallel) {
      if (this.shownParallel === null || this.parallelTo.value === String(this.shownParallel)) {
        this.parallelTo.value = String(now);
      }
      this.shownParallel = now;
    }
  }

  /** Shows `status` in the status line. */
  show(status: IStatus): void {
    this.status.textContent = status.text;
    this.status.className = `hpnb-command-status hpnb-command-${status.kind}`;
  }

  /** Sends `kind` with `value` and shows the answer; resolves once it is shown. */
  async send(kind: CommandKind, value: number | null): Promise<void> {
    this.setBusy(true);
    this.show(sendingStatus(kind, value));
    this.pending = null;
    try {
      const answer = await this.client.command(this.name, kind, value);
      this.pending = answer.state === 'pending' ? answer.id : null;
      this.show(answerStatus(answer));
    } catch (error) {
      this.show(failureStatus(kind, value, error as { status?: number; message: string }));
    } finally {
      this.setBusy(false);
    }
    this.onAnswer();
  }

  /** Reads the answer to command `id` again; shows it once the driver gave it. */
  private async follow(id: number): Promise<void> {
    this.following = true;
    try {
      const answer = await this.client.commandAnswer(this.name, id);
      if (answer.state !== 'pending' && this.pending === id) {
        this.pending = null;
        this.show(answerStatus(answer));
      }
    } catch {
      // the next update reads it again
    } finally {
      this.following = false;
    }
  }

  private async sendCount(kind: 'extend' | 'parallel', text: string): Promise<void> {
    const count = checkedCount(kind, text);
    if (typeof count === 'string') {
      this.show({ text: count, kind: 'refused' });
      return;
    }
    await this.send(kind, count);
  }

  private setBusy(busy: boolean): void {
    this.busy = busy;
    if (this.search) {
      this.update(this.search, this.selected);
    }
  }
}
