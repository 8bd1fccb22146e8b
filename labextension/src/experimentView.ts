/**
 * The main-area view of one experiment: header with state, the best value (or
 * the Pareto front's size with several objectives) and a Stop button
 * (Resume… when its driver died), while it runs the controls of its selected
 * trial and budget with the driver's answers, the optimization history
 * (always) with the metric curves beside it when trials report steps, tabs of parallel
 * coordinates, importance, slices and contour, the leaderboard as a sortable
 * table, and the selected trial's log. It reads only the server routes, each
 * bounded, so it opens as fast for 10,000 trials as for 10, and works for
 * finished searches with no kernel running.
 */

import { MainAreaWidget } from '@jupyterlab/apputils';
import { Widget } from '@lumino/widgets';

import type { HpnbClient, ICurves, IExperimentSummary, IHistory, ILeaderboardPage } from './api';
import { experimentAction, formatProgress, formatStrategy, isActive, stateClass } from './format';
import { InsightTabs } from './insightTabs';
import { goalText, hasSeveral, outcomeText } from './objectives';
import { curveSelection, curveTraces, historyPosition, historyTraces, rowInHistory, stepAxis, type MarkedTrial } from './plots';
import { drawPlot, followRedraws, purgePlots, resizePlots, restylePlot } from './plotting';
import { showPointMark } from './pointMark';
import { valueAxis, waitingLayout } from './scales';
import { element, resumeButton, showResumeDialog } from './resume';
import { SearchControls } from './searchControls';
import { TrialLogPanel } from './trialLog';
import { PAGE_ROWS, TrialTable } from './trialTable';

/** Time between two refreshes of a running experiment, in milliseconds. */
export const VIEW_REFRESH_MS = 3000;
/** What the history's plot area says before a trial finished with a score (the cell's words). */
export const HISTORY_WAITING = 'waiting for the first trial to finish with a score';

/** Resolves after the browser painted the next frame. */
function nextFrame(): Promise<void> {
  return new Promise(resolve => requestAnimationFrame(() => setTimeout(resolve, 0)));
}

function section(title: string, className: string): [HTMLElement, HTMLDivElement] {
  const box = element('section', `hpnb-section ${className}`);
  const body = element('div', 'hpnb-section-body');
  box.append(element('h3', '', title), body);
  return [box, body];
}

/** Content of the experiment view. */
export class ExperimentPanel extends Widget {
  private readonly header = element('div', 'hpnb-view-header');
  private readonly stopButton = element('button', 'hpnb-stop jp-mod-styled jp-mod-warn', 'Stop search');
  private readonly resumeButton: HTMLButtonElement;
  private readonly historyPlot = element('div', 'hpnb-plot hpnb-history');
  private readonly historyOrder = element('select', 'hpnb-history-order jp-mod-styled');
  private readonly curvesBox: HTMLElement;
  private readonly curvesPlot = element('div', 'hpnb-plot hpnb-curves');
  private readonly tabs: InsightTabs;
  private readonly table: TrialTable;
  private readonly log: TrialLogPanel;
  private readonly controls: SearchControls;
  private history: IHistory | null = null;
  private curves: ICurves | null = null;
  private page: ILeaderboardPage | null = null;
  private selected: number | null = null;
  /** Where the selected trial is marked in the history (its point, or its row's score). */
  private marked: MarkedTrial | null = null;
  /** Trial id of each curve in the order drawn (the selected one was drawn last). */
  private curveOrder: number[] = [];
  private busy = false;
  private timer: number | undefined;
  private experiment: IExperimentSummary | null = null;

  constructor(
    private readonly client: HpnbClient,
    readonly experimentName: string
  ) {
    super();
    this.addClass('hpnb-experiment-view');
    this.stopButton.addEventListener('click', () => void this.requestStop());
    this.resumeButton = resumeButton(experimentName);
    this.resumeButton.addEventListener('click', () => void showResumeDialog(this.experimentName));
    const select = (id: number) => void this.select(id);
    this.tabs = new InsightTabs(client, experimentName, select);
    this.table = new TrialTable(() => void this.loadPage(), select);
    this.log = new TrialLogPanel(client, experimentName);
    this.controls = new SearchControls(client, experimentName, () => void this.refresh());

    for (const [value, label] of [['trial', 'by trial number'], ['end', 'by end time']]) {
      this.historyOrder.append(Object.assign(element('option', '', label), { value }));
    }
    this.historyOrder.addEventListener('change', () => void this.reloadHistory());
    const [history, historyBody] = section('Optimization history', 'hpnb-history-section');
    historyBody.append(this.historyOrder, this.historyPlot);
    const [curves, curvesBody] = section('Metric curves', 'hpnb-curves-section');
    curvesBody.append(this.curvesPlot);
    this.curvesBox = curves;
    this.curvesBox.hidden = true;
    const row = element('div', 'hpnb-plots-row');
    row.append(history, curves);
    const [board, boardBody] = section('Leaderboard', 'hpnb-leaderboard-section');
    boardBody.append(this.table.node);
    this.node.append(this.header, this.controls.node, this.controls.status, row, this.tabs.node, board, this.log.node);
  }

