// Types of parallel_coordinates.js for the Lab extension, which bundles it.

/** One axis: a value per line, in the axis's units. */
export interface IParallelDimension {
  label: string;
  values: number[];
  range?: [number, number];
  tickvals?: number[];
  ticktext?: string[];
}

/** The lines' colours: a position on `colorscale` per line, and the colour bar. */
export interface IParallelLines {
  color: number[];
  colorscale: [number, string][];
  cmin: number;
  cmax: number;
  showscale: boolean;
  colorbar: { title?: { text: string } | string; tickvals?: number[]; ticktext?: string[] };
}

/** What is drawn: the shape of a plotly parcoords trace. */
export interface IParallelTrace {
  dimensions: IParallelDimension[];
  line: IParallelLines;
  /** The line at `index` is drawn in red over the others. */
  selected?: { trial: number; index: number };
}

export interface IParallelLayout {
  height?: number;
  margin?: Partial<Record<'t' | 'r' | 'b' | 'l', number>>;
}

/** An axis placed on the plot. */
export interface IPlacedAxis {
  label: string;
  x: number;
  range: [number, number];
}

/** Where the axes go, and a value's height on one (null when missing). */
export interface IFrame {
  axes: IPlacedAxis[];
  top: number;
  bottom: number;
  right: number;
  y(axis: { range: [number, number] }, value: number | null | undefined): number | null;
}

export const MARK_CLASS: string;
export function niceTicks(low: number, high: number, count?: number): number[];
export function formatTick(value: number): string;
export function colourAt(scale: readonly [number, string][], position: number): string;
export function dimensionRange(dim: IParallelDimension): [number, number];
export function frame(
  dimensions: readonly IParallelDimension[],
  width: number,
  height: number,
  margin: Record<'t' | 'r' | 'b' | 'l', number>,
  withBar: boolean
): IFrame;
export function lineValues(trace: { dimensions: readonly IParallelDimension[] }, index: number): number[];
export function linePath(place: IFrame, values: readonly (number | null)[]): string | null;
export function withinBrushes(labels: readonly string[], values: readonly (number | null)[], brushes: Map<string, [number, number]>): boolean;
export function drawParallelCoordinates(root: HTMLElement, trace: IParallelTrace, layout?: IParallelLayout): void;
export function markLine(root: HTMLElement, trial: number | null, values: readonly (number | null)[] | null): boolean;
export function clearParallelCoordinates(root: HTMLElement): void;
