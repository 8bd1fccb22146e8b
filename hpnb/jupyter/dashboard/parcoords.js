// Parallel coordinates drawn as SVG, from a plotly.js `parcoords` trace (`dimensions` with
// `label`, `values` and optional `tickvals`, `ticktext`, `range`; `line` with `color`,
// `colorscale`, `cmin`, `cmax` and `colorbar`), so that they need neither plotly.js nor WebGL:
// plotly draws parcoords with WebGL only, which costs a page without a GPU 1.5 to 2.5 s whatever
// the number of lines. One path per line, in the order given (the last on top); the lines of
// `selectedpoints` are drawn thicker; a line's `customdata` (its trial id) is its tooltip.
// plot.py puts this file before plot.js in the widget's module: plot.js calls drawParcoords.

const SVG_FONT = '"Open Sans", verdana, arial, sans-serif';
const SVG_INK = "#2a3f5f";
const COLOUR_BAR = 90; // px on the right for the colour bar, its ticks and title

function escapeXml(text) {
  return String(text).replace(/[&<>"]/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" })[c]);
}

const isNumber = (v) => typeof v === "number" && Number.isFinite(v);

/** The [low, high] an axis spans: its `range`, else its values' (widened when they are one). */
function axisSpan(dim) {
  if (dim.range && dim.range.length === 2) return dim.range;
  let low = Infinity;
  let high = -Infinity;
  for (const v of dim.values) {
    if (isNumber(v)) {
      low = Math.min(low, v);
      high = Math.max(high, v);
    }
  }
  if (low === Infinity) return [0, 1];
  return low === high ? [low - 1, high + 1] : [low, high];
}

/** About five round ticks (steps of 1, 2 or 5 times a power of ten) on [low, high]. */
function roundTicks(low, high) {
  const raw = (high - low) / 5;
  const power = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((m) => m * power).find((s) => s >= raw);
  const ticks = [];
  for (let k = Math.ceil(low / step); k * step <= high + step * 1e-9; k++) ticks.push(Number((k * step).toPrecision(12)));
  return ticks;
}

function tickLabel(v) {
  return String(Number(v.toPrecision(4)));
}

/** [value, label] of each tick of `dim` on [low, high]. */
function axisTicks(dim, low, high) {
  const near = (high - low) * 1e-9;
  if (dim.tickvals) {
    return dim.tickvals.map((v, i) => [v, dim.ticktext ? dim.ticktext[i] : tickLabel(v)])
      .filter(([v]) => v >= low - near && v <= high + near);
  }
  return roundTicks(low, high).map((v) => [v, tickLabel(v)]);
}

/** `#rrggbb` at `t` in [0, 1] of a plotly colour scale ([[position, "#rrggbb"], ...]). */
function scaleColour(scale, t) {
  if (!Array.isArray(scale) || !scale.length) return "#888";
  const x = Math.min(1, Math.max(0, isNumber(t) ? t : 0));
  let i = 0;
  while (i < scale.length - 2 && x > scale[i + 1][0]) i++;
  const [p0, c0] = scale[i];
  const [p1, c1] = scale[Math.min(i + 1, scale.length - 1)];
  const share = p1 > p0 ? Math.min(1, Math.max(0, (x - p0) / (p1 - p0))) : 0;
  const rgb = (c) => [1, 3, 5].map((k) => parseInt(c.slice(k, k + 2), 16));
  const [a, b] = [rgb(c0), rgb(c1)];
  return "#" + a.map((v, k) => Math.round(v + (b[k] - v) * share).toString(16).padStart(2, "0")).join("");
}

/** The SVG of one axis at `x`: its line, ticks and title; `toY` maps a value to its height. */
function axisSvg(dim, x, top, bottom, toY, low, high) {
  const ticks = axisTicks(dim, low, high).map(([v, text]) => {
    const y = toY(v).toFixed(1);
    return `<g class="hpnb-tick"><line x1="${x - 4}" x2="${x}" y1="${y}" y2="${y}" stroke="${SVG_INK}"/>` +
      `<text x="${x - 7}" y="${y}" text-anchor="end" dominant-baseline="middle">${escapeXml(text)}</text></g>`;
  });
  return `<g class="hpnb-axis"><line x1="${x}" x2="${x}" y1="${top}" y2="${bottom}" stroke="${SVG_INK}"/>` +
    ticks.join("") + `<text class="hpnb-axis-title" x="${x}" y="${top - 14}" text-anchor="middle" ` +
    `font-weight="bold">${escapeXml(dim.label ?? "")}</text></g>`;
}

