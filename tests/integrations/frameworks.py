"""Objectives that train real models with the frameworks' own loops and hpnb's callbacks.

Each writes a line ``<tag> <step>`` to ``log`` when a step (an epoch, a boosting round)
begins, so a test sees every step that ran, stored or not. Shipped to Dask workers by value.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import numpy as np


def digits(n: int = 600) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """scikit-learn's digits, scaled: ``n`` samples, three quarters to train on."""
    from sklearn.datasets import load_digits

    x, y = load_digits(return_X_y=True)
    x, y = (x[:n] / 16.0).astype("float32"), y[:n]
    cut = n * 3 // 4
    return x[:cut], y[:cut], x[cut:], y[cut:]


def began(log: str, tag: Any, step: int) -> None:
    with Path(log).open("a") as file:
        file.write(f"{tag} {step}\n")


def steps_begun(log: str) -> dict[str, list[int]]:
    """Every step that began, by tag, in order."""
    out: dict[str, list[int]] = {}
    for line in Path(log).read_text().splitlines():
        tag, step = line.split()
        out.setdefault(tag, []).append(int(step))
    return out


def keras_digits(lr: float, log: str, epochs: int = 4, checkpoint: bool = False) -> None:
    """A small dense network on the digits, trained by ``fit`` with :class:`HpnbCallback`."""
    os.environ.setdefault("KERAS_BACKEND", "jax")
    import keras

    from hpnb.integrations.keras import HpnbCallback

    class EpochLog(keras.callbacks.Callback):
        def on_epoch_begin(self, epoch: int, logs: Any = None) -> None:
            began(log, lr, epoch + 1)

    x, y, x_val, y_val = digits()
    keras.utils.set_random_seed(0)
    model = keras.Sequential([keras.Input((64,)), keras.layers.Dense(32, activation="relu"),
                              keras.layers.Dense(10, activation="softmax")])
    model.compile(optimizer=keras.optimizers.SGD(lr), loss="sparse_categorical_crossentropy",
                  metrics=["accuracy"], jit_compile=False)  # XLA compiles each new model for seconds
    callback = HpnbCallback(monitor="val_loss", checkpoint=checkpoint)
    model.fit(x, y, validation_data=(x_val, y_val), epochs=epochs, initial_epoch=callback.initial_epoch,
              batch_size=64, verbose=0, callbacks=[EpochLog(), callback])


def xgboost_digits(eta: float, log: str, rounds: int = 9, checkpoint: bool = False) -> None:
    """Boosted trees on the digits by ``xgboost.train`` with :class:`HpnbCallback`."""
    import xgboost as xgb

    from hpnb.integrations.xgboost import HpnbCallback

    class RoundLog(xgb.callback.TrainingCallback):
        def before_iteration(self, model: Any, epoch: int, evals_log: Any) -> bool:
            began(log, eta, model.num_boosted_rounds() + 1)
            return False

    x, y, x_val, y_val = digits()
    train, valid = xgb.DMatrix(x, label=y), xgb.DMatrix(x_val, label=y_val)
    callback = HpnbCallback(monitor="valid-mlogloss", checkpoint=checkpoint)
    xgb.train({"objective": "multi:softprob", "num_class": 10, "eta": eta, "max_depth": 3, "nthread": 1},
              train, num_boost_round=callback.rounds_left(rounds), xgb_model=callback.booster(),
              evals=[(valid, "valid")], callbacks=[RoundLog(), callback], verbose_eval=False)


def lightgbm_digits(eta: float, log: str, rounds: int = 9, checkpoint: bool = False) -> None:
    """Boosted trees on the digits by ``lightgbm.train`` with :class:`HpnbCallback`."""
    import lightgbm as lgb

    from hpnb.integrations.lightgbm import HpnbCallback

    def round_log(env: Any) -> None:
        began(log, eta, env.iteration + 1)

    round_log.before_iteration = True  # type: ignore[attr-defined]
    x, y, x_val, y_val = digits()
    train = lgb.Dataset(x, label=y)
    valid = lgb.Dataset(x_val, label=y_val, reference=train)
    callback = HpnbCallback(monitor="valid-multi_logloss", checkpoint=checkpoint)
    lgb.train({"objective": "multiclass", "num_class": 10, "learning_rate": eta, "num_leaves": 7,
               "num_threads": 1, "verbose": -1}, train, num_boost_round=callback.rounds_left(rounds),
              init_model=callback.booster(), valid_sets=[valid], valid_names=["valid"],
              callbacks=[round_log, callback])
