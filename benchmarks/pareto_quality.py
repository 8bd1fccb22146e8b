"""Search quality with two objectives: the hypervolume of ZDT1's front found in 100 trials.

ZDT1 (Zitzler, Deb and Thiele, 2000) in ``d`` parameters of [0, 1]: minimise
``f1 = x1`` and ``f2 = g * (1 - sqrt(f1 / g))`` with ``g = 1 + 9 * mean(x2..xd)``; its
Pareto front is ``f2 = 1 - sqrt(f1)`` (every other parameter at 0). hpnb's nsga2, tpe and
random run a plain sequential ask/observe loop; Optuna's NSGAIISampler, TPESampler and
RandomSampler run the same function through ``study.optimize`` with the same seeds and
settings. The score is the hypervolume dominated by the trials, up to the reference point
(1.1, 11) (every trial of ZDT1 lies inside it), shown as the gap to the true front's
(smaller is better).

Usage:
    python benchmarks/pareto_quality.py                 # ZDT1 in 2 and 5 parameters, 100 trials, 10 seeds
    python benchmarks/pareto_quality.py --seeds 3 --trials 50

Exits with status 1 when a goal is missed: the median gap of tpe (2-D and 5-D) and nsga2 (5-D)
below random's, and each within noise of Optuna's own sampler (medians at most 10 % of random's
gap apart).
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor

import numpy as np

from hpnb.core.non_domination import non_domination_ranks
from hpnb.core.space import FloatParameter, SearchSpace
from hpnb.core.strategies import strategy_class
from hpnb.core.strategies.nsga2 import default_population

REFERENCE = (1.1, 11.0)
#: the hypervolume of ZDT1's true front up to REFERENCE: the box less the area under 1 - sqrt(f1).
TRUE_HYPERVOLUME = REFERENCE[0] * REFERENCE[1] - 1.0 / 3.0
OURS = ("nsga2", "tpe", "random")
#: where a strategy's median must beat random's. NSGA-II breeds 5 generations of 20 in 100 trials:
#: enough in 5 parameters, not in 2, where 100 random points already cover the square well.
MUST_BEAT_RANDOM = {("tpe", 2), ("tpe", 5), ("nsga2", 5)}
OPTUNA = ("optuna-nsga2", "optuna-tpe", "optuna-random")


def zdt1(x: Sequence[float]) -> tuple[float, float]:
    f1 = float(x[0])
    g = 1.0 + 9.0 * float(np.mean(x[1:])) if len(x) > 1 else 1.0
    return f1, g * (1.0 - math.sqrt(f1 / g))


def hypervolume(points: Sequence[tuple[float, float]], reference: tuple[float, float] = REFERENCE) -> float:
    """The area dominated by ``points`` (both minimised) inside the box up to ``reference``."""
    inside = [p for p in points if p[0] < reference[0] and p[1] < reference[1]]
    front = sorted(p for p, rank in zip(inside, non_domination_ranks(inside), strict=True) if rank == 0)
    edges = [f1 for f1, _ in front[1:]] + [reference[0]]  # each point's strip ends where the next begins
    return sum((edge - f1) * (reference[1] - f2) for (f1, f2), edge in zip(front, edges, strict=True))


def _names(dimension: int) -> list[str]:
    return [f"x{i}" for i in range(1, dimension + 1)]


def run_ours(strategy: str, dimension: int, seed: int, trials: int) -> list[tuple[float, float]]:
    space = SearchSpace(tuple(FloatParameter(n, low=0.0, high=1.0) for n in _names(dimension)))
    instance = strategy_class(strategy)(space, ("min", "min"), seed=seed, budget=trials)
    points = []
    for trial_id in range(trials):
        suggestion = instance.suggest(trial_id)
        assert suggestion is not None
        point = zdt1([suggestion.params[n] for n in _names(dimension)])
        instance.observe(trial_id, point)
        points.append(point)
    return points


def run_optuna(sampler_name: str, dimension: int, seed: int, trials: int) -> list[tuple[float, float]]:
    import optuna

    optuna.logging.set_verbosity(optuna.logging.ERROR)
    population = default_population(trials)  # the population hpnb's nsga2 takes for this budget
    samplers = {"optuna-nsga2": lambda: optuna.samplers.NSGAIISampler(population_size=population, seed=seed),
                "optuna-tpe": lambda: optuna.samplers.TPESampler(seed=seed),
                "optuna-random": lambda: optuna.samplers.RandomSampler(seed=seed)}
    study = optuna.create_study(directions=["minimize", "minimize"], sampler=samplers[sampler_name]())
    study.optimize(lambda trial: zdt1([trial.suggest_float(n, 0.0, 1.0) for n in _names(dimension)]),
                   n_trials=trials)
    return [tuple(t.values) for t in study.trials]  # type: ignore[misc]


def one_run(task: tuple[str, int, int, int]) -> tuple[str, int, int, float, float]:
    method, dimension, seed, trials = task
    start = time.perf_counter()
    runner = run_optuna if method in OPTUNA else run_ours
    gap = TRUE_HYPERVOLUME - hypervolume(runner(method, dimension, seed, trials))
    return method, dimension, seed, gap, time.perf_counter() - start


def _table(results: list[tuple[str, int, int, float, float]], methods: Sequence[str],
           dimensions: Sequence[int]) -> dict[tuple[str, int], dict[int, float]]:
    gaps: dict[tuple[str, int], dict[int, float]] = {}
    seconds: dict[tuple[str, int], list[float]] = {}
    for method, dimension, seed, gap, took in results:
        gaps.setdefault((method, dimension), {})[seed] = gap
        seconds.setdefault((method, dimension), []).append(took)
    print(f"| {'ZDT1':<5} | {'strategy':<14} | {'median gap':>10} | {'q25':>7} | {'q75':>7} | "
          f"{'beats random':>12} | {'s/run':>6} |")
    print(f"|{'-' * 7}|{'-' * 16}|{'-' * 12}|{'-' * 9}|{'-' * 9}|{'-' * 14}|{'-' * 8}|")
    for dimension in dimensions:
        for method in methods:
            mine = gaps[(method, dimension)]
            values = np.array(list(mine.values()))
            baseline = gaps[("optuna-random" if method in OPTUNA else "random", dimension)]
            wins = sum(mine[s] < baseline[s] for s in mine)
            print(f"| {f'{dimension}-D':<5} | {method:<14} | {np.median(values):>10.4f} | "
                  f"{np.quantile(values, 0.25):>7.4f} | {np.quantile(values, 0.75):>7.4f} | "
                  f"{f'{wins}/{len(mine)}':>12} | {np.mean(seconds[(method, dimension)]):>6.2f} |")
    return gaps


def _goals_missed(gaps: dict[tuple[str, int], dict[int, float]], dimensions: Sequence[int]) -> list[str]:
    missed = []
    for dimension in dimensions:
        random = float(np.median(list(gaps[("random", dimension)].values())))
        for method in ("nsga2", "tpe"):
            mine = float(np.median(list(gaps[(method, dimension)].values())))
            if (method, dimension) in MUST_BEAT_RANDOM and not mine < random:
                missed.append(f"{method}'s median gap {mine:.4f} is not below random's {random:.4f} "
                              f"in {dimension}-D")
            theirs = float(np.median(list(gaps[(f"optuna-{method}", dimension)].values())))
            if abs(mine - theirs) > 0.1 * random:
                missed.append(f"{method} strays from Optuna's own sampler in {dimension}-D")
    return missed


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=100)
    parser.add_argument("--seeds", type=int, default=10)
    parser.add_argument("--dimensions", default="2,5")
    parser.add_argument("--jobs", type=int, default=2, help="worker processes")
    args = parser.parse_args(argv)
    dimensions = [int(d) for d in args.dimensions.split(",")]
    methods = OURS + OPTUNA
    tasks = [(m, d, s, args.trials) for d in dimensions for m in methods for s in range(args.seeds)]
    start = time.perf_counter()
    with ProcessPoolExecutor(args.jobs) as pool:
        results = list(pool.map(one_run, tasks))
    print(f"hypervolume gap to ZDT1's true front after {args.trials} trials, {args.seeds} seeds, reference "
          f"point {REFERENCE} ({time.perf_counter() - start:.0f} s wall clock)\n")
    missed = _goals_missed(_table(results, methods, dimensions), dimensions)
    for line in missed:
        print(f"goal missed: {line}")
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