/** The SVG of the lines: one path each, the selected thicker; a gap where a value is missing. */
function linesSvg(trace, xs, toYs) {
  const line = trace.line || {};
  const [cmin, cmax] = [line.cmin ?? 0, line.cmax ?? 1];
  const selected = new Set(trace.selectedpoints || []);
  const count = trace.dimensions.length ? trace.dimensions[0].values.length : 0;
  const paths = [];
  for (let i = 0; i < count; i++) {
    let d = "";
    let joined = false;
    trace.dimensions.forEach((dim, k) => {
      const v = dim.values[i];
      if (!isNumber(v)) return void (joined = false);
      d += `${joined ? "L" : "M"}${xs[k].toFixed(1)} ${toYs[k](v).toFixed(1)}`;
      joined = true;
    });
    const colour = Array.isArray(line.color) ? scaleColour(line.colorscale, (line.color[i] - cmin) / (cmax - cmin))
      : (line.color || "#888");
    const trial = trace.customdata ? trace.customdata[i] : null;
    const style = selected.has(i) ? 'stroke-width="3" class="hpnb-selected"' : 'stroke-width="1" stroke-opacity="0.6"';
    paths.push(`<path d="${d}" stroke="${colour}" ${style}` + (trial === null ? "/>" :
      ` data-trial="${trial}"><title>trial ${trial}</title></path>`));
  }
  return `<g class="hpnb-lines" fill="none">${paths.join("")}</g>`;
}

/** The colour bar: the scale from cmin (bottom) to cmax (top), its ticks and its title. */
function colourBarSvg(line, x, top, bottom) {
  const bar = line.colorbar || {};
  const [cmin, cmax] = [line.cmin ?? 0, line.cmax ?? 1];
  const stops = (line.colorscale || []).map(([p, c]) => `<stop offset="${1 - p}" stop-color="${c}"/>`).reverse();
  const id = `hpnb-scale-${Math.random().toString(36).slice(2)}`;
  const toY = (v) => bottom - ((v - cmin) / (cmax - cmin)) * (bottom - top);
  const ticks = (bar.tickvals || []).map((v, i) => `<text x="${x + 20}" y="${toY(v).toFixed(1)}" ` +
    `dominant-baseline="middle">${escapeXml((bar.ticktext || [])[i] ?? tickLabel(v))}</text>`);
  const title = bar.title && bar.title.text ? bar.title.text : "";
  return `<g class="hpnb-colour-bar"><defs><linearGradient id="${id}" x1="0" x2="0" y1="0" y2="1">` +
    `${stops.join("")}</linearGradient></defs><rect x="${x}" y="${top}" width="14" height="${bottom - top}" ` +
    `fill="url(#${id})"/>${ticks.join("")}<text class="hpnb-colour-title" x="${x}" y="${top - 14}">` +
    `${escapeXml(title)}</text></g>`;
}

/** Draw `trace` in `el` at its width and the layout's height and margins (replacing what was). */
function drawParcoords(el, trace, layout) {
  const width = el.clientWidth;
  const height = layout.height || 320;
  const margin = { l: 60, r: 60, t: 50, b: 20, ...(layout.margin || {}) };
  const line = trace.line || {};
  const right = width - margin.r - (line.showscale ? COLOUR_BAR : 0);
  const [top, bottom] = [margin.t, height - margin.b];
  const dims = trace.dimensions || [];
  const xs = dims.map((_, k) => (dims.length > 1 ? margin.l + (k * (right - margin.l)) / (dims.length - 1)
    : (margin.l + right) / 2));
  const spans = dims.map(axisSpan);
  const toYs = spans.map(([low, high]) => (v) => bottom - ((v - low) / (high - low)) * (bottom - top));
  const axes = dims.map((dim, k) => axisSvg(dim, xs[k], top, bottom, toYs[k], ...spans[k]));
  const bar = line.showscale ? colourBarSvg(line, right + 40, top, bottom) : "";
  el.innerHTML = `<svg class="hpnb-parcoords-svg" width="${width}" height="${height}" ` +
    `style="font-family:${SVG_FONT.replace(/"/g, "'")};font-size:11px;fill:${SVG_INK}">` +
    `${linesSvg(trace, xs, toYs)}${axes.join("")}${bar}</svg>`;
}
