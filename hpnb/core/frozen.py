"""Read-only, picklable mappings for the options kept in frozen specs.

Example:
    >>> options = freeze({"grace": 1, "brackets": [1, 2]})
    >>> options["brackets"]
    (1, 2)
    >>> thaw(options)
    {'grace': 1, 'brackets': [1, 2]}
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any


class FrozenDict(Mapping[str, Any]):
    """A mapping that cannot be changed after it is built (unlike ``MappingProxyType`` it pickles)."""

    __slots__ = ("_data",)

    def __init__(self, data: Mapping[str, Any] | None = None) -> None:
        self._data: dict[str, Any] = dict(data or {})

    def __getitem__(self, key: str) -> Any:
        return self._data[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._data)

    def __len__(self) -> int:
        return len(self._data)

    def __hash__(self) -> int:
        return hash(frozenset(self._data.items()))

    def __repr__(self) -> str:
        return f"FrozenDict({self._data!r})"

    def __getstate__(self) -> dict[str, Any]:
        return self._data

    def __setstate__(self, state: dict[str, Any]) -> None:
        object.__setattr__(self, "_data", state)


def freeze(value: Any) -> Any:
    """``value`` with every mapping made a :class:`FrozenDict` and every list a tuple."""
    if isinstance(value, Mapping):
        return FrozenDict({str(key): freeze(item) for key, item in value.items()})
    if isinstance(value, (list, tuple)):
        return tuple(freeze(item) for item in value)
    return value


def thaw(value: Any) -> Any:
    """The inverse of :func:`freeze`: plain dicts and lists, JSON-serialisable."""
    if isinstance(value, Mapping):
        return {key: thaw(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [thaw(item) for item in value]
    return value
