"""Trials that span several workers (``resources.per_trial.workers``), on real worker processes:
every rank runs the objective with the environment ``torchrun`` gives, gets the same parameters,
and rank 0's reports are the trial's; trials wait whole for their ranks' workers; a rank that
fails ends its attempt with its traceback and the search goes on."""

from __future__ import annotations

import json
import os
import signal
from collections.abc import Iterator
from functools import partial
from pathlib import Path

import pytest
from distributed import Client, LocalCluster

import hpnb
from tests.runner import rank_objectives
from tests.training_libraries import require
from tests.waiting import patience, wait_until

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def three_workers() -> Iterator[Client]:
    """Three worker processes of one thread each: two trials of 2 ranks cannot run at once."""
    with LocalCluster(n_workers=3, threads_per_worker=1, processes=True, dashboard_address=None) as cluster, \
            Client(cluster, set_as_default=False) as client:
        yield client


def _require_torch() -> None:
    require("torch", install="distributed training needs torch: pip install torch (its CPU build)")


def _said(folder: Path) -> dict[tuple[int, int], dict[int, dict]]:
    """What each rank of each (trial, attempt) said it was told."""
    found: dict[tuple[int, int], dict[int, dict]] = {}
    for path in folder.glob("*.json"):
        said = json.loads(path.read_text())
        found.setdefault((said["trial"], said["attempt"]), {})[said["rank"]] = said
    return found


def _ranks_seen(store, experiment_id: int) -> dict[tuple[int, int], list[list[tuple[str, str]]]]:
    """Each attempt's ranks as the driver recorded them (store events ``ranks``), oldest first:
    a list of (worker, state) by rank for every change."""
    seen: dict[tuple[int, int], list[list[tuple[str, str]]]] = {}
    for event in store.events(experiment_id):
        if event["kind"] == "ranks":
            data = event["data"]
            ranks = [(r["worker"], r["state"]) for r in sorted(data["ranks"], key=lambda r: r["rank"])]
            seen.setdefault((data["trial"], data["attempt"]), []).append(ranks)
    return seen


