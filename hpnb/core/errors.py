"""Error types of hpnb.

Every mistake a user can make in a spec surfaces as one :class:`SpecError`
whose message names the field path, the offending value, what is allowed, a
"did you mean" when a name looks misspelled, and the YAML line when known.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable
from typing import Any

_MISSING: Any = object()


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
        text = f"{self.path}: {self.problem}" if self.path else self.problem
        if self.value is not _MISSING:
            text += f" (got {self.value!r})"
        if self.allowed:
            text += f"; allowed: {self.allowed}"
        if self.suggestion:
            text += f"; did you mean {self.suggestion!r}?"
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
