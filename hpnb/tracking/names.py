"""What MLflow accepts as a name or a parameter value, and how hpnb's are made to fit.

- A metric or parameter name holding characters MLflow refuses (it takes letters, digits,
  ``_ - . /`` and spaces) has each of them replaced by ``_``; a name that would then be a
  path MLflow refuses (``a//b``, ``/a``, ``..``) has its slashes replaced too. The renaming is
  the same wherever the name occurs, and two names that would meet get a short suffix made from
  the original name. Every renaming is listed on the search's parent run
  (tag ``hpnb.renamed.<new name>`` = the original).
- A parameter value longer than MLflow's 6,000 characters is cut, ending with a note that
  says how long it was (the full value stays in hpnb's store).

Example:
    >>> names = MetricNames()
    >>> names.safe("val loss (%)"), names.safe("acc@1"), names.renamed
    ('val loss ___', 'acc_1', {'val loss ___': 'val loss (%)', 'acc_1': 'acc@1'})
    >>> len(param_value("x" * 7000))
    6000
"""

from __future__ import annotations

import hashlib
import json
import posixpath
import re
import threading
from typing import Any

#: MLflow's limits (mlflow.utils.validation).
MAX_PARAM_LENGTH = 6000
MAX_TAG_LENGTH = 8000
MAX_KEY_LENGTH = 250
_REFUSED = re.compile(r"[^A-Za-z0-9_\-. /]")


def _is_path_safe(name: str) -> bool:
    norm = posixpath.normpath(name)
    return bool(name) and norm == name and norm != "." and not norm.startswith(("..", "/"))


def fitted_name(name: str) -> str:
    """``name`` with what MLflow refuses replaced (not made unique: see :class:`MetricNames`)."""
    safe = _REFUSED.sub("_", name)
    if not _is_path_safe(safe):
        safe = safe.replace("/", "_")
    if not _is_path_safe(safe):  # "." or ".." alone
        safe = safe.replace(".", "_")
    return (safe or "_")[:MAX_KEY_LENGTH]


class MetricNames:
    """The MLflow name of each of a search's metric or parameter names, the same every time."""

    def __init__(self) -> None:
        self._lock = threading.Lock()  # the trials of a search are sent from several threads
        self._safe: dict[str, str] = {}
        #: new name -> original, for every name that had to change
        self.renamed: dict[str, str] = {}

    def safe(self, name: str) -> str:
        """The name MLflow stores for ``name``."""
        known = self._safe.get(name)
        if known is not None:
            return known
        with self._lock:
            return self._new(name)

    def _new(self, name: str) -> str:
        if name in self._safe:
            return self._safe[name]
        safe = fitted_name(name)
        if safe != name and (safe in self._safe.values() or safe in self._safe):
            suffix = hashlib.sha1(name.encode()).hexdigest()[:6]
            safe = f"{safe[:MAX_KEY_LENGTH - 7]}-{suffix}"
        self._safe[name] = safe
        if safe != name:
            self.renamed[safe] = name
        return safe


def text_value(value: Any) -> str:
    """A parameter or tag value as MLflow shows it: strings as they are, the rest as JSON."""
    if isinstance(value, str):
        return value
    try:
        return json.dumps(value, sort_keys=True, default=str)
    except (TypeError, ValueError):
        return str(value)


def param_value(value: Any, limit: int = MAX_PARAM_LENGTH) -> str:
    """``value`` as MLflow stores a parameter: cut to ``limit`` characters with a note."""
    text = text_value(value)
    if len(text) <= limit:
        return text
    note = f"… (truncated: {len(text):,} characters; the full value is in hpnb's store)"
    return text[:limit - len(note)] + note


def is_truncated(value: Any, limit: int = MAX_PARAM_LENGTH) -> bool:
    """Whether :func:`param_value` cuts ``value``."""
    return len(text_value(value)) > limit
