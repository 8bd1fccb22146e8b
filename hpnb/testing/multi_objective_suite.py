"""What every strategy that can run a search with several objectives shares, as a pytest suite.

Subclass :class:`MultiObjectiveSuite` (the name must start with ``Test``) and set
``strategy`` to a registered name whose class has ``multi_objective`` set; ``learns``
marks the strategies that model the objectives (their later suggestions must move
towards the Pareto front). :func:`check_refuses_several_objectives` is the check for
every other strategy.

Example:
    >>> class TestNsga2(MultiObjectiveSuite):
    ...     strategy = "nsga2"
    >>> TestNsga2().make(TWO_BY_TWO, seed=0).modes
    ('min', 'max')
"""

from __future__ import annotations

import json
from typing import Any, ClassVar

import numpy as np
import pytest

from hpnb.core.errors import SpecError
from hpnb.core.space import FloatParameter, SearchSpace
from hpnb.core.strategies import strategy_class
from hpnb.core.strategies.base import Mode, Strategy, TrialHistory, catch_up
from hpnb.core.trial import TrialState
from hpnb.testing.strategy_suite import mixed_space, stepped_space

#: x and y in [0, 1].
TWO_BY_TWO = SearchSpace((FloatParameter("x", low=0.0, high=1.0), FloatParameter("y", low=0.0, high=1.0)))
MODES: tuple[Mode, ...] = ("min", "max")


def front_objectives(params: dict[str, Any]) -> tuple[float, float]:
    """Minimise ``x + y`` and maximise ``x - y``: every point with ``y == 0`` is on the front."""
    return params["x"] + params["y"], params["x"] - params["y"]


def check_refuses_several_objectives(name: str) -> None:
    """A strategy that learns from one objective refuses two, naming the strategies that can."""
    with pytest.raises(SpecError) as info:
        strategy_class(name)(TWO_BY_TWO, MODES, seed=0)
    assert info.value.path == "strategy"
    assert "nsga2" in str(info.value) and "tpe" in str(info.value)


class MultiObjectiveSuite:
    """Checks every strategy that runs searches with several objectives must pass."""

    #: the registered name of the strategy under test.
    strategy: ClassVar[str] = ""
    #: options passed to every instance.
    strategy_options: ClassVar[dict[str, Any]] = {}
    #: it models the objectives: later suggestions move towards the front.
    learns: ClassVar[bool] = False

    def make(self, space: SearchSpace, **kwargs: Any) -> Strategy:
        options = {"mode": MODES, **self.strategy_options, **kwargs}
        return strategy_class(self.strategy)(space, **options)

    def space(self) -> SearchSpace:
        return stepped_space() if self.strategy in ("grid", "range") else mixed_space()

    def _drive(self, strategy: Strategy, first: int, count: int, rng: np.random.Generator,
               history: dict[int, TrialHistory]) -> list[dict[str, Any]]:
        """Suggest and observe ``count`` trials with awkward results: failures, stopped trials, values
        missing an objective; records each in ``history`` as the store would hold it."""
        made = []
        for tid in range(first, first + count):
            suggestion = strategy.suggest(tid)
            if suggestion is None:
                break
            made.append(suggestion.params)
            luck = rng.random()
            values = tuple(float(v) for v in rng.random(2))
            state = (TrialState.FAILED if luck < 0.1 else TrialState.STOPPED if luck < 0.25
                     else TrialState.COMPLETED)
            told = None if state is TrialState.FAILED or luck > 0.9 else values
            strategy.observe(tid, told, state)
            history[tid] = TrialHistory(tid, suggestion.params, state, told)
        return made

    def test_two_objectives_with_awkward_results(self) -> None:
        space = self.space()
        strategy = self.make(space, seed=1)
        made = self._drive(strategy, 0, 40, np.random.default_rng(0), {})
        assert made and all(space.contains(params) for params in made)

    def test_resumes_from_its_state_and_the_store(self) -> None:
        space, history = self.space(), {}  # type: ignore[var-annotated]
        original = self.make(space, seed=2)
        self._drive(original, 0, 20, np.random.default_rng(1), history)
        resumed = self.make(space, seed=99)
        resumed.load_state_dict(json.loads(json.dumps(original.state_dict(), allow_nan=False)))
        catch_up(resumed, [history[tid] for tid in sorted(history)], last_suggested=19)
        made = self._drive(resumed, 20, 20, np.random.default_rng(2), history)
        assert all(space.contains(params) for params in made)

    def test_later_suggestions_move_to_the_front(self) -> None:
        if not self.learns:
            pytest.skip(f"{self.strategy} does not learn from results")
        strategy = self.make(TWO_BY_TWO, seed=0, budget=80)
        heights = []
        for tid in range(80):
            suggestion = strategy.suggest(tid)
            assert suggestion is not None
            strategy.observe(tid, front_objectives(suggestion.params))
            heights.append(suggestion.params["y"])
        # uniform draws have a median y of 0.5; the front is y = 0
        assert float(np.median(heights[50:])) < 0.3, heights[50:]
