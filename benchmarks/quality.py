"""Search quality: simple regret of every optimising strategy on Branin and Hartmann6, then the
hypervolume of two-objective searches on ZDT1 (:mod:`pareto_quality`).

Each strategy of hpnb runs a plain sequential ask/observe loop (no cluster) for
``--trials`` trials on each function, once per seed; Optuna's own TPESampler
CmaEsSampler and RandomSampler run the same functions through ``study.optimize`` for
reference. The table shows the median and quartiles over seeds of the simple
regret after the last trial: best value found minus the known minimum.

Usage:
    python benchmarks/quality.py                      # 100 trials, 30 seeds, 2 processes; ZDT1 10 seeds
    python benchmarks/quality.py --seeds 20 --trials 50 --jobs 1 --pareto-seeds 0
"""

from __future__ import annotations

import argparse
import math
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from typing import Any

import numpy as np

from hpnb.core.space import FloatParameter, SearchSpace
from hpnb.core.strategies import strategy_class

HARTMANN_ALPHA = np.array([1.0, 1.2, 3.0, 3.2])
HARTMANN_A = np.array([
    [10, 3, 17, 3.5, 1.7, 8],
    [0.05, 10, 17, 0.1, 8, 14],
    [3, 3.5, 1.7, 10, 17, 8],
    [17, 8, 0.05, 10, 0.1, 14],
])
HARTMANN_P = 1e-4 * np.array([
    [1312, 1696, 5569, 124, 8283, 5886],
    [2329, 4135, 8307, 3736, 1004, 9991],
    [2348, 1451, 3522, 2883, 3047, 6650],
    [4047, 8828, 8732, 5743, 1091, 381],
])


def branin(config: dict[str, Any]) -> float:
    x1, x2 = config["x1"], config["x2"]
    b, c, t = 5.1 / (4 * math.pi**2), 5 / math.pi, 1 / (8 * math.pi)
    return float((x2 - b * x1**2 + c * x1 - 6) ** 2 + 10 * (1 - t) * math.cos(x1) + 10)


def hartmann6(config: dict[str, Any]) -> float:
    x = np.array([config[f"x{i}"] for i in range(1, 7)])
    inner = np.sum(HARTMANN_A * (x - HARTMANN_P) ** 2, axis=1)
    return float(-np.sum(HARTMANN_ALPHA * np.exp(-inner)))


@dataclass(frozen=True)
class Problem:
    name: str
    objective: Callable[[dict[str, Any]], float]
    minimum: float
    bounds: dict[str, tuple[float, float]]
    #: the step of the reference grid (about 100 points: all of them, or a shuffled subset).
    grid_step: float

    def space(self, step: float | None = None) -> SearchSpace:
        return SearchSpace(tuple(FloatParameter(n, low=lo, high=hi, step=step)
                                 for n, (lo, hi) in self.bounds.items()))


PROBLEMS = {
    "branin": Problem("branin", branin, 0.397887, {"x1": (-5.0, 10.0), "x2": (0.0, 15.0)}, 1.6),
    "hartmann6": Problem("hartmann6", hartmann6, -3.32237,
                         {f"x{i}": (0.0, 1.0) for i in range(1, 7)}, 0.5),
}
OURS = ("random", "sobol", "tpe", "cmaes", "de", "grid")
OPTUNA = ("optuna-tpe", "optuna-cmaes", "optuna-random")


def run_ours(problem: Problem, strategy: str, seed: int, trials: int) -> float:
    """Best value of a sequential ask/observe loop with one of our strategies."""
    if strategy == "grid":
        instance = strategy_class("grid")(problem.space(problem.grid_step), seed=seed, shuffle=True)
    else:
        instance = strategy_class(strategy)(problem.space(), seed=seed, budget=trials)
    best = math.inf
    for trial_id in range(trials):
        suggestion = instance.suggest(trial_id)
        if suggestion is None:
            break
        value = problem.objective(suggestion.params)
        instance.observe(trial_id, value)
        best = min(best, value)
    return best


