"""From result to next step: the best configuration as a new notebook cell.

:func:`best_cell_code` writes the cell (the best parameters as a dict and a call
of the objective with them); :class:`CopyBestButton` inserts it below the cell
that shows the dashboard, in the front end, so it works while the kernel is busy.
A front end that gives widgets no notebook model says so to the kernel, which then
adds the cell with IPython's ``set_next_input`` (below the next cell run: a cell is
added with the reply to an execution). ``Search.best["params"]`` stays the
programmatic way. A search with several objectives has no best trial: the button copies
the trial selected in the table, or the first trial of the Pareto front, and names it
("Copy trial 7 as a cell"; :func:`trial_cell_code`).

Example:
    >>> print(best_cell_code("train", {"lr": 0.01, "layers": 2}, trial_id=7, metric="loss",
    ...                      value=0.25, search="mlp"))
    # the best trial of 'mlp': trial 7, loss = 0.25
    best_params = {
        'lr': 0.01,
        'layers': 2,
    }
    train(**best_params)
"""

from __future__ import annotations

import keyword
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import anywidget
import traitlets

from hpnb.jupyter.dashboard.data import format_value

_HERE = Path(__file__).parent
#: the name the cell gives the objective when the search does not know it.
UNKNOWN_OBJECTIVE = "objective"
#: the button's label with one objective.
COPY_BEST = "Copy best as a cell"


def copy_label(trial_id: int | None) -> str:
    """The button's label when it copies one trial (several objectives; None: none to copy yet)."""
    return "Copy a trial as a cell" if trial_id is None else f"Copy trial {trial_id} as a cell"


def _cell(objective: str | None, comment: str, variable: str, params: dict[str, Any],
          takes_config: bool) -> str:
    """A comment, ``variable`` as a dict of ``params`` (by ``repr``) and the objective's call."""
    name = objective if objective and objective.isidentifier() and not keyword.iskeyword(objective) \
        else UNKNOWN_OBJECTIVE
    lines = [comment, f"{variable} = {{"]
    lines += [f"    {key!r}: {item!r}," for key, item in params.items()]
    lines += ["}", f"{name}({variable})" if takes_config else f"{name}(**{variable})"]
    return "\n".join(lines)


def best_cell_code(objective: str | None, params: dict[str, Any], *, trial_id: int, metric: str,
                   value: float | None, search: str, takes_config: bool = False) -> str:
    """The source of a cell that calls ``objective`` with the best trial's ``params``.

    Values are written with ``repr``, so floats come back bit for bit and the call
    reproduces the trial for a deterministic objective. ``takes_config`` passes one
    dict (an objective that takes ``config``) instead of keyword arguments.
    """
    score = f", {metric} = {format_value(value)}" if value is not None else ""
    return _cell(objective, f"# the best trial of {search!r}: trial {trial_id}{score}", "best_params", params,
                 takes_config)


def trial_cell_code(objective: str | None, params: dict[str, Any], *, trial_id: int,
                    values: Mapping[str, float], search: str, on_front: bool = False,
                    takes_config: bool = False) -> str:
    """The source of a cell that calls ``objective`` with one trial's ``params`` (several
    objectives: there is no best); ``values`` are its objectives' values, if it has them.

    Example:
        >>> print(trial_cell_code("train", {"w": 0.5}, trial_id=3, values={"loss": 0.5, "ms": 5.0},
        ...                       search="two", on_front=True))
        # trial 3 of 'two': loss = 0.5, ms = 5 (on the Pareto front)
        trial_params = {
            'w': 0.5,
        }
        train(**trial_params)
    """
    scores = ", ".join(f"{name} = {format_value(value)}" for name, value in values.items())
    comment = f"# trial {trial_id} of {search!r}" + (f": {scores}" if scores else "")
    comment += " (on the Pareto front)" if on_front else ""
    return _cell(objective, comment, "trial_params", params, takes_config)


#: what the front end sends when it could not insert the cell itself.
NOT_INSERTED = "not-inserted"


class CopyBestButton(anywidget.AnyWidget):
    """The button; ``anchor`` is the model id of the dashboard's root widget (it finds the cell)."""

    _esm = _HERE / "copy_cell.js"
    code = traitlets.Unicode("").tag(sync=True)
    anchor = traitlets.Unicode("").tag(sync=True)
    label = traitlets.Unicode(COPY_BEST).tag(sync=True)

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.on_msg(self._front_end_says)

    def _front_end_says(self, _widget: Any, content: Any, _buffers: Any) -> None:
        if isinstance(content, dict) and content.get("event") == NOT_INSERTED and self.code:
            insert_next(self.code)


def insert_next(code: str) -> bool:
    """Ask the front end, through IPython's ``set_next_input``, to add a cell of ``code`` (below
    the next cell run); False outside IPython."""
    from IPython import get_ipython

    shell = get_ipython()
    if shell is None:
        return False
    shell.set_next_input(code, replace=False)
    return True
