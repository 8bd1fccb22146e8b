/**
 * The "Hyperparameter searches" panel of the left area: every experiment in
 * the store, refreshed while the panel is visible, with a filter box, a Stop
 * button on searches a driver works on and Resume… on interrupted ones. A row
 * shows the best value, or the Pareto front's size with several objectives.
 */

import { Widget } from '@lumino/widgets';

import type { HpnbClient, IExperimentSummary } from './api';
import { patchChildren } from './domPatch';
import {
  experimentAction,
  formatAge,
  formatProgress,
  progressFraction,
  stateClass
} from './format';
import { goalText, outcomeText } from './objectives';
import { groupByOwner } from './ownerGroups';
import { element, resumeButton, showResumeDialog } from './resume';
import { canCompare, toggle } from './selection';

/** Time between two refreshes of the list, in milliseconds. */
export const SIDEBAR_REFRESH_MS = 2500;

/** Whether an experiment matches the filter text (name, state, strategy or metric). */
export function matchesFilter(experiment: IExperimentSummary, filter: string): boolean {
  const needle = filter.trim().toLowerCase();
  if (!needle) {
    return true;
  }
  return [experiment.name, experiment.state, experiment.strategy, experiment.metric].some(field =>
    String(field ?? '')
      .toLowerCase()
      .includes(needle)
  );
}


/** Stop or Resume… for a row, as the server's `active`/`resumable` fields say; null for neither. */
function actionButton(experiment: IExperimentSummary, stopping: boolean): HTMLButtonElement | null {
  const action = experimentAction(experiment);
  if (action === 'resume') {
    const button = resumeButton(experiment.name, 'hpnb-experiment-action');
    button.dataset.action = 'resume';
    return button;
  }
  if (action === 'stop') {
    const pending = stopping || experiment.stop_requested;
    const button = element(
      'button',
      'hpnb-stop hpnb-experiment-action jp-mod-styled jp-mod-warn',
      pending ? 'Stopping…' : 'Stop'
    );
    button.type = 'button';
    button.title = `Ask ${experiment.name} to stop`;
    button.disabled = pending;
    button.dataset.action = 'stop';
    return button;
  }
  return null;
}

/** One row of the list. */
function experimentItem(
  experiment: IExperimentSummary,
  now: number,
  stopping: boolean,
  checked: boolean
): HTMLLIElement {
  const item = element('li', checked ? 'hpnb-experiment hpnb-experiment-checked' : 'hpnb-experiment');
  item.dataset.name = experiment.name;
  item.title = `Open ${experiment.name}`;

  const head = element('div', 'hpnb-experiment-head');
  const side = element('span', 'hpnb-experiment-side');
  const action = actionButton(experiment, stopping);
  if (action) {
    side.append(action);
  }
  side.append(element('span', `hpnb-badge ${stateClass(experiment.state)}`, experiment.state.toLowerCase()));
  const check = element('input', 'hpnb-compare-check');
  check.type = 'checkbox';
  check.checked = checked;
  check.title = `Select ${experiment.name} to compare it with others`;
  const title = element('span', 'hpnb-experiment-title');
  title.append(check, element('span', 'hpnb-experiment-name', experiment.name));
  head.append(title, side);

  const bar = element('div', 'hpnb-progress');
  const fill = element('div', 'hpnb-progress-fill');
  fill.style.width = `${Math.round(100 * progressFraction(experiment.done, experiment.budget))}%`;
  bar.append(fill);

  const details = element('div', 'hpnb-experiment-details');
  const outcome = element('span', 'hpnb-experiment-best', outcomeText(experiment, ''));
  outcome.title = goalText(experiment);
  details.append(
    element('span', 'hpnb-experiment-progress', formatProgress(experiment)),
    outcome,
    element('span', 'hpnb-experiment-age', `${experiment.strategy} · ${formatAge(experiment.updated, now)}`)
  );
  if (experiment.group === 'team' && experiment.owner) {
    details.append(element('span', 'hpnb-experiment-owner', experiment.owner));
  }
  item.append(head, bar, details);
  return item;
}

/** The sidebar panel. */
export class ExperimentsSidebar extends Widget {
  private readonly filterInput: HTMLInputElement;
  private readonly list: HTMLUListElement;
  private readonly status: HTMLDivElement;
  private experiments: IExperimentSummary[] = [];
  private error = '';
  /** Error of the last Stop, shown until the next action. */
  private actionError = '';
  /** Names whose stop request is on its way (their button stays disabled). */
  private readonly stopping = new Set<string>();
  private timer: number | undefined;
  /** Searches ticked for a comparison, in the order they were ticked. */
  private readonly checked: string[] = [];
  private readonly compareButton: HTMLButtonElement;

