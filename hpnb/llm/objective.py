"""The objective of a fine-tuning search, and the same parts for a user's own objective.

:class:`FineTune` is what an ``llm:`` section runs in every trial (and every rank of a trial that
spans several workers): the inputs fetched once, the model with a LoRA adapter of the trial's
parameters, the Trainer with :class:`~hpnb.llm.callback.FineTuneCallback`, a resume from the
trial's Trainer checkpoint, and the final adapter kept as the trial's artifact (``adapter/``).
It is an instance of a class of this module, so it travels to the workers by reference and the
libraries are imported once per worker.

:func:`load` gives a user's own objective the same parts.

Example (not run here: it fine-tunes)::

    def train(**params):
        parts = hpnb.llm.load(params)          # in a search whose spec has an llm: section
        trainer = transformers.Trainer(model=parts.model, args=parts.args, ...)
"""

from __future__ import annotations

import shutil
import tempfile
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hpnb.llm.section_spec import LlmSection

_own = threading.local()


@dataclass
class Parts:
    """What :func:`load` gives: the tokenizer, the model with its LoRA adapter, the tokenized
    training and evaluation sets, and the ``TrainingArguments`` of the trial."""

    tokenizer: Any
    model: Any
    train_dataset: Any
    eval_dataset: Any
    args: Any
    data_collator: Any
    section: LlmSection


def load(params: dict[str, Any] | None = None, section: LlmSection | dict[str, Any] | None = None,
         output_dir: str | Path | None = None) -> Parts:
    """The parts of a fine-tuning trial for ``params`` (default: the running trial's).

    Args:
        params: the trial's parameters (the fields of ``training:`` and ``lora:`` it searches).
        section: the ``llm:`` section (default: the one of the search this trial belongs to).
        output_dir: the Trainer's folder (default: a new temporary folder).

    Example (not run here: it needs torch)::

        parts = hpnb.llm.load({"learning_rate": 1e-3, "r": 8}, {"model": "./tiny", "dataset": "d.jsonl"})
    """
    from hpnb.llm.building import collator, load_model, load_tokenizer, training_arguments, with_lora
    from hpnb.llm.data import load_prepared
    from hpnb.llm.section_spec import parse_llm
    from hpnb.llm.trial_inputs import trial_inputs
    from hpnb.runner.worker.trial_info import current_trial

    if section is None:
        section = getattr(_own, "section", None)
        if section is None:
            raise ValueError("hpnb.llm.load(): give the llm section, or call it in a trial of a search "
                             "whose spec has an llm: section")
    if not isinstance(section, LlmSection):
        section = parse_llm(section)
    trial = current_trial()
    if params is None:
        params = trial.params if trial is not None else {}
    found = trial_inputs(section, getattr(_own, "rows", None), getattr(_own, "rows_fingerprint", None))
    tokenizer = load_tokenizer(found.model_dir)
    model = with_lora(load_model(section, found.model_dir, tokenizer), section, section.lora.values(params))
    train, evaluation = load_prepared(found.data_dir)
    folder = Path(output_dir if output_dir is not None else tempfile.mkdtemp(prefix="hpnb-llm-trainer-"))
    args = training_arguments(section.training.values(params), folder, trial.world_size if trial else 1)
    return Parts(tokenizer, model, train, evaluation, args, collator(section, tokenizer), section)


class FineTune:
    """Fine-tunes with LoRA through the Trainer: the objective of an ``llm:`` search.

    Args:
        section: the checked ``llm:`` section.
        rows: a DataFrame or ``datasets.Dataset`` given in Python (``dataset="notebook"``), and
            its fingerprint, computed where it was given.
    """

    def __init__(self, section: LlmSection, rows: Any = None, rows_fingerprint: str | None = None,
                 metric: str = "eval_loss") -> None:
        self.section = section
        self.rows = rows
        self.rows_fingerprint = rows_fingerprint
        self.metric = metric

    def __call__(self, **params: Any) -> dict[str, float] | None:
        import transformers

        from hpnb.llm.building import reset_accelerate_state, torch_threads
        from hpnb.llm.callback import FineTuneCallback, SampleWriter
        from hpnb.runner.worker.reporting import load_checkpoint
        from hpnb.runner.worker.trial_info import current_trial

        torch_threads()
        reset_accelerate_state()
        trial = current_trial()
        rank = trial.rank if trial is not None else 0
        scratch = Path(tempfile.mkdtemp(prefix=f"hpnb-llm-rank{rank}-"))
        try:
            with _serving(self):
                parts = load(params, self.section, output_dir=scratch / "trainer")
            samples = None
            if self.section.samples and rank == 0:
                samples = SampleWriter(self.section.samples, parts.tokenizer, self.section.max_new_tokens,
                                       trial.dir if trial is not None else None)
            callback = FineTuneCallback(self.metric, samples)
            trainer = transformers.Trainer(
                model=parts.model, args=parts.args, train_dataset=parts.train_dataset,
                eval_dataset=parts.eval_dataset, data_collator=parts.data_collator,
                processing_class=parts.tokenizer, callbacks=[callback])
            resume = load_checkpoint()
            if resume is not None:
                step = trial.resume_step if trial is not None else None
                print(f"hpnb.llm: going on from the Trainer checkpoint of step {step}", flush=True)
            trainer.train(resume_from_checkpoint=str(resume) if resume is not None else None)
            if not callback.stopped and callback.evaluated_at != trainer.state.global_step:
                trainer.evaluate()  # the callback reports it at the last step
            if rank == 0:  # a trial stopped early (or at max_t) keeps its adapter too
                keep_adapter(parts.model, scratch / "adapter")
            return None
        finally:
            shutil.rmtree(scratch, ignore_errors=True)
            reset_accelerate_state()

    def __repr__(self) -> str:
        return f"FineTune({self.section.model!r})"


class OwnObjective:
    """A user's function run in an ``llm:`` search: :func:`load` without a section finds the
    search's."""

    def __init__(self, function: Callable[..., Any], section: LlmSection) -> None:
        self.function = function
        self.section = section
        self.__name__ = getattr(function, "__name__", "objective")

    def __call__(self, **params: Any) -> Any:
        from hpnb.runner.worker.objective import call_objective

        with _serving(FineTune(self.section)):
            return call_objective(self.function, params)


class _serving:
    """While a trial runs: the section (and data) that :func:`load` uses when not given them."""

    def __init__(self, objective: FineTune) -> None:
        self.objective = objective

    def __enter__(self) -> None:
        _own.section, _own.rows = self.objective.section, self.objective.rows
        _own.rows_fingerprint = self.objective.rows_fingerprint

    def __exit__(self, *exc: Any) -> None:
        _own.section = _own.rows = _own.rows_fingerprint = None


def keep_adapter(model: Any, folder: Path) -> None:
    """Save the LoRA adapter and keep its files as the trial's artifacts ``adapter/...``."""
    from hpnb.runner.worker.trial_info import artifact

    model.save_pretrained(str(folder))
    for path in sorted(folder.iterdir()):
        if path.is_file() and path.name != "README.md":  # peft's model card: boilerplate
            artifact(path, name=f"adapter/{path.name}")
