"""Resuming from the store: recover() builds the history, strategies rebuild from it."""

from __future__ import annotations

import json
import math
import statistics
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from hpnb.core.early_stopping.base import NoStopping
from hpnb.core.space import FloatParameter, SearchSpace
from hpnb.core.store import Store
from hpnb.core.strategies import strategy_class
from hpnb.core.strategies.base import Strategy, TrialHistory
from hpnb.core.strategies.cmaes import CMAESStrategy, generation, holds_optimizer
from hpnb.core.strategies.tpe import TPEStrategy
from hpnb.core.trial import TrialState
from hpnb.runner.recovery import recover
from hpnb.testing.strategy_suite import History, drive, mixed_space, resume, store_history

SQUARE = SearchSpace((FloatParameter("x", low=0.0, high=1.0), FloatParameter("y", low=0.0, high=1.0)))


def _loss(params: dict[str, Any]) -> float:
    return (params["x"] - 0.3) ** 2 + (params["y"] - 0.6) ** 2


def _run(strategy: Strategy, first: int, count: int, history: History) -> list[float]:
    """``count`` sequential trials on the quadratic; their distances to the optimum."""
    distances = []
    for tid in range(first, first + count):
        suggestion = strategy.suggest(tid)
        assert suggestion is not None
        value = _loss(suggestion.params)
        strategy.observe(tid, value)
        history[tid] = TrialHistory(tid, suggestion.params, TrialState.COMPLETED, value)
        distances.append(math.sqrt(value))
    return distances


@pytest.fixture
def store(tmp_path: Path) -> Any:
    opened = Store(tmp_path / "hpnb.sqlite")
    yield opened
    opened.close()


def _old_state(strategy: TPEStrategy | CMAESStrategy) -> dict[str, Any]:
    """The state the previous version saved: every Optuna trial with its attributes."""
    trials = [{"params": dict(t.params), "state": t.state.name, "value": t.value,
               "intermediate": [[s, v] for s, v in sorted(t.intermediate_values.items())],
               "system_attrs": dict(t.system_attrs)} for t in strategy._study.get_trials()]
    return {"strategy": strategy.name, "trials": trials, "pending": {}, "suggested": len(trials),
            "rng": {"sampler._rng": ["MT19937", [0] * 624, 0, 0, 0.0]}}


# -- recover() --------------------------------------------------------------------------------
def _history() -> list[TrialHistory]:
    return [TrialHistory(0, {"x": 0.2, "y": 0.5}, TrialState.COMPLETED, 0.02, {0: 0.5, 1: 0.02}),
            TrialHistory(1, {"x": 0.9, "y": 0.1}, TrialState.STOPPED, 0.6, {0: 0.9, 1: 0.6}),
            TrialHistory(2, {"x": 0.5, "y": 0.5}, TrialState.FAILED),
            TrialHistory(3, {"x": 0.4, "y": 0.7}, TrialState.RUNNING, 0.3, {0: 0.4, 1: 0.3})]


@pytest.mark.parametrize("saved", [
    {"strategy": {"strategy": "tpe", "seed": 0, "suggested": 4}, "last_suggested": 3, "pending": [3]},
    None,
], ids=["saved", "never-saved"])
def test_recover_rebuilds_tpe_from_the_stores_trials_and_reports(store: Store, saved: Any) -> None:
    record = store_history(store, "tpe", "tpe", _history(), saved)
    strategy = TPEStrategy(SQUARE, seed=0)
    recovered = recover(store, record, strategy, NoStopping())
    told = [(t.state.name, t.params, dict(t.intermediate_values)) for t in strategy._study.get_trials()]
    assert told == [("COMPLETE", {"x": 0.2, "y": 0.5}, {0: 0.5, 1: 0.02}),
                    ("PRUNED", {"x": 0.9, "y": 0.1}, {0: 0.9, 1: 0.6, 2: 0.6}),
                    ("FAIL", {"x": 0.5, "y": 0.5}, {}),
                    ("RUNNING", {"x": 0.4, "y": 0.7}, {0: 0.4, 1: 0.3})]
    assert [r.trial_id for r in recovered.requeue] == [3]
    assert (recovered.next_id, recovered.last_suggested) == (4, 3)
    strategy.observe(3, 0.25)  # the requeued trial ends: told to Optuna, not lost
    assert strategy._study.get_trials()[-1].state.name == "COMPLETE"
    assert strategy.state_dict()["suggested"] == 4


def test_recover_reads_a_state_saved_by_the_previous_version(store: Store) -> None:
    """Its trial list is ignored: the store's trials are replayed instead."""
    live = TPEStrategy(SQUARE, seed=5, n_startup_trials=5)
    history: History = {}
    _run(live, 0, 12, history)
    saved = {"strategy": _old_state(live), "last_suggested": 11, "pending": []}
    record = store_history(store, "old", "tpe", list(history.values()), saved)
    strategy = TPEStrategy(SQUARE, seed=5, n_startup_trials=5)
    recover(store, record, strategy, NoStopping())
    assert [t.params for t in strategy._study.get_trials()] == [t.params for t in history.values()]
    assert json.dumps(strategy.state_dict()) == '{"strategy": "tpe", "seed": 5, "suggested": 12}'


def test_recover_reads_intermediate_values_only_for_strategies_that_need_them(store: Store) -> None:
    record = store_history(store, "rnd", "random", _history(), None)
    seen: list[list[TrialHistory]] = []

    class Recording(strategy_class("random")):  # type: ignore[misc]
        def rebuild(self, history: Any) -> None:
            seen.append(list(history))

    recover(store, record, Recording(SQUARE, seed=0), NoStopping())
    assert [dict(t.intermediate) for t in seen[0]] == [{}, {}, {}, {}]
    assert [t.value for t in seen[0]] == [0.02, 0.6, None, 0.3]


