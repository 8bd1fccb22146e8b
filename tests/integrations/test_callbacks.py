"""The framework callbacks against the real libraries, in searches on a real Dask cluster: ASHA
stops real trainings with no step after its decision, PBT goes on from real framework checkpoints."""

from __future__ import annotations

import itertools
from functools import partial
from pathlib import Path

import pytest

import hpnb
from hpnb.core.store import Store
from tests.integrations import frameworks
from tests.waiting import patience

# real trainings and checkpoints: a loaded 2-core machine may take several times as long
pytestmark = [pytest.mark.slow, pytest.mark.timeout(900)]

#: each framework's objective, its learning-rate parameter, the rates tried, the search's metric
FRAMEWORKS = {
    "keras": (frameworks.keras_digits, "lr", (1.0, 0.3, 0.1, 0.03, 0.01, 0.003), "val_loss", 4),
    "xgboost": (frameworks.xgboost_digits, "eta", (0.6, 0.3, 0.1, 0.03, 0.01, 0.003), "valid-mlogloss", 9),
    "lightgbm": (frameworks.lightgbm_digits, "eta", (0.3, 0.1, 0.03, 0.01, 0.003, 0.001),
                 "valid-multi_logloss", 9),
}


def trials_by_tag(store: Store, search: hpnb.Search, name: str) -> dict[str, tuple[str, int | None]]:
    """Each trial's end (state, last stored step) under the tag its objective logs (its rate)."""
    return {str(t.params[name]): (t.state, t.last_step) for t in store.trials(search.experiment_id)}


@pytest.mark.parametrize("framework", sorted(FRAMEWORKS))
def test_asha_stops_real_trainings_and_no_step_runs_after_its_decision(store, dask_client, tmp_path,
                                                                       framework):
    objective, name, rates, metric, steps = FRAMEWORKS[framework]
    log = str(tmp_path / "steps.log")
    search = hpnb.search(partial(objective, log=log), store=store, client=dask_client, name=framework,
                         metric=metric, parameters={name: list(rates)}, parallel=2,
                         strategy={"name": "fixed", "configs": [{name: r} for r in rates]},
                         early_stopping={"rule": "asha", "grace": 1, "reduction": 3, "max_t": steps},
                         ).wait(patience(600))
    assert search.state == "COMPLETED", search.message
    ends = trials_by_tag(store, search, name)
    begun = frameworks.steps_begun(log)
    assert any(state == "STOPPED" for state, _ in ends.values()), ends
    assert all(step == steps for state, step in ends.values() if state == "COMPLETED"), ends
    for tag, (state, last_step) in ends.items():
        # every step that began was reported and stored: none ran after the decision
        assert begun[tag] == list(range(1, (last_step or 0) + 1)), (tag, state, begun[tag])


@pytest.mark.parametrize("framework", sorted(FRAMEWORKS))
def test_pbt_members_go_on_from_real_framework_checkpoints(store, dask_client, tmp_path, framework):
    objective, name, rates, metric, _ = FRAMEWORKS[framework]
    steps, ready = 6, 2
    log = str(tmp_path / "steps.log")
    space = {name: {"min": min(rates), "max": max(rates), "distribution": "logUniform"}}
    search = hpnb.search(partial(objective, log=log, checkpoint=True, **{_length(framework): steps}),
                         store=store, client=dask_client, name=f"pbt-{framework}", metric=metric, seed=1,
                         parameters=space,
                         strategy={"name": "pbt", "population": 4, "ready": ready, "max_steps": steps,
                                   "initial": [{name: r} for r in rates[1:5]]}).wait(patience(600))
    assert search.state == "COMPLETED", search.message
    trials = store.trials(search.experiment_id)
    assert {(t.state, t.last_step) for t in trials} == {("COMPLETED", steps)}
    events = store.events(search.experiment_id)
    exploits = [e["data"] for e in events if e["kind"] == "exploit"]
    assert exploits, "no member exploited"
    for trial in trials:
        stored = [r.step for r in store.results(search.experiment_id, trial_id=trial.trial_id)]
        assert stored == sorted(set(stored)) and stored[-1] == steps
        # a member that copied a donor goes on from the donor's step: the framework's state
        # (weights, boosted rounds) was restored, else its steps would start again at 1
        jumps = {(a, b - 1) for a, b in itertools.pairwise(stored) if b > a + 1}
        copied = {(e["step"], e["donor_step"]) for e in exploits if e["member"] == trial.trial_id}
        assert jumps <= copied, (trial.trial_id, jumps, copied)
    begun = [step for steps_of in frameworks.steps_begun(log).values() for step in steps_of]
    assert begun.count(1) == 4  # only the 4 members' first attempts began at step 1


def _length(framework: str) -> str:
    return "epochs" if framework == "keras" else "rounds"


@pytest.mark.slow  # trains a model with each framework (the first one imports TensorFlow)
def test_callbacks_outside_a_search_do_nothing(tmp_path: Path):
    for framework, (objective, _, rates, _, steps) in FRAMEWORKS.items():
        log = str(tmp_path / f"{framework}.log")
        objective(rates[0], log=log, checkpoint=True)
        assert frameworks.steps_begun(log) == {str(rates[0]): list(range(1, steps + 1))}
