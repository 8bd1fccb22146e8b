"""The interface of early-stopping rules: they return decisions, the runner acts.

A stopping rule never touches the executor. The runner calls :meth:`StoppingRule.on_result`
for every reported result of a running trial, in arrival order, and acts on the
returned :class:`Decision`; it calls :meth:`StoppingRule.on_trial_end` once per trial.
A rule that answers PAUSE (ASHA's promotion type) says, through
:meth:`StoppingRule.promote`, which paused trials go on, and through
:meth:`StoppingRule.without_pause` what becomes of a trial that cannot pause.

Rules are asynchronous: a decision uses only the results that have arrived, and
no decision waits for slower trials (a trial paused at a rung is promoted by later
arrivals, while the other trials run). Trials need no registration: the first
result of an unknown trial id introduces it. A non-finite value (NaN, inf) counts
as the worst possible value.

Example:
    >>> rule = NoStopping(mode="min", max_t=3)
    >>> [rule.on_result(0, step, 1.0).value for step in (1, 2, 3)]
    ['CONTINUE', 'CONTINUE', 'STOP']
"""

from __future__ import annotations

import math
from collections.abc import Collection, Mapping
from enum import Enum
from typing import Any

from hpnb.core.decision_points import DecisionPoints
from hpnb.core.errors import SpecError, closest
from hpnb.core.objectives import Mode, Objective
from hpnb.core.spec.values import as_int
from hpnb.core.trial import TrialState

MODES: tuple[str, ...] = ("min", "max")


class Decision(str, Enum):
    """What the runner does with a trial after one of its results.

    Early-stopping rules return ``CONTINUE`` or ``STOP``, and ASHA's promotion type ``PAUSE``.
    """

    CONTINUE = "CONTINUE"
    STOP = "STOP"
    #: population-based training: restart from another member's checkpoint (decided by the
    #: ``pbt`` strategy's ``decide``, never by an early-stopping rule).
    EXPLOIT = "EXPLOIT"
    #: free the trial's slot and resume it later from its latest checkpoint (population-based
    #: training lets a member that is ahead wait; ASHA's promotion type holds a trial at a rung
    #: until it is promoted; a user parks a trial).
    PAUSE = "PAUSE"


def option_path(name: str) -> str:
    """The spec path of an early-stopping option, for error messages."""
    return f"early_stopping.{name}"


def check_int(name: str, value: Any, minimum: int) -> int:
    """``value`` as an integer of at least ``minimum``, or a :class:`SpecError` naming the option
    (the spec's one integer check)."""
    return as_int(value, option_path(name), minimum=minimum)


class StoppingRule:
    """Base class of early-stopping rules; on its own it never stops a trial.

    Args:
        mode: whether lower (``min``) or higher (``max``) values are better.
        max_t: a per-trial budget in steps; a trial that reaches it is stopped.
        seed: makes randomised rules (``hyperband``'s bracket draw) reproducible.
        **options: rule-specific options from ``early_stopping: {rule: ..., ...}``
            (without the ``rule`` key).

    Subclasses name their extra options in :attr:`options`, read them in
    ``__init__`` and implement :meth:`judge`; the budget check stays here.
    """

    name: str = "none"
    #: option names the rule accepts (checked by the spec parser).
    options: tuple[str, ...] = ("max_t",)

    def __init__(self, mode: Mode = "min", max_t: int | None = None, seed: int | None = None,
                 **options: Any) -> None:
        if mode not in MODES:
            raise SpecError("mode", "must be min or max", value=mode, allowed=MODES)
        unknown = sorted(set(options) - set(self.options))
        if unknown:
            raise SpecError(option_path(unknown[0]), f"is not an option of the {self.name} rule",
                            allowed=", ".join(self.options),
                            suggestion=closest(unknown[0], self.options))
        self.mode: Mode = mode
        #: the direction of the values the rule judges (the search's target metric)
        self.objective = Objective("value", mode)
        self.max_t = None if max_t is None else check_int("max_t", max_t, 1)
        self.seed = seed

    def on_result(self, trial_id: int, step: int, value: float) -> Decision:
        """Decide on trial ``trial_id`` after it reported ``value`` at ``step``.

        The rule records the result first, so a trial stopped by the budget still
        counts in the statistics other trials are judged against.
        """
        decision = self.judge(trial_id, int(step), float(value))
        if self.max_t is not None and step >= self.max_t:
            return Decision.STOP
        return decision

    def judge(self, trial_id: int, step: int, value: float) -> Decision:
        """Record one result and decide by the rule alone (no budget); override this."""
        return Decision.CONTINUE

    def decision_points(self) -> DecisionPoints:
        """The steps at which the rule may stop a trial: the runner makes a trial wait for the
        verdict there, so a stop lands at that very step. A rule adds its own to the budget's."""
        return DecisionPoints.at(self.max_t)

    def on_trial_end(self, trial_id: int, state: TrialState) -> None:
        """A trial finished; its results stay in the statistics the others are judged against."""

    def promote(self, paused: Collection[int], anyway: bool = False) -> list[int]:
        """Of the trials this rule paused (``paused``: those the runner holds paused), the ones that
        go on now, first to resume first; the rule records them as promoted. ``anyway``: every one
        of them goes on (the user resumed them). A rule that never answers PAUSE promotes nothing."""
        return []

    def without_pause(self, trial_id: int) -> Decision:
        """The decision for a trial this rule just answered PAUSE that cannot pause (it has no
        checkpoint to resume from, or did not wait for its verdict): CONTINUE or STOP."""
        return Decision.CONTINUE

    def waiting_for_promotion(self) -> set[int]:
        """The trials this rule paused and has not promoted yet (a resumed search holds them)."""
        return set()

    def state_dict(self) -> dict[str, Any]:
        """Everything needed to make the same future decisions, JSON-serialisable."""
        return {}

    def load_state_dict(self, state: Mapping[str, Any]) -> None:
        """Restore what :meth:`state_dict` returned."""
        return None

    def score(self, value: float) -> float:
        """``value`` as a quantity to minimise; non-finite values are the worst (``inf``)."""
        if not math.isfinite(value):
            return math.inf
        return self.objective.loss(value)


def score_to_json(score: float) -> float | None:
    """A score as strict JSON (``None`` for the worst, infinite score)."""
    return None if math.isinf(score) else score


def score_from_json(stored: float | None) -> float:
    return math.inf if stored is None else float(stored)


class NoStopping(StoppingRule):
    """``rule: none``: trials run to their end (or to ``max_t`` when given)."""

    name = "none"
