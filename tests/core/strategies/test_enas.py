"""The enas strategy: the shared suite, learning from each architecture's own reward, its options."""

from __future__ import annotations

import json

import numpy as np
import pytest

from hpnb.core.errors import SpecError
from hpnb.core.space import CategoricalParameter, FloatParameter, IntParameter, SearchSpace
from hpnb.core.strategies.enas import ENASStrategy
from hpnb.core.trial import TrialState
from hpnb.testing import StrategySuite
from hpnb.testing.cell_space import cell_loss, cell_space, search_cells
from hpnb.testing.conditional_space import conditional_space

BEST_OP = "separable_convolution_3x3"


class TestENASSuite(StrategySuite):
    strategy = "enas"
    optimises = True
    list_trials = None
    list_reason = ("its softmax over a list's values knows no order: a 25-way choice per parameter is "
                   "not learnt in 60 trials (it is made for architectures' few-way choices)")


def _probability(enas: ENASStrategy, name: str, value: object) -> float:
    return dict(enas.policy()[name])[value]


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_the_policy_moves_to_a_decisively_better_operation_with_results_out_of_order(seed: int) -> None:
    """On a cell of 4 nodes, edge 3's operation decides the loss: after 60 trials, run 4 at a time
    and told in reverse order, that operation is the most probable on that edge, above one half
    (a seventh at the start)."""
    space = cell_space()
    enas = ENASStrategy(space, seed=seed)
    assert _probability(enas, "normal.e3.op", BEST_OP) == pytest.approx(1 / 7)
    trial_id = 0
    for _ in range(15):
        running = []
        for _ in range(4):
            suggestion = enas.suggest(trial_id)
            assert suggestion is not None and space.contains(suggestion.params)
            running.append((trial_id, suggestion.params))
            trial_id += 1
        for tid, params in reversed(running):
            enas.observe(tid, (0.0 if params["normal.e3.op"] == BEST_OP else 1.0) + 0.05 * cell_loss(params))
    policy = dict(enas.policy()["normal.e3.op"])
    assert max(policy, key=policy.__getitem__) == BEST_OP and policy[BEST_OP] > 0.5, policy
    assert enas.best()["normal.e3.op"] == BEST_OP


def test_each_result_credits_the_architecture_that_earned_it() -> None:
    """Two trials run at once with different operations; the good one's result arrives second.
    The good operation gains probability, the bad one loses it (a controller rewarded with a
    mean over trials and a freshly sampled architecture would not know which)."""
    space = SearchSpace((CategoricalParameter("op", ("conv", "pool", "skip")),))
    enas = ENASStrategy(space, seed=0)
    for tid in range(6):  # some history, so that rewards have a rank
        enas.suggest(tid)
        enas.observe(tid, 0.5)
    first, second = 6, 7
    ops = {first: enas.suggest(first).params["op"]}  # type: ignore[union-attr]
    while True:  # a second trial with another operation
        candidate = enas.suggest(second)
        assert candidate is not None
        if candidate.params["op"] != ops[first]:
            ops[second] = candidate.params["op"]
            break
        enas.observe(second, None, TrialState.FAILED)  # failures teach nothing
        second += 1
    before = {op: _probability(enas, "op", op) for op in ops.values()}
    enas.observe(first, 1.0)   # bad
    enas.observe(second, 0.0)  # good, arriving last
    after = {op: _probability(enas, "op", op) for op in ops.values()}
    good, bad = ops[second], ops[first]
    assert after[good] > before[good] and after[bad] < before[bad], (before, after)


def test_a_result_updates_only_the_decisions_of_its_own_trial() -> None:
    """In a conditional space an adam trial's result leaves the policy over sgd's momentum alone."""
    enas = ENASStrategy(conditional_space(), seed=3)
    trials = {tid: enas.suggest(tid).params for tid in range(12)}  # type: ignore[union-attr]
    for tid, params in trials.items():
        before = enas.policy()
        enas.observe(tid, float(tid % 3))
        after = enas.policy()
        for name in ("momentum", "nesterov", "dampening", "beta"):
            if name not in params:
                assert after[name] == before[name], (name, params)


def test_numbers_are_chosen_by_stretches_of_their_range() -> None:
    """A real range is cut into ``bins`` stretches, an integer range of at most ``bins`` values is a
    choice among them; the policy learns that small x is better."""
    space = SearchSpace((FloatParameter("x", "logUniform", low=1e-4, high=1.0), IntParameter("k", 1, 4)))
    enas = ENASStrategy(space, seed=0, bins=5)
    assert [len(choices) for choices in enas.policy().values()] == [5, 4]
    for tid in range(60):
        params = enas.suggest(tid).params  # type: ignore[union-attr]
        assert space.contains(params)
        enas.observe(tid, float(np.log10(params["x"])) + params["k"])
    x_policy = [p for _, p in enas.policy()["x"]]
    assert int(np.argmax(x_policy)) == 0 and x_policy[0] > 0.4, x_policy
    assert enas.best()["k"] == 1


def test_same_seed_same_policy() -> None:
    runs = []
    for _ in range(2):
        enas = ENASStrategy(cell_space(), seed=5)
        for tid in range(30):
            enas.observe(tid, cell_loss(enas.suggest(tid).params))  # type: ignore[union-attr]
        runs.append(json.dumps(enas.state_dict()))
    assert runs[0] == runs[1]


def test_a_resume_learns_the_stored_trials_from_their_own_configurations() -> None:
    """Resumed from a state saved after 10 of 20 trials, the policy learns the other 10 from the
    store's configurations and values: the same policy as the search that ran them."""
    space = cell_space()
    original = ENASStrategy(space, seed=1)
    history, saved = search_cells(original, 20, save_at=10)
    resumed = ENASStrategy(space, seed=99)
    resumed.load_state_dict(saved)
    resumed.rebuild(history)
    for name, choices in original.policy().items():
        assert [p for _, p in resumed.policy()[name]] == pytest.approx([p for _, p in choices]), name


@pytest.mark.parametrize(("option", "value"), [
    ("controller_learning_rate", -0.1), ("controller_learning_rate", "fast"),
    ("controller_baseline_decay", 1.0), ("controller_entropy_weight", -1), ("controller_temperature", 0),
    ("bins", 1), ("bins", 2.5),
])
def test_bad_options_name_the_option(option: str, value: object) -> None:
    with pytest.raises(SpecError) as info:
        ENASStrategy(cell_space(), **{option: value})  # type: ignore[arg-type]
    assert info.value.path == f"strategy.{option}"


def test_a_misspelt_option_is_refused_with_the_closest_name() -> None:
    with pytest.raises(SpecError) as info:
        ENASStrategy(cell_space(), controller_learning_rat=0.1)
    assert info.value.path == "strategy.controller_learning_rat"
    assert "controller_learning_rate" in str(info.value)
