"""A search whose cluster has no worker able to run its trials says so, and gives up after a while.

A part of the driver (:mod:`hpnb.runner.driver`), on its thread, fed by its capacity check.
Once no worker slot has been free of stuck threads and fit for a trial for :data:`WAIT_GRACE`
seconds while trials wait, the search's message reads ``waiting for workers: none since 02:09``
(the dashboard, the Lab and ``hpnb show`` all show a search's message). When workers come back
the message goes; when none came for ``resources.wait_for_workers``, the search ends
INTERRUPTED with that message, and a resume runs its unfinished trials.

Example:
    >>> wait = WorkerWait(context, limit=600.0, compose=lambda text: text)  # doctest: +SKIP
    >>> wait.check(slots=0)  # doctest: +SKIP
"""

from __future__ import annotations

import time
from collections.abc import Callable

from hpnb.core.spec.values import describe_duration
from hpnb.core.store import CLEAR
from hpnb.core.trial import ExperimentState, TrialState
from hpnb.runner.context import DriverContext

#: seconds with no worker able to run a trial before the search says it waits for workers.
WAIT_GRACE = 5.0


def waiting_text(since: float, waiting_for: str | None = None) -> str:
    """The words for a wait that began at ``since`` (epoch seconds), in local time; ``waiting_for``:
    what one trial needs, when more than a worker (a trial that spans several workers).

    Example:
        >>> waiting_text(time.mktime((2026, 12, 6, 2, 9, 0, 0, 0, -1)))
        'waiting for workers: none since 02:09'
        >>> waiting_text(time.mktime((2026, 12, 6, 2, 9, 0, 0, 0, -1)), "2 workers with gpu=1")
        'waiting for 2 workers with gpu=1: too few since 02:09'
    """
    clock = time.strftime("%H:%M", time.localtime(since))
    if waiting_for is None:
        return f"waiting for workers: none since {clock}"
    return f"waiting for {waiting_for}: too few since {clock}"


class WorkerWait:
    """Whether, and since when, one search has waited for workers.

    Args:
        context: the driver's shared state.
        limit: seconds of waiting after which the search is interrupted (``resources.wait_for_workers``).
        compose: the driver's message with what it must keep saying (stuck threads) around a text.
    """

    def __init__(self, context: DriverContext, limit: float,
                 compose: Callable[[str | None], str | None]) -> None:
        self.context, self.limit, self.compose = context, limit, compose
        #: when the wait began: (driver clock, epoch seconds), None while workers are there
        self.since: tuple[float, float] | None = None
        self.said = False

    def check(self, slots: int | None) -> None:
        """Follow the free worker slots (None: the executor cannot tell) at a capacity check."""
        c = self.context
        if slots is None or slots > 0 or not (c.running or c.requeue) or c.stopping:
            self._over()
            return
        now = c.clock()
        if self.since is None:
            self.since = (now, time.time())
            return
        waited = now - self.since[0]
        text = waiting_text(self.since[1], c.executor.waiting_for)
        if not self.said and waited >= WAIT_GRACE:
            self.said = True
            c.public.message = text
            c.writer.experiment(message=self.compose(text))
            c.writer.event("waiting_for_workers", {"since": self.since[1], "text": text})
        if waited >= self.limit:
            self._interrupt(f"{text}; the search stopped after waiting {describe_duration(self.limit)} "
                            "(resources.wait_for_workers): resume it once the cluster has workers")

    def _interrupt(self, reason: str) -> None:
        """End the search INTERRUPTED: its trials, none of which can run, are PENDING for a resume
        (one the scheduler holds for a dead worker's retry included, rather than STOPPED)."""
        c = self.context
        self.said = False  # the search's end says it from here on
        c.stop_all(reason, ExperimentState.INTERRUPTED)
        for trial in list(c.running.values()):
            c.executor.stop(trial.trial_id, trial.attempt)
            c.withdraw(trial)
            c.writer.trial(trial.trial_id, state=TrialState.PENDING.value, retries=trial.retries)

    def _over(self) -> None:
        c = self.context
        if self.said:
            c.writer.event("workers_back", {"since": self.since[1] if self.since else None,
                                            "waited": c.clock() - self.since[0] if self.since else None})
            if not c.stopping:
                c.public.message = None
                c.writer.experiment(message=self.compose(None) or CLEAR)
        self.since, self.said = None, False
