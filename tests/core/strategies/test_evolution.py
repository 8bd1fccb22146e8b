"""The evolution strategy: the shared suite, aging, mutation and its options."""

from __future__ import annotations

from pathlib import Path
from typing import Any, ClassVar

import numpy as np
import pytest

import hpnb
from hpnb.core.early_stopping.base import NoStopping
from hpnb.core.errors import SpecError
from hpnb.core.space import (
    CategoricalParameter,
    FloatParameter,
    IntParameter,
    OrdinalParameter,
    SearchSpace,
)
from hpnb.core.spec import parse_spec
from hpnb.core.store import Store
from hpnb.core.strategies import strategy_class
from hpnb.core.strategies.base import TrialHistory
from hpnb.core.strategies.evolution import EvolutionStrategy, mutate
from hpnb.core.trial import TrialState
from hpnb.runner.recovery import recover
from hpnb.testing import StrategySuite, mixed_space
from hpnb.testing.cell_space import cell_loss, cell_objective, cell_space, search_cells
from hpnb.testing.conditional_space import conditional_space
from hpnb.testing.strategy_suite import store_history
from tests.waiting import patience


class TestEvolutionSuite(StrategySuite):
    strategy = "evolution"
    strategy_options: ClassVar[dict[str, Any]] = {"population": 10, "sample": 5}
    optimises = True


def _cells() -> SearchSpace:
    return cell_space()


def test_the_oldest_member_leaves_however_good_it_was() -> None:
    """Results join in the order they arrive; past ``population`` members the oldest leaves."""
    evolution = EvolutionStrategy(_cells(), seed=0, population=3, sample=2)
    for tid in range(6):
        evolution.suggest(tid)
    arrivals = [4, 0, 5, 2, 1]
    for tid in arrivals:
        evolution.observe(tid, 0.0 if tid == 4 else 1.0 + tid)  # trial 4 is the best, and first back
    assert evolution.members() == [5, 2, 1]
    assert evolution.best() is not None and 4 not in evolution.members()


def test_failures_do_not_join_and_do_not_age_the_population() -> None:
    evolution = EvolutionStrategy(_cells(), seed=0, population=2, sample=2)
    for tid in range(4):
        evolution.suggest(tid)
    evolution.observe(0, 1.0)
    evolution.observe(1, None, TrialState.FAILED)
    evolution.observe(2, float("nan"))
    evolution.observe(3, 2.0, TrialState.STOPPED)  # early-stopped: joins with its last value
    assert evolution.members() == [0, 3]


def test_a_child_is_its_tournaments_best_member_with_one_parameter_changed() -> None:
    """With ``sample`` equal to the population, every child's parent is the best member."""
    space = _cells()
    evolution = EvolutionStrategy(space, seed=1, population=5, sample=5)
    configs = {}
    for tid in range(5):
        configs[tid] = evolution.suggest(tid).params  # type: ignore[union-attr]
        evolution.observe(tid, cell_loss(configs[tid]))
    best = min(range(5), key=lambda t: cell_loss(configs[t]))
    for tid in range(5, 15):
        child = evolution.suggest(tid)
        assert child is not None and child.info["parent"] == best
        changed = [n for n in space.names if child.params[n] != configs[best][n]]
        assert len(changed) == 1, changed


def test_mutation_stays_in_the_space_and_its_conditions() -> None:
    """Every kind of parameter: a category moves to another value, an ordered list to a
    neighbour, a number within its range; a parameter a mutation activates is drawn, one it
    deactivates is dropped."""
    rng = np.random.default_rng(0)
    for space in (mixed_space(), conditional_space(), _cells()):
        for _ in range(300):
            parent = space.sample(rng)
            child = mutate(space, parent, rng)
            assert space.contains(child), (parent, child)
            changed = [n for n in child if n in parent and child[n] != parent[n]]
            assert len(changed) <= 1, changed
            for name in changed:
                p = space[name]
                if isinstance(p, OrdinalParameter):
                    assert abs(p.index(child[name]) - p.index(parent[name])) == 1
            if not space.is_conditional:
                assert set(child) == set(parent) and len(changed) == 1, (parent, child)


def test_numbers_move_by_small_steps_on_their_scale() -> None:
    space = SearchSpace((FloatParameter("lr", "logUniform", low=1e-5, high=1e-1),
                         IntParameter("units", 1, 3)))
    rng = np.random.default_rng(1)
    steps = []
    for _ in range(200):
        child = mutate(space, {"lr": 1e-3, "units": 2}, rng)
        if child["lr"] != 1e-3:
            steps.append(abs(np.log10(child["lr"]) + 3))
        else:
            assert child["units"] in (1, 3)
    assert 0.1 < float(np.median(steps)) < 0.6, np.median(steps)  # a tenth of 4 decades, as a deviation


def test_a_cell_search_beats_random_search() -> None:
    """A cell of 4 nodes, two edges each (an operation and an input per edge): the best cell of 100
    trials is better than random search's on every seed."""
    for seed in range(3):
        found = {}
        for name in ("evolution", "random"):
            strategy = strategy_class(name)(_cells(), seed=seed, budget=100)
            losses = []
            for tid in range(100):
                losses.append(cell_loss(strategy.suggest(tid).params))  # type: ignore[union-attr]
                strategy.observe(tid, losses[-1])
            found[name] = min(losses)
        assert found["evolution"] < found["random"], found


