"""What the nested run of a trial holds in MLflow.

- at its start: the trial's parameters as params (renamed and cut as
  :mod:`hpnb.tracking.names` says; the cut ones listed in the tag ``hpnb.truncated_params``),
  tags ``hpnb.trial`` and ``hpnb.parent_trial`` (the trial a PBT exploit copied);
- every reported metric at its step (the report's number when it gave no step), at the time
  it was reported;
- at its end: the status ``FINISHED`` (completed, or stopped: tag ``hpnb.state = STOPPED`` and
  ``hpnb.stop_reason`` say why) or ``FAILED`` (the traceback as the artifact ``error.txt``);
  tags ``hpnb.attempts``, ``hpnb.value``, ``hpnb.checkpoint`` (where its latest checkpoint is)
  and ``hpnb.checkpoint_step``; its files from ``hpnb.artifact`` under ``artifacts/``.
  A trial left unfinished when the driver stopped is ``KILLED`` until a resume runs it again.

Example:
    >>> start_params(trial, MetricNames())   # doctest: +SKIP
    ({'lr': '0.01'}, [])
"""

from __future__ import annotations

import math
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, Any

from hpnb.core.store import ExperimentRecord, TrialRecord
from hpnb.core.trial import TrialState
from hpnb.tracking.names import MetricNames, is_truncated, param_value

if TYPE_CHECKING:
    from mlflow.tracking import MlflowClient

#: MLflow's status of a trial run, by the trial's state.
TRIAL_STATUS = {TrialState.COMPLETED.value: "FINISHED", TrialState.STOPPED.value: "FINISHED",
                TrialState.FAILED.value: "FAILED", TrialState.RUNNING.value: "RUNNING"}
ENDED = (TrialState.COMPLETED.value, TrialState.STOPPED.value, TrialState.FAILED.value)


def start_params(trial: TrialRecord, names: MetricNames) -> tuple[dict[str, str], list[str]]:
    """The trial's params as MLflow takes them, and the names of those that were cut."""
    params = {names.safe(name): param_value(value) for name, value in trial.params.items()}
    cut = [names.safe(name) for name, value in trial.params.items() if is_truncated(value)]
    return params, cut


def start_tags(trial: TrialRecord, cut: list[str]) -> dict[str, str]:
    tags = {"hpnb.trial": str(trial.trial_id), "mlflow.runName": f"trial-{trial.trial_id}"}
    if trial.parent is not None:
        tags["hpnb.parent_trial"] = str(trial.parent)
    if cut:
        tags["hpnb.truncated_params"] = ", ".join(cut)[:8000]
    return tags


def metric_points(values: dict[str, Any], names: MetricNames | None = None) -> dict[str, float]:
    """The numbers of one report, by their MLflow names with ``names`` (else as reported); None
    and non-numbers left out."""
    points = {}
    for name, value in values.items():
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            continue
        number = float(value)
        if math.isinf(number):  # MLflow stores no infinity: the largest float of its sign
            number = math.copysign(1.7976931348623157e308, number)
        points[name if names is None else names.safe(name)] = number
    return points


def end_tags(trial: TrialRecord, checkpoint_url: str | None) -> dict[str, str]:
    tags = {"hpnb.state": trial.state, "hpnb.attempts": str(trial.retries + 1)}
    if trial.stop_reason:
        tags["hpnb.stop_reason"] = trial.stop_reason[:8000]
    if trial.value is not None:
        tags["hpnb.value"] = repr(float(trial.value))
    if checkpoint_url:
        tags["hpnb.checkpoint"] = checkpoint_url[:8000]
        if trial.checkpoint_step is not None:
            tags["hpnb.checkpoint_step"] = str(trial.checkpoint_step)
    return tags


class TrialFiles:
    """A search's trial files in its checkpoint store: checkpoints' places and artifacts."""

    def __init__(self, store_path: Path, record: ExperimentRecord) -> None:
        from hpnb.runner.checkpoint_store import search_location

        self.location = search_location(store_path, record.name, record.id, record.created, record.spec)

    def checkpoint_url(self, ref: str | None) -> str | None:
        """Where the checkpoint ``ref`` is (the store's URL or folder and its place in it)."""
        from hpnb.runner.checkpoint_store import check_ref

        if not ref:
            return None
        try:
            check_ref(ref)
        except ValueError:
            return None
        return f"{self.location.url.rstrip('/')}/{ref}"

    def send_artifacts(self, client: MlflowClient, run_id: str, trial_id: int) -> int:
        """Copy the trial's artifacts into the run (under ``artifacts/``); how many."""
        from hpnb.runner.checkpoint_store import CheckpointStore, check_artifact_name

        store = CheckpointStore(self.location)
        listed = store.artifacts(trial_id)
        with tempfile.TemporaryDirectory(prefix="hpnb-mlflow-") as folder:
            for artifact in listed:
                name = check_artifact_name(artifact["name"])
                local = Path(folder) / name
                local.parent.mkdir(parents=True, exist_ok=True)
                store.fs.get_file(artifact["path"], str(local))
                subfolder = "/".join(["artifacts", *name.split("/")[:-1]])
                client.log_artifact(run_id, str(local), subfolder)
        return len(listed)
