/**
 * Where the selected trial's line goes in the parallel coordinates: among the
 * lines drawn, or over them when the server's line of that trial (the sample
 * left it out) fits their axes. The renderer draws it in red over the lines,
 * so selecting another trial draws none of them again.
 */

import type { IParallelDimension, IParallelTrace } from './parallelCoordinates';

/** Where a line is: the dimensions it was built with, and its index in their values. */
export interface ILineSource {
  dimensions: readonly IParallelDimension[];
  index: number;
}

/** Trial `selected`'s line in `trace`, or null when it draws none. */
export function selectedLineOf(trace: IParallelTrace | null, selected: number | null): ILineSource | null {
  const index = trace && selected !== null ? trace.ids.indexOf(selected) : -1;
  return trace && index >= 0 ? { dimensions: trace.dimensions, index } : null;
}

/** Whether two builds of the axes have the same ranges: a line of one can be drawn on the other. */
export function sameAxes(drawn: readonly IParallelDimension[], other: readonly IParallelDimension[]): boolean {
  return (
    drawn.length === other.length &&
    drawn.every((dim, i) => dim.label === other[i].label && String(dim.range) === String(other[i].range) && String(dim.tickvals) === String(other[i].tickvals))
  );
}