  /** The selected trial, or null. */
  get selectedTrial(): number | null {
    return this.selected;
  }

  /** Fetches the summary, the leaderboard page, the history and the curves, and redraws. */
  async refresh(): Promise<void> {
    if (this.busy) {
      return;
    }
    this.busy = true;
    try {
      const trial = this.selected ?? undefined;
      const [experiment, page, history, curves] = await Promise.all([
        this.client.experiment(this.experimentName),
        this.fetchPage(),
        this.client.history(this.experimentName, this.historyOrder.value as 'trial' | 'end', trial),
        this.client.curves(this.experimentName, trial)
      ]);
      Object.assign(this, { experiment, page, history, curves });
      this.renderHeader(experiment, '');
      this.updateControls();
      this.table.render(page, this.selected, Date.now() / 1000);
      this.showSelectedRanks(page);
      await Promise.all([this.drawHistory(), this.drawCurves()]);
      await nextFrame(); // the table and the plots above are shown before the tab's (WebGL) plot is drawn
      this.tabs.setObjectives(experiment.objectives ?? []);
      await this.tabs.refresh(this.selected);
      if (!isActive(experiment) && experiment.state !== 'INTERRUPTED') {
        this.stopPolling(); // an interrupted one is watched until someone resumes it: see tick()
      }
    } catch (error) {
      this.renderHeader(this.experiment, `Cannot load ${this.experimentName}: ${(error as Error).message}`);
    } finally {
      this.busy = false;
    }
  }

  /** Selects a trial: its row, point and line are highlighted, and its log shown. */
  async select(trialId: number): Promise<void> {
    this.selected = trialId;
    this.table.highlight(trialId);
    this.updateControls();
    const row = this.page?.rows.find(item => item.trial_id === trialId);
    const inCurves = this.curves?.curves.some(curve => curve.trial_id === trialId);
    this.marked = this.history?.points.find(point => point.trial_id === trialId) ?? rowInHistory(row, hasSeveral(this.experiment?.objectives));
    await Promise.all([
      this.tabs.select(trialId), // first: the parallel coordinates only move their selected line
      this.log.show(trialId, row?.params ?? null),
      this.showHistoryMark() ? Promise.resolve() : this.reloadHistory(),
      inCurves ? this.restyleCurves() : this.reloadCurves()
    ]);
  }

  /** The selected trial's ranks, as its row on this page says them, follow into its log panel. */
  private showSelectedRanks(page: ILeaderboardPage): void {
    const row = page.rows.find(item => item.trial_id === this.selected);
    if (row && this.selected !== null) {
      this.log.updateRanks(this.selected, row.ranks ?? null);
    }
  }

  /** The controls follow the search's state and the selected trial's (as its leaderboard row shows it). */
  private updateControls(): void {
    if (!this.experiment) {
      return;
    }
    const row = this.page?.rows.find(item => item.trial_id === this.selected);
    this.controls.update(this.experiment, this.selected === null ? null : { trial_id: this.selected, state: row?.state ?? null });
  }

  /** Marks the selected trial over the history; false when it cannot (not drawn, or not in it). */
  private showHistoryMark(): boolean {
    const position = this.marked && this.history ? historyPosition(this.marked, this.history.order === 'end') : null;
    const mark = position && this.marked ? { trialId: this.marked.trial_id, x: position[0], y: position[1] } : null;
    return showPointMark(this.historyPlot, mark) || this.selected === null;
  }

  /** Makes the selected trial's curve red and thick, the others faded (a style edit). */
  private async restyleCurves(): Promise<void> {
    const ids = this.curveOrder;
    if (!(await restylePlot(this.curvesPlot, curveSelection(ids, this.selected), ids.map((_, i) => i)))) {
      await this.drawCurves();
    }
  }

  protected onAfterAttach(): void {
    void this.refresh();
    this.timer = window.setInterval(() => void this.tick(), VIEW_REFRESH_MS);
  }

  /**
   * One poll: a full refresh, except for a search nobody drives (interrupted),
   * where only its summary is fetched until it changes (resumed elsewhere).
   */
  private async tick(): Promise<void> {
    const last = this.experiment;
    if (last && !isActive(last) && !this.busy) {
      try {
        const now = await this.client.experiment(this.experimentName);
        if (now.state === last.state && now.updated === last.updated && now.done === last.done) {
          return;
        }
      } catch {
        return; // the next tick tries again
      }
    }
    await this.refresh();
  }

  protected onBeforeDetach(): void {
    this.stopPolling();
  }

