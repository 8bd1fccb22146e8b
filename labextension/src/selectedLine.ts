/**
 * Where the selected trial's line goes in the parallel coordinates: among the
 * lines drawn, or added to them when it changes no axis (the sample left it
 * out). The renderer draws it in red over the lines, so selecting another
 * trial draws none of them again.
 */

import type { IDimension } from './plots';

/** Where a line is: the dimensions it was built with, and its index in their values. */
export interface ILineSource {
  dimensions: readonly IDimension[];
  index: number;
}

/** Whether two builds of the axes have the same ranges: a line of one can be drawn on the other. */
export function sameAxes(drawn: readonly IDimension[], other: readonly IDimension[]): boolean {
  return (
    drawn.length === other.length &&
    drawn.every((dim, i) => dim.label === other[i].label && String(dim.range) === String(other[i].range) && String(dim.tickvals) === String(other[i].tickvals))
  );
}
