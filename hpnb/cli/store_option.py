"""The ``--store`` option shared by the commands that read the experiment store (a file or a URL)."""

from __future__ import annotations

import argparse

from hpnb.core.store import Store, StoreLocation


def add_store_option(parser: argparse.ArgumentParser) -> None:
    """Add ``--store PATH|URL`` (default: ``$HPNB_STORE``, else ``$HPNB_HOME/hpnb.sqlite``)."""
    parser.add_argument(
        "--store",
        metavar="PATH|URL",
        help="the store: a SQLite file or postgresql://user@host:5432/db (default: $HPNB_STORE, else "
             f"$HPNB_HOME/hpnb.sqlite, now {StoreLocation.of(None)})",
    )


def open_store(args: argparse.Namespace) -> Store:
    """The store named by ``--store``, opened read-only (a missing file reads as an empty store)."""
    return Store(args.store, readonly=True)


def format_number(value: float | None) -> str:
    """A metric value in 6 significant digits; ``-`` when missing."""
    import pandas as pd
    if value is None or pd.isna(value):
        return "-"
    return f"{float(value):.6g}"
