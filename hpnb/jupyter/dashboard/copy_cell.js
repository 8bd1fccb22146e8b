// "Copy best as a cell" (with several objectives "Copy trial N as a cell"): inserts a code cell below the cell showing the dashboard, through the
// notebook's own model (JupyterLab and Notebook 7 give widgets the document's context). The
// cell is found by the dashboard's widget id in its outputs. Where no notebook model is
// reachable (another front end), the kernel is told so: it adds the cell with IPython's
// set_next_input, below the next cell run. The code goes to the clipboard too.

const WIDGET_VIEW = "application/vnd.jupyter.widget-view+json";

function notebookModel(model) {
  const manager = model.widget_manager;
  try {
    return (manager && manager.context && manager.context.model) || null;
  } catch (error) {
    return null;
  }
}

function cellShowing(notebook, anchor) {
  const cells = notebook.cells;
  for (let index = 0; index < cells.length; index++) {
    const outputs = cells.get(index).outputs;
    if (!outputs) continue;
    for (let j = 0; j < outputs.length; j++) {
      const view = outputs.get(j).data[WIDGET_VIEW];
      if (view && view.model_id === anchor) return index;
    }
  }
  return -1;
}

async function insertBelow(model) {
  const code = model.get("code");
  const notebook = notebookModel(model);
  const index = notebook ? cellShowing(notebook, model.get("anchor")) : -1;
  if (index >= 0) {
    notebook.sharedModel.insertCell(index + 1, { cell_type: "code", source: code });
    return "inserted a cell below";
  }
  model.send({ event: "not-inserted" });
  let copied = true;
  try {
    await navigator.clipboard.writeText(code);
  } catch (error) {
    copied = false; // no clipboard here (an insecure page, no permission): the kernel's cell remains
  }
  return `the cell is added below the next cell you run${copied ? "; it is on the clipboard too" : ""}`;
}

function render({ model, el }) {
  const button = document.createElement("button");
  button.className = "jupyter-button widget-button hpnb-copy-best";
  button.style.width = "auto"; // the label names a trial with several objectives: room for it
  const status = document.createElement("span");
  status.className = "hpnb-copy-status";
  status.style.marginLeft = "6px";
  const draw = () => {
    button.textContent = model.get("label") || "Copy best as a cell";
    button.disabled = !model.get("code");
    button.title = model.get("code") || "no trial has a score yet";
  };
  button.addEventListener("click", async () => {
    try {
      status.textContent = await insertBelow(model);
    } catch (error) {
      status.textContent = `could not insert the cell: ${error}`;
    }
  });
  draw();
  model.on("change:code", draw);
  model.on("change:label", draw);
  el.append(button, status);
  return () => {
    model.off("change:code", draw);
    model.off("change:label", draw);
  };
}

export default { render };
