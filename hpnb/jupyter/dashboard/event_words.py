"""The search's recorded events in words, for the dashboard's "recent actions" line.

Example:
    >>> event_text({"kind": "pause", "data": {"trial": 9, "step": 6, "checkpoint_step": 6,
    ...                                       "reason": "by the user"}})
    'you paused trial 9 at step 6 (checkpoint kept)'
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

_BY_USER = "by the user"


def _pause(d: dict[str, Any]) -> str:
    step, kept = d.get("step"), d.get("checkpoint_step")
    at = f" at step {step}" if step is not None else ""
    if kept is None:
        checkpoint = ""
    elif kept == step:
        checkpoint = " (checkpoint kept)"
    else:
        checkpoint = f" (checkpoint of step {kept} kept)"
    reason = d.get("reason")
    if reason == _BY_USER:
        return f"you paused trial {d.get('trial')}{at}{checkpoint}"
    why = f": {reason}" if reason else ""
    return f"trial {d.get('trial')} paused{at}{checkpoint}{why}"


def _resume(d: dict[str, Any]) -> str:
    start = d.get("from_step")
    where = f" from step {start}" if start is not None else ""
    who = {"user": "you resumed", "promotion": "the rule promoted"}.get(d.get("by", ""), "resumed")
    if who == "resumed":
        return f"trial {d.get('trial')} resumed{where}"
    return f"{who} trial {d.get('trial')}{where}"


def _stop(d: dict[str, Any]) -> str:
    return "stop requested from another process" if d.get("source") == "store" else "you stopped the search"


def _retry(d: dict[str, Any]) -> str:
    start = d.get("from_step")
    where = f" from step {start}" if start is not None else ""
    return f"trial {d.get('trial')} runs again{where} (attempt {d.get('attempt')}): {d.get('reason')}"


def _switched(d: dict[str, Any]) -> str:
    trial = d.get("trial")
    at = f" at trial {trial}" if trial is not None else ""
    return f"auto switched from {d.get('from')} to {d.get('to')}{at}"


_WORDS: dict[str, Callable[[dict[str, Any]], str]] = {
    "pause": _pause,
    "resume": _resume,
    "stop": _stop,
    "retry": _retry,
    "stop_trial": lambda d: f"you stopped trial {d.get('value')}",
    "pause_trial": lambda d: f"you asked trial {d.get('value')} to pause",
    "resume_trial": lambda d: f"you asked trial {d.get('value')} to resume",
    "extend": lambda d: f"you added {d.get('value')} trials to the budget",
    "parallel": lambda d: f"you set parallel to {d.get('value')}",
    "pause_refused": lambda d: f"trial {d.get('trial')} could not pause: {d.get('reason')}",
    "abandoned": lambda d: f"trial {d.get('trial')} was given up (attempt {d.get('attempt')})",
    "checkpoint_failed": lambda d: f"trial {d.get('trial')}: its checkpoint at step {d.get('step')} failed",
    "llm_fetched": lambda d: (f"trial {d.get('trial')} {d.get('action')} the {d.get('what')} "
                              f"({d.get('bytes', 0) / 2 ** 20:.1f} MiB in {d.get('seconds', 0):.1f} s)"),
    "strategy_switched": _switched,
    "repeat": lambda d: (f"trial {d.get('trial')} runs trial {d.get('of')}'s configuration again "
                         + ("to measure the noise" if d.get("probe") else "(noise)")),
    "scale_failed": lambda d: f"the cluster could not grow to {d.get('parallel')}: {d.get('error')}",
    "constraint_never_reported": lambda d: f"trial {d.get('trial')} {d.get('reason')}",
    "strategy_model": lambda d: (f"{d.get('strategy')} proposes from its model from trial {d.get('trial')} "
                                 "on, fitted to " + ("final results" if d.get("budget") is None
                                                     else f"the results at step {d.get('budget')}")),
}


def event_text(event: dict[str, Any]) -> str:
    """One event (``{"kind", "data"}`` as stored) as a short sentence."""
    kind = str(event.get("kind", ""))
    data = event.get("data") or {}
    words = _WORDS.get(kind)
    if words is not None:
        try:
            return words(data)
        except (TypeError, AttributeError):  # an older or odd record: fall back to its fields
            pass
    details = ", ".join(f"{key} {value}" for key, value in data.items()) if isinstance(data, dict) else ""
    return kind.replace("_", " ") + (f" ({details})" if details else "")
