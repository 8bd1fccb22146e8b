"""Errors of the analyses of a search."""

from __future__ import annotations

from hpnb.core.errors import HpnbError


class NotEnoughTrials(HpnbError):
    """An analysis needs more finished trials than the search has.

    Attributes:
        needed: the fewest trials the analysis works with.
        found: how many the search has.
    """

    def __init__(self, what: str, needed: int, found: int, kind: str = "finished") -> None:
        self.needed, self.found = needed, found
        has = "none" if found == 0 else str(found)
        super().__init__(f"{what} needs at least {needed} {kind} trials; this search has {has}")