def test_recover_of_random_continues_the_uninterrupted_sequence(store: Store) -> None:
    """The state was saved after trial 1; trials 2 and 3 are replayed through suggest."""
    original = strategy_class("random")(SQUARE, seed=4)
    for tid in range(2):
        original.suggest(tid)
    saved = {"strategy": original.state_dict(), "last_suggested": 1, "pending": []}
    made = [original.suggest(tid).params for tid in (2, 3)]  # type: ignore[union-attr]
    history = [TrialHistory(tid, {"x": 0.5, "y": 0.5}, TrialState.COMPLETED, 1.0) for tid in (0, 1)]
    history += [TrialHistory(tid, params, TrialState.COMPLETED, 1.0) for tid, params in zip((2, 3), made)]
    record = store_history(store, "random", "random", history, saved)
    resumed = strategy_class("random")(SQUARE, seed=4)
    recover(store, record, resumed, NoStopping())
    assert resumed.suggest(4) == original.suggest(4)


# -- TPE ---------------------------------------------------------------------------------------
def test_tpe_state_stays_small_and_its_rebuild_replays_every_trial() -> None:
    live = TPEStrategy(SQUARE, seed=1)
    history: History = {}
    _run(live, 0, 500, history)
    state = live.state_dict()
    assert len(json.dumps(state)) < 100
    resumed = resume(lambda: TPEStrategy(SQUARE, seed=1), state, history, 499)
    assert len(resumed._study.get_trials()) == 500
    assert resumed.suggest(500) is not None and resumed.state_dict()["suggested"] == 501


def test_a_rebuilt_tpe_is_deterministic_for_a_given_store() -> None:
    live = TPEStrategy(SQUARE, seed=2)
    history: History = {}
    _run(live, 0, 30, history)
    runs = [resume(lambda: TPEStrategy(SQUARE, seed=2), live.state_dict(), history, 29) for _ in range(2)]
    assert runs[0].suggest(30) == runs[1].suggest(30)


# -- CMA-ES ------------------------------------------------------------------------------------
def test_a_resumed_cmaes_carries_on_from_its_optimizer() -> None:
    """After 90 trials the search has narrowed; resumed, it stays narrow instead of starting over."""
    def make() -> CMAESStrategy:
        return CMAESStrategy(SQUARE, seed=3, popsize=6)

    live = make()
    history: History = {}
    _run(live, 0, 90, history)
    state = live.state_dict()
    assert len(json.dumps(state)) < 10_000
    assert any(holds_optimizer(attrs) for attrs in state["attrs"].values())
    ahead = _run(live, 90, 30, dict(history))
    resumed = _run(resume(make, state, history, 89), 90, 30, dict(history))
    restarted = _run(resume(make, {"strategy": "cmaes", "suggested": 90}, history, 89), 90, 30, dict(history))
    assert statistics.median(resumed) < 0.05 and statistics.median(ahead) < 0.05, (resumed, ahead)
    assert statistics.median(resumed) < statistics.median(restarted) / 3, (resumed, restarted)


def test_a_cmaes_state_of_the_previous_version_keeps_its_optimizer() -> None:
    def make() -> CMAESStrategy:
        return CMAESStrategy(SQUARE, seed=3, popsize=6)

    live = make()
    history: History = {}
    _run(live, 0, 90, history)
    resumed = resume(make, _old_state(live), history, 89)
    kept, before = resumed.state_dict()["attrs"], live.state_dict()["attrs"]
    assert kept.keys() == before.keys() and [generation(a) for a in kept.values()] == [
        generation(a) for a in before.values()]
    assert [a for a in kept.values() if holds_optimizer(a)] != []
    assert statistics.median(_run(resumed, 90, 30, dict(history))) < 0.05


def test_a_cmaes_optimizer_held_by_an_unfinished_trial_moves_to_the_last_completed_one() -> None:
    def make() -> CMAESStrategy:
        return CMAESStrategy(SQUARE, seed=3, popsize=4)

    live = make()
    history: History = {}
    _run(live, 0, 40, history)
    holder = next(int(k) for k, a in live.state_dict()["attrs"].items() if holds_optimizer(a))
    history[holder] = TrialHistory(holder, history[holder].params, TrialState.RUNNING)
    resumed = resume(make, live.state_dict(), history, 39)
    attrs = resumed.state_dict()["attrs"]
    last_completed = max(t for t, h in history.items() if h.state is TrialState.COMPLETED)
    assert holds_optimizer(attrs[str(last_completed)])
    assert statistics.median(_run(resumed, 40, 20, dict(history))) < 0.1


@pytest.mark.parametrize("cls", [TPEStrategy, CMAESStrategy])
def test_every_kind_of_parameter_is_replayed(cls: type[TPEStrategy]) -> None:
    """Stored params of every kind encode back into Optuna's terms: no trial is skipped."""
    space, live = mixed_space(), cls(mixed_space(), seed=1)
    history: History = {}
    pending: list[tuple[int, dict[str, Any]]] = []
    drive(live, 40, np.random.default_rng(0), pending=pending, history=history)
    resumed = resume(lambda: cls(space, seed=1), live.state_dict(), history, 39, [t for t, _ in pending])
    assert len(resumed._study.get_trials()) == 40
    assert {t.state.name for t in resumed._study.get_trials()} == {"COMPLETE", "PRUNED", "FAIL", "RUNNING"}
