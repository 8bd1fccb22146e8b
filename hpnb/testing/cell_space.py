"""A cell's edges as search parameters, as the black-box architecture strategies see them, and a
toy score of a cell for their tests.

A cell of ``nodes`` nodes (DARTS's): node ``k`` takes two edges, each an operation applied to one
of its inputs, the cell's two inputs (0 and 1) or an earlier node (``2 .. k + 1``). Edge ``e`` of
the normal cell is two parameters: ``normal.e<e>.op`` (a category) and ``normal.e<e>.input`` (an
ordered list of the inputs it may read).

Example:
    >>> space = cell_space()
    >>> len(space), space["normal.e7.input"].values
    (16, (0, 1, 2, 3, 4))
    >>> cell_loss({**{f"normal.e{e}.op": "separable_convolution_3x3" for e in range(8)},
    ...            **{f"normal.e{e}.input": e // 2 + 1 for e in range(8)}})
    0.0
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from hpnb.core.space import CategoricalParameter, OrdinalParameter, Parameter, SearchSpace
from hpnb.core.strategies.base import Strategy, TrialHistory
from hpnb.core.trial import TrialState

#: Katib's operations of a DARTS cell.
OPERATIONS = ("separable_convolution_3x3", "separable_convolution_5x5", "dilated_convolution_3x3",
              "dilated_convolution_5x5", "avg_pooling_3x3", "max_pooling_3x3", "skip_connection")
#: the toy score's worth of each operation (the lower the better); the first is decisively best.
OPERATION_LOSS = {"separable_convolution_3x3": 0.0, "separable_convolution_5x5": 0.5,
                  "dilated_convolution_3x3": 0.6, "dilated_convolution_5x5": 0.7, "avg_pooling_3x3": 0.9,
                  "max_pooling_3x3": 0.9, "skip_connection": 1.0}


def cell_space(nodes: int = 4, inputs: int = 2, prefix: str = "normal") -> SearchSpace:
    """The parameters of one cell's edges: ``inputs`` edges per node, an operation and an input each."""
    params: list[Parameter] = []
    for node in range(nodes):
        for j in range(inputs):
            edge = node * inputs + j
            params.append(CategoricalParameter(f"{prefix}.e{edge}.op", OPERATIONS))
            params.append(OrdinalParameter(f"{prefix}.e{edge}.input", tuple(range(node + 2))))
    return SearchSpace(tuple(params))


def cell_loss(params: Mapping[str, Any], inputs: int = 2, prefix: str = "normal") -> float:
    """A toy loss of a cell: each edge's operation's :data:`OPERATION_LOSS`, plus a quarter for each
    step its input lies before the node's latest one (0: every edge a 3x3 separable convolution
    of the node just before)."""
    loss = 0.0
    edges = sum(1 for name in params if name.startswith(f"{prefix}.e") and name.endswith(".op"))
    for edge in range(edges):
        latest = edge // inputs + 1
        loss += OPERATION_LOSS[params[f"{prefix}.e{edge}.op"]]
        loss += 0.25 * (latest - int(params[f"{prefix}.e{edge}.input"]))
    return loss


def cell_objective(config: Mapping[str, Any]) -> dict[str, float]:
    """An objective over :func:`cell_space` for searches: ``{"loss": cell_loss(config)}``."""
    return {"loss": cell_loss(config)}


def search_cells(strategy: Strategy, trials: int, save_at: int) -> tuple[list[TrialHistory], dict[str, Any]]:
    """``trials`` sequential trials of ``strategy`` on :func:`cell_loss`: the store's history of them
    and the strategy's state as saved before trial ``save_at`` (through JSON, as the store keeps it)."""
    history: list[TrialHistory] = []
    saved: dict[str, Any] = {}
    for trial_id in range(trials):
        if trial_id == save_at:
            saved = json.loads(json.dumps(strategy.state_dict()))
        suggestion = strategy.suggest(trial_id)
        assert suggestion is not None
        loss = cell_loss(suggestion.params)
        strategy.observe(trial_id, loss)
        history.append(TrialHistory(trial_id, suggestion.params, TrialState.COMPLETED, loss))
    return history, saved
