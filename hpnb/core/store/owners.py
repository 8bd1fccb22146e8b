"""Who started a search (``user@host``), and a store's searches grouped as mine and the team's.

Example:
    >>> "@" in current_owner()
    True
    >>> mine_first(["bob@b", "me@a", None], "me@a")
    ['me@a', 'bob@b', None]
"""

from __future__ import annotations

import getpass
import os
import socket
from collections.abc import Iterable
from typing import TypeVar

T = TypeVar("T")

#: the group of a search started by the current user, and of everyone else's.
MINE, TEAM = "mine", "team"


def current_owner() -> str:
    """``user@host`` of this process (``HPNB_OWNER`` overrides it, for shared service accounts)."""
    given = os.environ.get("HPNB_OWNER", "").strip()
    if given:
        return given
    try:
        user = getpass.getuser()
    except (KeyError, OSError):  # a container's uid without a passwd entry
        user = str(os.getuid()) if hasattr(os, "getuid") else "unknown"
    return f"{user}@{socket.gethostname()}"


def owner_group(owner: str | None, me: str | None = None) -> str:
    """:data:`MINE` when ``owner`` is ``me`` (default: :func:`current_owner`), else :data:`TEAM`.

    A search stored before owners were kept (no owner) counts as mine: it was made on this store
    when it was one person's.

    Example:
        >>> owner_group("ana@lab1", "ana@lab1"), owner_group("bo@lab2", "ana@lab1")
        ('mine', 'team')
    """
    return MINE if owner is None or owner == (me or current_owner()) else TEAM


def mine_first(owners: Iterable[str | None], me: str | None = None) -> list[str | None]:
    """``owners`` without repeats, ``me`` first, the others in order of first appearance."""
    me = me or current_owner()
    seen = list(dict.fromkeys(owners))
    return sorted(seen, key=lambda owner: owner_group(owner, me) != MINE or owner is None)
