/**
 * Drawing with plotly.js: loaded on first use (its own chunk), one look for
 * every plot of the views, clicks on a point reported as a trial id.
 */

import type { Trace } from './plots';

type PlotlyModule = typeof import('plotly.js-dist-min');

let plotly: Promise<PlotlyModule> | undefined;

/**
 * Starts loading plotly.js when the browser is idle, ahead of the first plot (the sidebar is
 * shown: a view is about to open). Loading it takes about a second of the page's time.
 */
export function preloadPlotly(): void {
  if (!plotly) {
    whenIdle(() => void loadPlotly());
  }
}

/** Runs `task` when the page is idle (within 2 s whatever happens). */
export function whenIdle(task: () => void): void {
  if (typeof window.requestIdleCallback === 'function') {
    window.requestIdleCallback(task, { timeout: 2000 });
  } else {
    window.setTimeout(task, 200);
  }
}

/** plotly.js, loaded on first use. */
export function loadPlotly(): Promise<PlotlyModule> {
  if (!plotly) {
    plotly = import('plotly.js-dist-min').then(
      module => ((module as unknown as { default?: PlotlyModule }).default ?? module) as PlotlyModule
    );
  }
  return plotly;
}

interface IClickable extends HTMLElement {
  on?(event: string, handler: (data: { points?: { customdata?: unknown }[] }) => void): void;
}

/**
 * The x and y axes of `layout` with tick labels that may overflow the plot:
 * plotly otherwise measures every label after each drawing to hide those
 * past the plot's edge (a forced layout of the whole page: about 40 ms of a
 * redraw in JupyterLab), and the views' margins leave room for them.
 */
function unclippedTickLabels(layout: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(['xaxis', 'yaxis'].map(name => [name, { ticklabeloverflow: 'allow', ...(layout[name] as Record<string, unknown> | undefined) }]));
}

/**
 * Draws `traces` into `root` with the view's colours and `layout` on top;
 * `onPick` gets the trial id of a clicked point (its `customdata`).
 */
export async function drawPlot(
  root: HTMLElement,
  traces: Trace[],
  layout: Record<string, unknown>,
  onPick?: (trialId: number) => void
): Promise<void> {
  const Plotly = await loadPlotly();
  const colour = getComputedStyle(root).getPropertyValue('--jp-ui-font-color1').trim() || '#333';
  const base = {
    paper_bgcolor: 'rgba(0,0,0,0)',
    plot_bgcolor: 'rgba(0,0,0,0)',
    font: { color: colour },
    autosize: true,
    margin: { t: 30, r: 20, b: 45, l: 60 }
  };
  const plotted = (await Plotly.react(root, traces, { ...base, ...layout, ...unclippedTickLabels(layout) }, { displaylogo: false, responsive: true })) as IClickable;
  if (onPick && plotted.on && !root.dataset.picking) {
    root.dataset.picking = 'yes';
    plotted.on('plotly_click', data => {
      const id = data.points?.[0]?.customdata;
      if (typeof id === 'number') {
        onPick(id);
      }
    });
  }
}

/**
 * A style edit of traces already drawn in `root` (colours, widths, opacities,
 * names): plotly restyles them without computing or drawing them again.
 * False when nothing is drawn there yet.
 */
export async function restylePlot(root: HTMLElement, update: Record<string, unknown[]>, traces: number[]): Promise<boolean> {
  if (!root.querySelector('.plot-container')) {
    return false;
  }
  const Plotly = await loadPlotly();
  await Plotly.restyle(root, update, traces);
  return true;
}

/** Resizes the plots drawn in these roots (after the panel changed size). */
export function resizePlots(roots: readonly HTMLElement[]): void {
  if (plotly) {
    void plotly.then(Plotly => roots.filter(root => root.querySelector('.plot-container')).forEach(root => void Plotly.Plots.resize(root)));
  }
}

/** Frees what plotly holds for these roots. */
export function purgePlots(roots: readonly HTMLElement[]): void {
  if (plotly) {
    void plotly.then(Plotly => roots.forEach(root => Plotly.purge(root)));
  }
}

interface IPlotEvents extends HTMLElement {
  on?(event: string, handler: () => void): void;
}

/**
 * Keeps what the views draw over a plot (a selected line or mark) where it
 * belongs when plotly draws the plot again (a resize, a zoom, an axis
 * dragged): `redraw` is called after each. Installed once per root.
 */
export function followRedraws(root: HTMLElement, redraw: () => void): void {
  const plot = root as IPlotEvents;
  if (!plot.on || root.dataset.overlay) {
    return;
  }
  root.dataset.overlay = 'yes';
  for (const event of ['plotly_afterplot', 'plotly_restyle', 'plotly_relayout']) {
    plot.on(event, redraw);
  }
}
