/**
 * The range of a metric's value axis, as the notebook's dashboard draws it
 * (hpnb/jupyter/dashboard/scales.py, the same constants from the look): the
 * data's span with a margin, a flat series centred on a small span (never
 * 0–1.8 for four accuracies of 0.9685), and data within [0, 1] or at or above
 * 0 kept within those bounds. plotly's own autorange does none of this.
 */

import { LOOK } from './look';

/** `value` with a few digits more than `span` shows (no 0.95880000001 in the layout). */
function rounded(value: number, span: number): number {
  if (!(span > 0) || !Number.isFinite(span)) {
    return value;
  }
  const digits = Math.max(0, 3 - Math.floor(Math.log10(span)));
  return Number(value.toFixed(Math.min(digits, 20)));
}

/**
 * The axis range `[low, high]` of `values` (numbers; null and non-finite ones
 * left out), or null when there are none.
 *
 * @example valueRange([0.9685, 0.9685]) // [0.95881, 0.97819]
 */
export function valueRange(values: Iterable<number | null | undefined>, margin = LOOK.scales.margin): [number, number] | null {
  const finite = [...values].filter((v): v is number => typeof v === 'number' && Number.isFinite(v));
  if (finite.length === 0) {
    return null;
  }
  const low = finite.reduce((a, b) => Math.min(a, b));
  const high = finite.reduce((a, b) => Math.max(a, b));
  const pad = high > low ? (high - low) * margin : Math.abs(low) * LOOK.scales.flat || LOOK.scales.flat_zero;
  let lower = low - pad;
  let upper = high + pad;
  if (low >= 0) {
    lower = Math.max(0, lower);
  }
  if (low >= 0 && high <= 1) {
    upper = Math.min(1, upper);
  }
  const span = upper - lower;
  return [rounded(lower, span), rounded(upper, span)];
}

/** A value axis over `values`: the range above, fixed (no autorange), or plotly's when there are none. */
export function valueAxis(title: string, values: Iterable<number | null | undefined>): Record<string, unknown> {
  const range = valueRange(values);
  return range ? { title: { text: title }, range, autorange: false } : { title: { text: title } };
}

/** A plot area with no axes that says what it waits for (instead of empty axes). */
export function waitingLayout(text: string): Record<string, unknown> {
  const hidden = { visible: false, showgrid: false, zeroline: false };
  return {
    xaxis: hidden,
    yaxis: hidden,
    showlegend: false,
    annotations: [{ text, showarrow: false, xref: 'paper', yref: 'paper', x: 0.5, y: 0.5, font: { size: 13, color: '#777' } }]
  };
}
