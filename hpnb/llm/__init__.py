"""Fine-tuning language models as a search: an ``llm:`` section of the spec (the model, the data,
the Trainer's and LoRA's fields, any of them a search parameter) and the objective that runs it,
so a ``%%hpsearch`` cell needs no function of its own.

This room holds that built-in objective and its parts: the model and the prepared data fetched
once per search into its checkpoint store and once per machine from there, the fields checked
against the installed ``TrainingArguments`` and ``LoraConfig``, the trial's Trainer with hpnb's
callback, and the best adapter kept as an artifact. Its trials run on the same runner, store,
controls and views as any search; what it adds to the views arrives as data a trial reports.

Public entries: :func:`search` (a spec with an ``llm:`` section, Katib's ``tune()`` names
accepted), :func:`load` (the same parts for a user's own objective), :func:`best_model` (the best
adapter on its base model). The modules: ``section_spec`` and ``searched_fields`` read the section
(``fields`` reads the installed classes), ``section`` is what the front door calls, ``preflight``
checks it before anything starts, ``sources``, ``fetching`` and ``trial_inputs`` fetch the inputs,
``data`` and ``building`` make a trial's parts, ``callback`` and ``objective`` run it, ``api``
holds the entries, ``demo`` makes a model and data that need no download.

Example (not run here: it fine-tunes)::

    search = hpnb.llm.search("finetune.yaml", name="lora")
    model = hpnb.llm.best_model("lora", merge=True)

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
