"""The parts a search's driver is built from, made from its spec: the strategy that suggests its
trials and the rule that stops them early.

Example:
    >>> from hpnb.core.spec import parse_spec
    >>> spec = parse_spec({"metric": "loss", "strategy": "random", "parameters": {"x": [1, 2]}})
    >>> type(make_strategy(spec, budget=10)).__name__, type(make_stopping_rule(spec)).__name__
    ('RandomStrategy', 'NoStopping')
"""

from __future__ import annotations

from hpnb.core.early_stopping import stopping_rule_class
from hpnb.core.early_stopping.base import StoppingRule
from hpnb.core.frozen import thaw
from hpnb.core.spec import ExperimentSpec
from hpnb.core.strategies import strategy_class
from hpnb.core.strategies.base import Strategy


def adaptive_parallel(spec: ExperimentSpec) -> int | None:
    """With an adaptive local cluster, as many trials as its largest size has slots."""
    adapt = spec.resources.adapt
    return None if not adapt else int(adapt["maximum"]) * spec.resources.threads_per_worker


def make_strategy(spec: ExperimentSpec, budget: int) -> Strategy:
    """The strategy ``spec`` names, for a budget of ``budget`` trials."""
    cls = strategy_class(spec.strategy.name)
    modes = tuple(o.mode for o in spec.objectives) if spec.is_multi_objective else spec.mode
    strategy = cls(spec.space, modes, seed=spec.seed, budget=budget, **spec.strategy_options())
    if spec.constraints and strategy.learns_from_constraints:
        strategy.use_constraints(len(spec.constraints))
    return strategy


def make_stopping_rule(spec: ExperimentSpec) -> StoppingRule:
    """The early-stopping rule ``spec`` names (``none`` stops nothing)."""
    cls = stopping_rule_class(spec.early_stopping.rule)
    return cls(mode=spec.mode, seed=spec.seed, **thaw(spec.early_stopping.options))
