/**
 * The selected trial in the parallel coordinates, drawn as one SVG line over
 * plotly's WebGL lines instead of redrawing them all. A redraw of 2,000 lines
 * costs hundreds of milliseconds where the browser renders WebGL in software;
 * moving one SVG path costs nothing, and the lines below stay as they were
 * drawn (the colour scale included).
 *
 * The line is placed as plotly places its own: on each axis (a `g.y-axis` of
 * the plot, bound to its view model), the trial's value within the
 * dimension's range, between the axis's paddings. A trial the plot does not
 * hold (the sample left it out) is drawn the same way when adding it changes
 * no axis; otherwise the plot is drawn again with it.
 */

import { SELECTED_COLOR, type IDimension } from './plots';

/** Class of the selected trial's line. */
export const OVERLAY_CLASS = 'hpnb-parcoords-selected';

/** One axis as plotly's parallel coordinates drew it (its view model, bound to its `g.y-axis`). */
export interface IDrawnAxis {
  /** The dimension's label. */
  label: string;
  /** Where the axis stands, in pixels from the first axis. */
  x: number;
  /** Its height in pixels. */
  height: number;
  /** Maps [0, 1] onto the axis without its padding: its range is `[padding, height - padding]`. */
  unitToPaddedPx: { range(): number[] };
}

/** Where a line is: the dimensions it was built with, and its index in their values. */
export interface ILineSource {
  dimensions: readonly IDimension[];
  index: number;
}

/**
 * The SVG path of a line across the drawn axes, left to right, in the axes'
 * own coordinates (y downwards): on each axis, its value's place in that
 * dimension's range, as plotly places it (between the axis's paddings).
 * Null when a dimension is missing, has no range or the line no value on it.
 */
export function overlayPath(axes: readonly IDrawnAxis[], line: ILineSource): string | null {
  const byLabel = new Map(line.dimensions.map(dim => [dim.label, dim]));
  const points: string[] = [];
  for (const axis of [...axes].sort((a, b) => a.x - b.x)) {
    const dim = byLabel.get(axis.label);
    const value = dim?.values[line.index];
    if (!dim?.range || typeof value !== 'number' || !Number.isFinite(value) || dim.range[1] === dim.range[0]) {
      return null;
    }
    const padding = axis.unitToPaddedPx.range()[0];
    const unit = (value - dim.range[0]) / (dim.range[1] - dim.range[0]);
    const y = axis.height - padding - unit * (axis.height - 2 * padding);
    points.push(`${points.length ? 'L' : 'M'}${axis.x.toFixed(1)},${y.toFixed(1)}`);
  }
  return points.length ? points.join('') : null;
}

/** Whether two builds of the axes have the same ranges: a line of one can be drawn on the other. */
export function sameAxes(drawn: readonly IDimension[], other: readonly IDimension[]): boolean {
  return (
    drawn.length === other.length &&
    drawn.every((dim, i) => dim.label === other[i].label && String(dim.range) === String(other[i].range) && String(dim.tickvals) === String(other[i].tickvals))
  );
}

/** The axes of the parallel coordinates drawn in `root`, and the group holding them. */
function drawnAxes(root: HTMLElement): [SVGGElement, IDrawnAxis[]] | null {
  const view = root.querySelector<SVGGElement>('.parcoords-control-view');
  if (!view) {
    return null;
  }
  const axes = Array.from(view.querySelectorAll<SVGGElement>(':scope > .y-axis'))
    .map(node => (node as unknown as { __data__?: IDrawnAxis }).__data__)
    .filter((axis): axis is IDrawnAxis => Boolean(axis && axis.unitToPaddedPx));
  return [view, axes];
}

/**
 * Draws trial `trialId`'s line (`line`) in red over the parallel coordinates
 * in `root`, or takes it away (`line` null). True when the line is shown.
 */
export function showSelectedLine(root: HTMLElement, trialId: number | null, line: ILineSource | null): boolean {
  const found = drawnAxes(root);
  root.querySelectorAll(`.${OVERLAY_CLASS}`).forEach(node => node.remove());
  const path = found && line && trialId !== null ? overlayPath(found[1], line) : null;
  if (!found || !path) {
    return false;
  }
  const drawn = document.createElementNS('http://www.w3.org/2000/svg', 'path');
  drawn.classList.add(OVERLAY_CLASS);
  drawn.dataset.trial = String(trialId);
  drawn.setAttribute('d', path);
  drawn.setAttribute('fill', 'none');
  drawn.setAttribute('stroke', SELECTED_COLOR);
  drawn.setAttribute('stroke-width', '3');
  drawn.setAttribute('pointer-events', 'none');
  found[0].insertBefore(drawn, found[0].firstChild); // under the axes, over the WebGL lines
  return true;
}
