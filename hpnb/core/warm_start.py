"""``warm_start: {from: NAME}``: the completed trials of a stored search, as a new search learns them.

A trial of the other search counts when it completed with a value for every objective of the
new one (by metric name). Its parameters are kept where the new space has them, active, with a
value they can take; the others are dropped and counted, per parameter, so the user can see
how much of the old search carried over. The store is read each time the search starts, so a
resumed search learns the same trials again (the store is the one history). The spec's side of
the same concept is :mod:`hpnb.core.spec.warm_start`.

Example:
    >>> from hpnb.core.spec import parse_spec
    >>> spec = parse_spec({"metric": "loss", "strategy": "tpe", "warm_start": {"from": "old"},
    ...                    "parameters": {"lr": {"min": 0.0, "max": 1.0}}})
    >>> found = warm_start_trials(store, spec, "new")  # doctest: +SKIP
    >>> print(found.describe())  # doctest: +SKIP
    warm start from 'old': learns 38 completed trials; dropped 38 values of momentum (not in this space)
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from hpnb.core.constraints import learnt_violations
from hpnb.core.errors import SpecError, closest
from hpnb.core.objectives import objective_values
from hpnb.core.strategies.base import TrialHistory
from hpnb.core.trial import TrialState

if TYPE_CHECKING:
    from hpnb.core.spec import ExperimentSpec
    from hpnb.core.store import Store, TrialRecord


@dataclass(frozen=True)
class WarmStart:
    """The trials a search learns from another before it suggests anything."""

    source: str
    trials: tuple[TrialHistory, ...]
    #: parameter -> how many of its values were dropped (not in this space, inactive or out of range)
    dropped: dict[str, int] = field(default_factory=dict)
    #: completed trials of the source without a value for every objective of this search
    unscored: int = 0

    def describe(self, used: int | None = None) -> str:
        """One line for the user: what is learnt and what was dropped."""
        count = len(self.trials) if used is None else used
        text = f"warm start from {self.source!r}: learns {count} completed trial{'' if count == 1 else 's'}"
        if used is not None and used < len(self.trials):
            text += f" ({len(self.trials) - used} more lack a parameter this strategy needs)"
        parts = [f"{n} value{'' if n == 1 else 's'} of {name}" for name, n in self.dropped.items()]
        if parts:
            text += f"; dropped {', '.join(parts)} (outside this space)"
        if self.unscored:
            plural = "" if self.unscored == 1 else "s"
            text += f"; {self.unscored} trial{plural} without every objective skipped"
        return text


def describe_warm_start(spec: ExperimentSpec) -> str | None:
    """What a plan says of ``enqueue`` and ``warm_start`` (before the store is read), or None.

    Example:
        >>> from hpnb.core.spec import parse_spec
        >>> spec = parse_spec({"metric": "m", "enqueue": [{"x": 1}], "parameters": {"x": [1, 2]}})
        >>> describe_warm_start(spec)
        '1 enqueued configuration runs first'
    """
    parts = []
    if spec.enqueue:
        count = len(spec.enqueue)
        parts.append(f"{count} enqueued configuration{' runs' if count == 1 else 's run'} first")
    if spec.warm_start:
        parts.append(f"learns the completed trials of {spec.warm_start!r} first")
    return "; ".join(parts) or None


def warm_start_trials(store: Store, spec: ExperimentSpec, name: str) -> WarmStart | None:
    """The trials the search ``name`` of ``spec`` learns first, or None without ``warm_start``.

    Raises:
        SpecError: ``warm_start.from`` names no stored search, or the search itself.
    """
    if spec.warm_start is None:
        return None
    source = store.find_experiment(spec.warm_start)
    if source is None:
        names = [r.name for r in store.experiments()]
        raise SpecError("warm_start.from", "names no search in the store", value=spec.warm_start,
                        allowed=", ".join(names[:20]) or "no search is stored yet",
                        suggestion=closest(spec.warm_start, names))
    if source.name == name:
        raise SpecError("warm_start.from", "names this search itself: a search cannot warm-start from its "
                        "own trials (a resume continues it)", value=name, allowed="another stored search")
    kept, dropped, unscored = [], Counter[str](), 0
    completed = [t for t in store.trials(source.id) if t.state == TrialState.COMPLETED.value]
    for index, trial in enumerate(completed):
        values = objective_values(trial.metrics, spec.objectives)
        if values is None:
            unscored += 1
            continue
        params = _kept_params(trial, spec, dropped)
        value: Any = values if spec.is_multi_objective else values[0]
        violations = learnt_violations(trial.metrics, spec.constraints) if spec.constraints else ()
        kept.append(TrialHistory(-1 - index, params, TrialState.COMPLETED, value, violations=violations))
    return WarmStart(source.name, tuple(kept), dict(dropped), unscored)


def _kept_params(trial: TrialRecord, spec: ExperimentSpec, dropped: Counter[str]) -> dict[str, Any]:
    """The parameters of ``trial`` this space has, with values it can take, active; counts the rest."""
    space = spec.space
    fits = {name: value for name, value in trial.params.items()
            if name in space.names and space[name].contains(value)}
    active = space.active(fits)
    for name in trial.params:
        if name not in active and not (name in space.names and space[name].is_fixed and name in fits):
            dropped[name] += 1
    return {name: value for name, value in active.items() if not space[name].is_fixed}
