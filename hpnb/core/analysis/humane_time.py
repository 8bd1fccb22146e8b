"""Times and durations as people write them: ``04:49``, ``Nov 30 14:02``, ``3 min ago``, ``1 min 20 s``.

Machine-readable forms (``--json``, DataFrames) keep epoch seconds and timestamps;
these are for what a person reads: tables printed by the command line, the
dashboard, the JupyterLab views. Clock times are in the local time zone unless
``tz`` is given.

Example:
    >>> from datetime import timezone
    >>> now = 1_764_564_574.6  # 2025-12-01 04:49:34.6 UTC
    >>> clock_time(now - 60, now=now, tz=timezone.utc)
    '04:48'
    >>> clock_time(now - 86_400 * 1.4, now=now, tz=timezone.utc)
    'Nov 29 19:13'
    >>> relative_time(now - 200, now=now), duration(80)
    ('3 min ago', '1 min 20 s')
"""

from __future__ import annotations

import math
import time
from datetime import datetime, tzinfo

_MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")
#: (seconds in the unit, its name) from the largest unit down, for durations.
_UNITS = ((86_400, "d"), (3_600, "h"), (60, "min"), (1, "s"))
#: below this many seconds, a time in the past is "just now".
JUST_NOW = 5.0
MISSING = "-"


def _moment(epoch: float, tz: tzinfo | None) -> datetime:
    return datetime.fromtimestamp(epoch, tz) if tz is not None else datetime.fromtimestamp(epoch).astimezone()


def clock_time(epoch: float | None, *, now: float | None = None, tz: tzinfo | None = None) -> str:
    """``epoch`` (seconds) as a clock time: ``04:49`` today, ``Nov 30 14:02`` earlier this year,
    ``Nov 30 2025 14:02`` in another year; ``-`` when missing or not finite.

    Args:
        epoch: the moment, in seconds since the epoch.
        now: what "today" is measured from (default: the current time).
        tz: the time zone to show (default: the local one).

    Example:
        >>> from datetime import timezone
        >>> clock_time(0.0, now=86_400 * 400, tz=timezone.utc)
        'Jan 1 1970 00:00'
    """
    if epoch is None or not math.isfinite(epoch):
        return MISSING
    moment = _moment(epoch, tz)
    today = _moment(time.time() if now is None else now, tz)
    hours = f"{moment.hour:02d}:{moment.minute:02d}"
    if moment.date() == today.date():
        return hours
    day = f"{_MONTHS[moment.month - 1]} {moment.day}"
    if moment.year == today.year:
        return f"{day} {hours}"
    return f"{day} {moment.year} {hours}"


def relative_time(epoch: float | None, *, now: float | None = None) -> str:
    """How long ago ``epoch`` was: ``just now``, ``42 s ago``, ``3 min ago``, ``5 h ago``,
    ``2 d ago``; a moment ahead of ``now`` (a clock ahead on another host) reads ``in 3 min``.

    Example:
        >>> relative_time(1000.0, now=1000.0 + 3 * 3600 + 59)
        '3 h ago'
    """
    if epoch is None or not math.isfinite(epoch):
        return MISSING
    ago = (time.time() if now is None else now) - epoch
    if abs(ago) < JUST_NOW:
        return "just now"
    text = _largest_unit(abs(ago))
    return f"{text} ago" if ago > 0 else f"in {text}"


def _largest_unit(seconds: float) -> str:
    for size, name in _UNITS:
        if seconds >= size:
            return f"{int(seconds // size)} {name}"
    return "0 s"


def duration(seconds: float | None) -> str:
    """A length of time in its two largest units: ``420 ms``, ``1.5 s``, ``12 s``, ``1 min 20 s``,
    ``2 h 5 min``, ``3 d 4 h``; ``-`` when missing, negative or not finite.

    Example:
        >>> [duration(s) for s in (0.0042, 0.42, 12.3, 3600, 7500, 273_600)]
        ['4 ms', '420 ms', '12 s', '1 h', '2 h 5 min', '3 d 4 h']
    """
    if seconds is None or not math.isfinite(seconds) or seconds < 0:
        return MISSING
    if seconds < 0.9995:  # "0.0 s" says nothing of a fast trial
        return f"{seconds * 1000:.0f} ms"
    if seconds < 10:
        return f"{seconds:.1f} s"
    whole = round(seconds)
    parts: list[str] = []
    for size, name in _UNITS:
        count, whole = divmod(whole, size)
        if count or parts:
            parts.append(f"{count} {name}")
        if len(parts) == 2:
            break
    while len(parts) > 1 and parts[-1].startswith("0 "):
        parts.pop()
    return " ".join(parts)
