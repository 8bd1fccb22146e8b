"""Model-based multi-fidelity search: ``bohb`` and ``dehb`` against ASHA with random configurations.

Two tasks, trained epoch by epoch:

- the multi-fidelity Hartmann-6 function of Kandasamy et al. (2017) (:mod:`mf_hartmann`): fidelity
  ``epoch / 27``, noise of variance 0.01; quality is the noiseless regret of the chosen configuration;
- a scikit-learn ``MLPClassifier`` (SGD with momentum) on the digits data set, one ``partial_fit``
  pass per epoch; quality is the chosen configuration's mean validation log loss after ``max_t``
  epochs over ``RETRAINS`` fresh trainings (other weight initialisations and batch orders): one
  training's loss is noisy, and the best of many noisy losses would reward luck over the choice.

Every contender runs the real strategy and the real early-stopping rule (``asha``, stopping type,
or ``hyperband``; ``grace 1, reduction 3, max_t 27``) in an asynchronous loop of 4 slots, as the
driver uses them: each running trial reports every epoch (``Strategy.report``, then the rule's
verdict), a stopped or finished trial is observed, and a new configuration is asked for as soon as
a slot frees. The configuration chosen after ``n`` epochs in all is the best of the trials that ran
to ``max_t``. A run spends as many epochs as ``--hartmann-trials`` (default 300) or ``--digits-trials``
(default 100) trials running to ``max_t`` would.

With ``--dehb-python PATH`` (the Python of an environment with ``pip install dehb==0.1.2``: it pins
numpy 1.26, so it does not share hpnb's) the ``dehb`` package runs the Hartmann task too, through
its ask/tell interface in the same 4 slots (``dehb_package.py``), as "dehb package".

The figure: the epochs each contender needs for its median quality (over seeds) to reach ASHA +
random's median final quality, as a share of ASHA + random's epochs. Goal: <= 1/3 for bohb and dehb.

Usage (nice -n 10; --quick: 5 Hartmann seeds, 3 digits seeds of 20 trials' worth, about 4 minutes;
the defaults, 10 seeds of each task, 45 to 60 minutes):
    nice -n 10 python benchmarks/multi_fidelity.py --quick
    nice -n 10 python benchmarks/multi_fidelity.py
    nice -n 10 python benchmarks/multi_fidelity.py --seeds 10 --digits-seeds 0 --dehb-python ENV/bin/python
"""

from __future__ import annotations

import argparse
import json
import math
import subprocess
import sys
import time
from collections.abc import Callable, Hashable, Iterator
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from _cluster import Goal, check_goals, print_table
from mf_hartmann import observed_loss, regret

from hpnb.core.early_stopping import stopping_rule_class
from hpnb.core.early_stopping.base import Decision
from hpnb.core.repeats import config_key
from hpnb.core.space import FloatParameter, IntParameter, SearchSpace
from hpnb.core.strategies import strategy_class
from hpnb.core.trial import TrialState

MAX_T, GRACE, REDUCTION, SLOTS = 27, 1, 3, 4
#: label -> (strategy, early-stopping rule)
CONTENDERS: dict[str, tuple[str, str]] = {
    "asha + random": ("random", "asha"),
    "hyperband + random": ("random", "hyperband"),
    "bohb (asha)": ("bohb", "asha"),
    "bohb (hyperband)": ("bohb", "hyperband"),
    "dehb (hyperband)": ("dehb", "hyperband"),
    "dehb (asha)": ("dehb", "asha"),
}
BASELINE = "asha + random"
#: the dehb package's column (``--dehb-python``)
PACKAGE = "dehb package"
#: the digits task's budget under ``--quick``, in full trials
QUICK_DIGITS_TRIALS = 20
#: the digits task trains for real: the contenders that answer the question only (``dehb`` with
#: both rules: which brackets suit it depends on the task).
DIGITS_CONTENDERS = (BASELINE, "bohb (asha)", "dehb (hyperband)", "dehb (asha)")
#: a learning curve: the loss after each epoch.
Curve = Iterator[float]


@dataclass(frozen=True)
class Task:
    name: str
    space: Callable[[], SearchSpace]
    curve: Callable[[dict[str, Any], np.random.Generator], Curve]
    #: the quality of a chosen configuration from its observed final loss (lower is better)
    quality: Callable[[dict[str, Any], float], float]


# -- the tasks ------------------------------------------------------------------------------------
def hartmann_space() -> SearchSpace:
    return SearchSpace(tuple(FloatParameter(f"x{i}", low=0.0, high=1.0) for i in range(6)))


def _point(params: dict[str, Any]) -> np.ndarray:
    return np.array([params[f"x{i}"] for i in range(6)])


def hartmann_curve(params: dict[str, Any], rng: np.random.Generator) -> Curve:
    x = _point(params)
    for epoch in range(1, MAX_T + 1):
        yield observed_loss(x, epoch / MAX_T, rng)


