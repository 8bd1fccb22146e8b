// The dashboard's plot tabs: one button per tab, the chosen one marked. As in JupyterLab's own tab
// bars, a tab is chosen when pressed, not when released: the dashboard refreshes while a search
// runs, and a tab appearing or a line above wrapping between press and release would otherwise
// move another element under the pointer and lose the click. The kernel sends the tabs (`options`)
// and never the choice (`value`) once shown, and the buttons are kept across refreshes.

function tabButton(label) {
  const button = document.createElement("button");
  button.type = "button";
  button.className = "widget-toggle-button jupyter-widget-toggle-button jupyter-button";
  button.setAttribute("role", "tab");
  button.dataset.tab = label;
  button.textContent = label;
  return button;
}

/** Makes `bar` hold one button per label, in order, keeping the buttons of labels it has. */
function drawTabs(bar, labels, chosen) {
  const kept = new Map([...bar.children].map((button) => [button.dataset.tab, button]));
  labels.forEach((label, index) => {
    const button = kept.get(label) || tabButton(label);
    if (bar.children[index] !== button) bar.insertBefore(button, bar.children[index] || null);
    button.classList.toggle("mod-active", label === chosen);
    button.setAttribute("aria-selected", String(label === chosen));
  });
  while (bar.children.length > labels.length) bar.lastElementChild.remove();
}

function render({ model, el }) {
  el.classList.add("widget-toggle-buttons", "jupyter-widget-toggle-buttons", "hpnb-tab-bar");
  const bar = document.createElement("div");
  bar.setAttribute("role", "tablist");
  el.appendChild(bar);
  const draw = () => drawTabs(bar, model.get("options"), model.get("value"));
  const choose = (event) => {
    const button = event.target.closest && event.target.closest("button[data-tab]");
    if (!button || !bar.contains(button) || button.dataset.tab === model.get("value")) return;
    model.set("value", button.dataset.tab);
    model.save_changes();
  };
  bar.addEventListener("pointerdown", (event) => {
    if (event.button === 0) choose(event);
  });
  bar.addEventListener("click", (event) => {
    if (event.detail === 0) choose(event); // a click from the keyboard (Enter, Space)
  });
  draw();
  model.on("change:options", draw);
  model.on("change:value", draw);
  return () => {
    model.off("change:options", draw);
    model.off("change:value", draw);
  };
}

export default { render };
