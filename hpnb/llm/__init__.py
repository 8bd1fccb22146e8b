"""Fine-tuning language models as a search: an ``llm:`` section of the spec (the model, the data,
the Trainer's and LoRA's fields, any of them a search parameter) and the objective that runs it,
so a ``%%hpsearch`` cell needs no function of its own.

This room holds that built-in objective and its parts: the model and the prepared data fetched
once per search into its checkpoint store and once per machine from there, the fields checked
against the installed ``TrainingArguments`` and ``LoraConfig``, the trial's Trainer with hpnb's
callback, and the best adapter kept as an artifact. Its trials run on the same runner, store,
controls and views as any search; what it adds to the views arrives as data a trial reports.

Import rules (checked by ``tests/test_import_graph.py``): torch, transformers, peft, datasets and
accelerate are imported here (and in :mod:`hpnb.integrations`, :mod:`hpnb.nas`,
:mod:`hpnb.runner.ranks`) and nowhere else, inside functions; only the front door
(:mod:`hpnb.api`), the notebook layer (:mod:`hpnb.jupyter`) and the command line
(:mod:`hpnb.cli`) import this room, so a plain search never loads it.
"""

from typing import Any

_EXPORTS = {"search": "hpnb.llm.api", "best_model": "hpnb.llm.api", "load": "hpnb.llm.objective"}


def __getattr__(name: str) -> Any:
    # lazily: ``import hpnb.llm`` loads neither the spec parser nor any training library
    if name in _EXPORTS:
        import importlib

        return getattr(importlib.import_module(_EXPORTS[name]), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["best_model", "load", "search"]
