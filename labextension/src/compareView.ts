/**
 * The comparison of several searches, opened from the sidebar: each one's best
 * score so far against trial number and against time since it started, one
 * line per search, and a table of where each ended. A search with several
 * objectives is compared by its first, and the view says so.
 */

import { MainAreaWidget } from '@jupyterlab/apputils';
import { Widget } from '@lumino/widgets';

import { compareTraces } from './analysisPlots';
import type { HpnbClient, ICompared } from './api';
import { drawPlot, purgePlots, resizePlots } from './plotting';
import { valueAxis } from './scales';
import { element } from './resume';
import { comparisonRows, comparisonTitle, severalObjectivesNote } from './selection';

/** Content of the comparison view. */
export class ComparePanel extends Widget {
  private readonly status = element('div', 'hpnb-compare-status');
  private readonly byTrial = element('div', 'hpnb-plot hpnb-compare-trials');
  private readonly byTime = element('div', 'hpnb-plot hpnb-compare-time');
  private readonly table = element('table', 'hpnb-leaderboard hpnb-compare-table');

  constructor(
    private readonly client: HpnbClient,
    readonly names: readonly string[]
  ) {
    super();
    this.addClass('hpnb-experiment-view');
    this.addClass('hpnb-compare-view');
    const trials = element('section', 'hpnb-section');
    trials.append(element('h3', '', 'Best so far, by trial'), this.byTrial);
    const time = element('section', 'hpnb-section');
    time.append(element('h3', '', 'Best so far, by time since the search started'), this.byTime);
    const row = element('div', 'hpnb-plots-row');
    row.append(trials, time);
    this.node.append(element('h2', '', `Comparison: ${comparisonTitle(names)}`), this.status, row, this.table);
  }

  /** Fetches the comparison and draws it. */
  async refresh(): Promise<void> {
    this.status.textContent = 'Loading…';
    let searches: ICompared[];
    try {
      searches = await this.client.compare(this.names);
    } catch (error) {
      this.status.textContent = `Cannot compare: ${(error as Error).message}`;
      this.status.classList.add('hpnb-error');
      return;
    }
    const metrics = [...new Set(searches.map(search => search.metric))];
    const different = metrics.length > 1 ? `These searches follow different metrics (${metrics.join(', ')}). ` : '';
    this.status.textContent = different + severalObjectivesNote(searches);
    const yaxis = valueAxis(`best ${metrics.join(', ')}`, searches.flatMap(search => search.best));
    const legend = { orientation: 'h', y: -0.25 };
    await Promise.all([
      drawPlot(this.byTrial, compareTraces(searches, false), { xaxis: { title: { text: 'trial' }, tickformat: 'd' }, yaxis, legend }),
      drawPlot(this.byTime, compareTraces(searches, true), { xaxis: { title: { text: 'minutes since the search started' } }, yaxis, legend })
    ]);
    this.table.replaceChildren();
    const header = this.table.createTHead().insertRow();
    for (const text of ['search', 'metric', 'finished trials', 'best']) {
      header.append(element('th', '', text));
    }
    const body = this.table.createTBody();
    for (const cells of comparisonRows(searches)) {
      const row = body.insertRow();
      row.append(...cells.map(text => element('td', '', text)));
    }
  }

  protected onAfterAttach(): void {
    void this.refresh();
  }

  protected onResize(): void {
    resizePlots([this.byTrial, this.byTime]);
  }

  dispose(): void {
    purgePlots([this.byTrial, this.byTime]);
    super.dispose();
  }
}

/** The comparison wrapped for the main area. */
export function createCompareView(client: HpnbClient, names: readonly string[]): MainAreaWidget<ComparePanel> {
  const widget = new MainAreaWidget({ content: new ComparePanel(client, names) });
  widget.id = `hpnb-compare-${names.join('-')}`;
  widget.title.label = `Compare: ${comparisonTitle(names)}`;
  widget.title.caption = `Comparison of ${names.join(', ')}`;
  widget.title.closable = true;
  return widget;
}
