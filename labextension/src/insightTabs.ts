/**
 * The tabs of the experiment view below its history: the Pareto front (with
 * several objectives: the first tab, shown first), parallel coordinates,
 * parameter importance, slices (one parameter at a time, chosen in a
 * selector) and the contour of two parameters. A tab fetches its data when it
 * is shown, and again after the search changed.
 */

import { contourTraces, parameterAxis, slicePositions, sliceTraces } from './analysisPlots';
import type { HpnbClient, IObjective, IPareto, IParcoordsData, ISlices } from './api';
import { hasSeveral, importanceTraces, paretoLayout, paretoMessage, paretoTraces } from './objectives';
import { clearParallelCoordinates, drawParallelCoordinates, lineValues, markLine, type IParallelTrace } from './parallelCoordinates';
import { drawPlot, purgePlots, resizePlots } from './plotting';
import { valueAxis } from './scales';
import { sameAxes, selectedLineOf, type ILineSource } from './selectedLine';
import { element } from './resume';

/** The tabs, in order. */
export const TABS = ['pareto', 'parcoords', 'importance', 'slices', 'contour'] as const;
export type TabName = (typeof TABS)[number];
const LABELS: Record<TabName, string> = {
  pareto: 'Pareto front',
  parcoords: 'Parallel coordinates',
  importance: 'Importance',
  slices: 'Slices',
  contour: 'Contour'
};

interface ITab {
  button: HTMLButtonElement;
  pane: HTMLElement;
  plot: HTMLDivElement;
  message: HTMLDivElement;
  controls: HTMLDivElement;
  stale: boolean;
}

function select(className: string, label: string): [HTMLLabelElement, HTMLSelectElement] {
  const box = element('label', 'hpnb-select-label', `${label} `);
  const node = element('select', `${className} jp-mod-styled`);
  box.append(node);
  return [box, node];
}

function fillSelect(node: HTMLSelectElement, names: readonly string[], chosen: string): void {
  node.replaceChildren(...names.map(name => Object.assign(element('option', '', name), { value: name })));
  node.value = names.includes(chosen) ? chosen : names[0] ?? '';
}

/** The tab bar and its panes. */
export class InsightTabs {
  readonly node = element('section', 'hpnb-section hpnb-insight');
  active: TabName = 'parcoords';
  /** A tab was clicked: the Pareto tab does not take its place when it appears. */
  private chosen = false;
  private readonly tabs = {} as Record<TabName, ITab>;
  private selected: number | null = null;
  private parcoords: IParcoordsData | null = null;
  /** The parallel coordinates drawn, and where the selected trial's line goes on them. */
  private drawnTrace: IParallelTrace | null = null;
  private selectedLine: ILineSource | null = null;
  private pareto: IPareto | null = null;
  /** How many loads of each tab were asked for: an answer to an older one is not drawn. */
  private readonly asked: Partial<Record<TabName, number>> = {};
  private slices: ISlices | null = null;
  private readonly sliceParam: HTMLSelectElement;
  private readonly evaluator: HTMLSelectElement;
  private readonly contourX: HTMLSelectElement;
  private readonly contourY: HTMLSelectElement;
  private readonly paretoX: HTMLSelectElement;
  private readonly paretoY: HTMLSelectElement;

  constructor(
    private readonly client: HpnbClient,
    private readonly experimentName: string,
    private readonly onSelect: (trialId: number) => void
  ) {
    const bar = element('div', 'hpnb-tabbar');
    bar.setAttribute('role', 'tablist');
    this.node.append(bar);
    for (const name of TABS) {
      const button = element('button', 'hpnb-tab', LABELS[name]);
      button.dataset.tab = name;
      button.setAttribute('role', 'tab');
      button.addEventListener('click', () => {
        this.chosen = true;
        void this.activate(name);
      });
      const pane = element('div', `hpnb-tab-pane hpnb-pane-${name}`);
      const controls = element('div', 'hpnb-tab-controls');
      const message = element('div', 'hpnb-tab-message');
      const plot = element('div', `hpnb-plot hpnb-${name}`);
      pane.append(controls, message, plot);
      bar.append(button);
      this.node.append(pane);
      this.tabs[name] = { button, pane, plot, message, controls, stale: true };
    }
    let label: HTMLLabelElement;
    [label, this.evaluator] = select('hpnb-evaluator', 'Evaluator');
    fillSelect(this.evaluator, ['fanova', 'ped-anova'], 'fanova');
    this.evaluator.addEventListener('change', () => void this.reload('importance'));
    this.tabs.importance.controls.append(label);
    [label, this.sliceParam] = select('hpnb-slice-param', 'Parameter');
    this.sliceParam.addEventListener('change', () => void this.drawSlice());
    this.tabs.slices.controls.append(label);
    [this.contourX, this.contourY] = this.pairSelectors('contour');
    [this.paretoX, this.paretoY] = this.pairSelectors('pareto');
    this.tabs.pareto.button.hidden = true;
    this.showActive();
  }

