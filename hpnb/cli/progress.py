"""A text progress line and a leaderboard for terminals and CI logs."""

from __future__ import annotations

import sys
import time
from typing import TextIO

from hpnb.core.store import ExperimentRecord, TrialRecord


def progress_line(record: ExperimentRecord, trials: list[TrialRecord], elapsed: float,
                  width: int = 24) -> str:
    """``[#####.....] 10/40 running 4 failed 1 stopped 2 best 0.1234 12s``."""
    from hpnb.core.summary import best_trial

    counts: dict[str, int] = {}
    for trial in trials:
        counts[trial.state] = counts.get(trial.state, 0) + 1
    finished = sum(counts.get(s, 0) for s in ("COMPLETED", "FAILED", "STOPPED"))
    budget = max(record.budget, 1)
    filled = min(width, round(width * finished / budget))
    best = best_trial(trials, record.mode)
    parts = [f"[{'#' * filled}{'.' * (width - filled)}] {finished}/{record.budget}",
             f"running {counts.get('RUNNING', 0)}", f"failed {counts.get('FAILED', 0)}",
             f"stopped {counts.get('STOPPED', 0)}"]
    if counts.get("PAUSED"):
        parts.append(f"paused {counts['PAUSED']}")
    if best is not None:
        parts.append(f"best {record.metric} {best.value:.6g}")
    parts.append(f"{elapsed:.0f}s")
    return "  ".join(parts)


class ProgressPrinter:
    """Prints the progress line in place on a terminal, or every few seconds in a log."""

    def __init__(self, stream: TextIO = sys.stdout, interval: float | None = None) -> None:
        self.stream = stream
        self.tty = stream.isatty()
        self.interval = interval if interval is not None else (0.25 if self.tty else 5.0)
        self.started = time.monotonic()
        self.next_print = 0.0

    def update(self, record: ExperimentRecord, trials: list[TrialRecord], final: bool = False) -> None:
        now = time.monotonic()
        if not final and now < self.next_print:
            return
        self.next_print = now + self.interval
        line = progress_line(record, trials, now - self.started)
        if self.tty:
            self.stream.write("\r" + line + ("\n" if final else ""))
        else:
            self.stream.write(line + "\n")
        self.stream.flush()
