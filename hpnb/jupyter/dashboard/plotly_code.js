// plotly.js (about 5 MB), sent once per kernel in this widget's `code` and imported once per
// page; the dashboard's plots (plot.js) wait for the entry of their plotly version in the
// page-wide registry below, which this widget fills with plotly.js and the plots' template.

const REGISTRY = Symbol.for("hpnb.plotly-js");

/** The registry entry of one plotly version: a promise of { Plotly, template }. */
function entry(version) {
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

async function importCode(code) {
  const url = URL.createObjectURL(new Blob([code], { type: "text/javascript" }));
  try {
    return (await import(/* webpackIgnore: true */ url)).default;
  } finally {
    URL.revokeObjectURL(url);
  }
}

function initialize({ model }) {
  const version = model.get("version");
  const slot = entry(version);
  const code = model.get("code");
  if (slot.loading || !code || !code.byteLength) return;
  slot.loading = true;
  const template = model.get("template");
  importCode(code).then(
    (Plotly) => slot.resolve({ Plotly, template }),
    (error) => {
      globalThis[REGISTRY].delete(version); // the next page load of this widget tries again
      slot.reject(error);
    },
  );
}

function render({ el }) {
  el.style.display = "none";
}

export default { initialize, render };
