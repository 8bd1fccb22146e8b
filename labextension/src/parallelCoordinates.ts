// Parallel coordinates drawn without WebGL: the lines on a 2D canvas; the axes, their ticks, the
// brushes, the colour bar and the selected trial's line in SVG over it. One renderer for the Lab
// view (bundled with the extension) and the cell's dashboard (`jlpm build` writes it as
// hpnb/jupyter/dashboard/parallel_coordinates.js, which the dashboard's plot module prepends).
//
// Why not plotly's parcoords: it draws with WebGL only, and where the browser draws WebGL in
// software (no GPU) its first drawing takes more than a second even for two lines; a canvas draws
// 1,250 lines in a few milliseconds.
//
// It draws the finished trace that the Python side builds (hpnb/views/parcoords.py) and both the
// Lab's route and the dashboard send: the shape of a plotly parcoords trace, with the trial of
// each line and the selected line (drawn in red over the others). It computes no axis: it places
// values on the ranges and ticks it is given. Dragging along an axis keeps the lines within that
// range in colour (a brush); a click on the axis takes its brush away. Brushes are kept by axis
// label across redraws. This file imports nothing, so that it builds to one standalone module.

/** One axis: a value per line (null: missing), in the axis's units. */
export interface IParallelDimension {
  label: string;
  values: (number | null)[];
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

/** What is drawn: the shape of a plotly parcoords trace, each line's trial and the selected line. */
export interface IParallelTrace {
  dimensions: IParallelDimension[];
  line: IParallelLines;
  /** The trial of each line, in the order of the values. */
  ids: number[];
  /** The line at `index` (trial `trial`) is drawn in red over the others. */
  selected?: { trial: number; index: number };
}

export interface IParallelLayout {
  height?: number;
  margin?: Partial<IMargin>;
}

interface IMargin {
  t: number;
  r: number;
  b: number;
  l: number;
}

/** An axis placed on the plot. */
export interface IPlacedAxis {
  label: string;
  x: number;
  range: [number, number];
}

/** A line's value on each axis, null where it has none. */
export type LineValues = readonly (number | null | undefined)[];

/** Where the axes go, and a value's height on one (null when missing). */
export interface IFrame {
  axes: IPlacedAxis[];
  top: number;
  bottom: number;
  right: number;
  y(axis: { range: [number, number] }, value: number | null | undefined): number | null;
}

type Brushes = Map<string, [number, number]>;

/** What a root holds between draws. */
interface IState {
  box: HTMLDivElement;
  canvas: HTMLCanvasElement;
  layer: SVGSVGElement;
  trace: IParallelTrace | null;
  layout: IParallelLayout;
  brushes: Brushes;
  mark: { trial: number; values: LineValues } | null;
  place: IFrame | null;
  frame: number;
  task: () => void;
  observer: ResizeObserver;
  width: number;
}

const SVG_NS = 'http://www.w3.org/2000/svg';
const STATES = new WeakMap<HTMLElement, IState>();
/** Class of the selected trial's line. */
export const MARK_CLASS = 'hpnb-parcoords-selected';
const MARK_COLOUR = '#d62728';
const FADED = 'rgba(140, 140, 140, 0.15)';
const BAR_COLUMN = 60; // right of the last axis: the colour bar, its ticks and labels
const DEFAULT_MARGIN: IMargin = { t: 50, r: 40, b: 20, l: 60 };

/** About `count` round tick values on [low, high] (1, 2 or 5 times a power of ten apart). */
export function niceTicks(low: number, high: number, count = 5): number[] {
  const span = high - low;
  if (!(span > 0) || !Number.isFinite(span)) {
    return Number.isFinite(low) ? [low] : [];
  }
  let step = 10 ** Math.floor(Math.log10(span / count));
  const per = span / count / step;
  step *= per >= 7.5 ? 10 : per >= 3.5 ? 5 : per >= 1.5 ? 2 : 1;
  const ticks: number[] = [];
  for (let k = Math.ceil(low / step); k * step <= high + step * 1e-9; k++) {
    ticks.push(Number((k * step).toPrecision(12)));
  }
  return ticks;
}

/** A tick label: four significant digits at most, no trailing zeros. */
export function formatTick(value: number): string {
  return String(Number(value.toPrecision(4)));
}

function rgb(hex: string): number[] | null {
  const m = /^#([0-9a-f]{2})([0-9a-f]{2})([0-9a-f]{2})$/i.exec(hex);
  return m ? [1, 2, 3].map(k => parseInt(m[k], 16)) : null;
}

/** The colour at `position` of a plotly colour scale (stops of [position, "#rrggbb"]). */
export function colourAt(scale: readonly [number, string][], position: number): string {
  if (!scale.length) {
    return '#4c78a8';
  }
  const t = Math.min(Math.max(position, scale[0][0]), scale[scale.length - 1][0]);
  const upper = scale.findIndex(([at]) => at >= t);
  if (upper <= 0 || scale[upper][0] === t) {
    return scale[Math.max(upper, 0)][1];
  }
  const [[a, low], [b, high]] = [scale[upper - 1], scale[upper]];
  const [from, to] = [rgb(low), rgb(high)];
  if (!from || !to || b === a) {
    return high;
  }
  const share = (t - a) / (b - a);
  const mixed = from.map((c, i) => Math.round(c + (to[i] - c) * share));
  return `rgb(${mixed.join(',')})`;
}

function finite(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value);
}

