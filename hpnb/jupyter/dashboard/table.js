// The leaderboard table of the hpnb dashboard: one page of rows drawn from the model's
// traits; a click on a header sorts (again: the other way), a click on a row selects it,
// and the arrows turn pages. The kernel computes every page; this only draws and asks.
//
// A running search redraws the table a few times a second. It is redrawn in place: a row, a
// header or a button whose kind did not change is kept and only its text and attributes are
// updated, so a click pressed just before a redraw and released after it still reaches the
// element it was pressed on (a replaced element would get no click). One listener on the
// table reads the model when the click comes, not when the element was drawn.

/** The attributes that say which thing an element shows: a column, a trial, a pager arrow. */
const IDENTITY = ["data-key", "data-trial", "data-turn"];

function cell(tag, text, className) {
  const node = document.createElement(tag);
  node.textContent = text;
  if (className) node.className = className;
  return node;
}

/** Makes `target`'s children look like `fresh`, keeping the nodes of the same kind. */
function patchChildren(target, fresh) {
  fresh.forEach((node, index) => {
    const old = target.childNodes[index];
    if (old === undefined) target.appendChild(node);
    else if (!patchNode(old, node)) target.replaceChild(node, old);
  });
  while (target.childNodes.length > fresh.length) target.removeChild(target.lastChild);
}

/** Updates `old` to look like `fresh`; false when they differ in kind (`old` must be replaced). */
function patchNode(old, fresh) {
  if (old.nodeType === Node.TEXT_NODE && fresh.nodeType === Node.TEXT_NODE) {
    if (old.nodeValue !== fresh.nodeValue) old.nodeValue = fresh.nodeValue;
    return true;
  }
  const same = old.nodeType === Node.ELEMENT_NODE && fresh.nodeType === Node.ELEMENT_NODE &&
    old.tagName === fresh.tagName && IDENTITY.every((name) => old.getAttribute(name) === fresh.getAttribute(name));
  if (!same) return false;
  for (const name of old.getAttributeNames()) {
    if (!fresh.hasAttribute(name)) old.removeAttribute(name);
  }
  for (const name of fresh.getAttributeNames()) {
    const value = fresh.getAttribute(name);
    if (old.getAttribute(name) !== value) old.setAttribute(name, value);
  }
  if (old.tagName === "BUTTON") old.disabled = fresh.disabled;
  patchChildren(old, [...fresh.childNodes]);
  return true;
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
    tbody.appendChild(row);
  });
  return tbody;
}

function pager(model) {
  const bar = document.createElement("div");
  bar.className = "hpnb-pager";
  const page = model.get("page");
  const pages = model.get("pages");
  const previous = cell("button", "\u2039 previous");
  previous.dataset.turn = "-1";
  previous.disabled = page <= 0;
  const next = cell("button", "next \u203a");
  next.dataset.turn = "1";
  next.disabled = page >= pages - 1;
  const total = model.get("total");
  bar.append(previous, cell("span", ` page ${page + 1} of ${pages} (${total} trials) `), next);
  return bar;
}

/** What a click on `target` asks of the model, read from the model now. */
function clicked(model, target) {
  const th = target.closest("th[data-key]");
  const row = target.closest("tr[data-trial]");
  const turn = target.closest("button[data-turn]");
  if (th) {
    const key = th.dataset.key;
    const again = key === model.get("sort");
    model.set("descending", again ? !model.get("descending") : false);
    model.set("sort", key);
    model.set("page", 0);
  } else if (row) {
    const id = Number(row.dataset.trial);
    model.set("selected", id === model.get("selected") ? -1 : id);
  } else if (turn && !turn.disabled) {
    const page = model.get("page") + Number(turn.dataset.turn);
    model.set("page", Math.min(Math.max(0, page), model.get("pages") - 1));
  } else {
    return;
  }
  model.save_changes();
}

function render({ model, el }) {
  const root = document.createElement("div");
  root.className = "hpnb-table";
  const table = document.createElement("table");
  root.append(table, pager(model));
  el.appendChild(root);
  const draw = () => {
    patchChildren(table, [header(model), body(model)]);
    patchNode(root.lastChild, pager(model));
  };
  draw();
  root.addEventListener("click", (event) => clicked(model, event.target));
  const events = ["rows", "selected", "sort", "descending", "page", "pages", "total", "columns"];
  for (const name of events) model.on(`change:${name}`, draw);
  return () => {
    for (const name of events) model.off(`change:${name}`, draw);
  };
}

export default { render };
