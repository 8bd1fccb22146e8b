"""What a user sees of one trial's run: what it printed, its traceback, where it ran, its peak memory.

Every front end (``Search.logs``, ``hpnb show NAME --trial ID``, the REST route and so the
dashboard and the JupyterLab view) reads it through :func:`read_trial_log`.

Example:
    >>> import tempfile, pathlib
    >>> from hpnb.core.store import Store
    >>> from hpnb.core.trial_output import TrialOutput
    >>> store = Store(pathlib.Path(tempfile.mkdtemp()) / "hpnb.sqlite")
    >>> exp = store.create_experiment("demo", {}, metric="loss", mode="min", strategy="random",
    ...                               budget=1, parallel=1)
    >>> store.add_trial(exp.id, 0, {"lr": 0.1})
    >>> store.set_trial_output(exp.id, 0, TrialOutput(stdout="epoch 1\\n", stdout_bytes=8))
    >>> read_trial_log(store, exp, 0, now=exp.created).stdout
    'epoch 1\\n'
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from hpnb.core.liveness import experiment_state, trial_state
from hpnb.core.store import ExperimentRecord, Store, UnknownTrial
from hpnb.core.trial import TrialState
from hpnb.core.trial_output import MAX_BYTES, MAX_LINES

#: the note of a trial that has no output kept yet.
NOT_YET = "output is kept when the trial ends"
#: the note of a trial that ended with no output kept.
NONE_KEPT = "no output was kept for this trial (it never ran, or it ran before hpnb kept trial output)"


@dataclass(frozen=True)
class TrialLog:
    """One trial's log as shown to a user.

    Attributes:
        trial_id: the trial.
        state: its state as shown (INTERRUPTED when its search's driver died).
        stdout: the last lines it printed (at most 200 lines or 64 KiB, whichever is smaller).
        stderr: the same for stderr, where ``logging`` output goes by default.
        traceback: its error when it failed (a Python traceback, or why it ended: a time
            limit, a lost worker), else None.
        worker: the Dask worker it ran on, if it started.
        peak_memory_bytes: the largest resident set size of its worker process seen while
            it ran (sampled; trials running at once in one process share it), or None.
        stdout_bytes: how many bytes it printed in all (``stdout`` holds the end of them).
        stderr_bytes: the same for stderr.
        attempt: the attempt the output is from (0 first; later after retries), or None.
        note: what is missing and why, or None when nothing is.
        truncated: whether earlier output was dropped to keep within the limits.
    """

    trial_id: int
    state: str
    stdout: str
    stderr: str
    traceback: str | None
    worker: str | None
    peak_memory_bytes: int | None
    stdout_bytes: int = 0
    stderr_bytes: int = 0
    attempt: int | None = None
    note: str | None = None
    truncated: bool = False

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready dict of every field, with the limits (``max_lines``, ``max_bytes``)."""
        return {**asdict(self), "max_lines": MAX_LINES, "max_bytes": MAX_BYTES}


def unknown_trial(name: str, trial_id: object, ids: tuple[int, int, int] | None) -> UnknownTrial:
    """The error for a trial id the search does not have, naming the ids it has."""
    if ids is None:
        known = "it has no trials yet"
    else:
        low, high, count = ids
        known = f"its trials are {low} to {high}" if high - low + 1 == count else (
            f"its {count} trials have ids from {low} to {high}")
    return UnknownTrial(f"search {name!r} has no trial {trial_id!r}; {known}")


def read_trial_log(store: Store, experiment: ExperimentRecord, trial_id: int, now: float) -> TrialLog:
    """The log of trial ``trial_id`` of ``experiment``.

    Raises:
        UnknownTrial: the search has no such trial (the message names the ids it has).
    """
    if isinstance(trial_id, bool) or not isinstance(trial_id, int):
        raise unknown_trial(experiment.name, trial_id, store.trial_id_range(experiment.id))
    try:
        trial = store.trial(experiment.id, trial_id)
    except UnknownTrial:
        raise unknown_trial(experiment.name, trial_id, store.trial_id_range(experiment.id)) from None
    output = store.trial_output(experiment.id, trial_id)
    state = trial_state(trial, experiment_state(experiment, now))
    if output is None:
        unfinished = state == trial.state and TrialState(state).is_under_way  # else INTERRUPTED
        return TrialLog(trial_id, state, "", "", trial.error, trial.worker, None,
                        note=NOT_YET if unfinished else NONE_KEPT)
    return TrialLog(trial_id, state, output.stdout, output.stderr, trial.error, output.worker or trial.worker,
                    output.peak_memory_bytes, output.stdout_bytes, output.stderr_bytes, output.attempt,
                    output.note, output.truncated)
