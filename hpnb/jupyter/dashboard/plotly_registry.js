// The page-wide registry of plotly.js, one entry per plotly version: prepended to the modules of
// the widget that brings plotly.js (plotly_code.js) and of the plots that wait for it (plot.js),
// so both read and fill the same entries (see plotly_registry.py).

const REGISTRY = Symbol.for("hpnb.plotly-js");

/** The registry entry of one plotly version: a promise of { Plotly, template }, settled once. */
function plotlyEntry(version) {
  const entries = (globalThis[REGISTRY] ??= new Map());
  let found = entries.get(version);
  if (!found) {
    let resolve, reject;
    const promise = new Promise((ok, fail) => { resolve = ok; reject = fail; });
    found = { promise, resolve, reject, loading: false };
    entries.set(version, found);
  }
  return found;
}
