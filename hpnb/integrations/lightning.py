"""A PyTorch Lightning callback: reports every validation, ends ``fit`` when the search stops the trial.

Works with the ``lightning`` package (``lightning.pytorch``) and with ``pytorch_lightning``.

Example (not run here: it needs torch)::

    from hpnb.integrations.lightning import HpnbCallback
    trainer = lightning.pytorch.Trainer(max_epochs=20, callbacks=[HpnbCallback(monitor="val_loss")])
    trainer.fit(model, train_loader, val_loader)
"""

from __future__ import annotations

from typing import Any

try:
    import lightning.pytorch as pl
except ImportError:  # the older package name
    import pytorch_lightning as pl  # type: ignore[no-redef, unused-ignore]

from hpnb.integrations.steps import missing_monitor, report_step


class HpnbCallback(pl.Callback):
    """Reports the logged metrics after each validation as the trial's step (epochs done).

    When the search stops the trial, ``trainer.should_stop`` is set: the trainer ends after
    this validation, before another training step. The sanity check's validation is not reported.

    Args:
        monitor: a logged metric the search needs; a clear error when a validation lacks it.
    """

    def __init__(self, monitor: str | None = "val_loss") -> None:
        super().__init__()
        self.monitor = monitor

    def on_validation_end(self, trainer: Any, pl_module: Any) -> None:
        if trainer.sanity_checking:
            return
        metrics = {name: value for name, value in trainer.callback_metrics.items()
                   if getattr(value, "numel", lambda: 1)() == 1}
        problem = missing_monitor(self.monitor, metrics, "Lightning")
        if problem is not None:
            raise KeyError(problem)
        if report_step(trainer.current_epoch + 1, metrics):
            trainer.should_stop = True
