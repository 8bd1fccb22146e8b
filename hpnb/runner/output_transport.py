"""How what a trial printed travels from a Dask worker to the driver.

A short log rides in the attempt's outcome message. The scheduler keeps the last 1,000
messages of a topic, so a long one (up to 64 KiB per stream) is left out of the message and
the driver fetches it with the task's result: scheduler memory stays small however much the
trials print. A trial that does not return after a stop has its output so far read from its
worker before the worker is restarted (or its thread written off).
"""

from __future__ import annotations

import contextlib
import dataclasses
import threading
from typing import Any

from hpnb.core.trial_output import TrialOutput
from hpnb.runner.executor import AttemptOutput

#: an outcome message carries its log when stdout and stderr hold at most this many characters.
INLINE_LOG_CHARS = 8 * 1024
#: the outcome key that says the log is in the task's result only.
LOG_IN_RESULT = "log_in_result"
#: seconds to wait for a stuck trial's worker to hand over its output so far.
RESCUE_TIMEOUT = 3.0


def outcome_message(outcome: dict[str, Any]) -> dict[str, Any]:
    """``outcome`` as sent on the topic: its log left out when long (see :data:`LOG_IN_RESULT`)."""
    log = outcome.get("log")
    if log is None:
        return outcome
    log["worker"] = outcome.get("worker")
    if len(log.get("stdout") or "") + len(log.get("stderr") or "") <= INLINE_LOG_CHARS:
        return outcome
    return {**outcome, "log": None, LOG_IN_RESULT: True}


def output_event(trial_id: int, attempt: int, outcome: dict[str, Any]) -> AttemptOutput | None:
    """The event for the log an outcome carries, or None."""
    log = outcome.get("log")
    if not isinstance(log, dict):
        return None
    output = TrialOutput.from_message({**log, "worker": log.get("worker") or outcome.get("worker")})
    return AttemptOutput(trial_id, attempt, output)


def _output_on_worker(experiment: str, trial_id: int, attempt: int) -> dict[str, Any] | None:
    """Run on a worker: the output so far of an attempt still running there."""
    from hpnb.runner.worker.capture import output_so_far

    return output_so_far(experiment, trial_id, attempt)


def rescue_output(client: Any, experiment: str, trial_id: int, attempt: int, worker: str) -> TrialOutput:
    """What a trial that did not return has printed so far, read from its worker; when that
    cannot be read (the worker is gone or does not answer), an empty output saying so."""
    found: list[Any] = []

    def ask() -> None:
        with contextlib.suppress(Exception):  # a dead or busy worker: said in the note below
            answers = client.run(_output_on_worker, experiment, trial_id, attempt, workers=[worker],
                                 on_error="return")
            found.append(answers.get(worker))

    asking = threading.Thread(target=ask, daemon=True, name="hpnb-rescue-output")
    asking.start()
    asking.join(RESCUE_TIMEOUT)
    if not found or not isinstance(found[0], dict):
        return TrialOutput(attempt=attempt, worker=worker,
                           note=f"the trial did not return after it was asked to stop, and what it printed "
                                f"could not be read from its worker {worker}")
    output = TrialOutput.from_message(found[0])
    return dataclasses.replace(output, worker=worker,
                               note="the trial did not return after it was asked to stop: this is what it "
                                    "printed until then")
