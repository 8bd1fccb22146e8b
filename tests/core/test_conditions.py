"""Conditional spaces: sampling, the grid, the unit cube, and exploring from a donor."""

from __future__ import annotations

import itertools

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from hpnb.core.conditions import Condition
from hpnb.core.space import CategoricalParameter, FloatParameter, IntParameter, SearchSpace
from hpnb.core.strategies.de import DifferentialEvolutionStrategy
from hpnb.core.strategies.grid import GridStrategy
from hpnb.core.strategies.pbt_explore import perturb, resample
from hpnb.testing.conditional_space import conditional_space


def _nested() -> SearchSpace:
    return SearchSpace((
        FloatParameter("lr", "logUniform", low=1e-4, high=1e-1),
        CategoricalParameter("optimizer", ("sgd", "adam")),
        CategoricalParameter("schedule", ("step", "cosine")),
        IntParameter("every", 1, 10),
        FloatParameter("momentum", low=0.5, high=0.99),
    ), conditions=(
        Condition("every", (("schedule", ("step",)),)),
        Condition("schedule", (("optimizer", ("sgd",)),)),
        Condition("momentum", (("optimizer", ("sgd",)),)),
    ))


def test_samples_hold_the_active_parameters_only_and_every_branch_comes() -> None:
    space = _nested()
    rng = np.random.default_rng(0)
    seen = set()
    for _ in range(400):
        config = space.sample(rng)
        assert space.contains(config)
        sgd = config["optimizer"] == "sgd"
        assert ("schedule" in config) == sgd and ("momentum" in config) == sgd
        assert ("every" in config) == (config.get("schedule") == "step")
        seen.add(tuple(config))
    assert len(seen) == 3  # adam; sgd with cosine; sgd with step and every


def test_contains_refuses_an_inactive_parameter_and_a_missing_active_one() -> None:
    space = _nested()
    assert space.contains({"lr": 0.01, "optimizer": "adam"})
    assert not space.contains({"lr": 0.01, "optimizer": "adam", "momentum": 0.9})
    assert not space.contains({"lr": 0.01, "optimizer": "sgd", "schedule": "cosine"})
    assert space.contains({"lr": 0.01, "optimizer": "sgd", "schedule": "cosine", "momentum": 0.9})


def test_the_unit_cube_keeps_an_axis_per_parameter_and_leaves_inactive_ones_unused() -> None:
    space = _nested()
    assert space.dimension == 5
    config = space.from_unit([0.5, 0.9, 0.1, 0.3, 0.5])
    assert config == {"lr": space["lr"].from_unit(0.5), "optimizer": "adam"}
    assert list(space.to_unit(config)) == [0.5, 0.75, 0.5, 0.5, 0.5]


def test_grid_enumerates_each_valid_combination_once_and_counts_them_exactly() -> None:
    space = conditional_space()
    grid = GridStrategy(space)
    points = [grid.suggest(i).params for i in range(grid.max_trials())]  # type: ignore[union-attr]
    assert grid.suggest(99) is None
    expected = set()
    for optimizer in ("sgd", "adam", "rmsprop"):
        for layers in (1, 2):
            if optimizer == "sgd":
                for momentum in (0.5, 0.7, 0.9):
                    expected.add((optimizer, momentum, True, layers))
                    expected |= {(optimizer, momentum, False, d, layers) for d in (0, 1)}
            else:
                expected |= {(optimizer, beta, layers) for beta in (0.9, 0.99)}
    assert sorted(map(repr, (tuple(p.values()) for p in points))) == sorted(map(repr, expected))
    assert grid.max_trials() == space.grid_size() == len(expected) == 26
    shuffled = GridStrategy(space, seed=3, shuffle=True)
    again = [shuffled.suggest(i).params for i in range(26)]  # type: ignore[union-attr]
    assert sorted(map(repr, again)) == sorted(map(repr, points)) and again != points


def test_explore_changes_active_parameters_and_draws_newly_active_ones_from_the_prior() -> None:
    space = _nested()
    donor = {"lr": 0.01, "optimizer": "adam"}
    rng = np.random.default_rng(1)
    switched = 0
    for rule in (perturb, resample):
        for _ in range(50):
            child = rule(space, donor, rng)
            assert space.contains(child), child
            switched += child["optimizer"] == "sgd"
    assert switched > 10  # adam's only neighbour is sgd: momentum and schedule are then drawn


def test_de_challengers_keep_inactive_coordinates_and_stay_in_the_space() -> None:
    space = _nested()
    de = DifferentialEvolutionStrategy(space, seed=0, population=6)
    for i in range(80):
        suggestion = de.suggest(i)
        assert suggestion is not None and space.contains(suggestion.params)
        params = suggestion.params
        de.observe(i, params["lr"] + (0.0 if params["optimizer"] == "sgd" else 1.0))
    best = de.best()
    assert best is not None and best["optimizer"] == "sgd" and "momentum" in best


