"""A DARTS trial: one supernet trained on the user's data, reporting every epoch.

:class:`DartsTrial` is the objective a ``nas:`` section makes (:func:`hpnb.nas.section.prepare`);
it is pickled by reference, so a worker imports torch once. It reads the trial's parameters (a
``seed``, any DARTS setting), resumes from the supernet's checkpoint when the runner gives one
(after a retry, a pause, a lost worker), and records what :mod:`hpnb.nas.records` describes.
:func:`search_architecture` is the same loop without a search around it.

Example:
    >>> import numpy as np
    >>> from hpnb.nas.architecture_space import parse_nas
    >>> rng = np.random.default_rng(0)
    >>> images, labels = rng.normal(size=(16, 1, 4, 4)).astype("float32"), rng.integers(0, 2, 16)
    >>> darts = {"num_epochs": 1, "batch_size": 8, "init_channels": 2, "order": "first"}
    >>> section = parse_nas({"layers": 1, "nodes": 1, "operations": ["max_pooling_3x3", "skip_connection"],
    ...                      "darts": darts})
    >>> trial = DartsTrial(section, lambda: ((images, labels), (images, labels)))
    >>> sorted(trial(seed=0))  # doctest: +ELLIPSIS
    Model genotype = Genotype(normal=[[...]],normal_concat=range(2,3),reduce=[],reduce_concat=range(2,3))
    Best-Genotype=Genotype(...)
    ['Train-Accuracy', 'Train-Loss', 'Validation-Accuracy', 'Validation-Loss']
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from hpnb.nas.architecture_space import NasSection
from hpnb.nas.records import ARCHITECTURE, GENOTYPE, EpochRecord, best_record
from hpnb.nas.settings import DEFAULTS, guard_start, setting_value, skip_limit
from hpnb.nas.vocabulary import NONE, SKIP
from hpnb.runner.worker.reporting import load_checkpoint, report
from hpnb.runner.worker.trial_info import artifact, current_trial

if TYPE_CHECKING:
    from hpnb.nas.data import SearchData

#: called after each epoch with its record and a function that makes the checkpoint; returns
#: nothing, or raises to end the search (``hpnb.TrialStopped``).
EpochListener = Callable[[EpochRecord, Callable[[], dict[str, Any]]], None]


@dataclass(frozen=True)
class DartsTrial:
    """The objective of a ``nas:`` search: ``trial(seed=..., alpha_lr=..., ...)`` trains a supernet."""

    section: NasSection
    data: Callable[[], Any]

    def __call__(self, **params: Any) -> dict[str, float]:
        from hpnb.nas.data import SearchData

        trial = current_trial()
        settings = dict(self.section.settings)
        for name, value in params.items():
            if name in DEFAULTS:
                settings[name] = setting_value(name, value, f"parameters.{name}")
        layers = int(params.get("layers", self.section.layers))
        seed = int(params.get("seed", trial.trial_id if trial else 0))
        folder = trial.dir if trial else None

        def on_epoch(record: EpochRecord, checkpoint: Callable[[], dict[str, Any]]) -> None:
            records.append(record)
            print(f"Model genotype = {record.genotype}", flush=True)
            if folder is not None:
                _write_artifacts(folder, records)
            report(step=record.epoch, checkpoint=checkpoint(), **record.metrics)

        records: list[EpochRecord] = []
        resume = load_checkpoint()
        if resume is not None:
            records.extend(EpochRecord.from_json(line) for line in resume["records"])
        search_architecture(self.section.operations, layers, settings, SearchData.load(self.data), seed,
                            resume=resume, on_epoch=on_epoch)
        best = best_record(records)
        print(f"Best-Genotype={best.genotype}", flush=True)
        return dict(best.metrics)


def _write_artifacts(folder: Path, records: list[EpochRecord]) -> None:
    own = folder / "nas"
    own.mkdir(parents=True, exist_ok=True)
    for name, text in ((ARCHITECTURE, "".join(r.to_json() + "\n" for r in records)),
                       (GENOTYPE, best_record(records).genotype + "\n")):
        path = folder / name
        with tempfile.NamedTemporaryFile("w", dir=own, delete=False) as handle:
            handle.write(text)
        os.replace(handle.name, path)
        artifact(path, name=name)


def search_architecture(operations: tuple[str, ...], layers: int, settings: dict[str, Any], data: SearchData,
                        seed: int, *, resume: dict[str, Any] | None = None,
                        on_epoch: EpochListener | None = None) -> list[EpochRecord]:
    """Train a supernet with DARTS; each epoch's record (from the checkpoint ``resume`` on, if given).

    The search ends after ``num_epochs`` epochs, or at DARTS+'s criterion: the first epoch (from a
    quarter of them on) whose normal cell has ``stop_at_skip_connections`` skip connections.
    """
    import torch

    from hpnb.nas.data import batches, endless
    from hpnb.nas.layout import reduction_layers, smallest_image
    from hpnb.nas.supernet import Supernet
    from hpnb.nas.training import Optimisers, evaluate, search_epoch

    if data.side < smallest_image(layers):
        raise ValueError(f"images of side {data.side} are too small for the {len(reduction_layers(layers))} "
                         f"reduction cells of {layers} layers: give fewer layers or larger images")
    torch.manual_seed(seed)
    names = (*operations, NONE)
    net = Supernet(names, in_channels=data.channels, classes=data.classes, channels=settings["init_channels"],
                   layers=layers, nodes=settings["num_nodes"], stem_multiplier=settings["stem_multiplier"],
                   seed=seed)
    optimisers = Optimisers.of(net, settings)
    train_order, valid_order = torch.Generator().manual_seed(seed), torch.Generator().manual_seed(seed + 1)
    records: list[EpochRecord] = []
    start = 0
    if resume is not None:
        net.load_state_dict(resume["net"])
        optimisers.load_state_dict(resume["optimisers"])
        train_order.set_state(resume["train_order"])
        valid_order.set_state(resume["valid_order"])
        records = [EpochRecord.from_json(line) for line in resume["records"]]
        start = resume["epoch"]
        if records and records[-1].stopped:
            return records
    size, limit = settings["batch_size"], skip_limit(settings)
    for epoch in range(start + 1, settings["num_epochs"] + 1):
        valid = endless(data.valid_x, data.valid_y, size, valid_order)  # afresh: a checkpoint holds its state
        train_accuracy, train_loss = search_epoch(net, batches(data.train_x, data.train_y, size, train_order),
                                                  valid, optimisers, settings)
        accuracy, loss = evaluate(net, data.valid_x, data.valid_y, size)
        genotype = net.genotype()
        skips = genotype.count(SKIP)
        guarded = guard_start(settings["num_epochs"]) <= epoch < settings["num_epochs"]
        stopped = None
        if guarded and limit and skips >= limit:
            stopped = (f"DARTS+: the normal cell has {skips} skip connections (stop_at_skip_connections: "
                       f"{settings['stop_at_skip_connections']})")
        metrics = {"Validation-Accuracy": accuracy, "Validation-Loss": loss, "Train-Accuracy": train_accuracy,
                   "Train-Loss": train_loss}
        records.append(EpochRecord(epoch, metrics, str(genotype), names, net.edge_weights(), stopped))

        def checkpoint(epoch: int = epoch) -> dict[str, Any]:
            return {"epoch": epoch, "net": net.state_dict(), "optimisers": optimisers.state_dict(),
                    "train_order": train_order.get_state(), "valid_order": valid_order.get_state(),
                    "records": [r.to_json() for r in records]}

        if on_epoch is not None:
            on_epoch(records[-1], checkpoint)
        if stopped:
            print(f"Search stopped: {stopped}", flush=True)
            break
    return records
