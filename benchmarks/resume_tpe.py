"""Resume: a TPE search of 2,000 finished trials x 20 reports, brought back from its store.

The store is written as the runner writes it: 2,000 trials on x, y in [0, 1]
(a quadratic; a fifth of them early-stopped after 10 reports, one in twenty
failed) plus 2 left RUNNING by a dead driver, and the strategy state the
driver saved (the seed and a count). The parameters are drawn at random: what
a resume costs depends on how many trials and reports there are, not on who
chose them, and drawing them with TPE itself would take minutes.

Measured (median of 3): ``recover()`` (reading the trials and, in one query,
their 40,000 reports; rebuilding the Optuna study; listing the trials to run
again), then the first suggestion. For comparison, the previous approach kept
every Optuna trial in the state: the cost of building and JSON-encoding that
state (which the driver did about once a second), its size, and the cost of
replaying it into a study on resume.

Goals: recover + first suggestion < 5 s; the saved state < 10 KB.

Usage:
    python benchmarks/resume_tpe.py [--quick]     # --quick: 500 trials
"""

from __future__ import annotations

import json
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
from _cluster import Goal, check_goals, parse_args, print_table

from hpnb.core.early_stopping.base import NoStopping
from hpnb.core.space import FloatParameter, SearchSpace
from hpnb.core.store import Store
from hpnb.core.strategies.base import TrialHistory
from hpnb.core.strategies.optuna_params import quiet_optuna
from hpnb.core.strategies.tpe import TPEStrategy
from hpnb.core.trial import TrialState
from hpnb.runner.recovery import recover
from hpnb.testing.strategy_suite import store_history

SPACE = SearchSpace((FloatParameter("x", low=0.0, high=1.0), FloatParameter("y", low=0.0, high=1.0)))
REPORTS = 20
RESUME_GOAL_S = 5.0
STATE_GOAL_BYTES = 10_000


def history(trials: int, seed: int = 0) -> list[TrialHistory]:
    """``trials`` finished trials (completed, early-stopped, failed) and 2 left RUNNING."""
    rng = np.random.default_rng(seed)
    made = []
    for tid in range(trials + 2):
        x, y = rng.random(2)
        loss = float((x - 0.3) ** 2 + (y - 0.6) ** 2)
        luck = rng.random()
        state = (TrialState.RUNNING if tid >= trials else TrialState.FAILED if luck < 0.05
                 else TrialState.STOPPED if luck < 0.25 else TrialState.COMPLETED)
        steps = REPORTS // 2 if state in (TrialState.STOPPED, TrialState.RUNNING) else REPORTS
        curve = {step: loss + 1.0 / (step + 1) for step in range(steps)}
        value = None if state is TrialState.FAILED else curve[steps - 1]
        made.append(TrialHistory(tid, {"x": float(x), "y": float(y)}, state, value, curve))
    return made


def timed(action: Callable[[], Any]) -> tuple[float, Any]:
    started = time.perf_counter()
    result = action()
    return time.perf_counter() - started, result


def resume_once(store: Store, name: str) -> tuple[float, float, TPEStrategy]:
    """Seconds of ``recover()`` and of the first suggestion after it, and the strategy."""
    record = store.experiment(name)
    strategy = TPEStrategy(SPACE, seed=0)
    seconds, _ = timed(lambda: recover(store, record, strategy, NoStopping()))
    first, _ = timed(lambda: strategy.suggest(len(store.trials(record.id))))
    return seconds, first, strategy


def previous_state(strategy: TPEStrategy) -> dict[str, Any]:
    """The state the previous version saved: every Optuna trial with its reports and attributes."""
    trials = [{"params": dict(t.params), "state": t.state.name, "value": t.value,
               "intermediate": [[s, v] for s, v in sorted(t.intermediate_values.items())],
               "system_attrs": dict(t.system_attrs)} for t in strategy._study.get_trials(deepcopy=False)]
    return {"strategy": "tpe", "trials": trials, "suggested": len(trials)}


def previous_replay(state: dict[str, Any]) -> None:
    """What the previous version did on resume: every saved trial added back to a fresh study."""
    import optuna

    strategy = TPEStrategy(SPACE, seed=0)
    with quiet_optuna():
        for record in state["trials"]:
            trial_state = optuna.trial.TrialState[record["state"]]
            strategy._study.add_trial(optuna.trial.create_trial(
                state=trial_state, params=record["params"], distributions=strategy._distributions,
                value=record["value"] if trial_state == optuna.trial.TrialState.COMPLETE else None,
                intermediate_values={int(s): float(v) for s, v in record["intermediate"]},
                system_attrs=record["system_attrs"]))


def main() -> int:
    args = parse_args(__doc__.splitlines()[0])
    trials = 500 if args.quick else 2_000
    saved = {"strategy": {"strategy": "tpe", "seed": 0, "suggested": trials + 2},
             "last_suggested": trials + 1, "pending": [trials, trials + 1]}
    with tempfile.TemporaryDirectory(prefix="hpnb-bench-resume-") as folder, \
            Store(Path(folder) / "hpnb.sqlite") as store:
        store_history(store, "tpe", "tpe", history(trials), saved)
        runs = [resume_once(store, "tpe") for _ in range(3)]
    recover_s = statistics.median(r[0] for r in runs)
    first_s = statistics.median(r[1] for r in runs)
    strategy = runs[-1][2]
    new_save_s, new_json = timed(lambda: json.dumps(strategy.state_dict()))
    old_save_s, old_json = timed(lambda: json.dumps(previous_state(strategy)))
    old_replay_s, _ = timed(lambda: previous_replay(json.loads(old_json)))
    print_table(f"Resume: a TPE search of {trials:,} finished trials x up to {REPORTS} reports, 2 unfinished",
                ("what", "now", "previous version (every trial in the state)"), [
                    ("recover() s (read trials and reports, rebuild, requeue)", recover_s, "-"),
                    ("replay of the saved trials into a study s", "-", old_replay_s),
                    ("first suggestion after the resume s", first_s, "-"),
                    ("state saved by the driver (about once a second), bytes", len(new_json), len(old_json)),
                    ("building and encoding that state ms", 1000 * new_save_s, 1000 * old_save_s),
                ])
    return check_goals([
        Goal("recover + first suggestion s", recover_s + first_s, RESUME_GOAL_S),
        Goal("saved state bytes", len(new_json), STATE_GOAL_BYTES),
    ])


if __name__ == "__main__":
    sys.exit(main())
