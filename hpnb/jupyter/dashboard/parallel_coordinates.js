// Built from labextension/src/parallelCoordinates.ts by `jlpm build` (scripts/build-widget.js): do not edit.
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
const SVG_NS = 'http://www.w3.org/2000/svg';
const STATES = new WeakMap();
/** Class of the selected trial's line. */
export const MARK_CLASS = 'hpnb-parcoords-selected';
const MARK_COLOUR = '#d62728';
const FADED = 'rgba(140, 140, 140, 0.15)';
const BAR_COLUMN = 60; // right of the last axis: the colour bar, its ticks and labels
const DEFAULT_MARGIN = { t: 50, r: 40, b: 20, l: 60 };
/** About `count` round tick values on [low, high] (1, 2 or 5 times a power of ten apart). */
export function niceTicks(low, high, count = 5) {
    const span = high - low;
    if (!(span > 0) || !Number.isFinite(span)) {
        return Number.isFinite(low) ? [low] : [];
    }
    let step = 10 ** Math.floor(Math.log10(span / count));
    const per = span / count / step;
    step *= per >= 7.5 ? 10 : per >= 3.5 ? 5 : per >= 1.5 ? 2 : 1;
    const ticks = [];
    for (let k = Math.ceil(low / step); k * step <= high + step * 1e-9; k++) {
        ticks.push(Number((k * step).toPrecision(12)));
    }
    return ticks;
}
/** A tick label: four significant digits at most, no trailing zeros. */
export function formatTick(value) {
    return String(Number(value.toPrecision(4)));
}
function rgb(hex) {
    const m = /^#([0-9a-f]{2})([0-9a-f]{2})([0-9a-f]{2})$/i.exec(hex);
    return m ? [1, 2, 3].map(k => parseInt(m[k], 16)) : null;
}
/** The colour at `position` of a plotly colour scale (stops of [position, "#rrggbb"]). */
export function colourAt(scale, position) {
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
function finite(value) {
    return typeof value === 'number' && Number.isFinite(value);
}
/** The span of a dimension: its own range, else its values' (widened when they are all equal). */
export function dimensionRange(dim) {
    var _a;
    if (dim.range && dim.range[1] !== dim.range[0]) {
        return dim.range;
    }
    const values = dim.values.filter(finite);
    const [low, high] = (_a = dim.range) !== null && _a !== void 0 ? _a : (values.length ? [Math.min(...values), Math.max(...values)] : [0, 1]);
    return low === high ? [low - 0.5, high + 0.5] : [low, high];
}
/**
 * Where everything goes in a plot `width` by `height` with `margin`: each axis's x, its top and
 * bottom, and its range; `y(axis, value)` is a value's height on an axis (null off it or missing).
 */
export function frame(dimensions, width, height, margin, withBar) {
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
    const y = (axis, value) => {
        if (!finite(value)) {
            return null;
        }
        const [low, high] = axis.range;
        return bottom - ((value - low) / (high - low)) * (bottom - top);
    };
    return { axes, top, bottom, right, y };
}
/**
 * Walks the line through `values` (one per axis): `move(x, y)` where it starts, or starts again
 * after a missing value; `draw(x, y)` where it goes on.
 */
function walk(place, values, move, draw) {
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
export function linePath(place, values) {
    let path = '';
    const point = (command) => (x, y) => {
        path += `${command}${x.toFixed(1)},${y.toFixed(1)}`;
    };
    walk(place, values, point('M'), point('L'));
    return path || null;
}
/** Whether the line through `values` passes every brush (a value range by axis label). */
export function withinBrushes(labels, values, brushes) {
    return labels.every((label, i) => {
        const brush = brushes.get(label);
        const value = values[i];
        return !brush || (finite(value) && value >= brush[0] && value <= brush[1]);
    });
}
function svg(tag, attributes = {}, parent = null) {
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
function label(parent, x, y, text, anchor, className) {
    const node = svg('text', { x, y, 'text-anchor': anchor, class: className, fill: 'currentColor', style: HALO }, parent);
    node.textContent = text;
    return node;
}
/** The values of line `index` of `trace`, one per dimension. */
export function lineValues(trace, index) {
    return trace.dimensions.map(dim => dim.values[index]);
}
function stateOf(root) {
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
        const created = { box, canvas, layer, trace: null, layout: {}, brushes: new Map(), mark: null, place: null, frame: 0, task: () => undefined, observer, width: 0 };
        observer.observe(root);
        STATES.set(root, created);
        s = created;
    }
    if (!root.contains(s.box)) {
        root.replaceChildren(s.box);
    }
    return s;
}
function drawLines(s, trace, place) {
    var _a, _b, _c, _d, _e;
    const { canvas } = s;
    const ratio = window.devicePixelRatio || 1;
    const context = canvas.getContext('2d');
    const count = (_b = (_a = trace.dimensions[0]) === null || _a === void 0 ? void 0 : _a.values.length) !== null && _b !== void 0 ? _b : 0;
    s.box.dataset.lines = String(count);
    if (!context) {
        s.box.dataset.shown = '0';
        return 0;
    }
    context.setTransform(ratio, 0, 0, ratio, 0, 0);
    context.clearRect(0, 0, canvas.width, canvas.height);
    context.lineWidth = 1;
    const line = trace.line;
    const scale = (_c = line.colorscale) !== null && _c !== void 0 ? _c : [];
    const [cmin, cmax] = [(_d = line.cmin) !== null && _d !== void 0 ? _d : 0, (_e = line.cmax) !== null && _e !== void 0 ? _e : 1];
    const labels = trace.dimensions.map(dim => dim.label);
    const cache = new Map();
    const colour = (index) => {
        var _a;
        const at = (_a = line.color) === null || _a === void 0 ? void 0 : _a[index];
        if (!finite(at)) {
            return '#4c78a8';
        }
        const key = Math.round(((at - cmin) / (cmax - cmin || 1)) * 255);
        if (!cache.has(key)) {
            cache.set(key, colourAt(scale, cmin + (key / 255) * (cmax - cmin)));
        }
        return cache.get(key);
    };
    const inside = [];
    context.strokeStyle = FADED;
    for (let i = 0; i < count; i++) {
        const values = lineValues(trace, i);
        if (withinBrushes(labels, values, s.brushes)) {
            inside.push(i);
        }
        else {
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
function stroke(context, place, values) {
    context.beginPath();
    walk(place, values, (x, y) => context.moveTo(x, y), (x, y) => context.lineTo(x, y));
    context.stroke();
}
function ticksOf(dim, range) {
    if (dim.tickvals) {
        return dim.tickvals.map((value, i) => { var _a, _b; return [value, (_b = (_a = dim.ticktext) === null || _a === void 0 ? void 0 : _a[i]) !== null && _b !== void 0 ? _b : formatTick(value)]; });
    }
    return niceTicks(range[0], range[1]).map(value => [value, formatTick(value)]);
}
function drawAxis(root, s, place, axis, dim) {
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
function drawBrush(group, place, axis, brush) {
    var _a;
    (_a = group.querySelector('.hpnb-pc-brush')) === null || _a === void 0 ? void 0 : _a.remove();
    if (!brush) {
        return;
    }
    const [a, b] = [place.y(axis, brush[1]), place.y(axis, brush[0])];
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
function valueAt(place, axis, y) {
    const [low, high] = axis.range;
    const clamped = Math.min(Math.max(y, place.top), place.bottom);
    return low + ((place.bottom - clamped) / (place.bottom - place.top)) * (high - low);
}
function startBrush(root, s, axis, event) {
    var _a;
    event.preventDefault();
    const target = event.currentTarget;
    (_a = target.setPointerCapture) === null || _a === void 0 ? void 0 : _a.call(target, event.pointerId);
    const origin = s.layer.getBoundingClientRect().top;
    const from = event.clientY - origin;
    let moved = false;
    const move = (e) => {
        const to = e.clientY - origin;
        if (Math.abs(to - from) < 3 && !moved) {
            return;
        }
        moved = true;
        const place = s.place;
        const [a, b] = [valueAt(place, axis, from), valueAt(place, axis, to)];
        s.brushes.set(axis.label, [Math.min(a, b), Math.max(a, b)]);
        drawBrush(target.parentNode, place, axis, s.brushes.get(axis.label));
        later(s, () => s.trace && drawLines(s, s.trace, place)); // the axes stay: this one holds the drag
    };
    const end = () => {
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
function later(s, task) {
    s.task = task;
    if (s.frame) {
        return;
    }
    s.frame = requestAnimationFrame(() => {
        s.frame = 0;
        s.task();
    });
}
function drawColourBar(s, trace, place) {
    var _a, _b, _c, _d;
    const line = trace.line;
    if (!line.showscale || !line.colorscale) {
        return;
    }
    const [cmin, cmax] = [(_a = line.cmin) !== null && _a !== void 0 ? _a : 0, (_b = line.cmax) !== null && _b !== void 0 ? _b : 1];
    const x = place.right + 24;
    const group = svg('g', { class: 'hpnb-pc-colorbar' }, s.layer);
    const gradient = svg('linearGradient', { id: `hpnb-pc-${Math.random().toString(36).slice(2)}`, x1: 0, x2: 0, y1: 1, y2: 0 }, svg('defs', {}, group));
    for (const [at, colour] of line.colorscale) {
        svg('stop', { offset: (at - cmin) / (cmax - cmin || 1), 'stop-color': colour }, gradient);
    }
    svg('rect', { x, y: place.top, width: 10, height: place.bottom - place.top, fill: `url(#${gradient.id})` }, group);
    const bar = { range: [cmin, cmax] };
    const colorbar = (_c = line.colorbar) !== null && _c !== void 0 ? _c : {};
    ((_d = colorbar.tickvals) !== null && _d !== void 0 ? _d : []).forEach((value, i) => {
        var _a, _b;
        const y = place.y(bar, value);
        if (y !== null) {
            label(group, x + 14, y + 4, (_b = (_a = colorbar.ticktext) === null || _a === void 0 ? void 0 : _a[i]) !== null && _b !== void 0 ? _b : formatTick(value), 'start', 'hpnb-pc-ticktext');
        }
    });
    const title = colorbar.title;
    const text = typeof title === 'string' ? title : title === null || title === void 0 ? void 0 : title.text;
    const last = place.axes[place.axes.length - 1];
    if (text && text !== (last === null || last === void 0 ? void 0 : last.label)) {
        // the last axis's own title says it already; this one goes above the axes' titles
        label(group, x + 5, place.top - 28, text, 'middle', 'hpnb-pc-bartitle');
    }
}
function drawMark(s) {
    s.layer.querySelectorAll(`.${MARK_CLASS}`).forEach(node => node.remove());
    const path = s.mark && s.place ? linePath(s.place, s.mark.values) : null;
    if (!path || !s.mark) {
        return false;
    }
    const mark = svg('path', { class: MARK_CLASS, 'data-trial': s.mark.trial, d: path, fill: 'none', stroke: MARK_COLOUR, 'stroke-width': 3, 'pointer-events': 'none' });
    s.layer.insertBefore(mark, s.layer.firstChild); // under the axes and their labels
    return true;
}
function redraw(root, s) {
    var _a, _b, _c, _d;
    const { trace, layout, canvas, layer, box } = s;
    if (!trace) {
        return;
    }
    const width = root.clientWidth;
    const height = (_a = layout.height) !== null && _a !== void 0 ? _a : (root.clientHeight || 340);
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
    const place = frame(trace.dimensions, width, height, margin, Boolean((_b = trace.line) === null || _b === void 0 ? void 0 : _b.showscale));
    s.place = place;
    const shown = drawLines(s, trace, place);
    const total = (_d = (_c = trace.dimensions[0]) === null || _c === void 0 ? void 0 : _c.values.length) !== null && _d !== void 0 ? _d : 0;
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
export function drawParallelCoordinates(root, trace, layout = {}) {
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
export function markLine(root, trial, values) {
    const s = STATES.get(root);
    if (!s) {
        return false;
    }
    s.mark = values && trial !== null ? { trial, values } : null;
    return drawMark(s);
}
/** Frees what the plot in `root` holds (its resize observer) and empties it. */
export function clearParallelCoordinates(root) {
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
