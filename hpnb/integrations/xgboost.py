"""An XGBoost callback: reports every boosting round, ends training when the search stops the trial.

Example:
    >>> import numpy as np, xgboost as xgb
    >>> from hpnb.integrations.xgboost import HpnbCallback
    >>> data = xgb.DMatrix(np.arange(20.0).reshape(10, 2), label=np.arange(10) % 2)
    >>> callback = HpnbCallback(monitor="valid-logloss", checkpoint=True)
    >>> booster = xgb.train({"objective": "binary:logistic"}, data, evals=[(data, "valid")],
    ...                     num_boost_round=callback.rounds_left(5), xgb_model=callback.booster(),
    ...                     callbacks=[callback], verbose_eval=False)
    >>> booster.num_boosted_rounds()  # outside a search the callback does nothing
    5
"""

from __future__ import annotations

from typing import Any

import xgboost

from hpnb.integrations.steps import missing_monitor, report_step, saved_state


def round_metrics(evals_log: dict[str, dict[str, list[Any]]]) -> dict[str, float]:
    """The latest value of each evaluation as ``<data>-<metric>`` (``valid-logloss``); for
    ``xgboost.cv`` the mean of the folds."""
    out: dict[str, float] = {}
    for data, metrics in evals_log.items():
        for name, values in metrics.items():
            latest = values[-1]
            out[f"{data}-{name}"] = float(latest[0] if isinstance(latest, tuple) else latest)
    return out


class HpnbCallback(xgboost.callback.TrainingCallback):
    """Reports each round's evaluations as the trial's step (rounds boosted so far).

    When the search stops the trial, training ends after that round: no further round starts.

    Args:
        monitor: an evaluation the search needs, ``<data>-<metric>`` as given to ``evals``.
        checkpoint: keep the booster with each report; :meth:`booster` and :meth:`rounds_left`
            give ``xgboost.train`` what it needs to go on from it.
    """

    def __init__(self, monitor: str | None = None, checkpoint: bool = False) -> None:
        super().__init__()
        self.monitor = monitor
        self.checkpoint = checkpoint
        self._resume: dict[str, Any] | None = saved_state() if checkpoint else None

    def booster(self) -> xgboost.Booster | None:
        """The booster to go on from (``xgb_model=``), or None on a fresh start."""
        if self._resume is None:
            return None
        booster = xgboost.Booster()
        booster.load_model(bytearray(self._resume["model"]))
        return booster

    def rounds_left(self, total: int) -> int:
        """How many of ``total`` rounds remain after the checkpoint's (``num_boost_round=``)."""
        done = 0 if self._resume is None else int(self._resume["rounds"])
        return max(total - done, 0)

    def after_iteration(self, model: Any, epoch: int, evals_log: Any) -> bool:
        metrics = round_metrics(evals_log)
        problem = missing_monitor(self.monitor, metrics, "XGBoost")
        if problem is not None:
            raise KeyError(problem)
        rounds = model.num_boosted_rounds()
        state = {"rounds": rounds, "model": bytes(model.save_raw("ubj"))} if self.checkpoint else None
        return report_step(rounds, metrics, state)