/** The span of a dimension: its own range, else its values' (widened when they are all equal). */
export function dimensionRange(dim: IParallelDimension): [number, number] {
  if (dim.range && dim.range[1] !== dim.range[0]) {
    return dim.range;
  }
  const values = dim.values.filter(finite);
  const [low, high] = dim.range ?? (values.length ? [Math.min(...values), Math.max(...values)] : [0, 1]);
  return low === high ? [low - 0.5, high + 0.5] : [low, high];
}

/**
 * Where everything goes in a plot `width` by `height` with `margin`: each axis's x, its top and
 * bottom, and its range; `y(axis, value)` is a value's height on an axis (null off it or missing).
 */
export function frame(dimensions: readonly IParallelDimension[], width: number, height: number, margin: IMargin, withBar: boolean): IFrame {
  const right = width - margin.r - (withBar ? BAR_COLUMN : 0);
  const span = Math.max(0, right - margin.l);
  const n = dimensions.length;
  const top = margin.t;
  const bottom = Math.max(top + 1, height - margin.b);
  const axes = dimensions.map((dim, i) => ({
    label: dim.label,
    x: n === 1 ? margin.l + span / 2 : margin.l + (span * i) / (n - 1),
    range: dimensionRange(dim)
  }));
  const y = (axis: { range: [number, number] }, value: number | null | undefined): number | null => {
    if (!finite(value)) {
      return null;
    }
    const [low, high] = axis.range;
    return bottom - ((value - low) / (high - low)) * (bottom - top);
  };
  return { axes, top, bottom, right, y };
}

type Pen = (x: number, y: number) => void;

/**
 * Walks the line through `values` (one per axis): `move(x, y)` where it starts, or starts again
 * after a missing value; `draw(x, y)` where it goes on.
 */
function walk(place: IFrame, values: LineValues, move: Pen, draw: Pen): void {
  let pen = false;
  place.axes.forEach((axis, i) => {
    const y = place.y(axis, values[i]);
    if (y !== null) {
      (pen ? draw : move)(axis.x, y);
    }
    pen = y !== null;
  });
}

/** The SVG path of a line through `values` (one per axis), broken where a value is missing. */
export function linePath(place: IFrame, values: LineValues): string | null {
  let path = '';
  const point =
    (command: string): Pen =>
    (x, y) => {
      path += `${command}${x.toFixed(1)},${y.toFixed(1)}`;
    };
  walk(place, values, point('M'), point('L'));
  return path || null;
}

/** Whether the line through `values` passes every brush (a value range by axis label). */
export function withinBrushes(labels: readonly string[], values: LineValues, brushes: Brushes): boolean {
  return labels.every((label, i) => {
    const brush = brushes.get(label);
    const value = values[i];
    return !brush || (finite(value) && value >= brush[0] && value <= brush[1]);
  });
}

function svg<K extends keyof SVGElementTagNameMap>(tag: K, attributes: Record<string, string | number> = {}, parent: Element | null = null): SVGElementTagNameMap[K] {
  const node = document.createElementNS(SVG_NS, tag);
  for (const [key, value] of Object.entries(attributes)) {
    node.setAttribute(key, String(value));
  }
  if (parent) {
    parent.appendChild(node);
  }
  return node;
}

// a halo in the page's background colour keeps a label readable over the lines
const HALO = 'paint-order: stroke; stroke: var(--jp-layout-color0, #fff); stroke-width: 3px; stroke-linejoin: round;';

