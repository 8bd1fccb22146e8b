/**
 * The selected trial in a cartesian plot (the optimization history), drawn as
 * a red ring and its label over plotly's SVG instead of a trace of its own.
 * Adding a trace makes plotly draw every point again (a history of 2,000
 * points: about 150 ms where the browser has no GPU); moving this mark costs
 * nothing. It is placed through the plot's own axes and follows their
 * redraws (see `followRedraws`).
 */

import { SELECTED_COLOR } from './plots';

/** Class of the mark's group. */
export const MARK_CLASS = 'hpnb-selected-mark';

/** What the mark needs of a plotly axis (its full layout's): its place and its data-to-pixel maps. */
export interface IPlotAxis {
  /** Pixels from the plot's edge to the axis's start. */
  _offset: number;
  /** Length of the axis in pixels. */
  _length: number;
  /** Data (a number, a date string, ...) to the axis's own numbers. */
  d2c(value: unknown): number;
  /** The axis's numbers to pixels from its start. */
  c2p(value: number): number;
}

/** A trial to mark: its id and where it is in data coordinates. */
export interface IPointMark {
  trialId: number;
  x: number | string;
  y: number;
}

/** The mark's centre in pixels of the plot, or null when it falls outside the axes (zoomed away). */
export function markCentre(xaxis: IPlotAxis, yaxis: IPlotAxis, mark: IPointMark): [number, number] | null {
  const x = xaxis.c2p(xaxis.d2c(mark.x));
  const y = yaxis.c2p(yaxis.d2c(mark.y));
  const inside = (pixels: number, axis: IPlotAxis) => Number.isFinite(pixels) && pixels >= -0.5 && pixels <= axis._length + 0.5;
  return inside(x, xaxis) && inside(y, yaxis) ? [xaxis._offset + x, yaxis._offset + y] : null;
}

function svgNode<K extends keyof SVGElementTagNameMap>(tag: K, attributes: Record<string, string>): SVGElementTagNameMap[K] {
  const node = document.createElementNS('http://www.w3.org/2000/svg', tag);
  Object.entries(attributes).forEach(([name, value]) => node.setAttribute(name, value));
  return node;
}

/**
 * Draws `mark` over the plot in `root` (a ring on the point, `trial N` above
 * it), or takes the mark away (`mark` null). True when the mark is shown.
 */
export function showPointMark(root: HTMLElement, mark: IPointMark | null): boolean {
  root.querySelectorAll(`.${MARK_CLASS}`).forEach(node => node.remove());
  const layout = (root as unknown as { _fullLayout?: { xaxis?: IPlotAxis; yaxis?: IPlotAxis } })._fullLayout;
  const layers = root.querySelectorAll<SVGSVGElement>('svg.main-svg');
  if (!mark || !layout?.xaxis || !layout.yaxis || layers.length === 0) {
    return false;
  }
  const centre = markCentre(layout.xaxis, layout.yaxis, mark);
  if (!centre) {
    return false;
  }
  const [x, y] = centre.map(pixels => pixels.toFixed(1));
  const group = svgNode('g', { class: MARK_CLASS, 'data-trial': String(mark.trialId), 'pointer-events': 'none' });
  group.append(
    svgNode('circle', { cx: x, cy: y, r: '7', fill: 'none', stroke: SELECTED_COLOR, 'stroke-width': '3' }),
    Object.assign(svgNode('text', { x, y: String(centre[1] - 12), 'text-anchor': 'middle', fill: SELECTED_COLOR, 'font-size': '12px' }), {
      textContent: `trial ${mark.trialId}`
    })
  );
  layers[layers.length - 1].append(group); // the top layer: over the points, under nothing
  return true;
}
