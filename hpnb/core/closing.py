"""Objects a ``with`` block closes.

Example:
    >>> class Door(ClosedOnExit):
    ...     def close(self) -> None:
    ...         print("closed")
    >>> with Door():
    ...     pass
    closed
"""

from __future__ import annotations

from types import TracebackType
from typing import Self


class ClosedOnExit:
    """A base whose ``with`` block returns the object and calls its :meth:`close` on leaving."""

    def close(self) -> None:
        raise NotImplementedError

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        self.close()
