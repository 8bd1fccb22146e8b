/**
 * The main-area view of one experiment: header with state and a Stop button
 * (Resume… when its driver died), leaderboard, metric curves and parallel coordinates. It reads only the
 * server routes, so it works for finished searches with no kernel running.
 */

import { MainAreaWidget } from '@jupyterlab/apputils';
import { Widget } from '@lumino/widgets';

import type { HpnbClient, IExperimentSummary, IResult, ITrial } from './api';
import { experimentAction, formatParam, formatProgress, formatScore, isActive, stateClass } from './format';
import { parameterNames, rankTrials } from './leaderboard';
import { curveTraces, parcoordsTrace } from './plots';
import { resumeButton, showResumeDialog } from './resume';

/** Time between two refreshes of a running experiment, in milliseconds. */
export const VIEW_REFRESH_MS = 3000;

/** Rows shown in the leaderboard. */
export const LEADERBOARD_ROWS = 100;

type PlotlyModule = typeof import('plotly.js-dist-min');

let plotly: Promise<PlotlyModule> | undefined;

/** plotly.js, loaded on first use (its own chunk). */
function loadPlotly(): Promise<PlotlyModule> {
  if (!plotly) {
    plotly = import('plotly.js-dist-min').then(
      module => ((module as unknown as { default?: PlotlyModule }).default ?? module) as PlotlyModule
    );
  }
  return plotly;
}

function section(title: string, className: string): [HTMLElement, HTMLDivElement] {
  const box = document.createElement('section');
  box.className = `hpnb-section ${className}`;
  const heading = document.createElement('h3');
  heading.textContent = title;
  const body = document.createElement('div');
  body.className = 'hpnb-section-body';
  box.append(heading, body);
  return [box, body];
}

function cell(tag: 'td' | 'th', text: string): HTMLTableCellElement {
  const node = document.createElement(tag);
  node.textContent = text;
  return node;
}

/** The leaderboard table, best trial first. */
function leaderboardTable(trials: ITrial[], experiment: IExperimentSummary): HTMLTableElement {
  const names = parameterNames(trials);
  const table = document.createElement('table');
  table.className = 'hpnb-leaderboard';
  const head = table.createTHead().insertRow();
  head.append(...['#', 'trial', experiment.metric, 'state', ...names].map(text => cell('th', text)));
  const body = table.createTBody();
  rankTrials(trials, experiment.mode)
    .slice(0, LEADERBOARD_ROWS)
    .forEach((trial, index) => {
      const row = body.insertRow();
      row.dataset.trial = String(trial.trial_id);
      row.append(
        cell('td', String(index + 1)),
        cell('td', String(trial.trial_id)),
        cell('td', formatScore(trial.score)),
        cell('td', trial.state.toLowerCase()),
        ...names.map(name => cell('td', name in trial.params ? formatParam(trial.params[name]) : ''))
      );
    });
  return table;
}

/** Content of the experiment view. */
export class ExperimentPanel extends Widget {
  private readonly header = document.createElement('div');
  private readonly stopButton = document.createElement('button');
  private readonly resumeButton: HTMLButtonElement;
  private readonly leaderboard: HTMLDivElement;
  private readonly curves: HTMLDivElement;
  private readonly parcoords: HTMLDivElement;
  private results: IResult[] = [];
  private cursor = 0;
  private busy = false;
  private timer: number | undefined;
  private experiment: IExperimentSummary | null = null;

  constructor(
    private readonly client: HpnbClient,
    readonly experimentName: string
  ) {
    super();
    this.addClass('hpnb-experiment-view');
    this.header.className = 'hpnb-view-header';
    this.stopButton.className = 'hpnb-stop jp-mod-styled jp-mod-warn';
    this.stopButton.textContent = 'Stop search';
    this.stopButton.addEventListener('click', () => void this.requestStop());
    this.resumeButton = resumeButton(experimentName);
    this.resumeButton.addEventListener('click', () => void showResumeDialog(this.experimentName));
    const [board, boardBody] = section('Leaderboard', 'hpnb-leaderboard-section');
    const [curves, curvesBody] = section('Metric curves', 'hpnb-curves-section');
    const [parcoords, parcoordsBody] = section('Parallel coordinates', 'hpnb-parcoords-section');
    this.leaderboard = boardBody;
    this.curves = curvesBody;
    this.parcoords = parcoordsBody;
    this.curves.classList.add('hpnb-plot', 'hpnb-curves');
    this.parcoords.classList.add('hpnb-plot', 'hpnb-parcoords');
    this.node.append(this.header, board, curves, parcoords);
  }

