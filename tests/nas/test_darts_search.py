"""DARTS searches on a real local Dask cluster: each trial a supernet that streams its validation
accuracy and records its genotypes, and a paused trial that goes on from its supernet's checkpoint."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import hpnb
from hpnb.jupyter.dashboard.dashboard import Dashboard
from hpnb.nas import Genotype, genotypes, history
from tests.nas.data_functions import more_digits, tiny_digits
from tests.waiting import patience, wait_until

CELL = """
name: {name}
metric: Validation-Accuracy
mode: max
trials: {trials}
parallel: {parallel}
seed: 7
nas:
  layers: 2
  nodes: 1
  operations: [separable_convolution_3x3, max_pooling_3x3, skip_connection]
  darts: {{num_epochs: {epochs}, batch_size: 40, init_channels: 2, order: first}}
"""


@pytest.mark.slow
def test_two_darts_trials_stream_accuracy_and_record_their_genotypes(store, dask_client):
    search = hpnb.search(tiny_digits, CELL.format(name="darts", trials=2, parallel=2, epochs=2), store=store,
                         client=dask_client)
    search.wait(patience(120))
    assert search.state == "COMPLETED", search.message
    results = search.results
    assert list(results["state"]) == ["COMPLETED", "COMPLETED"]
    assert results["seed"].nunique() == 2  # the strategy gave each supernet its own seed
    rows = search.history
    for trial_id in results["trial_id"]:
        steps = rows[rows["trial_id"] == trial_id]
        assert list(steps["step"]) == [1, 2]
        records = history(search, int(trial_id))
        assert [r.epoch for r in records] == [1, 2]
        assert [r.metrics["Validation-Accuracy"] for r in records] == list(steps["value"])
        for record in records:
            Genotype.parse(record.genotype)
            assert record.operations == ("separable_convolution_3x3", "max_pooling_3x3", "skip_connection",
                                         "none")
            for cell in ("normal", "reduce"):  # one node, two input edges, a softmax over 4 operations
                assert [len(edge) for edge in record.weights[cell][0]] == [4, 4]
                assert all(abs(sum(edge) - 1) < 1e-6 for edge in record.weights[cell][0])
        best = max(records, key=lambda r: r.metrics["Validation-Accuracy"])
        log = search.logs(int(trial_id)).stdout
        assert f"Best-Genotype={best.genotype}" in log and log.count("Model genotype = ") == 2
    found = genotypes(search)
    assert len(found) == 2 and found[0][1] >= found[1][1]
    assert search.best["value"] == pytest.approx(found[0][1])
    assert search.best["trial_id"] == found[0][0]
    shown = Dashboard(hpnb.load("darts", store=store))
    try:  # the selected trial's architecture under its log
        shown.widgets.table.selected = found[1][0]
        panel = shown.widgets.log.value
        assert "<b>architecture</b>" in panel and panel.count("<svg") == 2
        assert "<th>edge \\ epoch</th><th>1</th><th>2</th></tr>" in panel
    finally:
        shown.close()


@pytest.mark.slow
def test_a_paused_darts_trial_resumes_from_its_supernets_checkpoint(store, dask_client):
    spec = CELL.format(name="darts-pause", trials=2, parallel=1, epochs=6)
    search = hpnb.search(more_digits, spec, store=store, client=dask_client,
                         early_stopping={"rule": "median", "every": 1, "min_trials": 99})
    (trial,) = wait_until(lambda: next(((t.trial_id,) for t in store.trials(search.experiment_id)
                                        if t.state == "RUNNING" and t.checkpoint and (t.last_step or 0) >= 1),
                                       None), patience(90), "a running trial with a checkpoint")
    search.pause_trial(trial)
    search.wait(patience(120))  # the other trial runs in its slot; then, nothing else left, it resumes
    assert search.state == "COMPLETED", search.message
    events = store.events(search.experiment_id)
    paused = [e["data"] for e in events if e["kind"] == "pause"]
    assert [p["trial"] for p in paused] == [trial]
    assert [e["data"]["trial"] for e in events if e["kind"] == "resume"] == [trial]
    paused_at = paused[0]["step"]
    assert 1 <= paused_at < 6
    rows = store.results(search.experiment_id, trial_id=trial)
    assert [r.step for r in rows] == [1, 2, 3, 4, 5, 6]  # every epoch once: none lost, none trained twice
    assert [r.epoch for r in history(search, trial)] == [1, 2, 3, 4, 5, 6]
    log = search.logs(trial).stdout
    assert log.count("Model genotype = ") == 6 - paused_at  # the last attempt trained only what was left
    artifacts = {a["name"]: a for a in search.artifacts(trial)}
    lines = Path(artifacts["nas/architecture.jsonl"]["path"]).read_text().splitlines()
    assert [json.loads(line)["epoch"] for line in lines] == [1, 2, 3, 4, 5, 6]