  constructor(
    private readonly client: HpnbClient,
    private readonly open: (name: string) => void,
    private readonly compare: (names: string[]) => void = () => undefined,
    /** Called whenever the panel is shown (a view may open next: its plots can get ready). */
    private readonly shown: () => void = () => undefined
  ) {
    super();
    this.addClass('hpnb-sidebar');
    this.node.append(element('h2', 'hpnb-sidebar-title', 'Hyperparameter searches'));
    this.filterInput = element('input', 'hpnb-filter jp-mod-styled');
    this.filterInput.type = 'search';
    // short enough for the sidebar's default width; the tooltip says what it matches
    this.filterInput.placeholder = 'Filter searches';
    this.filterInput.title = 'Filter by name, state, strategy or metric';
    this.filterInput.addEventListener('input', () => this.render());
    this.status = element('div', 'hpnb-sidebar-status');
    this.list = element('ul', 'hpnb-experiment-list');
    this.list.addEventListener('click', event => this.onClick(event));
    this.compareButton = element('button', 'hpnb-compare jp-mod-styled jp-mod-accept', 'Compare');
    this.compareButton.type = 'button';
    this.compareButton.addEventListener('click', () => this.compare([...this.checked]));
    const bar = element('div', 'hpnb-compare-bar');
    bar.append(element('span', 'hpnb-compare-hint', 'Tick searches (or Ctrl-click them) to compare them.'), this.compareButton);
    this.node.append(this.filterInput, bar, this.status, this.list);
  }

  /** Fetches the list now and redraws it. */
  async refresh(): Promise<void> {
    try {
      this.experiments = await this.client.experiments();
      this.error = '';
    } catch (error) {
      this.error = `Cannot load experiments: ${(error as Error).message}`;
    }
    this.render();
  }

  protected onAfterShow(): void {
    this.shown();
    void this.refresh();
    this.startPolling();
  }

  protected onAfterAttach(): void {
    if (this.isVisible) {
      this.shown();
      void this.refresh();
      this.startPolling();
    }
  }

  protected onBeforeHide(): void {
    this.stopPolling();
  }

  protected onBeforeDetach(): void {
    this.stopPolling();
  }

  dispose(): void {
    this.stopPolling();
    super.dispose();
  }

  private startPolling(): void {
    if (this.timer === undefined) {
      this.timer = window.setInterval(() => void this.refresh(), SIDEBAR_REFRESH_MS);
    }
  }

  private stopPolling(): void {
    window.clearInterval(this.timer);
    this.timer = undefined;
  }

  private render(): void {
    const now = Date.now() / 1000;
    const shown = this.experiments.filter(experiment => matchesFilter(experiment, this.filterInput.value));
    for (const experiment of this.experiments) {
      if (experiment.stop_requested || experimentAction(experiment) !== 'stop') {
        this.stopping.delete(experiment.name);
      }
    }
    const item = (experiment: IExperimentSummary): HTMLLIElement =>
      experimentItem(experiment, now, this.stopping.has(experiment.name), this.checked.includes(experiment.name));
    const heading = (text: string): HTMLLIElement => element('li', 'hpnb-group-heading', text);
    // in place: a click pressed on a row just before a refresh still opens it
    patchChildren(this.list, groupByOwner(shown, item, heading));
    const known = new Set(this.experiments.map(experiment => experiment.name));
    this.checked.splice(0, this.checked.length, ...this.checked.filter(name => known.has(name)));
    this.compareButton.disabled = !canCompare(this.checked.length);
    this.compareButton.textContent = this.checked.length ? `Compare ${this.checked.length}` : 'Compare';
    let message = this.error || this.actionError;
    if (!message && shown.length === 0) {
      message = this.experiments.length
        ? 'No experiment matches the filter.'
        : 'No experiments yet: run a %%hpsearch cell.';
    }
    this.status.textContent = message;
  }

  private onClick(event: MouseEvent): void {
    const target = event.target as HTMLElement;
    const item = target.closest<HTMLElement>('.hpnb-experiment');
    const name = item?.dataset.name;
    if (!name) {
      return;
    }
    if (target.classList.contains('hpnb-compare-check') || event.ctrlKey || event.metaKey) {
      event.stopPropagation();
      toggle(this.checked, name);
      this.render();
      return;
    }
    const button = target.closest<HTMLButtonElement>('button[data-action]');
    if (button) {
      event.stopPropagation();
      this.actionError = '';
      if (button.dataset.action === 'resume') {
        void showResumeDialog(name);
      } else if (button.dataset.action === 'stop' && !button.disabled) {
        void this.requestStop(name, button);
      }
      return;
    }
    this.open(name);
  }

  private async requestStop(name: string, button: HTMLButtonElement): Promise<void> {
    this.stopping.add(name);
    button.disabled = true;
    button.textContent = 'Stopping…';
    try {
      await this.client.stop(name);
    } catch (error) {
      this.stopping.delete(name);
      this.actionError = `Cannot stop ${name}: ${(error as Error).message}`;
    }
    await this.refresh();
  }
}