def test_children_do_not_repeat_configurations_already_run() -> None:
    space = SearchSpace(tuple(CategoricalParameter(f"e{i}", ("conv", "pool", "skip")) for i in range(4)))
    evolution = EvolutionStrategy(space, seed=2, population=5, sample=3)
    seen = []
    for tid in range(40):  # of 81 configurations
        params = evolution.suggest(tid).params  # type: ignore[union-attr]
        seen.append(tuple(params.values()))
        evolution.observe(tid, sum(v != "conv" for v in params.values()))
    assert len(set(seen)) == len(seen)


def test_a_feasible_member_wins_the_tournament_over_a_better_infeasible_one() -> None:
    evolution = EvolutionStrategy(_cells(), seed=0, population=3, sample=3)
    evolution.use_constraints(1)
    for tid in range(3):
        evolution.suggest(tid)
    for tid, (loss, violation) in enumerate([(0.0, 2.0), (1.0, 0.5), (5.0, -1.0)]):
        evolution.observe_violations(tid, [violation])
        evolution.observe(tid, loss)
    assert evolution.suggest(3).info["parent"] == 2  # type: ignore[union-attr]
    evolution.observe(2, None)  # (already a member: ignored)
    blind = EvolutionStrategy(_cells(), seed=0, population=3, sample=3)
    for tid in range(3):
        blind.suggest(tid)
        blind.observe(tid, float(tid))
    assert blind.suggest(3).info["parent"] == 0  # type: ignore[union-attr]


def test_a_resume_learns_the_stored_trials_with_their_own_configurations() -> None:
    """Resumed from a state saved after 6 of 12 trials, the population is the one of the search
    that ran them (the stored configurations, not fresh children), and no stored one is repeated."""
    space = _cells()
    original = EvolutionStrategy(space, seed=1, population=4, sample=2)
    history, saved = search_cells(original, 12, save_at=6)
    resumed = EvolutionStrategy(space, seed=99, population=4, sample=2)
    resumed.load_state_dict(saved)
    resumed.rebuild(history)
    assert resumed.members() == original.members() == [8, 9, 10, 11]
    assert resumed.best() == original.best()
    stored = [t.params for t in history]
    assert all(resumed.suggest(tid).params not in stored for tid in range(12, 30))  # type: ignore[union-attr]


@pytest.mark.parametrize(("option", "value"), [
    ("population", 1), ("population", 2.5), ("population", "many"), ("sample", 0), ("sample", 11),
])
def test_bad_options_name_the_option(option: str, value: object) -> None:
    options: dict[str, Any] = {"population": 10, option: value}
    with pytest.raises(SpecError) as info:
        EvolutionStrategy(_cells(), **options)
    assert info.value.path == f"strategy.{option}"


def test_the_spec_refuses_a_misspelt_option_with_the_closest_name() -> None:
    with pytest.raises(SpecError) as info:
        parse_spec({"metric": "loss", "strategy": {"name": "evolution", "populaton": 10},
                    "parameters": {"op": ["conv", "pool"]}})
    assert info.value.path == "strategy.populaton" and "population" in str(info.value)


def test_default_population_and_sample_follow_the_budget() -> None:
    populations = [EvolutionStrategy(_cells(), budget=b).population for b in (20, 100, 1000, None)]
    assert populations == [10, 20, 100, 50]
    assert EvolutionStrategy(_cells(), budget=100).sample == 10


@pytest.mark.slow
@pytest.mark.parametrize("name", ["evolution", "enas"])
def test_a_cell_search_runs_on_the_local_cluster(name: str, dask_client: object, tmp_path: Path) -> None:
    """``hpnb.search`` over a cell's edges: every trial completes with a configuration of the space,
    and the best one is the best stored."""
    space = _cells()
    with Store(tmp_path / "hpnb.sqlite") as store:
        search = hpnb.search(cell_objective, {"metric": "loss", "parameters": space.to_dict()}, name=name,
                             store=store, client=dask_client, strategy={"name": name, "population": 4}
                             if name == "evolution" else name, trials=10, parallel=2, seed=0,
                             ).wait(patience(120))
        assert search.state == "COMPLETED", search.message
        trials = store.trials(search.experiment_id)
        assert len(trials) == 10 and {t.state for t in trials} == {"COMPLETED"}, [t.error for t in trials]
        assert all(space.contains(t.params) for t in trials)
        assert search.best is not None
        assert search.best["value"] == min(cell_loss(t.params) for t in trials)


def test_a_search_recovered_from_the_store_rebuilds_its_population(tmp_path: Path) -> None:
    """A search that never saved its state: ``recover`` gives the population the stored trials that
    ended with a value, in the order of their ids, and the running one joins when it ends."""
    space = _cells()
    rng = np.random.default_rng(0)
    configs = [space.sample(rng) for _ in range(5)]
    states = [TrialState.COMPLETED, TrialState.FAILED, TrialState.STOPPED, TrialState.RUNNING,
              TrialState.COMPLETED]
    history = [TrialHistory(i, p, s, None if s in (TrialState.FAILED, TrialState.RUNNING) else cell_loss(p))
               for i, (p, s) in enumerate(zip(configs, states, strict=True))]
    with Store(tmp_path / "hpnb.sqlite") as store:
        record = store_history(store, "cells", "evolution", history)
        evolution = EvolutionStrategy(space, seed=0, population=3, sample=3)
        recovered = recover(store, record, evolution, NoStopping())
    assert [t.trial_id for t in recovered.requeue] == [3]
    assert evolution.members() == [0, 2, 4]
    evolution.observe(3, cell_loss(configs[3]))
    assert evolution.members() == [2, 4, 3]
    assert evolution.best() == min((configs[i] for i in (2, 3, 4)), key=cell_loss)
