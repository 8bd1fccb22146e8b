"""A LightGBM callback: reports every boosting round, ends training when the search stops the trial.

Example:
    >>> import numpy as np, lightgbm as lgb
    >>> from hpnb.integrations.lightgbm import HpnbCallback
    >>> data = lgb.Dataset(np.arange(40.0).reshape(20, 2), label=np.arange(20) % 2)
    >>> callback = HpnbCallback(monitor="valid-binary_logloss", checkpoint=True)
    >>> booster = lgb.train({"objective": "binary", "verbose": -1, "min_data_in_leaf": 1}, data,
    ...                     num_boost_round=callback.rounds_left(5), init_model=callback.booster(),
    ...                     valid_sets=[data], valid_names=["valid"], callbacks=[callback])
    >>> booster.current_iteration()  # outside a search the callback does nothing
    5
"""

from __future__ import annotations

from typing import Any

import lightgbm

from hpnb.integrations.steps import missing_monitor, report_step, saved_state


def round_metrics(results: list[tuple[Any, ...]]) -> dict[str, float]:
    """Each evaluation of a round as ``<data>-<metric>`` (``valid-binary_logloss``); for
    ``lightgbm.cv``, whose results name no data set, ``cv-<metric>``."""
    return {f"{item[0]}-{item[1]}": float(item[2]) for item in results}


class HpnbCallback:
    """Reports each round's evaluations as the trial's step (rounds boosted so far).

    When the search stops the trial, training ends after that round: no further round starts.

    Args:
        monitor: an evaluation the search needs, ``<valid name>-<metric>``.
        checkpoint: keep the model with each report; :meth:`booster` and :meth:`rounds_left`
            give ``lightgbm.train`` what it needs to go on from it.
    """

    #: after LightGBM's own callbacks (its early stopping is 30), once per round
    order = 40
    before_iteration = False

    def __init__(self, monitor: str | None = None, checkpoint: bool = False) -> None:
        self.monitor = monitor
        self.checkpoint = checkpoint
        self._resume: dict[str, Any] | None = saved_state() if checkpoint else None

    def booster(self) -> lightgbm.Booster | None:
        """The model to go on from (``init_model=``), or None on a fresh start."""
        return None if self._resume is None else lightgbm.Booster(model_str=self._resume["model"])

    def rounds_left(self, total: int) -> int:
        """How many of ``total`` rounds remain after the checkpoint's (``num_boost_round=``)."""
        done = 0 if self._resume is None else int(self._resume["rounds"])
        return max(total - done, 0)

    def __call__(self, env: Any) -> None:
        metrics = round_metrics(env.evaluation_result_list or [])
        problem = missing_monitor(self.monitor, metrics, "LightGBM")
        if problem is not None:
            raise KeyError(problem)
        rounds = env.iteration + 1
        state = {"rounds": rounds, "model": env.model.model_to_string()} if self.checkpoint else None
        if report_step(rounds, metrics, state):
            raise lightgbm.callback.EarlyStopException(env.iteration, env.evaluation_result_list)
