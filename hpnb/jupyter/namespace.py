"""Looking things up in the notebook's namespace for the magics.

Every failure is a plain :class:`IPython.core.error.UsageError` (a subclass
would print a traceback) whose message says what was wrong and what to do.

Example:
    >>> def train(lr):
    ...     return lr
    >>> resolve_objective("train", {"train": train}) is train
    True
    >>> variable_name("mlp-lr 2")
    'mlp_lr_2'
"""

from __future__ import annotations

import inspect
import keyword
import re
from collections.abc import Callable, Mapping
from typing import Any

from IPython.core.error import UsageError

from hpnb.core.errors import closest

_IDENTIFIER_PART = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


def _callable_names(namespace: Mapping[str, Any]) -> list[str]:
    """Names of the functions a user may have meant (not modules, classes or private names)."""
    names = []
    for key, value in namespace.items():
        if key.startswith("_") or inspect.ismodule(value) or inspect.isclass(value):
            continue
        if callable(value):
            names.append(key)
    return names


def resolve_objective(name: str, namespace: Mapping[str, Any]) -> Callable[..., Any]:
    """The function ``name`` (``train`` or ``module.train``) from the namespace.

    Raises:
        UsageError: the name is not a dotted identifier, is not defined, or is not callable.
    """
    parts = name.split(".")
    if not all(_IDENTIFIER_PART.match(part) for part in parts):
        raise UsageError(
            f"objective: {name!r} is not a function name; write the name of a function defined "
            "in the notebook, e.g. %%hpsearch train"
        )
    if parts[0] not in namespace:
        hint = closest(parts[0], _callable_names(namespace))
        message = f"objective: {parts[0]!r} is not defined in the notebook"
        message += f"; did you mean {hint!r}?" if hint else "; define the function in a cell above first"
        raise UsageError(message)
    value = namespace[parts[0]]
    for depth, attr in enumerate(parts[1:], start=1):
        if not hasattr(value, attr):
            owner = ".".join(parts[:depth])
            raise UsageError(f"objective: {owner!r} has no attribute {attr!r}")
        value = getattr(value, attr)
    if not callable(value):
        raise UsageError(
            f"objective: {name!r} is not a function (it is of type {type(value).__name__}); it must be "
            "a function taking the trial's parameters and returning or reporting metrics"
        )
    return value


def variable_name(name: str) -> str:
    """``name`` turned into a valid Python identifier (used as the default ``--out``)."""
    text = re.sub(r"\W", "_", name.strip())
    if not text or text[0].isdigit():
        text = "_" + text
    if keyword.iskeyword(text):
        text += "_"
    return text


def check_variable_name(name: str) -> str:
    """``name`` itself when it can be assigned to, else a UsageError."""
    if not name.isidentifier() or keyword.iskeyword(name):
        raise UsageError(f"--out: {name!r} is not a valid Python variable name")
    return name


def cell_source(line: str, body: str) -> str:
    """The text of a ``%%hpsearch`` cell, as kept in the store with the experiment."""
    return f"%%hpsearch {line.strip()}\n{body}"


def stored_objective_name(record: Any) -> str | None:
    """The objective a stored experiment was started with, read from its ``%%hpsearch`` line."""
    source = getattr(record, "source", None) or ""
    first = source.lstrip().split("\n", 1)[0].split()
    if len(first) >= 2 and first[0] == "%%hpsearch" and not first[1].startswith("-"):
        return first[1]
    return None
