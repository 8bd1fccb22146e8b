"""A Hugging Face ``Trainer`` callback: reports every evaluation, ends training when the search
stops the trial.

Example (not run here: it needs torch)::

    from hpnb.integrations.transformers import HpnbCallback
    trainer = transformers.Trainer(model=model, args=args, train_dataset=train, eval_dataset=valid,
                                   callbacks=[HpnbCallback(monitor="eval_loss")])
    trainer.train()
"""

from __future__ import annotations

from typing import Any

import transformers

from hpnb.integrations.steps import missing_monitor, report_step


class HpnbCallback(transformers.TrainerCallback):
    """Reports each evaluation's metrics as the trial's step (the trainer's global step).

    When the search stops the trial, ``control.should_training_stop`` is set: the trainer
    ends before another training step.

    Args:
        monitor: a metric the search needs (``eval_loss``, ``eval_<name>``).
    """

    def __init__(self, monitor: str | None = "eval_loss") -> None:
        self.monitor = monitor

    def on_evaluate(self, args: Any, state: Any, control: Any, metrics: dict[str, Any] | None = None,
                    **kwargs: Any) -> None:
        metrics = {name: value for name, value in (metrics or {}).items()
                   if isinstance(value, (int, float)) and not isinstance(value, bool)}
        problem = missing_monitor(self.monitor, metrics, "Transformers")
        if problem is not None:
            raise KeyError(problem)
        if report_step(state.global_step, metrics):
            control.should_training_stop = True