def test_tpe_rebuilt_from_trials_missing_parameters_learns_the_good_branch() -> None:
    from hpnb.core.strategies.base import TrialHistory
    from hpnb.core.strategies.tpe import TPEStrategy
    from hpnb.core.trial import TrialState

    space = conditional_space()
    rng = np.random.default_rng(0)
    history = []
    for i in range(40):
        params = space.sample(rng)
        loss = abs(params["momentum"] - 0.9) if params["optimizer"] == "sgd" else 1.0
        history.append(TrialHistory(i, params, TrialState.COMPLETED, loss))
    tpe = TPEStrategy(space, seed=0, n_startup_trials=5)
    tpe.rebuild(history)
    later = [tpe.suggest(40 + i).params for i in range(20)]  # type: ignore[union-attr]
    assert all(space.contains(p) for p in later)
    assert sum(p["optimizer"] == "sgd" for p in later) >= 14  # a third at random


def test_a_katib_export_says_that_conditions_are_not_carried() -> None:
    from hpnb.core.interop.katib_export import export_katib
    from hpnb.core.spec import parse_spec

    spec = parse_spec("metric: loss\nparameters:\n  opt: [sgd, adam]\n"
                      "  momentum: {min: 0.5, max: 0.9, when: {opt: sgd}}\n")
    result = export_katib(spec, name="cond")
    assert [p["name"] for p in result.document["spec"]["parameters"]] == ["opt", "momentum"]
    notes = [str(n) for n in result.notes if n.field == "parameters.momentum.when"]
    assert len(notes) == 1 and "when opt: sgd not carried" in notes[0]


@st.composite
def _conditional_spaces(draw: st.DrawFn) -> SearchSpace:
    """Up to 6 small parameters, each possibly conditional on some earlier categorical or int ones."""
    parameters: list = []
    conditions = []
    for i in range(draw(st.integers(1, 6))):
        name = f"p{i}"
        kind = draw(st.sampled_from(["categorical", "int", "float"]))
        if kind == "categorical":
            parameters.append(CategoricalParameter(name, tuple(range(draw(st.integers(1, 3))))))
        elif kind == "int":
            parameters.append(IntParameter(name, 0, draw(st.integers(1, 2))))
        else:
            parameters.append(FloatParameter(name, low=0.0, high=1.0, step=0.5))
        parents = [p for p in parameters[:-1] if not isinstance(p, FloatParameter)]
        chosen = []
        if parents:
            chosen = draw(st.lists(st.sampled_from(parents), unique_by=lambda p: p.name, max_size=2))
        if chosen:
            requires = tuple((p.name, tuple(draw(st.lists(st.sampled_from(p.grid_values()), min_size=1,
                                                          max_size=2, unique=True))))
                             for p in chosen)
            conditions.append(Condition(name, requires))
    return SearchSpace(tuple(parameters), conditions=tuple(conditions))


@settings(max_examples=60, deadline=None)
@given(_conditional_spaces(), st.integers(0, 2**32 - 1))
def test_any_conditional_space_counts_its_grid_exactly_and_samples_inside_itself(space: SearchSpace,
                                                                                  seed: int) -> None:
    axes = [p.grid_values() or () for p in space]
    brute = {repr(space.active(dict(zip(space.names, combo, strict=True))))
             for combo in itertools.product(*axes)}
    points = list(space.iter_grid())
    assert space.grid_size() == len(points) == len({repr(p) for p in points}) == len(brute)
    assert {repr(p) for p in points} == brute
    rng = np.random.default_rng(seed)
    assert all(space.contains(space.sample(rng)) for _ in range(20))


def test_fixed_completes_configs_from_the_centre_and_refuses_an_inactive_value() -> None:
    import pytest

    from hpnb.core.errors import SpecError
    from hpnb.core.strategies.fixed import FixedStrategy

    space = _nested()
    fixed = FixedStrategy(space, configs=[{"optimizer": "sgd"}, {"optimizer": "adam", "lr": 0.01}])
    first, second = (fixed.suggest(i).params for i in range(2))  # type: ignore[union-attr]
    assert set(first) == {"lr", "optimizer", "schedule", "every", "momentum"} and space.contains(first)
    assert second == {"lr": 0.01, "optimizer": "adam"}
    with pytest.raises(SpecError) as info:
        FixedStrategy(space, configs=[{"optimizer": "adam", "momentum": 0.9}])
    assert info.value.path == "strategy.configs[0].momentum" and "inactive" in str(info.value)


def test_range_sweeps_with_the_others_at_the_centre_and_never_repeats_a_configuration() -> None:
    from hpnb.core.strategies.range import RangeStrategy

    space = conditional_space()  # centre: sgd, nesterov true, so dampening is inactive there
    sweep = RangeStrategy(space)
    made = [sweep.suggest(i).params for i in range(sweep.max_trials())]  # type: ignore[union-attr]
    assert all(space.contains(p) for p in made)
    assert len({repr(p) for p in made}) == len(made)
    assert {p["optimizer"] for p in made} == {"sgd", "adam", "rmsprop"}
    # dampening is inactive at the centre: not swept, only met at its centre when nesterov is swept
    assert [p["dampening"] for p in made if "dampening" in p] == [space["dampening"].center()]
