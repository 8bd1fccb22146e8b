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

from typing import Any

import keras

from hpnb.integrations.steps import missing_monitor, report_step, saved_state


class HpnbCallback(keras.callbacks.Callback):
    """Reports the epoch's logs as the trial's step ``epoch + 1`` (epochs done).

    When the search stops the trial (early stopping, a click on Stop, the search ended)
    ``model.stop_training`` is set at that epoch's end: no further epoch starts.

    Args:
        monitor: a log the search needs (its metric); a clear error when an epoch lacks it.
        checkpoint: keep the model's weights with each report, and resume from them: the
            weights are restored when ``fit`` begins, and :attr:`initial_epoch` (pass it to
            ``fit``) says where the epochs go on.
    """

    def __init__(self, monitor: str | None = "val_loss", checkpoint: bool = False) -> None:
        super().__init__()
        self.monitor = monitor
        self.checkpoint = checkpoint
        self._resume: dict[str, Any] | None = saved_state() if checkpoint else None

    @property
    def initial_epoch(self) -> int:
        """The epoch ``fit`` goes on from: the checkpoint's, or 0 on a fresh start."""
        return 0 if self._resume is None else int(self._resume["epoch"])

    def on_train_begin(self, logs: dict[str, Any] | None = None) -> None:
        if self._resume is not None:
            self.model.set_weights(self._resume["weights"])

    def on_epoch_end(self, epoch: int, logs: dict[str, Any] | None = None) -> None:
        logs = dict(logs or {})
        problem = missing_monitor(self.monitor, logs, "Keras")
        if problem is not None:
            raise KeyError(problem)
        step = epoch + 1
        state = {"epoch": step, "weights": self.model.get_weights()} if self.checkpoint else None
        if report_step(step, logs, state):
            self.model.stop_training = True
