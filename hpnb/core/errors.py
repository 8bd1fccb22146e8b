"""Error types of hpnb.

Every mistake a user can make in a spec surfaces as one :class:`SpecError`
whose message names the field path, the offending value, what is allowed, a
"did you mean" when a name looks misspelled, and the YAML line when known.
Values, paths and lists of allowed values are quoted at most about
:data:`MAX_QUOTE_CHARS` characters long, whatever the user wrote.
"""

from __future__ import annotations

import difflib
import reprlib
from collections.abc import Iterable, Sized
from typing import Any

_MISSING: Any = object()
#: the longest quote of a value, field path or suggestion in an error message.
MAX_QUOTE_CHARS = 80
#: the longest list of allowed values in an error message.
MAX_ALLOWED_CHARS = 2 * MAX_QUOTE_CHARS
_REPR = reprlib.Repr()
_REPR.maxstring = _REPR.maxother = _REPR.maxlong = MAX_QUOTE_CHARS
_REPR.maxlevel = 3


def shorten(text: str, limit: int = MAX_QUOTE_CHARS, *, unit: str = "characters",
            size: int | None = None) -> str:
    """``text`` cut to ``limit`` characters, ending in an ellipsis and the full size.

    Example:
        >>> shorten("x" * 100, 10)
        'xxxxxxxxx… (100 characters)'
    """
    if len(text) <= limit and size is None:
        return text
    return f"{text[:limit - 1]}… ({len(text) if size is None else size:,} {unit})"


def quote(value: Any, limit: int = MAX_QUOTE_CHARS) -> str:
    """``repr(value)`` of at most about ``limit`` characters, saying how long a cut value was.

    Example:
        >>> quote("a" * 1000, 12)
        "'aaaaaaaaaa… (1,000 characters)"
        >>> quote(0.5)
        '0.5'
    """
    if isinstance(value, str):
        if len(value) <= limit:
            return shorten(repr(value), limit)
        return shorten(repr(value[:limit]), limit, size=len(value))
    if isinstance(value, int) and value.bit_length() > 10_000:  # str() refuses > 4,300 digits
        return f"<an integer of about {value.bit_length() * 0.30103:,.0f} digits>"
    size = len(value) if isinstance(value, Sized) else None
    if size is not None and size > limit:
        return shorten(_REPR.repr(value), limit, unit="items", size=size)
    text = repr(value)
    if len(text) <= limit:
        return text
    return shorten(text, limit, unit="items", size=size) if size is not None else text[:limit - 1] + "…"


class HpnbError(Exception):
    """Base class of every error hpnb raises on purpose."""


class SpecError(HpnbError, ValueError):
    """An invalid search spec; nothing has been started.

    Example:
        >>> err = SpecError("parameters.lr.max", "must be greater than min", value=0.0)
        >>> str(err)
        'parameters.lr.max: must be greater than min (got 0.0)'
    """

    def __init__(
        self,
        path: str,
        problem: str,
        *,
        value: Any = _MISSING,
        allowed: str | Iterable[str] | None = None,
        suggestion: str | None = None,
        line: int | None = None,
    ) -> None:
        self.path = path
        self.problem = problem
        self.value = value
        self.allowed = allowed if allowed is None or isinstance(allowed, str) else ", ".join(allowed)
        self.suggestion = suggestion
        self.line = line
        super().__init__(self._render())

    def _render(self) -> str:
        text = f"{shorten(self.path)}: {self.problem}" if self.path else self.problem
        if self.value is not _MISSING:
            text += f" (got {quote(self.value)})"
        if self.allowed:
            text += f"; allowed: {shorten(self.allowed, MAX_ALLOWED_CHARS)}"
        if self.suggestion:
            text += f"; did you mean {quote(self.suggestion)}?"
        if self.line is not None:
            text += f" [line {self.line}]"
        return text

    def with_line(self, line: int | None) -> SpecError:
        """Return a copy of this error that points at a YAML line."""
        if line is None or self.line is not None:
            return self
        return SpecError(
            self.path,
            self.problem,
            value=self.value,
            allowed=self.allowed,
            suggestion=self.suggestion,
            line=line,
        )

    def __reduce__(self) -> tuple[Any, ...]:
        # Exceptions with keyword-only arguments do not pickle by default; an
        # error raised on a Dask worker must reach the driver intact.
        kwargs = {"allowed": self.allowed, "suggestion": self.suggestion, "line": self.line}
        if self.value is not _MISSING:
            kwargs["value"] = self.value
        return (_rebuild_spec_error, (self.path, self.problem, kwargs))


def _rebuild_spec_error(path: str, problem: str, kwargs: dict[str, Any]) -> SpecError:
    return SpecError(path, problem, **kwargs)


def closest(name: str, choices: Iterable[str]) -> str | None:
    """The choice a misspelled ``name`` most likely meant, or None.

    Example:
        >>> closest("logUnifrom", ["uniform", "logUniform", "normal"])
        'logUniform'
    """
    matches = difflib.get_close_matches(str(name), list(choices), n=1, cutoff=0.6)
    if matches:
        return matches[0]
    lowered = {c.lower(): c for c in choices}
    return lowered.get(str(name).lower())
