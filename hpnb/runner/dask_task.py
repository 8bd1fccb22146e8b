"""The Dask task that runs one attempt on a worker, and the channel it talks to the driver through.

Everything a trial says travels worker -> driver as ``Worker.log_event`` messages on one topic the
driver subscribes to, in order: a start message (which worker, when), batches of reports, and the
outcome. Stop requests travel driver -> worker as a Dask ``Event`` per attempt, checked by the trial
at most every 0.2 s. A trial at a decision point waits on a Dask ``Variable`` per (attempt, step, and
rank beyond 0) that the driver sets to its verdict, and deletes it once read. A rank of a trial that
spans several workers (:mod:`hpnb.runner.ranks`) runs the same task with its rank: rank 0 speaks
for the trial, the others say only that they started and how they ended.
"""

from __future__ import annotations

import contextlib
import time
from typing import Any

from distributed import Event, Variable, get_client, get_worker

from hpnb.runner.output_transport import outcome_message
from hpnb.runner.shared_objective import SharedCopyMissing, objective_on_worker
from hpnb.runner.worker.objective import TrialTask, run_trial
from hpnb.runner.worker.trial_context import TrialChannel

#: the field of a message (and of a task's result) that says its worker found no copy of the objective.
COPY_MISSING = "copy_missing"


def event_name(topic: str, kind: str, trial_id: int, attempt: int) -> str:
    return f"{topic}-{kind}-{trial_id}-{attempt}"


def verdict_name(topic: str, trial_id: int, attempt: int, step: int, rank: int = 0) -> str:
    """The variable rank ``rank`` of an attempt waits on for the verdict on ``step``."""
    name = f"{event_name(topic, 'verdict', trial_id, attempt)}-{step}"
    return name if rank == 0 else f"{name}-rank-{rank}"


def recorded_name(topic: str, trial_id: int, attempt: int, seq: int) -> str:
    return f"{event_name(topic, 'recorded', trial_id, attempt)}-{seq}"


def await_variable(name: str, timeout: float) -> str | None:
    """The value the driver sets ``name`` to, deleted once read; None when none came in ``timeout``."""
    variable = Variable(name, client=get_client())
    try:
        return str(variable.get(timeout=timeout))
    except Exception:  # TimeoutError, or the scheduler went away: the trial goes on by itself
        return None
    finally:
        with contextlib.suppress(Exception):
            variable.delete()


def trial_channel(topic: str, task: TrialTask) -> TrialChannel:
    """How the attempt of ``task`` talks to its driver; a rank beyond 0 sends no reports (rank 0's
    are the trial's) but waits at the same decision points for its own copy of each verdict."""
    worker = get_worker()
    stop_event: list[Event] = []

    def should_stop() -> bool:
        if not stop_event:
            name = event_name(topic, "stop", task.trial_id, task.attempt)
            stop_event.append(Event(name, client=get_client()))
        return bool(stop_event[0].is_set())

    def await_verdict(step: int, timeout: float) -> str | None:
        return await_variable(verdict_name(topic, task.trial_id, task.attempt, step, task.rank), timeout)

    if task.rank:
        return TrialChannel(send=lambda batch: None, should_stop=should_stop, await_verdict=await_verdict)

    def await_recorded(seq: int, timeout: float) -> bool:
        return await_variable(recorded_name(topic, task.trial_id, task.attempt, seq), timeout) is not None

    return TrialChannel(send=lambda batch: worker.log_event(topic, batch), should_stop=should_stop,
                        await_verdict=await_verdict, await_recorded=await_recorded)


def run_on_worker(objective_key: str, task: TrialTask, topic: str) -> dict[str, Any]:
    """The Dask task: run one attempt (or one rank of it), streaming its start, reports and outcome
    to ``topic``."""
    worker = get_worker()
    key = {"trial": task.trial_id, "attempt": task.attempt, **({"rank": task.rank} if task.rank else {})}
    try:
        objective = objective_on_worker(objective_key)
    except SharedCopyMissing as missing:
        # told and returned, not raised: Dask logs a task's exception as an error with its traceback,
        # and this attempt only waits for the copy the driver puts in the cluster again
        told = {COPY_MISSING: missing.key, "why": missing.why}
        worker.log_event(topic, {**key, **told})
        return told
    worker.log_event(topic, {**key, "started": time.time(), "worker": worker.address})
    channel = trial_channel(topic, task)
    if task.gang is None:
        outcome = run_trial(objective, task, channel)
    else:
        from hpnb.runner.ranks.rank_run import run_rank

        outcome = run_rank(objective, task, channel)
    outcome["worker"] = worker.address
    with contextlib.suppress(TypeError):  # not msgpack-able: the driver fetches the result instead
        worker.log_event(topic, {**key, "outcome": outcome_message(outcome)})
    return outcome
