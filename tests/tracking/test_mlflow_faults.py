"""MLflow that cannot be reached, refuses names or values, or lost its experiment: the search runs,
and what MLflow lacks is said once and sent by ``hpnb export NAME --mlflow URI``."""

from __future__ import annotations

import warnings

import pytest
from mlflow.tracking import MlflowClient

import hpnb
from hpnb.cli import main
from hpnb.tracking import TrackingError, TrackingWarning
from tests.tracking import objectives
from tests.tracking.conftest import free_port
from tests.waiting import patience

SPACE = {"lr": [0.1, 0.2]}


@pytest.mark.parametrize("uri", ["localhost:5000", "http://127.0.0.1:{port}"])
def test_required_mlflow_that_cannot_be_used_stops_the_search_before_it_starts(store, uri: str) -> None:
    uri = uri.format(port=free_port())
    with pytest.raises(TrackingError) as caught:
        hpnb.search(objectives.curve, name="needs-mlflow", store=store, metric="loss", parameters=SPACE,
                    tracking={"mlflow": {"uri": uri, "required": True}})
    text = str(caught.value)
    assert text.startswith("tracking.mlflow.uri: ") and uri in text
    assert "not a tracking URI" in text or "cannot be reached" in text
    assert store.find_experiment("needs-mlflow") is None  # nothing was recorded, nothing started


@pytest.mark.slow
def test_unreachable_mlflow_warns_once_the_search_runs_and_export_sends_it_later(store, dask_client,
                                                                                 mlflow_uri):
    down = f"http://127.0.0.1:{free_port()}"
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        search = hpnb.search(objectives.curve, name="offline", store=store, client=dask_client,
                             metric="loss", parameters=SPACE, strategy="grid",
                             tracking={"mlflow": {"uri": down, "experiment": "hpnb-offline"}})
    said = [w for w in caught if issubclass(w.category, TrackingWarning)]
    assert len(said) == 1 and "cannot be reached" in str(said[0].message)
    search.wait(patience(120))
    assert search.state == "COMPLETED"
    events = [e for e in store.events(search.experiment_id) if e["kind"] == "tracking_unsent"]
    assert len(events) == 1
    assert events[0]["data"]["text"] == (f"2 metric batches could not reach MLflow at {down}; "
                                         f"`hpnb export offline --mlflow {down}` sends them")

    assert main(["export", "offline", "--store", str(store.path), "--mlflow", mlflow_uri,
                 "--mlflow-experiment", "hpnb-offline"]) == 0
    client = MlflowClient(mlflow_uri)
    exp = client.get_experiment_by_name("hpnb-offline")
    runs = client.search_runs([exp.experiment_id], "tags.`hpnb.role` = 'trial'")
    assert len(runs) == 2
    assert all(len(client.get_metric_history(r.info.run_id, "loss")) == 5 for r in runs)
    assert all(r.info.status == "FINISHED" for r in runs)


@pytest.mark.slow
def test_long_values_odd_names_and_a_deleted_experiment_are_handled(store, dask_client, mlflow_uri):
    client = MlflowClient(mlflow_uri)
    client.delete_experiment(client.create_experiment("hpnb-deleted"))
    long_note = "n" * 7000
    search = hpnb.search(objectives.curve, name="odd", store=store, client=dask_client, metric="loss",
                         strategy="grid", parameters={"lr": [0.1], "note": long_note})
    search.wait(patience(120))
    assert main(["export", "odd", "--store", str(store.path), "--mlflow", mlflow_uri,
                 "--mlflow-experiment", "hpnb-deleted"]) == 0
    exp = client.get_experiment_by_name("hpnb-deleted")
    assert exp.lifecycle_stage == "active"  # restored
    trial = client.search_runs([exp.experiment_id], "tags.`hpnb.role` = 'trial'")[0]
    note = trial.data.params["note"]
    assert len(note) == 6000 and note.startswith("nnnn") and "truncated: 7,000 characters" in note
    assert trial.data.tags["hpnb.truncated_params"] == "note"
    assert len(client.get_metric_history(trial.info.run_id, "acc_1")) == 5
    parent = client.search_runs([exp.experiment_id], "tags.`hpnb.role` = 'search'")[0]
    assert parent.data.tags["hpnb.renamed.acc_1"] == "acc@1"