function label(parent: Element, x: number, y: number, text: string, anchor: string, className: string): SVGTextElement {
  const node = svg('text', { x, y, 'text-anchor': anchor, class: className, fill: 'currentColor', style: HALO }, parent);
  node.textContent = text;
  return node;
}

/** The values of line `index` of `trace`, one per dimension. */
export function lineValues(trace: { dimensions: readonly IParallelDimension[] }, index: number): (number | null)[] {
  return trace.dimensions.map(dim => dim.values[index]);
}

function stateOf(root: HTMLElement): IState {
  let s = STATES.get(root);
  if (!s) {
    const box = document.createElement('div');
    box.className = 'hpnb-pc';
    box.style.cssText = 'position: relative; width: 100%;';
    const canvas = document.createElement('canvas');
    canvas.className = 'hpnb-pc-lines';
    canvas.style.cssText = 'position: absolute; left: 0; top: 0;';
    const layer = svg('svg', { class: 'hpnb-pc-axes' });
    layer.style.cssText = 'position: absolute; left: 0; top: 0; overflow: visible; font: 11px sans-serif;';
    box.append(canvas, layer);
    const observer = new ResizeObserver(() => {
      if (created.trace && root.clientWidth > 0 && root.clientWidth !== created.width) {
        redraw(root, created);
      }
    });
    const created: IState = { box, canvas, layer, trace: null, layout: {}, brushes: new Map(), mark: null, place: null, frame: 0, task: () => undefined, observer, width: 0 };
    observer.observe(root);
    STATES.set(root, created);
    s = created;
  }
  if (!root.contains(s.box)) {
    root.replaceChildren(s.box);
  }
  return s;
}

function drawLines(s: IState, trace: IParallelTrace, place: IFrame): number {
  const { canvas } = s;
  const ratio = window.devicePixelRatio || 1;
  const context = canvas.getContext('2d');
  const count = trace.dimensions[0]?.values.length ?? 0;
  s.box.dataset.lines = String(count);
  if (!context) {
    s.box.dataset.shown = '0';
    return 0;
  }
  context.setTransform(ratio, 0, 0, ratio, 0, 0);
  context.clearRect(0, 0, canvas.width, canvas.height);
  context.lineWidth = 1;
  const line = trace.line;
  const scale = line.colorscale ?? [];
  const [cmin, cmax] = [line.cmin ?? 0, line.cmax ?? 1];
  const labels = trace.dimensions.map(dim => dim.label);
  const cache = new Map<number, string>();
  const colour = (index: number): string => {
    const at = line.color?.[index];
    if (!finite(at)) {
      return '#4c78a8';
    }
    const key = Math.round(((at - cmin) / (cmax - cmin || 1)) * 255);
    if (!cache.has(key)) {
      cache.set(key, colourAt(scale, cmin + (key / 255) * (cmax - cmin)));
    }
    return cache.get(key) as string;
  };
  const inside: number[] = [];
  context.strokeStyle = FADED;
  for (let i = 0; i < count; i++) {
    const values = lineValues(trace, i);
    if (withinBrushes(labels, values, s.brushes)) {
      inside.push(i);
    } else {
      stroke(context, place, values);
    }
  }
  context.globalAlpha = 0.8;
  for (const i of inside) {
    context.strokeStyle = colour(i);
    stroke(context, place, lineValues(trace, i));
  }
  context.globalAlpha = 1;
  s.box.dataset.shown = String(inside.length);
  return inside.length;
}

function stroke(context: CanvasRenderingContext2D, place: IFrame, values: LineValues): void {
  context.beginPath();
  walk(
    place,
    values,
    (x, y) => context.moveTo(x, y),
    (x, y) => context.lineTo(x, y)
  );
  context.stroke();
}

function ticksOf(dim: IParallelDimension, range: [number, number]): [number, string][] {
  if (dim.tickvals) {
    return dim.tickvals.map((value, i) => [value, dim.ticktext?.[i] ?? formatTick(value)]);
  }
  return niceTicks(range[0], range[1]).map(value => [value, formatTick(value)]);
}

