"""Errors the store raises on purpose."""

from __future__ import annotations

from collections.abc import Iterable

from hpnb.core.errors import HpnbError, closest


class StoreError(HpnbError):
    """A problem with the experiment store (its file, its schema, or a request to it)."""


class InvalidName(StoreError, ValueError):
    """An experiment name that is empty, too long, or has characters not allowed."""


class NameTaken(StoreError):
    """An experiment of that name exists and overwriting was not asked for."""

    def __init__(self, name: str, path: object) -> None:
        self.name = name
        super().__init__(
            f"an experiment named {name!r} already exists in {path}; resume it to continue it, "
            "or overwrite it (overwrite=True, --overwrite) to start again from scratch"
        )


class UnknownExperiment(StoreError):
    """No experiment of that name in the store; the message suggests a close name."""

    def __init__(self, name: str, known: Iterable[str], path: object) -> None:
        self.name = name
        known = list(known)
        text = f"no experiment named {name!r} in {path}"
        if not known:
            text += " (the store has no experiments yet)"
        else:
            guess = closest(name, known)
            if guess is not None:
                text += f"; did you mean {guess!r}?"
        super().__init__(text)


class UnknownTrial(StoreError):
    """No trial with that id in the experiment."""


class ReadOnlyStore(StoreError):
    """A write was attempted on a store opened with ``readonly=True``."""


class StoreVersionError(StoreError):
    """The store file was written by a newer hpnb, or could not be upgraded."""


class StoreBusy(StoreError):
    """Another process kept the store locked for longer than the retry period."""
