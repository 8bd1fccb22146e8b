"""The ``--store PATH`` option shared by the commands that read the experiment store."""

from __future__ import annotations

import argparse

from hpnb.core.store import Store, default_store_path


def add_store_option(parser: argparse.ArgumentParser) -> None:
    """Add ``--store PATH`` (default: ``$HPNB_HOME/hpnb.sqlite``)."""
    parser.add_argument(
        "--store",
        metavar="PATH",
        help=f"the store file (default: $HPNB_HOME/hpnb.sqlite, now {default_store_path()})",
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
