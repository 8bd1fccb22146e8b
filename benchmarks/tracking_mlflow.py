"""MLflow tracking: a search of 200 trials x 50 steps tracked in a real local ``mlflow server``
against the same search untracked, on the same cluster in one run.

The tracked search sends every report to MLflow while it runs (``tracking: {mlflow: ...}``);
its wall time is compared with the untracked one's. At the end every metric point is counted
through ``MlflowClient.get_metric_history``. While it runs, a sampler takes the newest report in
the store about once a second and times how long until MLflow shows it (from the moment the
trial reported it).

Goals: tracked wall time <= 1.05 x untracked; every point in MLflow; latency (median and
worst) <= 2 s.

Usage:
    python benchmarks/tracking_mlflow.py [--quick]
"""

from __future__ import annotations

import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

from _cluster import Goal, bench_session, check_goals, parse_args, print_table, ship_by_value
from mlflow.tracking import MlflowClient

import hpnb
from hpnb.core.store import ResultRow, Store
from tests.tracking.conftest import free_port, start_mlflow, stop_mlflow

ship_by_value(__name__)

STEPS = 50
PAUSE = 0.01
SPACE = {"x": {"min": 0.0, "max": 1.0}}


def train(x: float) -> dict[str, float]:
    """50 steps of about 10 ms, each reported."""
    loss = 0.0
    for step in range(STEPS):
        time.sleep(PAUSE)
        loss = (x - 0.3) ** 2 + 1.0 / (step + 1)
        hpnb.report(step=step, loss=loss)
    return {"loss": loss}


class LatencySampler(threading.Thread):
    """About once a second: the newest stored report, and how long until MLflow shows it."""

    def __init__(self, store: Store, client: MlflowClient, experiment: str) -> None:
        super().__init__(daemon=True)
        self.store, self.client, self.experiment = store, client, experiment
        self.latencies: list[float] = []
        self.stop = threading.Event()
        self.runs: dict[int, str] = {}

    def run(self) -> None:
        while not self.stop.wait(1.0):
            record = self.store.find_experiment(self.experiment)
            rows = [] if record is None else self.store.results(record.id)
            if rows:
                self._sample(max(rows, key=lambda r: r.time))

    def _sample(self, row: ResultRow) -> None:
        """Poll MLflow for ``row`` (its trial's run looked up once) until it shows."""
        deadline = time.time() + 10
        while time.time() < deadline and not self.stop.is_set():
            run_id = self.runs.get(row.trial_id) or self._run_of(row.trial_id)
            if run_id and any(m.step == row.step for m in self.client.get_metric_history(run_id, "loss")):
                self.latencies.append(time.time() - row.time)
                return
            time.sleep(0.05)

    def _run_of(self, trial_id: int) -> str | None:
        exp = self.client.get_experiment_by_name(self.experiment)
        runs = [] if exp is None else self.client.search_runs([exp.experiment_id],
                                                               f"tags.`hpnb.trial` = '{trial_id}'")
        if runs:
            self.runs[trial_id] = runs[0].info.run_id
        return self.runs.get(trial_id)


def points_in_mlflow(client: MlflowClient, experiment: str) -> int:
    exp = client.get_experiment_by_name(experiment)
    runs = client.search_runs([exp.experiment_id], "tags.`hpnb.role` = 'trial'", max_results=5000)
    return sum(len(client.get_metric_history(run.info.run_id, "loss")) for run in runs)


def main() -> int:
    args = parse_args(__doc__.splitlines()[0])
    trials = 40 if args.quick else 200
    with tempfile.TemporaryDirectory(prefix="hpnb-bench-mlflow-") as folder:
        port = free_port()
        server = start_mlflow(Path(folder), port)
        uri = f"http://127.0.0.1:{port}"
        try:
            with bench_session("tracking") as bench:
                bench.warm_up(train, lambda i: i)
                plain, _ = bench.search(train, trials=trials, parameters=SPACE, parallel=2)
                client = MlflowClient(uri)
                sampler = LatencySampler(bench.store, client, "tracking-2")
                sampler.start()
                tracked, search = bench.search(train, trials=trials, parameters=SPACE, parallel=2,
                                               tracking={"mlflow": {"uri": uri}})
                sampler.stop.set()
                sampler.join()
                stored = bench.store.result_count(search.experiment_id)
                points = points_in_mlflow(client, search.name)
        finally:
            stop_mlflow(server)
    latencies = sampler.latencies or [float("inf")]
    print_table(f"MLflow tracking: {trials} trials x {STEPS} steps, 2 single-threaded workers, "
                "local mlflow server",
                ("search", "seconds", "points stored", "points in MLflow",
                 "report -> MLflow s (median / max, n)"),
                [("untracked", plain, trials * STEPS, "-", "-"),
                 ("tracked in MLflow", tracked, stored, points,
                  f"{statistics.median(latencies):.2f} / {max(latencies):.2f}, {len(sampler.latencies)}")])
    return check_goals([
        Goal("tracked / untracked wall time", tracked / plain, 1.05),
        Goal("points in MLflow / points reported", points / (trials * STEPS), 1.0, at_most=False),
        Goal("median report -> visible in MLflow (s)", statistics.median(latencies), 2.0),
        Goal("worst report -> visible in MLflow (s)", max(latencies), 2.0),
    ])


if __name__ == "__main__":
    sys.exit(main())
