"""A text progress line for terminals and CI logs, rendered from the search's summary."""

from __future__ import annotations

import sys
import time
from typing import TextIO

from hpnb.core.summary import SearchSummary
from hpnb.core.trial import TrialState


def progress_line(summary: SearchSummary, elapsed: float, width: int = 24) -> str:
    """``[#####.....] 10/40  running 4  failed 1  stopped 2  best loss 0.1234  12s``; with several
    objectives, the size of the Pareto front instead of a best (``front 3``).

    Example:
        >>> from hpnb.core.summary import ExperimentState
        >>> summary = SearchSummary("demo", ExperimentState.RUNNING, "loss", "min", "random", 4, None,
        ...                         {"COMPLETED": 2, "RUNNING": 1}, 0.0, 0.0, 0.0, None, None, 1, 0.25)
        >>> progress_line(summary, 12.0, width=8)
        '[####....] 2/4  running 1  failed 0  stopped 0  best loss 0.25  12s'
    """
    filled = min(width, round(width * summary.done / max(summary.budget, 1)))
    parts = [f"[{'#' * filled}{'.' * (width - filled)}] {summary.done}/{summary.budget}",
             *(f"{state.value.lower()} {summary.count(state)}"
               for state in (TrialState.RUNNING, TrialState.FAILED, TrialState.STOPPED))]
    if summary.count(TrialState.PAUSED):
        parts.append(f"paused {summary.count(TrialState.PAUSED)}")
    if summary.is_multi_objective:
        parts.append(f"front {summary.front_size}")
    elif summary.best_value is not None:
        parts.append(f"best {summary.metric} {summary.best_value:.6g}")
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

    def due(self, final: bool = False) -> bool:
        """Whether a line is to be printed now (always for the final one)."""
        return final or time.monotonic() >= self.next_print

    def update(self, summary: SearchSummary, final: bool = False) -> None:
        """Print the line of ``summary`` when it is :meth:`due`."""
        if not self.due(final):
            return
        now = time.monotonic()
        self.next_print = now + self.interval
        line = progress_line(summary, now - self.started)
        if self.tty:
            self.stream.write("\r" + line + ("\n" if final else ""))
        else:
            self.stream.write(line + "\n")
        self.stream.flush()