  /** The x and y selectors of tab `name`; a change reloads it. */
  private pairSelectors(name: 'contour' | 'pareto'): [HTMLSelectElement, HTMLSelectElement] {
    const [xLabel, x] = select(`hpnb-${name}-x`, 'x');
    const [yLabel, y] = select(`hpnb-${name}-y`, 'y');
    for (const node of [x, y]) {
      node.addEventListener('change', () => void this.reload(name));
    }
    this.tabs[name].controls.append(xLabel, yLabel);
    return [x, y];
  }

  /**
   * What the search optimises. The first time it has several objectives, the
   * Pareto tab appears and is shown (unless another tab was chosen); with more
   * than two, its x and y selectors offer every objective.
   */
  setObjectives(objectives: readonly IObjective[]): void {
    const several = hasSeveral(objectives);
    const first = several && this.tabs.pareto.button.hidden;
    this.tabs.pareto.button.hidden = !several;
    this.tabs.pareto.controls.hidden = objectives.length < 3;
    if (first && !this.chosen) {
      this.active = 'pareto';
      this.showActive();
    }
  }

  /** The search changed: the shown tab is fetched again, the others when shown. */
  async refresh(selected: number | null): Promise<void> {
    this.selected = selected;
    TABS.forEach(name => (this.tabs[name].stale = true));
    await this.load(this.active);
  }

  /**
   * Another trial was selected: the shown tab highlights it. The parallel
   * coordinates only move their selected line, for a trial they hold or one
   * whose line (asked of the server) fits their axes; otherwise they are drawn
   * again with it.
   */
  async select(selected: number | null): Promise<void> {
    this.selected = selected;
    for (const name of ['pareto', 'parcoords', 'slices', 'contour'] as TabName[]) {
      this.tabs[name].stale ||= name !== this.active; // drawn with the highlight when shown
    }
    if (this.active === 'parcoords' && this.parcoords) {
      await this.selectLine(selected);
    } else if (this.active === 'slices' && this.slices) {
      await this.drawSlice();
    } else if (this.active === 'pareto' && this.pareto) {
      const present = this.pareto.points.some(point => point.trial_id === selected);
      await (present || selected === null ? this.drawPareto() : this.reload('pareto'));
    }
  }

  /** Shows the tab `name`, fetching its data if needed. */
  async activate(name: TabName): Promise<void> {
    this.active = name;
    this.showActive();
    if (this.tabs[name].stale) {
      await this.load(name);
    } else {
      resizePlots([this.tabs[name].plot]);
    }
  }

  resize(): void {
    resizePlots([this.tabs[this.active].plot]);
  }

  dispose(): void {
    clearParallelCoordinates(this.tabs.parcoords.plot);
    purgePlots(TABS.filter(name => name !== 'parcoords').map(name => this.tabs[name].plot));
  }

  private showActive(): void {
    for (const name of TABS) {
      const on = name === this.active;
      this.tabs[name].button.classList.toggle('hpnb-tab-active', on);
      this.tabs[name].button.setAttribute('aria-selected', String(on));
      this.tabs[name].pane.hidden = !on;
    }
  }

  private async reload(name: TabName): Promise<void> {
    this.tabs[name].stale = true;
    await this.load(name);
  }

  private async load(name: TabName): Promise<void> {
    const tab = this.tabs[name];
    const asked = (this.asked[name] = (this.asked[name] ?? 0) + 1);
    try {
      if (name === 'parcoords') {
        this.parcoords = await this.client.parcoords(this.experimentName, this.selected ?? undefined);
        await this.drawParcoords();
      } else if (name === 'pareto') {
        await this.loadPareto(() => asked === this.asked.pareto);
      } else if (name === 'importance') {
        await this.drawImportance();
      } else {
        await this.loadSlices(name === 'contour');
      }
      tab.stale = false;
    } catch (error) {
      if (asked === this.asked[name]) { // a later choice (another pair of axes) stands
        tab.message.textContent = `Cannot load ${LABELS[name].toLowerCase()}: ${(error as Error).message}`;
      }
    }
  }

  private async drawParcoords(): Promise<void> {
    const data = this.parcoords as IParcoordsData;
    const tab = this.tabs.parcoords;
    this.drawnTrace = data.trace;
    const sampled = data.sampled ? ` (the best ${data.best} and ${data.sampled} others of ${data.scored})` : '';
    tab.message.textContent = this.drawnTrace ? `Trials with a score${sampled}.` : 'No trial has a score yet.';
    if (this.drawnTrace) {
      drawParallelCoordinates(tab.plot, this.drawnTrace, { margin: { t: 50, r: 20, b: 20, l: 60 } });
    } else {
      clearParallelCoordinates(tab.plot);
    }
    this.selectedLine = selectedLineOf(this.drawnTrace, this.selected);
    this.showSelectedLine();
  }

