// plotly.js (about 5 MB), sent once per kernel in this widget's `code` and imported once per
// page; the dashboard's plots (plot.js) wait for the entry of their plotly version in the
// page-wide registry (plotly_registry.js, prepended), which this widget fills with plotly.js and
// the plots' template.

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
  const slot = plotlyEntry(version);
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
