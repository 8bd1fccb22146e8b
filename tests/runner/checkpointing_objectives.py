"""Objectives of the checkpoint tests, shipped to Dask workers by value (see conftest)."""

from __future__ import annotations

import json
import os
import shutil
import signal
import time
from pathlib import Path

import hpnb

#: a 1x1 PNG.
TINY_PNG = bytes.fromhex("89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c489"
                         "0000000d49444154789c6360000002000154a24f5d0000000049454e44ae426082")


def saves_folders(x: float, steps: int = 4, kill_at: int | None = None) -> dict[str, float]:
    """A training loop that saves a folder checkpoint (two files) each step, writes a log in its own
    ``dir`` and an artifact; the first run SIGKILLs its worker after step ``kill_at``'s checkpoint."""
    trial = hpnb.current_trial()
    assert trial is not None
    folder = hpnb.load_checkpoint()
    weights = 0.0 if folder is None else float((Path(folder) / "weights.txt").read_text())
    meta = None if folder is None else json.loads((Path(folder) / "meta" / "state.json").read_text())
    start = 0 if meta is None else meta["step"] + 1
    assert start == (0 if trial.resume_step is None else trial.resume_step + 1)
    with open(trial.dir / "train.log", "a") as log:
        log.write(f"attempt {trial.attempt} from {start}\n")
    for step in range(start, steps):
        weights += x
        with hpnb.checkpoint_dir(step=step) as saved:
            (saved / "weights.txt").write_text(repr(weights))
            (saved / "meta").mkdir()
            (saved / "meta" / "state.json").write_text(json.dumps({"step": step}))
        hpnb.report(step=step, loss=weights, started_at=start, attempt=trial.attempt)
        if step == kill_at and trial.attempt == 0:
            time.sleep(0.3)  # let the report with this checkpoint leave the worker
            os.kill(os.getpid(), signal.SIGKILL)
    (trial.dir / "predictions.csv").write_text("x,y\n1,2\n")
    hpnb.artifact(trial.dir / "predictions.csv", name="out/predictions.csv")
    hpnb.artifact(trial.dir / "train.log")
    (trial.dir / "tiny.png").write_bytes(TINY_PNG)
    hpnb.artifact(trial.dir / "tiny.png")
    import plotly.graph_objects as go

    hpnb.artifact(go.Figure(go.Scatter(y=[3, 2, 1])), name="plots/curve.png")
    return {"loss": weights}


def loses_its_latest(x: float, steps: int = 6, kill_at: int = 3) -> dict[str, float]:
    """Checkpoints every step; the first run deletes the checkpoint it just wrote at ``kill_at``
    from the store (a folder) and SIGKILLs its worker: the retry must start from the one before."""
    trial = hpnb.current_trial()
    assert trial is not None
    state = hpnb.load_checkpoint()
    start = 0 if state is None else state["step"] + 1
    for step in range(start, steps):
        hpnb.report(step=step, loss=x + step, started_at=start, checkpoint={"step": step})
        if step == kill_at and trial.attempt == 0:
            time.sleep(0.5)  # the driver has the reference
            trial_folder = trial.dir.parent
            newest = max(trial_folder.glob("ckpt-*"), key=lambda p: int(p.name.split("-")[1]))
            shutil.rmtree(newest)
            os.kill(os.getpid(), signal.SIGKILL)
        time.sleep(0.01)
    return {"loss": x + steps}


def dies_mid_upload(x: float, store_url: str, marker: str, steps: int = 3,
                    kill_at: int = 1) -> dict[str, float]:
    """Saves a one-file folder checkpoint each step, but at ``kill_at`` (first attempt) a folder of 64
    shards, and its worker is SIGKILLed once some shards are in the store and its manifest is not:
    ``marker`` gets that folder's path and the shards seen. The retry must resume from ``kill_at - 1``."""
    trial = hpnb.current_trial()
    assert trial is not None
    folder = hpnb.load_checkpoint()
    start = 0 if folder is None else json.loads((Path(folder) / "state.json").read_text())["step"] + 1
    for step in range(start, steps):
        if step == kill_at and trial.attempt == 0:
            _hold_manifests()
            _kill_when_half_uploaded(f"{store_url}/*/trial-{trial.trial_id}/ckpt-*", marker)
        with hpnb.checkpoint_dir(step=step) as saved:
            (saved / "state.json").write_text(json.dumps({"step": step}))
            for shard in range(64 if step == kill_at else 1):
                (saved / f"shard-{shard:02d}.bin").write_bytes(os.urandom(512 * 1024))
        hpnb.report(step=step, loss=x + step, started_at=start)
        time.sleep(0.3)  # the report leaves before the next step's upload
    return {"loss": x + steps}


def _hold_manifests(seconds: float = 120.0) -> None:
    """In this worker process, a checkpoint's manifest is written only after ``seconds``: the
    watcher sees the folder without it however fast the upload (the process is killed before)."""
    from hpnb.runner.checkpoint_store import CheckpointStore

    commit = CheckpointStore.commit

    def held(self: CheckpointStore, *args: object, **kwargs: object) -> None:
        time.sleep(seconds)
        commit(self, *args, **kwargs)  # type: ignore[arg-type]

    CheckpointStore.commit = held  # type: ignore[method-assign]


def _kill_when_half_uploaded(pattern: str, marker: str) -> None:
    import threading

    import fsspec

    fs = fsspec.filesystem("s3", use_listings_cache=False, skip_instance_cache=True)
    before = set(fs.glob(pattern))

    def watch() -> None:
        while True:
            for folder in set(fs.glob(pattern)) - before:
                names = [p.rsplit("/", 1)[-1] for p in fs.ls(folder, detail=False)]
                if names and "MANIFEST.json" not in names:
                    Path(marker).write_text(json.dumps({"folder": folder, "files": len(names)}))
                    os.kill(os.getpid(), signal.SIGKILL)
            time.sleep(0.005)

    threading.Thread(target=watch, daemon=True).start()


def killed_as_it_reports(x: float, steps: int = 3, kill_at: int = 1) -> dict[str, float]:
    """A folder checkpoint each step; a fresh start SIGKILLs its worker the instant the report of
    step ``kill_at`` returns (a returned report with a checkpoint holds it: the retry resumes after)."""
    trial = hpnb.current_trial()
    assert trial is not None
    folder = hpnb.load_checkpoint()
    start = 0 if folder is None else int((Path(folder) / "step.txt").read_text()) + 1
    for step in range(start, steps):
        with hpnb.checkpoint_dir(step=step) as saved:
            (saved / "step.txt").write_text(str(step))
        hpnb.report(step=step, loss=x + step, started_at=start)
        if step == kill_at and start == 0:
            os.kill(os.getpid(), signal.SIGKILL)
    return {"loss": x + steps}
