// One plot of the hpnb dashboard, drawn with plotly.js from the model's `data` and
// `plot_layout` (plot.py). plotly.js comes once per kernel with the dashboard's PlotlyCode
// widget (plotly_code.js): this waits for it in the page-wide registry (plotly_registry.js,
// prepended). A plot is drawn at the width
// of its place, again when that changes, and not while it has no width (off the page); one
// out of sight (a hidden tab drawn ahead, see tabs.py) is drawn when the page is idle.
// Parallel coordinates (a parcoords trace) are drawn by parallel_coordinates.js (prepended),
// without plotly.js. A click on a point that carries `customdata` (its trial id) is sent to the
// kernel, which selects that trial.

/** Whether `data` is parallel coordinates, which parallel_coordinates.js draws. */
function isParallel(data) {
  return data.length === 1 && data[0].type === "parcoords";
}

/** Send the trial id of a clicked point to the kernel (points without one are not trials). */
function clicked(model) {
  return (event) => {
    const point = event && event.points && event.points[0];
    const trial = point && point.customdata;
    if (Number.isInteger(trial)) model.send({ event: "click", trial });
  };
}

function render({ model, el }) {
  el.style.width = "100%";
  let plotly = null;
  let stale = true;
  let seen = null; // in sight: unknown until the first report of `sighted`
  let disposed = false;
  let due = false;
  let queue = Promise.resolve();
  const onClick = clicked(model);
  const laidOut = () => el.isConnected && el.clientWidth > 0;
  const draw = () => {
    queue = queue.then(async () => {
      const data = model.get("data");
      if (disposed || !stale || !laidOut() || !data.length) return; // no trace: not drawn yet
      if (isParallel(data)) {
        stale = false;
        drawParallelCoordinates(el, data[0], model.get("plot_layout")); // redrawn by it on a resize
        return;
      }
      if (!plotly) return;
      stale = false;
      const layout = { template: plotly.template, autosize: true, ...model.get("plot_layout") };
      await plotly.Plotly.react(el, data, layout, model.get("config"));
      el.removeAllListeners?.("plotly_click"); // listeners live on the drawn plot: set them anew
      el.on?.("plotly_click", onClick);
    }).catch((error) => console.error("hpnb: could not draw a plot", error));
  };
  const soon = () => { // in sight at once; out of sight when nothing else is to be done
    if (seen === null) return; // `sighted` calls again
    if (seen || typeof requestIdleCallback !== "function") draw();
    else requestIdleCallback(() => draw(), { timeout: 5000 });
  };
  const changed = () => { // data and layout change together: one draw for both
    stale = true;
    if (due) return;
    due = true;
    queueMicrotask(() => {
      due = false;
      soon();
    });
  };
  const resized = new ResizeObserver(() => {
    if (!laidOut()) return;
    if (stale) soon();
    else if (plotly && !isParallel(model.get("data"))) plotly.Plotly.Plots.resize(el);
  });
  const sighted = new IntersectionObserver((entries) => {
    seen = entries[entries.length - 1].isIntersecting;
    if (stale) soon();
  });
  resized.observe(el);
  sighted.observe(el);
  model.on("change:data", changed);
  model.on("change:plot_layout", changed);
  plotlyEntry(model.get("plotly")).promise.then((loaded) => {
    plotly = loaded;
    soon();
  }, (error) => {
    el.textContent = `plotly.js could not be loaded: ${error}`;
  });
  return () => {
    disposed = true;
    resized.disconnect();
    sighted.disconnect();
    model.off("change:data", changed);
    model.off("change:plot_layout", changed);
    if (plotly) plotly.Plotly.purge(el);
    clearParallelCoordinates(el);
  };
}

export default { render };