function drawAxis(root: HTMLElement, s: IState, place: IFrame, axis: IPlacedAxis, dim: IParallelDimension): void {
  const group = svg('g', { class: 'hpnb-pc-axis', 'data-label': axis.label, 'data-x': axis.x.toFixed(1), 'data-top': place.top, 'data-bottom': place.bottom, 'data-low': axis.range[0], 'data-high': axis.range[1] }, s.layer);
  svg('line', { x1: axis.x, x2: axis.x, y1: place.top, y2: place.bottom, stroke: 'currentColor' }, group);
  for (const [value, text] of ticksOf(dim, axis.range)) {
    const y = place.y(axis, value);
    if (y === null || y < place.top - 0.5 || y > place.bottom + 0.5) {
      continue;
    }
    const tick = svg('g', { class: 'hpnb-pc-tick' }, group);
    svg('line', { x1: axis.x - 4, x2: axis.x, y1: y, y2: y, stroke: 'currentColor' }, tick);
    label(tick, axis.x - 6, y + 4, text, 'end', 'hpnb-pc-ticktext');
  }
  label(group, axis.x, place.top - 12, axis.label, 'middle', 'hpnb-pc-title');
  drawBrush(group, place, axis, s.brushes.get(axis.label));
  const hit = svg('rect', { class: 'hpnb-pc-hit', x: axis.x - 12, width: 24, y: place.top, height: place.bottom - place.top, fill: 'transparent' }, group);
  hit.style.cursor = 'ns-resize';
  hit.addEventListener('pointerdown', event => startBrush(root, s, axis, event));
}

function drawBrush(group: Element, place: IFrame, axis: IPlacedAxis, brush: [number, number] | undefined): void {
  group.querySelector('.hpnb-pc-brush')?.remove();
  if (!brush) {
    return;
  }
  const [a, b] = [place.y(axis, brush[1]) as number, place.y(axis, brush[0]) as number];
  const rect = svg('rect', {
    class: 'hpnb-pc-brush',
    x: axis.x - 5,
    width: 10,
    y: Math.max(place.top, a),
    height: Math.max(1, Math.min(place.bottom, b) - Math.max(place.top, a)),
    fill: 'rgba(120, 120, 120, 0.3)',
    stroke: 'currentColor'
  });
  group.insertBefore(rect, group.querySelector('.hpnb-pc-hit')); // under the part that takes the drag
}

function valueAt(place: IFrame, axis: IPlacedAxis, y: number): number {
  const [low, high] = axis.range;
  const clamped = Math.min(Math.max(y, place.top), place.bottom);
  return low + ((place.bottom - clamped) / (place.bottom - place.top)) * (high - low);
}

function startBrush(root: HTMLElement, s: IState, axis: IPlacedAxis, event: PointerEvent): void {
  event.preventDefault();
  const target = event.currentTarget as SVGRectElement;
  target.setPointerCapture?.(event.pointerId);
  const origin = s.layer.getBoundingClientRect().top;
  const from = event.clientY - origin;
  let moved = false;
  const move = (e: PointerEvent): void => {
    const to = e.clientY - origin;
    if (Math.abs(to - from) < 3 && !moved) {
      return;
    }
    moved = true;
    const place = s.place as IFrame;
    const [a, b] = [valueAt(place, axis, from), valueAt(place, axis, to)];
    s.brushes.set(axis.label, [Math.min(a, b), Math.max(a, b)]);
    drawBrush(target.parentNode as Element, place, axis, s.brushes.get(axis.label));
    later(s, () => s.trace && drawLines(s, s.trace, place)); // the axes stay: this one holds the drag
  };
  const end = (): void => {
    target.removeEventListener('pointermove', move);
    target.removeEventListener('pointerup', end);
    target.removeEventListener('pointercancel', end);
    if (!moved) {
      s.brushes.delete(axis.label); // a click takes the brush away
    }
    later(s, () => redraw(root, s));
  };
  target.addEventListener('pointermove', move);
  target.addEventListener('pointerup', end);
  target.addEventListener('pointercancel', end);
}

/** Runs `task` at the next frame, in place of any task still waiting for it. */
function later(s: IState, task: () => void): void {
  s.task = task;
  if (s.frame) {
    return;
  }
  s.frame = requestAnimationFrame(() => {
    s.frame = 0;
    s.task();
  });
}