HARTMANN = Task("Hartmann-6 (regret)", hartmann_space, hartmann_curve, lambda p, _: regret(_point(p)))


def digits_space() -> SearchSpace:
    return SearchSpace((FloatParameter("lr", "logUniform", low=1e-4, high=0.5),
                        FloatParameter("alpha", "logUniform", low=1e-6, high=1e-1),
                        FloatParameter("momentum", low=0.0, high=0.99),
                        IntParameter("hidden", 8, 128, log=True),
                        IntParameter("batch", 32, 256, log=True)))


_DIGITS: tuple[np.ndarray, ...] | None = None


def _digits() -> tuple[np.ndarray, ...]:
    global _DIGITS
    if _DIGITS is None:
        from sklearn.datasets import load_digits
        from sklearn.model_selection import train_test_split
        from sklearn.preprocessing import StandardScaler

        x, y = load_digits(return_X_y=True)
        x_train, x_val, y_train, y_val = train_test_split(x, y, test_size=0.3, random_state=0, stratify=y)
        scaler = StandardScaler().fit(x_train)
        _DIGITS = (scaler.transform(x_train), scaler.transform(x_val), y_train, y_val)
    return _DIGITS


def digits_curve(params: dict[str, Any], rng: np.random.Generator) -> Curve:
    return _digits_training(params, int(rng.integers(2**31)))


def _digits_training(params: dict[str, Any], random_state: int) -> Curve:
    import warnings

    from sklearn.exceptions import ConvergenceWarning
    from sklearn.metrics import log_loss
    from sklearn.neural_network import MLPClassifier

    x_train, x_val, y_train, y_val = _digits()
    model = MLPClassifier((int(params["hidden"]),), solver="sgd", learning_rate_init=params["lr"],
                          alpha=params["alpha"], momentum=params["momentum"], batch_size=int(params["batch"]),
                          random_state=random_state)
    classes = np.unique(y_train)
    for _ in range(MAX_T):
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore", ConvergenceWarning)
            model.partial_fit(x_train, y_train, classes=classes)
            loss = float(log_loss(y_val, np.clip(model.predict_proba(x_val), 1e-12, 1.0), labels=classes))
        yield loss if math.isfinite(loss) else 10.0


#: fresh trainings that measure a chosen configuration's quality on the digits task
RETRAINS = 5
_RETRAINED: dict[Hashable, float] = {}


def digits_quality(params: dict[str, Any], _observed: float) -> float:
    """The mean validation log loss after ``MAX_T`` epochs over ``RETRAINS`` trainings of ``params``
    with fixed random states (the same for every contender)."""
    key = config_key(params)
    if key not in _RETRAINED:
        finals = [list(_digits_training(params, 10_000 + k))[-1] for k in range(RETRAINS)]
        _RETRAINED[key] = float(np.mean(finals))
    return _RETRAINED[key]


DIGITS = Task("digits MLP (mean validation log loss)", digits_space, digits_curve, digits_quality)
TASKS = {"hartmann": HARTMANN, "digits": DIGITS}


# -- the asynchronous loop ------------------------------------------------------------------------
@dataclass
class Running:
    trial_id: int
    params: dict[str, Any]
    curve: Curve
    step: int = 0


def run(task: Task, label: str, seed: int, epochs: int) -> list[tuple[int, float]]:
    """One search: the quality of the chosen configuration after each trial that reached max_t, as
    (epochs spent so far, quality)."""
    strategy_name, rule_name = CONTENDERS[label]
    rule = stopping_rule_class(rule_name)(mode="min", seed=seed, max_t=MAX_T, grace=GRACE,
                                          reduction=REDUCTION)
    strategy = strategy_class(strategy_name)(task.space(), "min", seed=seed)
    strategy.use_stopping_rule(rule)
    rng = np.random.default_rng([seed, 7])
    slots: list[Running] = []
    spent, next_id, best, trace = 0, 0, math.inf, []
    while spent < epochs:
        while len(slots) < SLOTS:
            suggestion = strategy.suggest(next_id)
            assert suggestion is not None
            slots.append(Running(next_id, suggestion.params, task.curve(suggestion.params, rng)))
            next_id += 1
        for trial in list(slots):
            trial.step += 1
            spent += 1
            loss = next(trial.curve)
            strategy.report(trial.trial_id, trial.step, loss)
            if rule.on_result(trial.trial_id, trial.step, loss) is Decision.STOP or trial.step >= MAX_T:
                done = trial.step >= MAX_T
                strategy.observe(trial.trial_id, loss, TrialState.COMPLETED if done else TrialState.STOPPED)
                rule.on_trial_end(trial.trial_id, TrialState.COMPLETED if done else TrialState.STOPPED)
                slots.remove(trial)
                if done and loss < best:
                    best = loss
                    trace.append((spent, task.quality(trial.params, loss)))
    return trace


