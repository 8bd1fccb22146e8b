"""Steering a search from anywhere: a command sent through the store, and the driver's answer.

Every front end (a kernel's dashboard, the Python handle, the Lab, the CLI) sends commands the
same way, whichever process or host runs the search's driver: it checks what it can before
sending (the value, the trial id, that a driver is alive), adds the command to the store and
waits for the driver's answer. A command is never left pending silently: when the driver is
gone, or goes while the sender waits, it is refused with a message that says so.

Example:
    >>> answer = send_and_wait(store, "mlp-lr", "extend", 10, source="cli")  # doctest: +SKIP
    >>> answer.reply  # doctest: +SKIP
    "search 'mlp-lr' has a budget of 50 trials now (+10)"
"""

from __future__ import annotations

import time

from hpnb.core.liveness import experiment_state
from hpnb.core.pause_problems import pause_problem, resume_problem
from hpnb.core.store import ExperimentRecord, Store, UnknownTrial
from hpnb.core.store.commands import (
    REFUSED,
    TRIAL_COMMANDS,
    CommandRecord,
    CommandRefused,
    command_problem,
)
from hpnb.core.trial import ExperimentState
from hpnb.core.trial_log import unknown_trial

#: seconds a sender waits for the driver's answer unless told otherwise.
ANSWER_WAIT = 10.0
#: seconds between two reads of a command's row while its answer is awaited.
ANSWER_POLL = 0.02
#: seconds between two checks, while waiting, that the driver still lives.
LIVENESS_CHECK = 0.5


def not_running_reason(record: ExperimentRecord, now: float) -> str | None:
    """Why no driver can carry out a command for ``record`` now, or None when one runs.

    Example:
        >>> from hpnb.core.store import ExperimentRecord
        >>> done = ExperimentRecord(id=1, name="demo", spec={}, source=None, state="COMPLETED", budget=4,
        ...     parallel=1, metric="loss", mode="min", strategy="random", created=0.0, updated=0.0,
        ...     message=None, stop_requested=False, strategy_state=None, scheduler_state=None, driver=None)
        >>> not_running_reason(done, 1.0)
        "search 'demo' is not running (COMPLETED)"
    """
    state = experiment_state(record, now)
    if state is ExperimentState.RUNNING:
        return None
    if state is ExperimentState.INTERRUPTED:
        return (f"search {record.name!r} is not running: its driver is gone (INTERRUPTED); "
                f"`hpnb resume {record.name} --detach` continues it")
    return f"search {record.name!r} is not running ({state.value})"


def send(store: Store, name: str, kind: str, value: int | None = None,
         source: str | None = None) -> CommandRecord:
    """Check ``kind`` with ``value`` against the search and add it to the store, unanswered.

    Raises:
        CommandRefused: the value is not allowed, or no driver runs the search.
        UnknownTrial: the search has no such trial (the message names the ids it has).
    """
    problem = command_problem(kind, value)
    if problem is not None:
        raise CommandRefused(problem)
    record = store.experiment(name)
    reason = not_running_reason(record, time.time())
    if reason is not None:
        raise CommandRefused(reason)
    if kind in TRIAL_COMMANDS:
        _check_trial(store, record, kind, int(value or 0))
    return store.send_command(record.id, kind, value, source=source)


def _check_trial(store: Store, record: ExperimentRecord, kind: str, trial_id: int) -> None:
    """The trial exists and, as stored, can be paused or resumed (the driver checks again)."""
    try:
        trial = store.trial(record.id, trial_id)
    except UnknownTrial:
        raise unknown_trial(record.name, trial_id, store.trial_id_range(record.id)) from None
    problem = {"pause_trial": pause_problem, "resume_trial": resume_problem}.get(kind)
    reason = None if problem is None else problem(trial)
    if reason is not None:
        raise CommandRefused(reason)


def await_answer(store: Store, command: CommandRecord, timeout: float = ANSWER_WAIT) -> CommandRecord:
    """The command as stored once the driver answered it, or still pending after ``timeout``
    seconds. A command whose driver is gone is answered here: refused, saying so."""
    deadline = time.monotonic() + timeout
    next_check = time.monotonic() + LIVENESS_CHECK
    while True:
        current = store.command(command.id)
        if not current.pending or time.monotonic() >= deadline:
            return current
        if time.monotonic() >= next_check:
            next_check = time.monotonic() + LIVENESS_CHECK
            reason = not_running_reason(store.experiment_with_id(command.experiment_id), time.time())
            if reason is not None:
                store.answer_command(command.id, REFUSED, reason)
                return store.command(command.id)
        time.sleep(ANSWER_POLL)


def raise_if_refused(answer: CommandRecord) -> CommandRecord:
    """``answer`` when the driver carried it out or has not answered yet; else CommandRefused."""
    if answer.state == REFUSED:
        raise CommandRefused(answer.reply or f"{answer.kind} was refused")
    return answer


def send_and_wait(store: Store, name: str, kind: str, value: int | None = None, *, source: str | None = None,
                  timeout: float = ANSWER_WAIT) -> CommandRecord:
    """:func:`send`, then :func:`await_answer`; refused commands raise :class:`CommandRefused`."""
    return raise_if_refused(await_answer(store, send(store, name, kind, value, source), timeout))


def describe_answer(answer: CommandRecord) -> str:
    """What a front end shows for ``answer``: the driver's reply, or that none came yet.

    Example:
        >>> from hpnb.core.store.commands import CommandRecord
        >>> describe_answer(CommandRecord(3, 1, "extend", 5, None, 0.0, "pending", None, None))
        'extend 5 was sent; the driver has not answered yet (it carries it out when it reads it)'
    """
    if answer.pending:
        what = answer.kind if answer.value is None else f"{answer.kind} {answer.value}"
        return f"{what} was sent; the driver has not answered yet (it carries it out when it reads it)"
    return answer.reply or answer.state
