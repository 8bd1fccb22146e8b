"""A Keras 3 callback: reports every epoch, ends ``fit`` when the search stops the trial.

Example:
    >>> import os; os.environ.setdefault("KERAS_BACKEND", "jax")  # doctest: +ELLIPSIS
    '...'
    >>> import numpy as np, keras
    >>> from hpnb.integrations.keras import HpnbCallback
    >>> model = keras.Sequential([keras.Input((2,)), keras.layers.Dense(1)])
    >>> model.compile(optimizer="sgd", loss="mse")
    >>> x = np.zeros((8, 2)); callback = HpnbCallback(monitor="val_loss", checkpoint=True)
    >>> history = model.fit(x, x[:, :1], validation_data=(x, x[:, :1]), epochs=2, verbose=0,
    ...                     initial_epoch=callback.initial_epoch, callbacks=[callback])
    >>> len(history.history["val_loss"])  # outside a search the callback does nothing
    2
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import keras

from hpnb.integrations.steps import missing_monitor, report_step, report_step_saving, saved_state

#: the files of a checkpoint folder: Keras's own weights file (the layers' and the optimizer's
#: variables), and the epochs done.
WEIGHTS = "model.weights.h5"
EPOCH = "epoch.json"


class HpnbCallback(keras.callbacks.Callback):
    """Reports the epoch's logs as the trial's step ``epoch + 1`` (epochs done).

    When the search stops the trial (early stopping, a click on Stop, the search ended)
    ``model.stop_training`` is set at that epoch's end: no further epoch starts.

    Args:
        monitor: a log the search needs (its metric); a clear error when an epoch lacks it.
        checkpoint: keep a checkpoint folder with each report (``model.save_weights``: the
            layers' and the optimizer's variables), and resume from one: they are restored when
            ``fit`` begins, but for the learning rate the model was compiled with (so a
            population-based-training exploit's new rate applies), and :attr:`initial_epoch`
            (pass it to ``fit``) says where the epochs go on.
    """

    def __init__(self, monitor: str | None = "val_loss", checkpoint: bool = False) -> None:
        super().__init__()
        self.monitor = monitor
        self.checkpoint = checkpoint
        folder = saved_state() if checkpoint else None
        self._resume = Path(folder) if folder is not None else None

    @property
    def initial_epoch(self) -> int:
        """The epoch ``fit`` goes on from: the checkpoint's, or 0 on a fresh start."""
        return 0 if self._resume is None else int(json.loads((self._resume / EPOCH).read_text()))

    def on_train_begin(self, logs: dict[str, Any] | None = None) -> None:
        if self._resume is not None:
            restore(self.model, self._resume / WEIGHTS)

    def on_epoch_end(self, epoch: int, logs: dict[str, Any] | None = None) -> None:
        logs = dict(logs or {})
        problem = missing_monitor(self.monitor, logs, "Keras")
        if problem is not None:
            raise KeyError(problem)
        step = epoch + 1
        if self.checkpoint:
            stopped = report_step_saving(step, logs, lambda folder: save(self.model, folder, step))
        else:
            stopped = report_step(step, logs)
        if stopped:
            self.model.stop_training = True


def save(model: keras.Model, folder: Path, epoch: int) -> None:
    """Write ``model``'s variables and the epochs done into ``folder``."""
    model.save_weights(folder / WEIGHTS)
    (folder / EPOCH).write_text(json.dumps(epoch))


def restore(model: keras.Model, weights: Path) -> None:
    """Load ``weights`` into ``model``, optimizer included, but for its learning rate."""
    optimizer = model.optimizer
    rate = None
    if optimizer is not None:
        if not optimizer.built:  # else its saved variables would be skipped
            optimizer.build(model.trainable_variables)
        if isinstance(optimizer.learning_rate, keras.Variable):
            rate = keras.ops.convert_to_numpy(optimizer.learning_rate)
    model.load_weights(weights)
    if rate is not None:
        optimizer.learning_rate.assign(rate)
