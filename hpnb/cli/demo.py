"""``hpnb demo``: a real search on a local Dask cluster, in about a minute on 2 cores.

A small numpy neural network (:mod:`hpnb.demo`) is tuned with TPE and ASHA
early stopping; the progress line runs while it trains, the leaderboard
follows.
"""

from __future__ import annotations

import argparse
from typing import Any


def add_parser(subparsers: Any) -> None:
    parser = subparsers.add_parser("demo", help="run a demo search on a local Dask cluster",
                                   description="Tune a small numpy network on generated data (TPE + ASHA).")
    parser.add_argument("--store", help="the store: a file or a postgresql:// URL "
                                        "(default: $HPNB_STORE, else $HPNB_HOME/hpnb.sqlite)")
    parser.add_argument("--trials", type=int, help="override the number of trials (default 40)")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from hpnb.api import search
    from hpnb.cli.run import follow
    from hpnb.demo import DEMO_SPEC, train_moons

    overrides = {"trials": args.trials} if args.trials else {}
    print("hpnb demo: tuning a small neural network on two half-moons (TPE + ASHA, local Dask cluster)")
    handle = search(train_moons, DEMO_SPEC, name="demo", store=args.store, overwrite=True, **overrides)
    return follow(handle)
