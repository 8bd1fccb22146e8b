/**
 * How hpnb's dashboards look, in the notebook's cell and in the JupyterLab view:
 * colours, digits of numbers, axis rules. One definition: `jlpm build`
 * (scripts/build-widget.js) writes it into the Python package as
 * hpnb/jupyter/dashboard/look.js, whose object (kept strict JSON here) the
 * cell's dashboard reads (look.py).
 */

/** The shape of the look. */
export interface ILook {
  colors: {
    best: string;
    selected: string;
    running: string;
    completed: string;
    faded: string;
    states: Record<string, string>;
  };
  numbers: { significant: number };
  axes: { log_tick_format: string; log_title_suffix: string };
  /** A metric's value axis: `margin` of the data's span on each side; a flat series spans `flat` of its value on each side (`flat_zero` around 0). */
  scales: { margin: number; flat: number; flat_zero: number };
}

export const LOOK: ILook = {
  "colors": {
    "best": "#2ca02c",
    "selected": "#d62728",
    "running": "#f58518",
    "completed": "#4c78a8",
    "faded": "#9e9e9e",
    "states": {
      "RUNNING": "#f58518",
      "COMPLETED": "#2ca02c",
      "STOPPED": "#7f7f7f",
      "FAILED": "#d62728",
      "INTERRUPTED": "#9467bd",
      "CREATED": "#4c78a8",
      "PAUSED": "#8c564b",
      "PENDING": "#4c78a8"
    }
  },
  "numbers": {
    "significant": 4
  },
  "axes": {
    "log_tick_format": ".2~e",
    "log_title_suffix": " (log)"
  },
  "scales": {
    "margin": 0.08,
    "flat": 0.01,
    "flat_zero": 0.01
  }
};