  /** Fetches the experiment, its trials and new results, and redraws. */
  async refresh(): Promise<void> {
    if (this.busy) {
      return;
    }
    this.busy = true;
    try {
      const [experiment, trials, fresh] = await Promise.all([
        this.client.experiment(this.experimentName),
        this.client.trials(this.experimentName),
        this.client.results(this.experimentName, this.cursor)
      ]);
      this.experiment = experiment;
      this.results.push(...fresh.results);
      this.cursor = fresh.next;
      this.renderHeader(experiment, '');
      this.leaderboard.replaceChildren(leaderboardTable(trials, experiment));
      await this.draw(trials, experiment);
      if (!isActive(experiment) && experiment.state !== 'INTERRUPTED') {
        this.stopPolling(); // an interrupted one is watched until someone resumes it: see tick()
      }
    } catch (error) {
      this.renderHeader(this.experiment, `Cannot load ${this.experimentName}: ${(error as Error).message}`);
    } finally {
      this.busy = false;
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
    if (plotly) {
      void plotly.then(Plotly => {
        for (const root of [this.curves, this.parcoords]) {
          if (root.querySelector('.plot-container')) {
            void Plotly.Plots.resize(root);
          }
        }
      });
    }
  }

  dispose(): void {
    this.stopPolling();
    if (plotly) {
      void plotly.then(Plotly => [this.curves, this.parcoords].forEach(root => Plotly.purge(root)));
    }
    super.dispose();
  }

  private stopPolling(): void {
    window.clearInterval(this.timer);
    this.timer = undefined;
  }

  private renderHeader(experiment: IExperimentSummary | null, error: string): void {
    const title = document.createElement('h2');
    title.textContent = this.experimentName;
    const parts: HTMLElement[] = [title];
    if (experiment) {
      const badge = document.createElement('span');
      badge.className = `hpnb-badge ${stateClass(experiment.state)}`;
      badge.textContent = experiment.state.toLowerCase();
      const summary = document.createElement('span');
      summary.className = 'hpnb-view-summary';
      const best = experiment.best ? formatScore(experiment.best.value) : '—';
      summary.textContent = `${experiment.strategy} · ${formatProgress(experiment)} · best ${experiment.mode} ${experiment.metric}: ${best}`;
      parts.push(badge, summary);
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
      const message = document.createElement('div');
      message.className = 'hpnb-error';
      message.textContent = error;
      parts.push(message);
    }
    this.header.replaceChildren(...parts);
  }

  private async draw(trials: ITrial[], experiment: IExperimentSummary): Promise<void> {
    const Plotly = await loadPlotly();
    const font = { color: getComputedStyle(this.node).getPropertyValue('--jp-ui-font-color1').trim() || '#333' };
    const base = { paper_bgcolor: 'rgba(0,0,0,0)', plot_bgcolor: 'rgba(0,0,0,0)', font, autosize: true };
    const config = { displaylogo: false, responsive: true };
    await Plotly.react(
      this.curves,
      curveTraces(this.results),
      {
        ...base,
        margin: { t: 10, r: 10, b: 40, l: 60 },
        xaxis: { title: { text: 'step' } },
        yaxis: { title: { text: experiment.metric } }
      },
      config
    );
    const trace = parcoordsTrace(trials, experiment.metric, experiment.mode);
    await Plotly.react(this.parcoords, trace ? [trace] : [], { ...base, margin: { t: 40, r: 40, b: 20, l: 40 } }, config);
  }

  private async requestStop(): Promise<void> {
    this.stopButton.disabled = true;
    this.stopButton.textContent = 'Stopping…';
    try {
      await this.client.stop(this.experimentName);
    } catch (error) {
      this.renderHeader(this.experiment, `Cannot stop ${this.experimentName}: ${(error as Error).message}`);
      this.stopButton.disabled = false;
      return;
    }
    await this.refresh();
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
