"""Kubernetes resource quantities: ``500m`` cores, ``4Gi`` bytes, ``1e9`` bytes.

The grammar is Kubernetes' own: a non-negative decimal number followed by a
binary suffix (``Ki Mi Gi Ti Pi Ei``), a decimal suffix (``n u m k M G T P E``)
or a decimal exponent (``e3``, ``E-2``). CPU is counted in cores, memory in
bytes, every other resource (``nvidia.com/gpu``) in its own unit.

Example:
    >>> parse_quantity("4024m", "limits.cpu", kind="cpu").value
    4.024
    >>> parse_quantity("4024Mi", "limits.memory", kind="memory").value
    4219469824.0
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Any, Literal

from hpnb.core.errors import SpecError

QuantityKind = Literal["cpu", "memory", "other"]

BINARY_SUFFIXES: dict[str, int] = {
    "Ki": 2**10, "Mi": 2**20, "Gi": 2**30, "Ti": 2**40, "Pi": 2**50, "Ei": 2**60,
}
DECIMAL_SUFFIXES: dict[str, float] = {
    "n": 1e-9, "u": 1e-6, "m": 1e-3, "": 1.0,
    "k": 1e3, "M": 1e6, "G": 1e9, "T": 1e12, "P": 1e15, "E": 1e18,
}
_QUANTITY = re.compile(
    r"^\+?(?P<number>(?:\d+(?:\.\d*)?|\.\d+))"
    r"(?:(?P<exponent>[eE][+-]?\d+)|(?P<suffix>Ki|Mi|Gi|Ti|Pi|Ei|[numkMGTPE]))?$"
)
_ALLOWED = {
    "cpu": 'cores: a number ("2", 0.5) or millicores ("500m")',
    "memory": 'bytes: a number (1e9) or a number with k, M, G, T, P, E or Ki, Mi, Gi, Ti, Pi, Ei ("4Gi")',
    "other": 'a non-negative quantity ("1", "2")',
}
_FRACTION_SUFFIXES = ("n", "u", "m")


@dataclass(frozen=True)
class Quantity:
    """A resource amount as written (``raw``) and as a number (``value``)."""

    raw: str
    value: float

    def __str__(self) -> str:
        return self.raw


def _raw_text(value: Any, path: str, kind: QuantityKind) -> str:
    if isinstance(value, bool) or not isinstance(value, (int, float, str)):
        raise SpecError(path, "must be a quantity, not a " + type(value).__name__,
                        value=value, allowed=_ALLOWED[kind])
    if isinstance(value, float) and not math.isfinite(value):
        raise SpecError(path, "must be a finite quantity", value=value, allowed=_ALLOWED[kind])
    return value.strip() if isinstance(value, str) else repr(value)


def parse_quantity(value: Any, path: str, *, kind: QuantityKind = "other") -> Quantity:
    """Read a Kubernetes quantity for a ``cpu``, ``memory`` or other resource.

    Raises:
        SpecError: for anything Kubernetes would refuse, a negative amount,
            or a memory size in fractions of a byte (``4024m`` meant ``4024Mi``).
    """
    raw = _raw_text(value, path, kind)
    match = _QUANTITY.match(raw)
    if raw.startswith("-"):
        raise SpecError(path, "must not be negative", value=value, allowed=_ALLOWED[kind])
    if match is None:
        suggestion = _suggest(raw, kind)
        raise SpecError(path, f"is not a valid {kind if kind != 'other' else 'resource'} quantity",
                        value=value, allowed=_ALLOWED[kind], suggestion=suggestion)
    number = float(match["number"])
    suffix = match["suffix"] or ""
    if match["exponent"]:
        amount = float(match["number"] + match["exponent"])  # inf when too large, never an overflow
    elif suffix in BINARY_SUFFIXES:
        amount = number * BINARY_SUFFIXES[suffix]
    else:
        amount = number * DECIMAL_SUFFIXES[suffix]
    if kind == "memory" and suffix in _FRACTION_SUFFIXES:
        raise SpecError(path, f"a memory size cannot use the fraction suffix '{suffix}'", value=value,
                        allowed=_ALLOWED[kind], suggestion=match["number"] + "Mi" if suffix == "m" else None)
    if kind == "cpu" and suffix in BINARY_SUFFIXES:
        raise SpecError(path, "binary suffixes are for bytes, not cores", value=value, allowed=_ALLOWED[kind])
    if not math.isfinite(amount):
        raise SpecError(path, "is too large", value=value, allowed=_ALLOWED[kind])
    return Quantity(raw, round(amount, 9) if kind == "cpu" else amount)


def _suggest(raw: str, kind: QuantityKind) -> str | None:
    """The likely intended spelling of common slips: ``4GB`` -> ``4G``, ``2gi`` -> ``2Gi``."""
    fixes = {"KB": "k", "MB": "M", "GB": "G", "TB": "T", "KIB": "Ki", "MIB": "Mi", "GIB": "Gi",
             "TIB": "Ti", "KI": "Ki", "MI": "Mi", "GI": "Gi", "TI": "Ti", "K": "k"}
    match = re.match(r"^(\d+(?:\.\d*)?)\s*([A-Za-z]+)$", raw)
    if match is None or kind == "cpu":
        return None
    fixed = fixes.get(match[2].upper())
    return None if fixed is None else match[1] + fixed
