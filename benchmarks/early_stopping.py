"""Early stopping: compute saved by median, ASHA and Hyperband against no stopping, same trials.

The objective trains a one-hidden-layer MLP (scikit-learn ``MLPClassifier``,
momentum SGD) on the digits dataset epoch by epoch with ``partial_fit`` and
reports the validation log-loss after every epoch. Each epoch is padded with a
sleep to at least 0.1 s, a stand-in for a bigger model: a trial's time is then
proportional to its steps and the sleeping does not load the shared machine.

Every rule sees the same 60 configurations in the same order (strategy
``random``, seed 0, checked trial by trial), up to 27 epochs each, on one
``LocalCluster`` of 2 single-threaded worker processes, one search after the
other. Steps are read back from the store: the steps a search spent are the
sum of its trials' last steps, epochs run after a stop decision included.

"Same best score": the best final validation log-loss among the trials that
trained all 27 epochs is at most 10 % above the best of the ``none`` run (one
configuration's final log-loss varies by 10 to 22 % from one training seed to
the next on this problem).

Goals (on the rows marked "goal"): ASHA reaches the same best score with at
least 3 times fewer steps than ``none``; median with at least 1.5 times fewer.
On every row (issue 13): 0 steps after a stop decision, i.e. each stopped trial's
last stored step is the step at which the driver decided to stop it (its stop
reason says which).
The goal rows wait longer than the rules' default grace of 1 epoch: in the first
epochs of momentum SGD a high learning rate leads and then levels off above the
configurations that end best (the curves cross). ASHA judges a trial at its rungs
only (3 and 9 with grace 3); the median rule judges it at every step against the
trials still running, so it waits for a third of the budget (grace 9). Rows with
grace 1 (the default) and median with grace 3 are printed for reference.

Printed after the table: each ASHA row's compute ratio against ``none`` (steps
none / ASHA). The script exits with status 1 when a goal is missed.

Usage:
    python benchmarks/early_stopping.py [--quick] [--seed N]
"""

from __future__ import annotations

import argparse
import re
import sys
import time
import warnings
from bisect import bisect_right
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from _cluster import Bench, Goal, bench_session, check_goals, print_table, ship_by_value

import hpnb
from hpnb.api import Search
from hpnb.core.store.records import TrialRecord

ship_by_value(__name__)

EPOCHS = 27
EPOCH_SECONDS = 0.1
#: a rule's best final loss may be this much above none's best and still count as "the same".
TOLERANCE = 0.10
PARAMETERS: dict[str, Any] = {
    "lr": {"distribution": "logUniform", "min": 1.0e-4, "max": 1.0},
    "alpha": {"distribution": "logUniform", "min": 1.0e-6, "max": 1.0e-1},
    "hidden": {"type": "int", "min": 16, "max": 128},
    "batch": [32, 64, 128, 256],
}


@dataclass(frozen=True)
class Contender:
    """One early-stopping setting; ``goal`` is the least compute ratio none / this rule it must reach."""

    rule: str
    options: dict[str, int]
    goal: float | None = None

    @property
    def label(self) -> str:
        extra = ", ".join(f"{key} {value}" for key, value in self.options.items())
        return f"{self.rule} ({extra})" if extra else self.rule


CONTENDERS = (
    Contender("none", {}),
    Contender("median", {"grace": 1}),
    Contender("median", {"grace": 3}),
    Contender("median", {"grace": 9}, goal=1.5),
    Contender("asha", {"grace": 1, "reduction": 3}),
    Contender("asha", {"grace": 3, "reduction": 3}, goal=3.0),
    Contender("hyperband", {"grace": 3, "reduction": 3}),
)