  /**
   * Moves the selected line to trial `selected`: at once for a trial drawn; else its line as
   * the server draws it, over the lines drawn when the axes are the same, else all drawn again.
   */
  private async selectLine(selected: number | null): Promise<void> {
    this.selectedLine = selectedLineOf(this.drawnTrace, selected);
    if (selected !== null && !this.selectedLine && this.drawnTrace) {
      // its line alone first (a small answer); the lines again only when its axes differ
      const alone = await this.client.parcoords(this.experimentName, selected, 'selected');
      const line = selectedLineOf(alone.trace, selected);
      if (!line || !sameAxes(this.drawnTrace.dimensions, line.dimensions)) {
        this.parcoords = await this.client.parcoords(this.experimentName, selected);
        await this.drawParcoords();
        return;
      }
      this.selectedLine = line;
    }
    this.showSelectedLine();
  }

  /** The selected trial's line over the parallel coordinates (red), or none. */
  private showSelectedLine(): void {
    markLine(this.tabs.parcoords.plot, this.selected, this.selectedLine && lineValues(this.selectedLine, this.selectedLine.index));
  }

  private async loadPareto(latest: () => boolean): Promise<void> {
    const x = this.paretoX.value || undefined;
    const y = this.paretoY.value || undefined;
    const pareto = await this.client.pareto(this.experimentName, x, y, this.selected ?? undefined);
    if (!latest()) {
      return; // the answer to an earlier choice of axes, come after a later one
    }
    this.pareto = pareto;
    const names = this.pareto.objectives.map(o => o.name);
    fillSelect(this.paretoX, names, this.pareto.x.name);
    fillSelect(this.paretoY, names, this.pareto.y.name);
    await this.drawPareto();
  }

  private async drawPareto(): Promise<void> {
    const data = this.pareto as IPareto;
    const tab = this.tabs.pareto;
    tab.message.textContent = paretoMessage(data);
    await drawPlot(tab.plot, paretoTraces(data, this.selected), paretoLayout(data), this.onSelect);
  }

  private async drawImportance(): Promise<void> {
    const tab = this.tabs.importance;
    const data = await this.client.importance(this.experimentName, this.evaluator.value);
    const traces = importanceTraces(data);
    const what = traces.length > 1 ? 'each objective' : data.metric;
    tab.message.textContent = traces.length ? `How much of the spread of ${what} each parameter explains (${data.evaluator}, ${data.completed} completed trials).` : data.message ?? 'No importance yet.';
    tab.plot.hidden = !traces.length;
    if (traces.length) {
      const layout = { xaxis: { title: { text: 'importance' }, range: [0, 1] }, barmode: 'group', showlegend: traces.length > 1, legend: { orientation: 'h', y: -0.2 }, margin: { t: 20, r: 20, b: 45, l: 120 } };
      await drawPlot(tab.plot, traces, layout);
    }
  }

  private async loadSlices(contour: boolean): Promise<void> {
    const x = contour && this.contourX.value ? this.contourX.value : undefined;
    const y = contour && this.contourY.value ? this.contourY.value : undefined;
    this.slices = await this.client.slices(this.experimentName, x, y);
    const names = this.slices.slices.map(piece => piece.axis.name);
    fillSelect(this.sliceParam, names, this.sliceParam.value);
    const shown = this.slices.contour;
    fillSelect(this.contourX, names, shown?.x.name ?? '');
    fillSelect(this.contourY, names, shown?.y.name ?? '');
    await (contour ? this.drawContour() : this.drawSlice());
  }

  private async drawSlice(): Promise<void> {
    const tab = this.tabs.slices;
    const piece = this.slices?.slices.find(item => item.axis.name === this.sliceParam.value);
    if (!this.slices || !piece) {
      tab.message.textContent = 'No parameter varies in this search.';
      return;
    }
    tab.message.textContent = piece.scores.length ? `${this.slices.metric} against ${piece.axis.name}, one point per finished trial.` : 'No finished trial with a score yet.';
    const layout = {
      xaxis: parameterAxis(piece.axis, slicePositions(piece)),
      yaxis: valueAxis(this.slices.metric, piece.scores),
      showlegend: false
    };
    await drawPlot(tab.plot, sliceTraces(piece, this.selected), layout, this.onSelect);
  }

  private async drawContour(): Promise<void> {
    const tab = this.tabs.contour;
    const contour = this.slices?.contour;
    tab.plot.hidden = !contour;
    if (!this.slices || !contour) {
      tab.message.textContent = this.slices?.contour_message ?? 'No contour.';
      return;
    }
    const categorical = contour.x.kind === 'categorical' || contour.y.kind === 'categorical';
    const how = categorical ? 'one band of cells per category (nothing between two categories)' : 'interpolated between the trials (dots)';
    tab.message.textContent = `${this.slices.metric} over ${contour.x.name} and ${contour.y.name}, ${how}.`;
    const layout = {
      xaxis: parameterAxis(contour.x, contour.x_grid),
      yaxis: parameterAxis(contour.y, contour.y_grid),
      showlegend: false
    };
    await drawPlot(tab.plot, contourTraces(contour, this.slices.metric, this.slices.mode === 'min'), layout, this.onSelect);
  }
}
