"""What a DARTS trial records each epoch, and reading it back from a search.

Each epoch a trial reports its metrics (``Validation-Accuracy``, ``Validation-Loss``,
``Train-Accuracy``, ``Train-Loss``) with a checkpoint of the supernet, prints
``Model genotype = ...``, and rewrites two artifacts of the trial (``Search.artifacts(trial)``):

- ``nas/architecture.jsonl``: one JSON line per epoch so far: ``epoch``, the four metrics,
  ``genotype`` (Katib's text), ``operations`` (the names of an edge's operations, ``none``
  last) and ``weights``: ``{"normal": [...], "reduce": [...]}``, for each node of the cell, for each
  of its input states (0 and 1 the cell's inputs, then the earlier nodes), the softmax of the
  architecture weights over ``operations``; and ``stopped`` when DARTS+'s criterion ended the search.
- ``nas/genotype.txt``: the trial's genotype: that of its epoch of best validation accuracy so far
  (Katib's choice), in Katib's text.

At its end the trial prints ``Best-Genotype=...`` as Katib's trials do, and returns the metrics of
that epoch.

Example:
    >>> record = EpochRecord(1, {"Validation-Accuracy": 0.5}, "Genotype(...)", ("skip_connection",), {})
    >>> EpochRecord.from_json(record.to_json()) == record
    True
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from hpnb.nas.genotype import Genotype


class Search(Protocol):
    """What these functions read of a search handle (:class:`hpnb.Search`)."""

    @property
    def results(self) -> Any: ...

    def artifacts(self, trial_id: int) -> list[dict[str, Any]]: ...

ARCHITECTURE = "nas/architecture.jsonl"
GENOTYPE = "nas/genotype.txt"
METRIC = "Validation-Accuracy"


@dataclass(frozen=True)
class EpochRecord:
    """One epoch of a supernet: its metrics, its current genotype and its architecture weights."""

    epoch: int
    metrics: Mapping[str, float]
    genotype: str
    operations: tuple[str, ...]
    weights: Mapping[str, Any]
    stopped: str | None = field(default=None)

    def to_json(self) -> str:
        data = {"epoch": self.epoch, **self.metrics, "genotype": self.genotype,
                "operations": list(self.operations), "weights": self.weights}
        if self.stopped:
            data["stopped"] = self.stopped
        return json.dumps(data, separators=(",", ":"))

    @classmethod
    def from_json(cls, line: str) -> EpochRecord:
        data = json.loads(line)
        metrics = {k: v for k, v in data.items()
                   if k not in ("epoch", "genotype", "operations", "weights", "stopped")}
        return cls(data["epoch"], metrics, data["genotype"], tuple(data["operations"]), data["weights"],
                   data.get("stopped"))


def best_record(records: Sequence[EpochRecord]) -> EpochRecord:
    """The epoch of best validation accuracy (the earliest of equals)."""
    return max(reversed(records), key=lambda r: r.metrics[METRIC])


def history(search: Search, trial_id: int) -> list[EpochRecord]:
    """Every epoch trial ``trial_id`` of ``search`` recorded (empty before its first).

    Example:
        >>> [r.genotype for r in history(search, 1)]  # doctest: +SKIP
    """
    import fsspec

    for item in search.artifacts(trial_id):
        if item["name"] == ARCHITECTURE:
            with fsspec.open(item["path"], "r") as handle:
                return [EpochRecord.from_json(line) for line in handle.read().splitlines() if line.strip()]
    return []


def genotypes(search: Search, top: int | None = None) -> list[tuple[int, float, Genotype]]:
    """The genotype of each trial of ``search`` that found one, best validation accuracy first:
    ``(trial_id, accuracy, genotype)``; the first ``top`` only, when given.

    Example:
        >>> best = [str(g) for _, _, g in genotypes(search, top=2)]  # doctest: +SKIP
    """
    found = []
    for trial_id in search.results["trial_id"]:
        records = history(search, int(trial_id))
        if records:
            best = best_record(records)
            found.append((int(trial_id), float(best.metrics[METRIC]), Genotype.parse(best.genotype)))
    found.sort(key=lambda item: -item[1])
    return found[:top] if top is not None else found


def weights_table(record: EpochRecord, cell: str = "normal") -> list[tuple[str, list[float]]]:
    """One row per edge of ``cell`` (``"node 0 <- 1"``: node 0's edge from state 1), its weight per
    operation: what a heatmap of the architecture weights draws."""
    rows = []
    for node, edges in enumerate(record.weights.get(cell, [])):
        for state, values in enumerate(edges):
            rows.append((f"node {node} <- {state}", list(values)))
    return rows
