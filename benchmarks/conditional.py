"""A conditional space: an optimizer choice with per-optimizer parameters, tpe against random.

The synthetic "training" has four optimizers. Each has a floor (the loss it reaches at
its best settings) and parameters of its own; adam has the lowest floor, but only with
its own ``beta1`` and ``lr`` near their best values, which it shares with nobody. A
strategy wins by picking adam *and* tuning adam's parameters, which random search does
only by chance. Every strategy (random, sobol, tpe, cmaes, de) runs a sequential
ask/observe loop (no cluster) through the spec hpnb parses. The table shows, over seeds,
the median and quartiles of the regret (best loss found minus the known minimum 0.1)
and on how many seeds it came within 0.01 of the minimum; then how often tpe beat
random on the same seed, and the grid of a stepped version of the space counted by hpnb
and by brute force (every combination, inactive parameters dropped, duplicates merged).
It exits with status 1 when tpe does not beat random on most seeds or the count is off.

Usage:
    python benchmarks/conditional.py                 # 60 trials, 10 seeds
    python benchmarks/conditional.py --seeds 20 --trials 100
"""

from __future__ import annotations

import argparse
import itertools
import math
import sys
import time
from typing import Any

import numpy as np

from hpnb.core.spec import parse_spec
from hpnb.core.strategies import strategy_class

SPEC = """\
metric: loss
parameters:
  optimizer: [sgd, adam, rmsprop, adagrad]
  lr: {distribution: logUniform, min: 1.0e-5, max: 1.0}
  momentum: {min: 0.0, max: 0.99, when: {optimizer: sgd}}
  nesterov: {values: [true, false], when: {optimizer: sgd}}
  beta1: {min: 0.5, max: 0.999, when: {optimizer: adam}}
  amsgrad: {values: [true, false], when: {optimizer: adam}}
  rho: {min: 0.5, max: 0.999, when: {optimizer: rmsprop}}
  centered: {values: [true, false], when: {optimizer: rmsprop}}
  eps_decay: {values: [none, step, cosine], when: {centered: true}}
"""
GRID_SPEC = SPEC.replace("max: 0.99,", "max: 0.99, step: 0.33,").replace(
    "{min: 0.5, max: 0.999,", "{min: 0.5, max: 0.98, step: 0.16,").replace(
    "{distribution: logUniform, min: 1.0e-5, max: 1.0}", "[1.0e-4, 1.0e-3, 1.0e-2, 1.0e-1]")
#: each optimizer's best loss, its best log10(lr), and the best value of its own parameter.
FLOORS = {"sgd": (0.35, -1.5, 0.9), "adam": (0.1, -3.0, 0.93), "rmsprop": (0.3, -2.5, 0.95),
          "adagrad": (0.45, -1.5, None)}
OWN = {"sgd": "momentum", "adam": "beta1", "rmsprop": "rho"}
MINIMUM = 0.1


def training_loss(config: dict[str, Any]) -> float:
    """The synthetic loss: the optimizer's floor plus how far its lr and own parameter are off."""
    floor, best_lr, best_own = FLOORS[config["optimizer"]]
    loss = floor + 0.08 * (math.log10(config["lr"]) - best_lr) ** 2
    if best_own is not None:
        loss += 6.0 * (config[OWN[config["optimizer"]]] - best_own) ** 2
    if config.get("nesterov") or config.get("amsgrad") is False:
        loss += 0.02
    return loss


def run(strategy: str, seed: int, trials: int) -> float:
    """The best loss ``strategy`` finds in ``trials`` trials."""
    space = parse_spec(SPEC).space
    instance = strategy_class(strategy)(space, seed=seed, budget=trials)
    best = math.inf
    for trial_id in range(trials):
        suggestion = instance.suggest(trial_id)
        assert suggestion is not None and space.contains(suggestion.params), suggestion
        loss = training_loss(suggestion.params)
        instance.observe(trial_id, loss)
        best = min(best, loss)
    return best


def brute_force_grid_count() -> tuple[int, int]:
    """(hpnb's count, the count of distinct active configurations of the full product)."""
    space = parse_spec(GRID_SPEC).space
    axes = [p.grid_values() or () for p in space]
    distinct = {repr(space.active(dict(zip(space.names, combo, strict=True))))
                for combo in itertools.product(*axes)}
    return space.grid_size(), len(distinct)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=10)
    parser.add_argument("--trials", type=int, default=60)
    args = parser.parse_args(argv)
    regrets: dict[str, list[float]] = {}
    print(f"regret (best loss - {MINIMUM}) after {args.trials} trials, {args.seeds} seeds")
    print(f"{'strategy':<10}{'median':>10}{'q25':>10}{'q75':>10}{'< 0.01':>10}{'s/run':>8}")
    for strategy in ("random", "sobol", "tpe", "cmaes", "de"):
        started = time.perf_counter()
        regrets[strategy] = [run(strategy, seed, args.trials) - MINIMUM for seed in range(args.seeds)]
        per_run = (time.perf_counter() - started) / args.seeds
        q25, median, q75 = np.percentile(regrets[strategy], [25, 50, 75])
        close = sum(r < 0.01 for r in regrets[strategy])
        print(f"{strategy:<10}{median:>10.4f}{q25:>10.4f}{q75:>10.4f}{close:>7}/{args.seeds:<2}{per_run:>8.2f}")
    wins = sum(t < r for t, r in zip(regrets["tpe"], regrets["random"], strict=True))
    print(f"tpe beat random on {wins} of {args.seeds} seeds")
    counted, brute = brute_force_grid_count()
    print(f"grid of the stepped space: hpnb counts {counted}, brute force finds {brute}")
    missed = [goal for goal, met in (("tpe beats random on most seeds", 2 * wins > args.seeds),
                                     ("the grid's count is exact", counted == brute)) if not met]
    for goal in missed:
        print(f"goal missed: {goal}")
    if missed:
        sys.exit(1)


if __name__ == "__main__":
    main()
