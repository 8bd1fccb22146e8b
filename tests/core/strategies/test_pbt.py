"""The PBT strategy as the runner drives it: population, ready clocks, lineage, state."""

from __future__ import annotations

import json
from typing import Any, ClassVar

import pytest

from hpnb.core.early_stopping.base import Decision
from hpnb.core.errors import SpecError
from hpnb.core.space import CategoricalParameter, FloatParameter, IntParameter, SearchSpace
from hpnb.core.strategies import strategy_class
from hpnb.core.strategies.pbt import PopulationBasedTraining
from hpnb.core.strategies.pbt_exploit import Exploit
from hpnb.core.trial import TrialState
from hpnb.testing.strategy_suite import StrategySuite

SPACE = SearchSpace((
    FloatParameter("lr", "logUniform", low=1e-4, high=1e-1),
    IntParameter("layers", 1, 4),
    CategoricalParameter("optimizer", ("sgd", "adam", "rmsprop")),
))


class TestPbtSuite(StrategySuite):
    strategy = "pbt"
    strategy_options: ClassVar[dict[str, Any]] = {"population": 8}


def make(**options: Any) -> PopulationBasedTraining:
    options.setdefault("population", 4)
    return PopulationBasedTraining(SPACE, mode=options.pop("mode", "min"), seed=options.pop("seed", 0),
                                   **options)


def start(pbt: PopulationBasedTraining) -> list[int]:
    ids: list[int] = []
    while pbt.suggest(len(ids)) is not None:
        ids.append(len(ids))
    return ids


def result(pbt: PopulationBasedTraining, tid: int, step: int, value: float,
           checkpoint: bool = True) -> Exploit | None:
    """What the runner does with one result of a member."""
    if checkpoint:
        pbt.checkpointed(tid, step)
    pbt.report(tid, step, value)
    return pbt.decide(tid, step)


def test_registered_and_suggests_the_population_then_none() -> None:
    assert strategy_class("pbt") is PopulationBasedTraining
    pbt = make(population=3, initial=[{"optimizer": "adam"}])
    assert start(pbt) == [0, 1, 2]
    assert pbt.max_trials() == 3
    params = pbt.members()
    assert params[0]["optimizer"] == "adam" and all(SPACE.contains(p) for p in params.values())
    assert [row["event"] for row in pbt.lineage()] == ["start"] * 3
    assert PopulationBasedTraining(SPACE, budget=6).population == 6
    assert PopulationBasedTraining(SPACE).population == 8


def test_members_decide_on_their_own_clock() -> None:
    pbt = make(population=2, ready=4)
    start(pbt)
    assert result(pbt, 1, 1, 0.1) is None                   # member 1 is only at step 1
    for step in (1, 2, 3):
        assert result(pbt, 0, step, 0.9) is None           # not ready before step 4
    exploit = result(pbt, 0, 4, 0.9)                       # ready: 2 ranked, 0 is worst, 1 is best
    assert exploit is not None
    assert (exploit.trial_id, exploit.step, exploit.donor, exploit.donor_step) == (0, 4, 1, 1)
    assert pbt.members()[0] == exploit.params
    # member 0 continues from the donor's step 1: its next decision is due at step 1 + 4
    assert result(pbt, 0, 2, 0.2) is None
    for step in (2, 3, 4):                                 # member 1 is best: stays
        assert result(pbt, 1, step, 0.1) is None
    assert result(pbt, 0, 5, 0.5) is not None              # ready again, worse than member 1 (.1)


def test_a_member_without_checkpoint_is_never_a_donor() -> None:
    pbt = make(population=2, ready=2)
    start(pbt)
    result(pbt, 1, 1, 0.1, checkpoint=False)
    result(pbt, 0, 1, 0.9)
    assert result(pbt, 0, 2, 0.9) is None                  # the better member has no checkpoint
    result(pbt, 1, 2, 0.1)
    assert result(pbt, 0, 4, 0.9) is not None              # now it has one (step 2)