def test_every_rank_runs_with_torchruns_environment_and_rank_0_reports_for_the_trial(
        store, three_workers: Client, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # the communication libraries' settings of the driver's process reach every rank, as torchrun's
    # processes inherit them (the workers started before these were set)
    monkeypatch.setenv("NCCL_DEBUG", "WARN")
    monkeypatch.setenv("GLOO_SOCKET_IFNAME", "lo")
    objective = partial(rank_objectives.told_environment, folder=str(tmp_path))
    search = hpnb.search(objective, name="gang", store=store, client=three_workers, metric="loss", trials=5,
                         strategy="random", seed=1,
                         parameters={"x": {"min": 0.0, "max": 1.0}}, resources={"per_trial": {"workers": 2}})
    assert search.wait(patience(180)).state == "COMPLETED", search.message
    said = _said(tmp_path)
    assert len(said) == 5
    ports = set()
    for (trial, _), ranks in said.items():
        assert sorted(ranks) == [0, 1]
        first, second = ranks[0], ranks[1]
        sampled = store.trial(search.experiment_id, trial).params["x"]
        assert first["x"] == second["x"] == sampled  # sampled once, by the driver
        assert first["pid"] != second["pid"]  # ranks never share a process
        assert [first["RANK"], second["RANK"]] == ["0", "1"]
        assert first["WORLD_SIZE"] == second["WORLD_SIZE"] == "2" and second["world_size"] == 2
        assert first["MASTER_PORT"] == second["MASTER_PORT"] and first["MASTER_ADDR"] == "127.0.0.1"
        assert {first["LOCAL_WORLD_SIZE"], second["LOCAL_WORLD_SIZE"]} == {"2"}  # one host, two ranks
        assert sorted([first["LOCAL_RANK"], second["LOCAL_RANK"]]) == ["0", "1"]
        assert first["NCCL_DEBUG"] == second["NCCL_DEBUG"] == "WARN" and second["GLOO_SOCKET_IFNAME"] == "lo"
        ports.add(first["MASTER_PORT"])
        rows = store.results(search.experiment_id, trial_id=trial)
        assert [r.step for r in rows] == [0, 1, 2, 3]  # once each: rank 1's reports are not the trial's
        assert {r.metrics["rank"] for r in rows} == {0} and {r.metrics["world"] for r in rows} == {2}
    assert len(ports) == 5  # a port chosen for every trial, never a fixed one
    workers = set(three_workers.scheduler_info()["workers"])
    for changes in _ranks_seen(store, search.experiment_id).values():  # what the dashboard and Lab show
        assert [state for _, state in changes[0]] == ["starting", "starting"]
        assert [state for _, state in changes[-1]] == ["completed", "completed"]
        assert ["running", "running"] in [[state for _, state in ranks] for ranks in changes]
        placed = [worker for worker, _ in changes[-1]]
        assert len(set(placed)) == 2 and set(placed) <= workers
    leftover = three_workers.run(lambda: sorted(k for k in rank_objectives.TOLD if k in os.environ))
    assert all(found == [] for found in leftover.values())  # each rank's environment restored after


def test_trials_of_one_and_two_ranks_share_the_workers_and_each_gets_its_own_size(
        store, three_workers: Client, tmp_path: Path) -> None:
    objective = partial(rank_objectives.told_environment, folder=str(tmp_path), steps=3)
    search = hpnb.search(objective, name="mixed", store=store, client=three_workers, metric="loss", trials=8,
                         strategy="random", seed=2,
                         parameters={"x": {"min": 0.0, "max": 1.0}, "nodes": [1, 2]},
                         resources={"per_trial": {"workers": {"parameter": "nodes"}}})
    assert search.wait(patience(180)).state == "COMPLETED", search.message
    for (trial, _), ranks in _said(tmp_path).items():
        nodes = store.trial(search.experiment_id, trial).params["nodes"]
        assert sorted(ranks) == list(range(nodes))
        assert {said["WORLD_SIZE"] for said in ranks.values()} == {str(nodes)}


def test_a_failing_rank_ends_its_attempt_with_its_traceback_and_the_search_goes_on(
        store, three_workers: Client, tmp_path: Path) -> None:
    objective = partial(rank_objectives.one_rank_fails, folder=str(tmp_path))
    search = hpnb.search(objective, name="failing", store=store, client=three_workers, metric="loss",
                         strategy="grid", parameters={"x": [0.2, 0.8]}, parallel=1,
                         resources={"per_trial": {"workers": 2}})
    assert search.wait(patience(180)).state == "COMPLETED", search.message
    by_x = {t.params["x"]: t for t in store.trials(search.experiment_id)}
    assert by_x[0.2].state == "COMPLETED"
    failed = by_x[0.8]
    assert failed.state == "FAILED"
    assert failed.error.startswith("rank 1 failed:") and "ValueError: rank 1 cannot go on" in failed.error
    assert (failed.last_step or 0) < 100  # rank 0 was ended too, long before its 200 steps
    changes = _ranks_seen(store, search.experiment_id)[(failed.trial_id, 0)]
    assert [state for _, state in changes[-1]] == ["stopped", "failed"]


def test_ranks_all_reduce_over_a_gloo_process_group_made_from_the_environment(
        store, three_workers: Client, tmp_path: Path) -> None:
    _require_torch()
    search = hpnb.search(partial(rank_objectives.all_reduced, folder=str(tmp_path)), name="gloo", store=store,
                         client=three_workers, metric="loss", trials=3, strategy="random", seed=3,
                         parameters={"x": {"min": 0.0, "max": 1.0}}, resources={"per_trial": {"workers": 2}})
    assert search.wait(patience(240)).state == "COMPLETED", search.message
    for trial in store.trials(search.experiment_id):
        assert trial.state == "COMPLETED", trial.error
        assert trial.metrics["total"] == 3.0 and trial.metrics["world"] == 2  # rank 0 + 1, and rank 1 + 1


def test_a_ranks_worker_killed_mid_trial_ends_the_attempt_which_resumes_whole_from_its_checkpoint(
        store, three_workers: Client, tmp_path: Path) -> None:
    objective = partial(rank_objectives.checkpointed, folder=str(tmp_path))
    search = hpnb.search(objective, name="killed", store=store, client=three_workers, metric="loss", trials=1,
                         strategy="random", retries=2,
                         parameters={"x": {"min": 0.0, "max": 1.0}}, resources={"per_trial": {"workers": 2}})
    pid_file = tmp_path / "pid-0"
    wait_until(lambda: pid_file.exists() and len(store.results(search.experiment_id)) >= 5,
               message="rank 1 running, rank 0 reporting")
    os.kill(int(pid_file.read_text()), signal.SIGKILL)  # its nanny starts a new worker process
    assert search.wait(patience(180)).state == "COMPLETED", search.message
    [trial] = store.trials(search.experiment_id)
    assert trial.state == "COMPLETED" and trial.retries >= 1
    steps = [r.step for r in store.results(search.experiment_id, trial_id=trial.trial_id)]
    assert steps == list(range(30))  # resumed from its checkpoint: no step stored twice, none lost
    attempts = _said(tmp_path)
    assert len(attempts) >= 2  # the attempt that lost a rank, and the one that completed
    assert all(sorted(ranks) == [0, 1] for ranks in attempts.values())  # each a whole gang
    seen = _ranks_seen(store, search.experiment_id)
    assert [state for _, state in seen[(0, 0)][-1]] == ["stopped", "lost"]  # rank 1's worker was killed
    assert [state for _, state in seen[(0, max(a for _, a in seen))][-1]] == ["completed", "completed"]


def test_several_ranks_in_one_worker_are_refused_at_the_start_with_what_to_give_instead(
        store, three_workers: Client, tmp_path: Path) -> None:
    objective = partial(rank_objectives.told_environment, folder=str(tmp_path))
    with pytest.raises(hpnb.HpnbError, match="procs_per_worker: 2 ranks in one worker need a process") as err:
        hpnb.search(objective, name="procs", store=store, client=three_workers, metric="loss", trials=1,
                    parameters={"x": [0.5]},
                    resources={"threads_per_worker": 2, "per_trial": {"workers": 1, "procs_per_worker": 2}})
    assert "workers: 2 with one-thread workers" in str(err.value)
    assert list(tmp_path.glob("*.json")) == []  # no rank ran


def test_a_trial_wider_than_the_cluster_waits_whole_says_for_what_and_runs_once_workers_join(
        store, tmp_path: Path) -> None:
    with LocalCluster(n_workers=1, threads_per_worker=1, processes=True, dashboard_address=None) as cluster, \
            Client(cluster, set_as_default=False) as client:
        objective = partial(rank_objectives.told_environment, folder=str(tmp_path))
        search = hpnb.search(objective, name="wide", store=store, client=client, metric="loss", trials=1,
                             parameters={"x": [0.5]}, resources={"per_trial": {"workers": 2}})
        said = wait_until(lambda: store.experiment("wide").message or "", message="the wait said")
        assert said.startswith("waiting for 2 workers: too few since")
        assert list(tmp_path.glob("*.json")) == []  # no rank started alone
        cluster.scale(2)
        assert search.wait(patience(180)).state == "COMPLETED", search.message
        assert sorted(_said(tmp_path)[(0, 0)]) == [0, 1]


def test_a_rank_that_never_joins_the_process_group_is_named_in_the_trials_error(
        store, three_workers: Client) -> None:
    _require_torch()
    search = hpnb.search(rank_objectives.rank_1_never_joins, name="absent", store=store, client=three_workers,
                         metric="loss", trials=1, parameters={"x": [0.5]}, retries=0, trial_timeout=80,
                         resources={"per_trial": {"workers": 2}})
    assert search.wait(patience(120)).state == "FAILED", search.message
    [trial] = store.trials(search.experiment_id)
    assert trial.state == "FAILED"
    assert trial.error.startswith("rank 1 never joined the process group (its objective did not call "
                                  "torch.distributed.init_process_group)"), trial.error
    assert "clients joined" in trial.error  # torch's own words follow, after half the trial_timeout
    assert trial.end - trial.start < 80  # its peer named before the trial_timeout


def test_a_port_taken_before_rank_0_listens_runs_the_attempt_again_on_another_port_uncounted(
        store, three_workers: Client, tmp_path: Path) -> None:
    _require_torch()
    objective = partial(rank_objectives.port_taken_on_first_attempt, folder=str(tmp_path))
    search = hpnb.search(objective, name="port", store=store, client=three_workers, metric="loss", trials=1,
                         parameters={"x": [0.5]}, retries=0, trial_timeout=90,
                         resources={"per_trial": {"workers": 2}})
    assert search.wait(patience(120)).state == "COMPLETED", search.message
    [trial] = store.trials(search.experiment_id)
    assert trial.state == "COMPLETED" and trial.retries == 0, trial.error  # retries: 0, yet it ran again
    said = _said(tmp_path)
    assert sorted(said) == [(0, 0), (0, 1)]
    assert said[(0, 0)][0]["MASTER_PORT"] != said[(0, 1)][0]["MASTER_PORT"]
    [retry] = [e["data"] for e in store.events(search.experiment_id) if e["kind"] == "retry"]
    assert retry["reason"].startswith("the rendezvous port was taken: port " + said[(0, 0)][0]["MASTER_PORT"])


def test_a_rank_that_hangs_is_ended_with_its_attempt_and_its_slot_is_not_given_to_the_next_trial(
        store) -> None:
    _require_torch()
    # a cluster of its own: the threads other tests' ranks left busy are not this test's
    with LocalCluster(n_workers=3, threads_per_worker=1, processes=True, dashboard_address=None) as cluster, \
            Client(cluster, set_as_default=False) as client:
        search = hpnb.search(rank_objectives.rank_1_hangs, name="hang", store=store, client=client,
                             metric="loss", strategy="grid", parameters={"x": [0.2, 0.8]}, parallel=1,
                             retries=0, trial_timeout=120, resources={"per_trial": {"workers": 2}})
        assert search.wait(patience(300)).state == "COMPLETED", search.message
    first, second = sorted(store.trials(search.experiment_id), key=lambda t: t.trial_id)
    assert first.params["x"] == 0.2 and first.state == "FAILED"  # rank 0's all_reduce gave up after 60 s
    assert "Timed out" in first.error or "timed out" in first.error, first.error
    assert first.end - first.start < 120  # before the trial_timeout itself
    assert second.state == "COMPLETED", second.error
    seen = _ranks_seen(store, search.experiment_id)
    hung = {worker for worker, state in seen[(0, 0)][-1] if state == "stopped"}
    placed = {worker for worker, _ in seen[(1, 0)][-1]}
    assert hung and not (hung & placed)  # the hung rank's worker was busy: the next trial ran elsewhere
