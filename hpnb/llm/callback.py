"""The Trainer callback of a fine-tuning trial: hpnb's :class:`~hpnb.integrations.transformers.HpnbCallback`
(each evaluation reported at the global step; a stop ends training) with what a fine-tuning search
adds: the training logs between evaluations reported too (a log at an evaluation's step goes with
that evaluation, in one report, so early stopping judges it whole), the Trainer's checkpoint kept
as the trial's at every save (adapter, optimizer, scheduler: a paused or retried trial goes on
from it), and the sample prompts completed at each evaluation.

Example (not run here: it needs torch)::

    trainer = transformers.Trainer(..., callbacks=[FineTuneCallback("eval_loss", samples)])
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from hpnb.integrations.steps import missing_monitor, report_step
from hpnb.integrations.transformers import HpnbCallback


def _numbers(logs: dict[str, Any] | None) -> dict[str, float]:
    return {name: value for name, value in (logs or {}).items()
            if isinstance(value, (int, float)) and not isinstance(value, bool)}


class FineTuneCallback(HpnbCallback):
    """Reports training logs and evaluations, keeps checkpoints, completes sample prompts.

    Args:
        monitor: the metric the search needs (``eval_loss``).
        samples: what completes the sample prompts at each evaluation (None: no prompts).
    """

    def __init__(self, monitor: str | None = "eval_loss", samples: SampleWriter | None = None) -> None:
        super().__init__(monitor)
        self.samples = samples
        self.held: dict[str, float] = {}
        self.stopped = False
        self.evaluated_at: int | None = None
        self.pending: dict[str, float] | None = None

    def on_log(self, args: Any, state: Any, control: Any, logs: dict[str, Any] | None = None,
               **kwargs: Any) -> None:
        numbers = _numbers(logs)
        if not numbers or any(name.startswith("eval_") or name == "train_runtime" for name in numbers):
            return  # an evaluation's own log (on_evaluate reports it), or the run's summary
        if control.should_evaluate:
            self.held = numbers
        elif not self.stopped and report_step(state.global_step, numbers):
            self._stop(control)

    def on_evaluate(self, args: Any, state: Any, control: Any, metrics: dict[str, Any] | None = None,
                    **kwargs: Any) -> None:
        if self.stopped:
            return
        if self.samples is not None and kwargs.get("model") is not None:
            self.samples.record(state.global_step, kwargs["model"])
        merged, self.held = {**self.held, **_numbers(metrics)}, {}
        problem = missing_monitor(self.monitor, merged, "Transformers")
        if problem is not None:
            raise KeyError(problem)
        self.evaluated_at = state.global_step
        if control.should_save:  # one report with the checkpoint the Trainer saves next
            self.pending = merged
        elif report_step(state.global_step, merged):
            self._stop(control)

    def on_save(self, args: Any, state: Any, control: Any, **kwargs: Any) -> None:
        folder = Path(args.output_dir) / f"checkpoint-{state.global_step}"
        metrics, self.pending = self.pending or {}, None
        saved = folder if folder.is_dir() else None  # ranks but 0 save none
        if not self.stopped and report_step(state.global_step, metrics, state=saved):
            self._stop(control)

    def on_step_begin(self, args: Any, state: Any, control: Any, **kwargs: Any) -> None:
        self._flush(state, control)

    def on_train_end(self, args: Any, state: Any, control: Any, **kwargs: Any) -> None:
        self._flush(state, control)

    def _flush(self, state: Any, control: Any) -> None:
        """An evaluation whose save did not come (``save_strategy: best``) is reported on its own."""
        metrics, self.pending = self.pending, None
        if metrics and not self.stopped and report_step(state.global_step, metrics):
            self._stop(control)

    def _stop(self, control: Any) -> None:
        self.stopped = True
        control.should_training_stop = True
        control.should_save = False


class SampleWriter:
    """Completes the sample prompts (greedy, ``max_new_tokens``) and keeps them: printed to the
    trial's log and appended to its ``samples.jsonl`` artifact, one line per prompt and step."""

    def __init__(self, prompts: tuple[str, ...], tokenizer: Any, max_new_tokens: int,
                 folder: Path | None) -> None:
        self.prompts = prompts
        self.tokenizer = tokenizer
        self.max_new_tokens = max_new_tokens
        self.folder = folder

    def complete(self, model: Any) -> list[str]:
        import torch

        was_training = model.training
        model.eval()
        completions = []
        try:
            with torch.no_grad():
                for prompt in self.prompts:
                    encoded = self.tokenizer(prompt, return_tensors="pt").to(model.device)
                    out = model.generate(**encoded, max_new_tokens=self.max_new_tokens, do_sample=False,
                                         pad_token_id=self.tokenizer.pad_token_id)
                    new = out[0][encoded["input_ids"].shape[1]:]
                    completions.append(self.tokenizer.decode(new, skip_special_tokens=True))
        finally:
            model.train(was_training)
        return completions

    def record(self, step: int, model: Any) -> None:
        from hpnb.runner.worker.trial_info import artifact

        completions = self.complete(model)
        for prompt, completion in zip(self.prompts, completions):
            print(f"hpnb.llm sample at step {step}: {prompt!r} -> {completion!r}", flush=True)
        if self.folder is None:
            return
        path = self.folder / "samples.jsonl"
        with path.open("a", encoding="utf-8") as handle:
            for prompt, completion in zip(self.prompts, completions):
                handle.write(json.dumps({"step": step, "prompt": prompt, "completion": completion}) + "\n")
        artifact(path, name="samples.jsonl")