def test_after_copying_a_member_is_no_donor_until_it_checkpoints_again() -> None:
    pbt = make(population=2, ready=1)
    start(pbt)
    result(pbt, 0, 1, 0.1)
    exploit = result(pbt, 1, 1, 0.9)
    assert exploit is not None and exploit.donor == 0
    # member 0 turns worst; member 1 (restarted, no report, no checkpoint yet) cannot be its donor
    assert result(pbt, 0, 2, 5.0) is None
    assert result(pbt, 1, 2, 0.5) is None                  # member 1 is now best
    assert result(pbt, 0, 3, 5.0) == Exploit(0, 3, 1, 2, pbt.members()[0])


def test_failed_member_is_no_donor_and_max_steps_ends_the_member() -> None:
    pbt = make(population=2, ready=1, max_steps=3)
    start(pbt)
    result(pbt, 0, 1, 0.1)
    pbt.observe(0, None, TrialState.FAILED)
    assert result(pbt, 1, 1, 0.9) is None
    pbt = make(population=2, ready=1, max_steps=3)
    start(pbt)
    result(pbt, 0, 3, 0.1)
    assert result(pbt, 1, 3, 0.9) is Decision.STOP         # step 3 = max_steps: it trained its budget


def test_mode_max_mirrors_mode_min() -> None:
    lows, highs = make(population=4, ready=2, mode="min"), make(population=4, ready=2, mode="max")
    start(lows), start(highs)
    values = [0.3, 0.1, 0.7, 0.5]
    for step in range(1, 9):
        for tid, v in enumerate(values):
            value = v + 0.01 * step * tid
            assert result(lows, tid, step, value) == result(highs, tid, step, -value)
    assert lows.lineage() == highs.lineage() and len(lows.lineage()) > 4


def run_population(pbt: PopulationBasedTraining, steps: range) -> list[Exploit | None]:
    return [result(pbt, tid, step, (tid + 1) * (1 + (step * 7 + tid * 3) % 5))
            for step in steps for tid in range(4)]


def test_state_round_trip_continues_the_same_way() -> None:
    pbt = make(exploit="binary_tournament", explore="resample", ready=2)
    start(pbt)
    run_population(pbt, range(1, 6))
    restored = make(exploit="binary_tournament", explore="resample", ready=2)
    restored.load_state_dict(json.loads(json.dumps(pbt.state_dict(), allow_nan=False)))
    later = run_population(pbt, range(6, 20))
    assert run_population(restored, range(6, 20)) == later
    assert any(e is not None for e in later)
    assert restored.lineage() == pbt.lineage()


def test_lineage_rows() -> None:
    pbt = make(population=2, ready=1)
    start(pbt)
    result(pbt, 0, 1, 0.1)
    exploit = result(pbt, 1, 1, 0.9)
    assert exploit is not None
    assert pbt.lineage()[-1] == {"member": 1, "step": 1, "event": "exploit", "donor": 0, "donor_step": 1,
                                 "params": exploit.params}


@pytest.mark.parametrize(("options", "field"), [
    ({"population": 1}, "strategy.population"),
    ({"ready": 0}, "strategy.ready"),
    ({"quantile": 0.7}, "strategy.quantile"),
    ({"exploit": "best"}, "strategy.exploit"),
    ({"explore": "jitter"}, "strategy.explore"),
    ({"perturb_factors": [0.8, -1]}, "strategy.perturb_factors"),
    ({"resample_probability": 2}, "strategy.resample_probability"),
    ({"initial": [{"layers": 9}]}, "strategy.initial[0].layers"),
    ({"readiness": 3}, "strategy.readiness"),
])
def test_bad_options_name_the_field(options: dict[str, Any], field: str) -> None:
    with pytest.raises(SpecError) as error:
        make(**options)
    assert error.value.path == field