def quality_at(trace: list[tuple[int, float]], spent: int) -> float:
    """The chosen configuration's quality once ``spent`` epochs are spent (inf before any)."""
    known = [quality for at, quality in trace if at <= spent]
    return known[-1] if known else math.inf


def one(job: tuple[str, str, int, int]) -> tuple[str, str, int, list[tuple[int, float]], float]:
    task, label, seed, epochs = job
    start = time.perf_counter()
    trace = run(TASKS[task], label, seed, epochs)
    return task, label, seed, trace, time.perf_counter() - start


def package_traces(python: str, seeds: int, epochs: int) -> tuple[list[list[tuple[int, float]]], float]:
    """The dehb package's traces on the Hartmann task, run by ``python`` (its own environment), and
    the seconds it took."""
    script = Path(__file__).with_name("dehb_package.py")
    start = time.perf_counter()
    done = subprocess.run([python, str(script), "--seeds", str(seeds), "--epochs", str(epochs)],
                          capture_output=True, text=True, check=True, cwd=script.parent)
    traces = [[(int(at), float(quality)) for at, quality in trace] for trace in json.loads(done.stdout)]
    return traces, time.perf_counter() - start


# -- the report -----------------------------------------------------------------------------------
def report(task: Task, traces: dict[str, list[list[tuple[int, float]]]], epochs: int,
           seconds: dict[str, float]) -> list[Goal]:
    grid = np.linspace(epochs / 100, epochs, 100).astype(int)
    medians = {label: np.array([np.median([quality_at(t, g) for t in runs]) for g in grid])
               for label, runs in traces.items()}
    target = float(medians[BASELINE][-1])
    rows, goals = [], []
    for label, curve in medians.items():
        # no target when ASHA + random finished no trial: nothing reaches it
        reached = np.flatnonzero(curve <= target) if math.isfinite(target) else np.array([], dtype=int)
        share = float(grid[reached[0]] / epochs) if len(reached) else math.inf
        rows.append([label, float(curve[len(grid) // 3 - 1]), float(curve[-1]),
                     "not reached" if math.isinf(share) else f"{share:.2f}",
                     seconds[label] / len(traces[label])])
        if label == PACKAGE or CONTENDERS[label][0] in ("bohb", "dehb"):
            goals.append(Goal(f"{task.name}: {label} epochs to ASHA + random's final / its epochs",
                              share, 1 / 3))
    seeds = len(next(iter(traces.values())))
    print_table(f"{task.name}: {seeds} seeds, {epochs:,} epochs a run, {SLOTS} slots; medians over seeds",
                ["contender", "at 1/3 of the epochs", "final",
                 "epochs to reach ASHA + random's final (share)", "s / run"], rows)
    return goals


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seeds", type=int, default=10, help="seeds of the Hartmann task")
    parser.add_argument("--digits-seeds", type=int, default=10, help="seeds of the digits task (0: skip it)")
    parser.add_argument("--quick", action="store_true",
                        help="5 Hartmann seeds, 3 digits seeds of 20 trials' worth")
    parser.add_argument("--hartmann-trials", type=int, default=300,
                        help="the Hartmann task's epochs, in full trials of 27 epochs")
    parser.add_argument("--digits-trials", type=int, default=100,
                        help="the digits task's epochs, in full trials of 27 epochs")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--dehb-python", help="the Python of an environment with the dehb package")
    args = parser.parse_args()
    seeds = {"hartmann": 5 if args.quick else args.seeds, "digits": 3 if args.quick else args.digits_seeds}
    epochs = {"hartmann": MAX_T * args.hartmann_trials,
              "digits": MAX_T * (QUICK_DIGITS_TRIALS if args.quick else args.digits_trials)}
    contenders = {"hartmann": tuple(CONTENDERS), "digits": DIGITS_CONTENDERS}
    jobs = [(task, label, seed, epochs[task]) for task in TASKS for label in contenders[task]
            for seed in range(seeds[task])]
    traces: dict[str, dict[str, list[Any]]] = {task: {label: [] for label in contenders[task]}
                                               for task in TASKS}
    seconds: dict[str, dict[str, float]] = {task: dict.fromkeys(CONTENDERS, 0.0) for task in TASKS}
    with ProcessPoolExecutor(args.jobs) as pool:
        for task, label, _, trace, took in pool.map(one, jobs):
            traces[task][label].append(trace)
            seconds[task][label] += took
    if args.dehb_python and seeds["hartmann"]:
        traces["hartmann"][PACKAGE], seconds["hartmann"][PACKAGE] = package_traces(
            args.dehb_python, seeds["hartmann"], epochs["hartmann"])
    goals = []
    for task in TASKS:
        if seeds[task]:
            goals += report(TASKS[task], traces[task], epochs[task], seconds[task])
    return check_goals(goals)


if __name__ == "__main__":
    sys.exit(main())
