"""``hpnb export --artifacts DIR`` on a real store file, its checkpoint store a folder beside it or a
real S3-compatible server (moto's)."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from hpnb.cli import main
from hpnb.core.store import ResultRow, Store
from hpnb.runner.checkpoint_store import CheckpointStore, search_location

PNG = b"\x89PNG\r\n\x1a\n" + b"\x01" * 64


def _search(tmp_path: Path, checkpoints_url: str | None) -> Path:
    """A search of three trials; trial 0 has two artifacts, trial 2 one, trial 1 none."""
    path = tmp_path / "hpnb.sqlite"
    spec = {"parameters": {"lr": [0.1, 0.2, 0.3]}}
    if checkpoints_url:
        spec["checkpoints"] = {"store": checkpoints_url}
    with Store(path) as store:
        record = store.create_experiment("cnn", spec, metric="loss", mode="min", strategy="grid", budget=3,
                                         parallel=1)
        for trial_id in range(3):
            store.add_trial(record.id, trial_id, {"lr": 0.1 * (trial_id + 1)})
            store.update_trial(record.id, trial_id, state="COMPLETED", value=1.0 - trial_id / 10)
        store.add_results(record.id, [ResultRow(2, 1, 0, 1000.0, 0.8, {"loss": 0.8})])
        record = store.experiment("cnn")
    checkpoints = CheckpointStore(search_location(path, record.name, record.id, record.created, record.spec))
    for trial_id, name, data in [(0, "plots/loss.png", PNG), (0, "predictions.csv", b"y\n1\n"),
                                 (2, "model.txt", b"tree 0")]:
        local = tmp_path / "upload"
        local.write_bytes(data)
        checkpoints.put_artifact(trial_id, name, local)
    return path


@pytest.fixture(params=["folder", "s3"])
def store_path(request: pytest.FixtureRequest, tmp_path: Path) -> Path:
    url = None if request.param == "folder" else f"{request.getfixturevalue('s3_url')}/{tmp_path.name}"
    return _search(tmp_path, url)


def test_export_copies_each_trials_artifacts_and_lists_them(store_path, tmp_path, capsys):
    target = tmp_path / "exported"
    assert main(["export", "cnn", "--store", str(store_path), "-o", str(tmp_path / "trials.csv"),
                 "--artifacts", str(target)]) == 0
    assert (target / "trial-0" / "plots" / "loss.png").read_bytes() == PNG
    assert (target / "trial-0" / "predictions.csv").read_text() == "y\n1\n"
    assert (target / "trial-2" / "model.txt").read_text() == "tree 0"
    assert sorted(p.name for p in target.iterdir()) == ["trial-0", "trial-2"]
    table = pd.read_csv(tmp_path / "trials.csv", keep_default_na=False)
    assert table["artifacts"].tolist() == ["trial-0/plots/loss.png;trial-0/predictions.csv", "",
                                           "trial-2/model.txt"]
    capsys.readouterr()
    assert main(["export", "cnn", "--store", str(store_path), "--format", "json", "--history",
                 "--artifacts", str(tmp_path / "again")]) == 0
    rows = json.loads(capsys.readouterr().out)  # one report, of trial 2: its files alone
    assert [(r["trial_id"], r["artifacts"]) for r in rows] == [(2, "trial-2/model.txt")]
    assert [p.name for p in (tmp_path / "again").iterdir()] == ["trial-2"]


def test_artifacts_with_the_katib_format_is_one_clear_error(tmp_path, capsys):
    path = _search(tmp_path, None)
    assert main(["export", "cnn", "--store", str(path), "--format", "katib", "--artifacts",
                 str(tmp_path / "x")]) == 2
    assert "--artifacts copies the trials' files; --format katib" in capsys.readouterr().err
    assert not (tmp_path / "x").exists()