# -- the objective (runs on the workers) ---------------------------------------------------
def digits_split() -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Digits, 70 % for training and 30 % for validation (stratified, fixed), standardised."""
    from sklearn.datasets import load_digits
    from sklearn.model_selection import train_test_split
    from sklearn.preprocessing import StandardScaler

    features, labels = load_digits(return_X_y=True)
    x_train, x_val, y_train, y_val = train_test_split(features, labels, test_size=0.3, random_state=0,
                                                      stratify=labels)
    scaler = StandardScaler().fit(x_train)
    return scaler.transform(x_train), scaler.transform(x_val), y_train, y_val


def train_mlp(lr: float, alpha: float, hidden: int, batch: int, epochs: int = EPOCHS,
              epoch_seconds: float = EPOCH_SECONDS) -> dict[str, float]:
    """Trains epoch by epoch and reports the validation log-loss and error after each epoch."""
    from sklearn.metrics import log_loss
    from sklearn.neural_network import MLPClassifier

    x_train, x_val, y_train, y_val = digits_split()
    classes = np.arange(10)
    model = MLPClassifier(hidden_layer_sizes=(int(hidden),), solver="sgd", momentum=0.9,
                          learning_rate_init=lr, alpha=alpha, batch_size=int(batch), random_state=0)
    metrics: dict[str, float] = {}
    for epoch in range(1, epochs + 1):
        started = time.perf_counter()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # overflow warnings of diverging learning rates
            model.partial_fit(x_train, y_train, classes=classes)
            probabilities = model.predict_proba(x_val)
        metrics = {"val_loss": float(log_loss(y_val, probabilities, labels=classes)),
                   "val_error": float(np.mean(classes[probabilities.argmax(axis=1)] != y_val))}
        time.sleep(max(0.0, epoch_seconds - (time.perf_counter() - started)))
        hpnb.report(step=epoch, **metrics)
    return metrics


def import_sklearn() -> None:
    """Imports scikit-learn on a worker before anything is timed."""
    import sklearn.neural_network  # noqa: F401


# -- reading a finished search back from the store -----------------------------------------
@dataclass(frozen=True)
class Outcome:
    """What one search spent and found."""

    label: str
    seconds: float
    params: dict[int, dict[str, Any]]
    #: trial id -> final validation loss, for trials that trained every epoch
    finals: dict[int, float]
    steps: int
    late_steps: int
    #: when each step was reported (one report per step), sorted
    report_times: list[float]
    end_times: dict[int, float]

    @property
    def best(self) -> float:
        return min(self.finals.values()) if self.finals else float("inf")

    def steps_to_reach(self, target: float) -> int | None:
        """Steps spent until the first trial that trained every epoch ended with a loss <= target."""
        hits = [self.end_times[tid] for tid, value in self.finals.items() if value <= target]
        if not hits:
            return None
        return bisect_right(self.report_times, min(hits))


DECISION_STEP = re.compile(r"^early stopping \(\w+\) at step (\d+)")


def decision_step(trial: TrialRecord) -> int | None:
    """The step at which the driver decided to stop ``trial`` early (its stop reason says), or None."""
    decided = DECISION_STEP.match(trial.stop_reason or "")
    return int(decided.group(1)) if decided else None


def steps_after_stop(trials: Sequence[TrialRecord]) -> int:
    """Steps the trials ran after the driver's stop decision: last stored step minus the decision's."""
    decided = [(trial, decision_step(trial)) for trial in trials]
    return sum((trial.last_step or 0) - step for trial, step in decided if step is not None)


def outcome_of(bench: Bench, label: str, seconds: float, search: Search) -> Outcome:
    trials = bench.store.trials(search.experiment_id)
    rows = bench.store.results(search.experiment_id)
    finals = {t.trial_id: float(t.value) for t in trials
              if t.value is not None and (t.last_step or 0) >= EPOCHS}
    last_report: dict[int, float] = {}
    for row in rows:
        last_report[row.trial_id] = max(row.time, last_report.get(row.trial_id, row.time))
    return Outcome(label=label, seconds=seconds, params={t.trial_id: t.params for t in trials},
                   finals=finals, steps=sum(t.last_step or 0 for t in trials),
                   late_steps=steps_after_stop(trials),
                   report_times=sorted(row.time for row in rows), end_times=last_report)


def run_contender(bench: Bench, contender: Contender, trials: int, seed: int) -> Outcome:
    early_stopping = {"rule": contender.rule, "max_t": EPOCHS, **contender.options}
    seconds, search = bench.search(train_mlp, metric="val_loss", mode="min", strategy="random",
                                   seed=seed, trials=trials, parallel=2, parameters=PARAMETERS,
                                   early_stopping=early_stopping)
    outcome = outcome_of(bench, contender.label, seconds, search)
    print(f"  {contender.label}: {outcome.steps} steps, {seconds:.1f} s", flush=True)
    return outcome


# -- the table and the goals ----------------------------------------------------------------
def table_rows(none: Outcome, outcomes: list[tuple[Contender, Outcome]]) -> list[list[Any]]:
    ranking = sorted(none.finals, key=lambda tid: none.finals[tid])
    target = none.best * (1 + TOLERANCE)
    none_to_reach = none.steps_to_reach(target)
    rows = []
    for contender, outcome in outcomes:
        if outcome.params != none.params:
            raise RuntimeError(f"{outcome.label} ran other configurations than none")
        best_trial = min(outcome.finals, key=lambda tid: outcome.finals[tid]) if outcome.finals else None
        to_reach = outcome.steps_to_reach(target)
        rows.append([
            outcome.label + (f" (goal {contender.goal:g}x)" if contender.goal else ""),
            len(outcome.finals), outcome.steps, outcome.late_steps, outcome.seconds,
            f"{outcome.best:.4f}", f"{outcome.best / none.best - 1:+.1%}",
            "-" if best_trial is None else f"#{ranking.index(best_trial) + 1}",
            "yes" if ranking[0] in outcome.finals else "no",
            "-" if to_reach is None else to_reach,
            "-" if to_reach is None or none_to_reach is None else f"{none_to_reach / to_reach:.2f}",
            f"{none.steps / outcome.steps:.2f}",
        ])
    return rows


HEADERS = ("rule", "trials to 27", "steps", "steps after stop", "wall s", "best final loss",
           "vs none's best", "its rank in none", "none's best to 27", "steps to reach",
           "reach ratio none/rule", "steps ratio none/rule")


def goals_of(none: Outcome, outcomes: list[tuple[Contender, Outcome]]) -> list[Goal]:
    goals = [Goal(f"{outcome.label}: steps run after a stop decision", outcome.late_steps, 0)
             for contender, outcome in outcomes if contender.rule != "none"]
    for contender, outcome in outcomes:
        if contender.goal is None:
            continue
        goals.append(Goal(f"{outcome.label}: best final loss / none's best", outcome.best / none.best,
                          1 + TOLERANCE))
        goals.append(Goal(f"{outcome.label}: steps none / rule", none.steps / outcome.steps,
                          contender.goal, at_most=False))
    return goals


def print_asha_ratios(none: Outcome, outcomes: list[tuple[Contender, Outcome]]) -> None:
    """Each ASHA row's compute against none's: steps none / ASHA (higher saves more)."""
    print()
    for contender, outcome in outcomes:
        if contender.rule == "asha":
            print(f"ASHA compute ratio against none, {outcome.label}: {none.steps} / {outcome.steps} steps = "
                  f"{none.steps / outcome.steps:.2f} x ({outcome.late_steps} steps after a stop decision)")


def parse_options() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="20 trials instead of 60")
    parser.add_argument("--seed", type=int, default=0, help="seed of the configurations (default 0)")
    return parser.parse_args()


def main() -> int:
    options = parse_options()
    trials = 20 if options.quick else 60
    outcomes: list[tuple[Contender, Outcome]] = []
    started = time.perf_counter()
    with bench_session("early-stopping") as bench:
        bench.client.run(import_sklearn)
        for contender in CONTENDERS:
            outcomes.append((contender, run_contender(bench, contender, trials, options.seed)))
    none = outcomes[0][1]
    print_table(f"Early stopping: {trials} MLP configurations (seed {options.seed}) x up to {EPOCHS} epochs "
                f"of >= {EPOCH_SECONDS} s on 2 single-threaded workers; 'same best' = best final "
                f"validation log-loss <= none's best + {TOLERANCE:.0%}; none's best {none.best:.4f}; "
                f"whole run {time.perf_counter() - started:.0f} s",
                HEADERS, table_rows(none, outcomes))
    print_asha_ratios(none, outcomes)
    return check_goals(goals_of(none, outcomes))


if __name__ == "__main__":
    sys.exit(main())
