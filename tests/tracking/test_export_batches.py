"""A stored search with more points than one MLflow batch holds, exported twice: every point once."""

from __future__ import annotations

from pathlib import Path

import pytest
from mlflow.tracking import MlflowClient

from hpnb.core.spec import parse_spec
from hpnb.core.store import ResultRow, Store
from hpnb.core.trial import ExperimentState, TrialState
from hpnb.tracking import export_to_mlflow

REPORTS = 2_600


def stored_search(store: Store) -> int:
    spec = parse_spec({"metric": "loss", "strategy": "grid", "parameters": {"lr": [0.1, 0.2]}})
    record = store.create_experiment("batched", spec.to_dict(), metric="loss", mode="min", strategy="grid",
                                     budget=2, parallel=2)
    for trial_id, lr in enumerate([0.1, 0.2]):
        store.add_trial(record.id, trial_id, {"lr": lr})
        rows = [ResultRow(trial_id, seq, seq - 1, 1_700_000_000.0 + seq, lr / seq,
                          {"loss": lr / seq, "lr_now": lr})
                for seq in range(1, REPORTS + 1)]
        store.add_results(record.id, rows)
        store.update_trial(record.id, trial_id, state=TrialState.COMPLETED, start=1_700_000_000.0,
                           end=1_700_003_000.0, value=lr / REPORTS, last_step=REPORTS - 1)
    store.update_experiment(record.id, state=ExperimentState.COMPLETED)
    return record.id


@pytest.mark.slow
def test_an_export_sends_every_point_once_however_often_it_runs(store, mlflow_uri) -> None:
    stored_search(store)
    assert export_to_mlflow(store, "batched", mlflow_uri, "hpnb-batches") == 2 * REPORTS
    export_to_mlflow(store, "batched", mlflow_uri, "hpnb-batches")
    client = MlflowClient(mlflow_uri)
    exp = client.get_experiment_by_name("hpnb-batches")
    runs = client.search_runs([exp.experiment_id])
    assert sorted(r.data.tags["hpnb.role"] for r in runs) == ["search", "trial", "trial"]
    for run in runs:
        if run.data.tags["hpnb.role"] == "trial":
            history = client.get_metric_history(run.info.run_id, "loss")
            assert sorted(m.step for m in history) == list(range(REPORTS))
            assert len(client.get_metric_history(run.info.run_id, "lr_now")) == REPORTS
            assert run.data.tags["hpnb.sent_seq"] == str(REPORTS) and run.info.status == "FINISHED"
        else:
            assert run.data.metrics["best_loss"] == 0.1 / REPORTS and run.info.status == "FINISHED"


def test_a_sqlite_store_keeps_artifacts_beside_its_database_not_in_the_working_folder(
        store, tmp_path, monkeypatch) -> None:
    stored_search(store)
    spec_record = store.experiment("batched")
    store.update_trial(spec_record.id, 1, state=TrialState.FAILED, error="Traceback: boom")
    working = tmp_path / "working"
    working.mkdir()
    monkeypatch.chdir(working)
    uri = f"sqlite:///{tmp_path}/tracking/mlflow.db"
    (tmp_path / "tracking").mkdir()
    export_to_mlflow(store, "batched", uri)
    assert list(working.iterdir()) == []
    assert (tmp_path / "tracking" / "mlflow-artifacts").is_dir()
    client = MlflowClient(uri)
    failed = client.search_runs([client.get_experiment_by_name("batched").experiment_id],
                                "tags.`hpnb.trial` = '1'")[0]
    assert failed.info.status == "FAILED"
    assert Path(client.download_artifacts(failed.info.run_id, "error.txt")).read_text() == "Traceback: boom"
