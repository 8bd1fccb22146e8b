"""Where a store lives: a SQLite file (the embedded default) or a PostgreSQL server, named by a URL.

A store is named by a path (``~/.hpnb/hpnb.sqlite``) or by a ``postgresql://`` URL
(``postgresql://alice@db.example:5432/hpnb``). When none is given, ``HPNB_STORE`` names it, else
the file ``$HPNB_HOME/hpnb.sqlite``. A password written into a URL is used to connect and
nowhere else: :attr:`StoreLocation.display`, the only form that reaches a message, a record or a
view, leaves it out. Without one in the URL, libpq's own sources apply (``PGPASSWORD``,
``~/.pgpass``).

A server store still has a local folder, :attr:`StoreLocation.path`'s parent, under
``$HPNB_HOME/servers/``: what is kept beside a SQLite file (checkpoints when the spec names no
``checkpoints.store``) is kept there for a server store.

Example:
    >>> where = StoreLocation.of("postgresql://alice:secret@db.example:5432/hpnb")
    >>> where.display
    'postgresql://alice@db.example:5432/hpnb'
    >>> where.is_server, "secret" in repr(where)
    (True, False)
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import quote, unquote, urlsplit

from hpnb.core.store.store_errors import StoreError

#: the environment variable that names the store when a caller names none.
STORE_SETTING = "HPNB_STORE"
#: the URL schemes of a PostgreSQL store.
SERVER_SCHEMES = ("postgresql", "postgres")
_FOLDER_CHARS = re.compile(r"[^A-Za-z0-9._-]+")


def hpnb_home() -> Path:
    """``$HPNB_HOME`` (default ``~/.hpnb``), where a notebook's local files are kept."""
    return Path(os.environ.get("HPNB_HOME") or "~/.hpnb").expanduser()


def default_store_path() -> Path:
    """The SQLite file every notebook shares by default: ``$HPNB_HOME/hpnb.sqlite``.

    Example:
        >>> default_store_path().name
        'hpnb.sqlite'
    """
    return hpnb_home() / "hpnb.sqlite"


def is_server_url(name: object) -> bool:
    """Whether ``name`` is a ``postgresql://`` URL rather than a file path.

    Example:
        >>> is_server_url("postgresql://db/hpnb"), is_server_url("/data/hpnb.sqlite")
        (True, False)
    """
    return isinstance(name, str) and name.split("://", 1)[0].lower() in SERVER_SCHEMES and "://" in name


def mask_url(url: str) -> str:
    """``url`` without its password (and without query options, which may carry one too).

    Example:
        >>> mask_url("postgresql://bob:pw@10.0.0.5/team?sslmode=require")
        'postgresql://bob@10.0.0.5:5432/team'
    """
    parts = urlsplit(url)
    user = f"{quote(unquote(parts.username), safe='')}@" if parts.username else ""
    return f"postgresql://{user}{server_address(url)}{parts.path or '/'}"


def server_address(url: str) -> str:
    """``host:port`` of a server's URL (the port defaults to 5432).

    Example:
        >>> server_address("postgresql://bob:pw@10.0.0.5/team"), server_address("postgresql://[::1]:6543/t")
        ('10.0.0.5:5432', '[::1]:6543')
    """
    parts = urlsplit(url)
    host = parts.hostname or "localhost"
    if ":" in host:
        host = f"[{host}]"
    try:
        port = parts.port or 5432
    except ValueError:
        port = 5432
    return f"{host}:{port}"


@dataclass(frozen=True)
class StoreLocation:
    """One store's address: the URL to connect with (private) and the forms that may be shown."""

    #: the connection URL as given, password included; never shown (see ``display``)
    url: str = field(repr=False)
    #: the name shown in messages, records and views (no password)
    display: str
    #: a file for SQLite; for a server store a name in its local folder under ``$HPNB_HOME/servers``
    path: Path
    is_server: bool

    @classmethod
    def of(cls, name: str | os.PathLike[str] | None) -> StoreLocation:
        """The location named by ``name``: a path, a URL, or None for ``HPNB_STORE`` / the default."""
        if name is None:
            name = os.environ.get(STORE_SETTING) or default_store_path()
        if is_server_url(name):
            url = str(name)
            display = mask_url(url)
            parts = urlsplit(url)
            if not parts.path.strip("/"):
                raise StoreError(f"the store {display} names no database; add one: postgresql://host:5432/NAME")
            folder = _FOLDER_CHARS.sub("_", display.split("://", 1)[1]).strip("_")
            return cls(url, display, hpnb_home() / "servers" / folder / "store", True)
        text = os.fspath(name)
        if "://" in str(text):
            scheme = str(text).split("://", 1)[0]
            raise StoreError(f"the store {text!r}: the scheme {scheme!r} is not a store; "
                             "use a file path (SQLite) or postgresql://user@host:5432/db")
        path = Path(text).expanduser()
        if path.name == "store" and path.parent.parent == hpnb_home() / "servers":
            raise StoreError(f"{path} is the local folder of a server store, not a store: open that store "
                             "by its postgresql:// URL (a Store's url)")
        return cls(str(path), str(path), path, False)

    @property
    def address(self) -> str:
        """Where the store is: ``host:port`` of a server, the file of a SQLite store."""
        return server_address(self.url) if self.is_server else self.display

    def __str__(self) -> str:
        return self.display