function drawColourBar(s: IState, trace: IParallelTrace, place: IFrame): void {
  const line = trace.line;
  if (!line.showscale || !line.colorscale) {
    return;
  }
  const [cmin, cmax] = [line.cmin ?? 0, line.cmax ?? 1];
  const x = place.right + 24;
  const group = svg('g', { class: 'hpnb-pc-colorbar' }, s.layer);
  const gradient = svg('linearGradient', { id: `hpnb-pc-${Math.random().toString(36).slice(2)}`, x1: 0, x2: 0, y1: 1, y2: 0 }, svg('defs', {}, group));
  for (const [at, colour] of line.colorscale) {
    svg('stop', { offset: (at - cmin) / (cmax - cmin || 1), 'stop-color': colour }, gradient);
  }
  svg('rect', { x, y: place.top, width: 10, height: place.bottom - place.top, fill: `url(#${gradient.id})` }, group);
  const bar = { range: [cmin, cmax] as [number, number] };
  const colorbar = line.colorbar ?? {};
  (colorbar.tickvals ?? []).forEach((value, i) => {
    const y = place.y(bar, value);
    if (y !== null) {
      label(group, x + 14, y + 4, colorbar.ticktext?.[i] ?? formatTick(value), 'start', 'hpnb-pc-ticktext');
    }
  });
  const title = colorbar.title;
  const text = typeof title === 'string' ? title : title?.text;
  const last = place.axes[place.axes.length - 1];
  if (text && text !== last?.label) {
    // the last axis's own title says it already; this one goes above the axes' titles
    label(group, x + 5, place.top - 28, text, 'middle', 'hpnb-pc-bartitle');
  }
}

function drawMark(s: IState): boolean {
  s.layer.querySelectorAll(`.${MARK_CLASS}`).forEach(node => node.remove());
  const path = s.mark && s.place ? linePath(s.place, s.mark.values) : null;
  if (!path || !s.mark) {
    return false;
  }
  const mark = svg('path', { class: MARK_CLASS, 'data-trial': s.mark.trial, d: path, fill: 'none', stroke: MARK_COLOUR, 'stroke-width': 3, 'pointer-events': 'none' });
  s.layer.insertBefore(mark, s.layer.firstChild); // under the axes and their labels
  return true;
}

function redraw(root: HTMLElement, s: IState): void {
  const { trace, layout, canvas, layer, box } = s;
  if (!trace) {
    return;
  }
  const width = root.clientWidth;
  const height = layout.height ?? (root.clientHeight || 340);
  s.width = width;
  const ratio = window.devicePixelRatio || 1;
  box.style.height = `${height}px`;
  canvas.width = Math.round(width * ratio);
  canvas.height = Math.round(height * ratio);
  canvas.style.width = `${width}px`;
  canvas.style.height = `${height}px`;
  layer.setAttribute('width', String(width));
  layer.setAttribute('height', String(height));
  layer.replaceChildren();
  const margin = { ...DEFAULT_MARGIN, ...layout.margin };
  const place = frame(trace.dimensions, width, height, margin, Boolean(trace.line?.showscale));
  s.place = place;
  const shown = drawLines(s, trace, place);
  const total = trace.dimensions[0]?.values.length ?? 0;
  trace.dimensions.forEach((dim, i) => drawAxis(root, s, place, place.axes[i], dim));
  drawColourBar(s, trace, place);
  if (s.brushes.size) {
    label(layer, margin.l - 40, height - 4, `${shown} of ${total} lines in the brushed ranges`, 'start', 'hpnb-pc-count');
  }
  drawMark(s);
}

/**
 * Draws `trace` (see above) into `root`, at the root's width and `layout.height` (else the root's
 * height); `layout.margin` as plotly's. Drawn again when the root's width changes.
 */
export function drawParallelCoordinates(root: HTMLElement, trace: IParallelTrace, layout: IParallelLayout = {}): void {
  const s = stateOf(root);
  const labels = new Set(trace.dimensions.map(dim => dim.label));
  for (const name of [...s.brushes.keys()]) {
    if (!labels.has(name)) {
      s.brushes.delete(name);
    }
  }
  s.trace = trace;
  s.layout = layout;
  const chosen = trace.selected;
  s.mark = chosen && Number.isInteger(chosen.index) ? { trial: chosen.trial, values: lineValues(trace, chosen.index) } : null;
  if (root.clientWidth > 0) {
    redraw(root, s);
  }
}

/**
 * Draws trial `trial`'s line (`values`: one per dimension, in the dimensions' units) in red over
 * the lines, or takes it away (`values` null). True when the line is shown.
 */
export function markLine(root: HTMLElement, trial: number | null, values: LineValues | null): boolean {
  const s = STATES.get(root);
  if (!s) {
    return false;
  }
  s.mark = values && trial !== null ? { trial, values } : null;
  return drawMark(s);
}

/** Frees what the plot in `root` holds (its resize observer) and empties it. */
export function clearParallelCoordinates(root: HTMLElement): void {
  const s = STATES.get(root);
  if (!s) {
    return;
  }
  s.observer.disconnect();
  if (s.frame) {
    cancelAnimationFrame(s.frame);
  }
  STATES.delete(root);
  root.replaceChildren();
}