  protected onResize(): void {
    resizePlots([this.historyPlot, this.curvesPlot]);
    this.tabs.resize();
  }

  dispose(): void {
    this.stopPolling();
    purgePlots([this.historyPlot, this.curvesPlot]);
    this.tabs.dispose();
    super.dispose();
  }

  private stopPolling(): void {
    window.clearInterval(this.timer);
    this.timer = undefined;
  }

  private fetchPage(): Promise<ILeaderboardPage> {
    const { sort, offset } = this.table;
    return this.client.leaderboard(this.experimentName, { offset, limit: PAGE_ROWS, sort: sort.column, order: sort.order });
  }

  private async loadPage(): Promise<void> {
    try {
      this.page = await this.fetchPage();
      this.table.render(this.page, this.selected, Date.now() / 1000);
      this.updateControls();
    } catch (error) {
      this.renderHeader(this.experiment, `Cannot load the leaderboard: ${(error as Error).message}`);
    }
  }

  private async reloadHistory(): Promise<void> {
    this.history = await this.client.history(this.experimentName, this.historyOrder.value as 'trial' | 'end', this.selected ?? undefined);
    await this.drawHistory();
  }

  private async reloadCurves(): Promise<void> {
    this.curves = await this.client.curves(this.experimentName, this.selected ?? undefined);
    await this.drawCurves();
  }

  private async drawHistory(): Promise<void> {
    if (!this.history) {
      return;
    }
    const points = this.history.points;
    if (points.length === 0) {
      await drawPlot(this.historyPlot, [], waitingLayout(HISTORY_WAITING));
      return;
    }
    const byEnd = this.history.order === 'end';
    const metric = hasSeveral(this.experiment?.objectives) ? `${this.history.metric} (the first objective)` : this.history.metric;
    const scores = [...points.map(point => point.score), ...points.map(point => point.best), this.marked?.score];
    const layout = {
      xaxis: byEnd ? { title: { text: 'end time' }, type: 'date' } : { title: { text: 'trial' }, tickformat: 'd', rangemode: 'tozero' },
      yaxis: valueAxis(metric, scores),
      legend: { orientation: 'h', y: 1.12 },
      annotations: []
    };
    await drawPlot(this.historyPlot, historyTraces(points, byEnd), layout, id => void this.select(id));
    this.marked = points.find(point => point.trial_id === this.selected) ?? this.marked;
    followRedraws(this.historyPlot, () => void this.showHistoryMark());
    this.showHistoryMark();
  }

  private async drawCurves(): Promise<void> {
    const curves = this.curves?.curves ?? [];
    this.curvesBox.hidden = curves.length === 0;
    if (curves.length === 0) {
      return;
    }
    const layout = { xaxis: stepAxis(curves), yaxis: valueAxis(this.curves?.metric ?? '', curves.flatMap(curve => curve.y)), showlegend: false };
    const traces = curveTraces(curves, this.selected);
    this.curveOrder = traces.map(trace => (trace.customdata as number[])[0]);
    await drawPlot(this.curvesPlot, traces, layout, id => void this.select(id));
  }

  private renderHeader(experiment: IExperimentSummary | null, error: string): void {
    const parts: HTMLElement[] = [element('h2', '', this.experimentName)];
    if (experiment) {
      const summary = element('span', 'hpnb-view-summary', `${formatStrategy(experiment)} · ${formatProgress(experiment)} · ${outcomeText(experiment)}`);
      summary.title = goalText(experiment);
      parts.push(element('span', `hpnb-badge ${stateClass(experiment.state)}`, experiment.state.toLowerCase()), summary);
      const action = experimentAction(experiment);
      if (action === 'stop') {
        this.stopButton.disabled = experiment.stop_requested;
        this.stopButton.textContent = experiment.stop_requested ? 'Stopping…' : 'Stop search';
        parts.push(this.stopButton);
      } else if (action === 'resume') {
        parts.push(this.resumeButton);
      }
    }
    if (error) {
      parts.push(element('div', 'hpnb-error', error));
    }
    this.header.replaceChildren(...parts);
  }

  /** Sends a stop command; the status line shows the driver's answer, and the view refreshes. */
  private async requestStop(): Promise<void> {
    this.stopButton.disabled = true;
    this.stopButton.textContent = 'Stopping…';
    await this.controls.send('stop', null);
  }
}

/** The view wrapped for the main area. */
export function createExperimentView(client: HpnbClient, name: string): MainAreaWidget<ExperimentPanel> {
  const content = new ExperimentPanel(client, name);
  const widget = new MainAreaWidget({ content });
  widget.id = `hpnb-experiment-${name}`;
  widget.title.label = `Search: ${name}`;
  widget.title.caption = `Hyperparameter search ${name}`;
  widget.title.closable = true;
  widget.addClass('hpnb-experiment-main');
  return widget;
}
