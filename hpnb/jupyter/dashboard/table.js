// The leaderboard table of the hpnb dashboard: one page of rows drawn from the model's
// traits; a click on a header sorts (again: the other way), a click on a row selects it,
// and the arrows turn pages. The kernel computes every page; this only draws and asks.

function cell(tag, text, className) {
  const node = document.createElement(tag);
  node.textContent = text;
  if (className) node.className = className;
  return node;
}

function header(model) {
  const head = document.createElement("thead");
  const row = document.createElement("tr");
  const sort = model.get("sort");
  const descending = model.get("descending");
  for (const [key, label] of model.get("columns")) {
    const arrow = key === sort ? (descending ? " \u25bc" : " \u25b2") : "";
    const th = cell("th", label + arrow, key === sort ? "hpnb-sorted" : "");
    th.dataset.key = key;
    th.title = `sort by ${label}`;
    th.addEventListener("click", () => {
      model.set("descending", key === sort ? !descending : false);
      model.set("sort", key);
      model.set("page", 0);
      model.save_changes();
    });
    row.appendChild(th);
  }
  head.appendChild(row);
  return head;
}

function body(model) {
  const tbody = document.createElement("tbody");
  const ids = model.get("trial_ids");
  const states = model.get("states");
  const selected = model.get("selected");
  const stateColumn = model.get("columns").findIndex(([key]) => key === "state");
  model.get("rows").forEach((values, index) => {
    const id = ids[index];
    const row = document.createElement("tr");
    row.dataset.trial = String(id);
    row.className = id === selected ? "hpnb-selected" : "";
    values.forEach((value, column) => {
      const className = column === stateColumn ? `hpnb-state hpnb-state-${states[index]}` : "";
      row.appendChild(cell("td", value, className));
    });
    row.addEventListener("click", () => {
      model.set("selected", id === model.get("selected") ? -1 : id);
      model.save_changes();
    });
    tbody.appendChild(row);
  });
  return tbody;
}

function pager(model) {
  const bar = document.createElement("div");
  bar.className = "hpnb-pager";
  const page = model.get("page");
  const pages = model.get("pages");
  const turn = (to) => () => {
    model.set("page", to);
    model.save_changes();
  };
  const previous = cell("button", "\u2039 previous");
  previous.disabled = page <= 0;
  previous.addEventListener("click", turn(page - 1));
  const next = cell("button", "next \u203a");
  next.disabled = page >= pages - 1;
  next.addEventListener("click", turn(page + 1));
  const total = model.get("total");
  bar.append(previous, cell("span", ` page ${page + 1} of ${pages} (${total} trials) `), next);
  return bar;
}

function render({ model, el }) {
  const root = document.createElement("div");
  root.className = "hpnb-table";
  el.appendChild(root);
  const draw = () => {
    const table = document.createElement("table");
    table.append(header(model), body(model));
    root.replaceChildren(table, pager(model));
  };
  draw();
  const events = ["rows", "selected", "sort", "descending", "page", "pages", "total"];
  for (const name of events) model.on(`change:${name}`, draw);
  return () => {
    for (const name of events) model.off(`change:${name}`, draw);
  };
}

export default { render };