def run_optuna(problem: Problem, sampler_name: str, seed: int, trials: int) -> float:
    """Best value of Optuna's own ``study.optimize`` with one of its samplers."""
    import optuna

    optuna.logging.set_verbosity(optuna.logging.ERROR)
    samplers = {"optuna-tpe": optuna.samplers.TPESampler, "optuna-cmaes": optuna.samplers.CmaEsSampler,
                "optuna-random": optuna.samplers.RandomSampler}
    study = optuna.create_study(sampler=samplers[sampler_name](seed=seed))

    def objective(trial: optuna.Trial) -> float:
        config = {n: trial.suggest_float(n, lo, hi) for n, (lo, hi) in problem.bounds.items()}
        return problem.objective(config)

    study.optimize(objective, n_trials=trials)
    return float(study.best_value)


def one_run(task: tuple[str, str, int, int]) -> tuple[str, str, float, float]:
    problem_name, method, seed, trials = task
    problem = PROBLEMS[problem_name]
    start = time.perf_counter()
    runner = run_optuna if method in OPTUNA else run_ours
    best = runner(problem, method, seed, trials)
    return problem_name, method, best - problem.minimum, time.perf_counter() - start


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=100)
    parser.add_argument("--seeds", type=int, default=30)
    parser.add_argument("--jobs", type=int, default=2, help="worker processes")
    parser.add_argument("--methods", default=",".join(OURS + OPTUNA))
    parser.add_argument("--problems", default=",".join(PROBLEMS))
    parser.add_argument("--pareto-seeds", type=int, default=10,
                        help="seeds of the two-objective ZDT1 table (0: leave it out)")
    args = parser.parse_args(argv)
    methods = args.methods.split(",")
    tasks = [(p, m, s, args.trials) for p in args.problems.split(",") for m in methods
             for s in range(args.seeds)]
    start = time.perf_counter()
    with ProcessPoolExecutor(args.jobs) as pool:
        results = list(pool.map(one_run, tasks))
    print(f"simple regret after {args.trials} trials, {args.seeds} seeds "
          f"({time.perf_counter() - start:.0f} s wall clock, {args.jobs} processes)\n")
    print(f"| {'problem':<10} | {'strategy':<14} | {'median':>8} | {'q25':>8} | {'q75':>8} | {'s/run':>6} |")
    print(f"|{'-' * 12}|{'-' * 16}|{'-' * 10}|{'-' * 10}|{'-' * 10}|{'-' * 8}|")
    medians: dict[tuple[str, str], float] = {}
    for problem in args.problems.split(","):
        for method in methods:
            regrets = [r for p, m, r, _ in results if p == problem and m == method]
            seconds = [t for p, m, _, t in results if p == problem and m == method]
            q25, median, q75 = np.percentile(regrets, [25, 50, 75])
            medians[problem, method] = float(median)
            print(f"| {problem:<10} | {method:<14} | {median:8.4f} | {q25:8.4f} | {q75:8.4f} "
                  f"| {np.mean(seconds):6.2f} |")
    missed = check_goals(medians)
    if args.pareto_seeds:
        import pareto_quality  # beside this script

        print()
        missed += pareto_quality.main(["--seeds", str(args.pareto_seeds), "--trials", str(args.trials),
                                       "--jobs", str(args.jobs)])
    raise SystemExit(1 if missed else 0)


def check_goals(medians: dict[tuple[str, str], float]) -> int:
    """Print the goal checks on median regret; return how many were missed."""
    goals = []
    for problem in PROBLEMS:
        goals.append((problem, "tpe", "optuna-tpe", "<="))
        goals += [(problem, method, "random", "<") for method in ("tpe", "cmaes", "de", "sobol")]
    print()
    missed = 0
    for problem, method, reference, relation in goals:
        if (problem, method) not in medians or (problem, reference) not in medians:
            continue
        ours, theirs = medians[problem, method], medians[problem, reference]
        met = ours <= theirs if relation == "<=" else ours < theirs
        missed += not met
        verdict = "met   " if met else "MISSED"
        print(f"{verdict} {problem}: {method} {ours:.4f} {relation} {reference} {theirs:.4f}")
    return missed


if __name__ == "__main__":
    main()
