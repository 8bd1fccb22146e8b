"""A search written for TensorBoard, read back with TensorBoard's own event reader and the HParams
plugin's parsing (no TensorFlow installed)."""

from __future__ import annotations

import subprocess
import sys

import pytest
from tensorboard.backend.event_processing.event_accumulator import EventAccumulator
from tensorboard.plugins.hparams import api_pb2, metadata

import hpnb
from tests.tracking import objectives
from tests.waiting import patience


def _writes_without_tensorflow_or_torch() -> None:
    """hpnb's TensorBoard writer loads neither TensorFlow nor torch (installed or not)."""
    script = ("import sys, hpnb.tracking.tensorboard, hpnb.tracking.tensorboard_hparams\n"
              "print(*sorted(m for m in ('tensorflow', 'torch') if m in sys.modules))")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and done.stdout.split() == [], done.stderr


def read(folder: str) -> EventAccumulator:
    accumulator = EventAccumulator(folder, size_guidance={"scalars": 0, "tensors": 0})
    accumulator.Reload()
    return accumulator


@pytest.mark.slow
def test_each_trial_is_a_run_with_its_curves_and_the_hparams_summaries(store, dask_client, tmp_path):
    _writes_without_tensorflow_or_torch()
    folder = tmp_path / "tb"
    search = hpnb.search(objectives.curve, name="tb", store=store, client=dask_client, metric="loss",
                         strategy="grid", parameters={"lr": [0.1, 0.4, 5.0], "opt": ["sgd"]}, retries=0,
                         tracking={"tensorboard": str(folder)})
    search.wait(patience(120))
    top = read(str(folder))
    experiment = metadata.parse_experiment_plugin_data(
        top.SummaryMetadata(metadata.EXPERIMENT_TAG).plugin_data.content)
    assert [h.name for h in experiment.hparam_infos] == ["lr", "opt"]
    assert [m.name.tag for m in experiment.metric_infos] == ["loss"]
    runs = sorted(p.name for p in folder.iterdir() if p.is_dir())
    assert runs == ["trial-0000", "trial-0001", "trial-0002"]
    for trial in store.trials(search.experiment_id):
        run = read(str(folder / f"trial-{trial.trial_id:04d}"))
        curve = run.Scalars("loss")
        rows = store.results(search.experiment_id, trial_id=trial.trial_id)
        expected = [(r.step, r.metrics["loss"]) for r in rows]
        assert [(e.step, pytest.approx(e.value)) for e in curve] == expected
        assert len(run.Scalars("acc@1")) == 5
        start = metadata.parse_session_start_info_plugin_data(
            run.SummaryMetadata(metadata.SESSION_START_INFO_TAG).plugin_data.content)
        assert start.hparams["lr"].number_value == trial.params["lr"]
        assert start.hparams["opt"].string_value == "sgd"
        end = metadata.parse_session_end_info_plugin_data(
            run.SummaryMetadata(metadata.SESSION_END_INFO_TAG).plugin_data.content)
        expected = api_pb2.STATUS_FAILURE if trial.state == "FAILED" else api_pb2.STATUS_SUCCESS
        assert end.status == expected
