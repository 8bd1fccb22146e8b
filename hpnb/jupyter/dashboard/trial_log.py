"""The log panel of the trial selected in the leaderboard: what it printed and where it ran (the
dashboard's side of :mod:`hpnb.core.trial_log`, the same concept).

It renders a :class:`~hpnb.core.trial_log.TrialLog` (``Search.logs``) as HTML:
a line naming the trial, its state, worker and peak memory, then its traceback
when it failed, its stdout and its stderr, each in a scrolled block, escaped.

Example:
    >>> from hpnb.core.trial_log import TrialLog
    >>> "epoch 1" in log_html(TrialLog(3, "COMPLETED", "epoch 1\\n", "", None, "tcp://w:1", 2**20))
    True
"""

from __future__ import annotations

import html

from hpnb.cli.show_trial import format_bytes
from hpnb.core.trial_log import TrialLog

_PRE = ("<pre class='hpnb-log' style='font-size:11px;max-height:240px;overflow:auto;margin:2px 0 8px;"
        "padding:4px;background:var(--jp-layout-color2,#f7f7f7)'>{}</pre>")
#: shown when no trial is selected.
HINT = "<small>select a trial in the table to see what it printed</small>"


def _block(title: str, text: str, written: int, color: str = "") -> str:
    kept = len(text.encode())
    note = f" (the last {len(text.splitlines())} lines of {format_bytes(written)})" if written > kept else ""
    style = f" style='color:{color}'" if color else ""
    body = html.escape(text) if text else "(nothing)"
    return f"<b{style}>{title}</b><small>{html.escape(note)}</small>{_PRE.format(body)}"


def log_html(log: TrialLog, ranks: str = "") -> str:
    """The panel's HTML for ``log``; ``ranks`` (HTML: a trial's ranks, see
    :mod:`hpnb.jupyter.dashboard.ranks`) goes under its first line."""
    attempt = f" &middot; attempt {log.attempt + 1}" if log.attempt else ""
    parts = [
        f"<div class='hpnb-trial-log'><b>trial {log.trial_id}</b> &middot; {html.escape(log.state)}{attempt}"
        f" &middot; worker <code>{html.escape(log.worker or '-')}</code>"
        f" &middot; peak memory {format_bytes(log.peak_memory_bytes)}",
    ]
    if log.note:
        parts.append(f"<br><small>{html.escape(log.note)}</small>")
    parts.append(ranks)
    if log.traceback:
        parts.append("<br>" + _block("traceback", log.traceback, 0, "#d62728"))
    else:
        parts.append("<br>")
    parts.append(_block("stdout", log.stdout, log.stdout_bytes))
    parts.append(_block("stderr", log.stderr, log.stderr_bytes))
    parts.append("</div>")
    return "".join(parts)


def error_html(trial_id: int, error: Exception) -> str:
    """The panel when the log cannot be read (an unknown trial, a store being replaced)."""
    return f"<span style='color:#d62728'>trial {trial_id}: {html.escape(str(error))}</span>"
