"""A trial's model and prepared data: fingerprinted from their sources, fetched once per search
(:mod:`hpnb.llm.fetching`), and what was fetched said in the search's events and the trial's log.

Where they are kept: ``llm.cache`` when given (shared by the searches that name it), else the
search's folder of the checkpoint store (``<store>/<search key>/llm-inputs/``); outside a search,
``~/.cache/hpnb/llm``.

Example (not run here: it runs in a trial)::

    found = trial_inputs(section, rows=None, rows_fingerprint=None)
    found.model_dir, found.data_dir
"""

from __future__ import annotations

import dataclasses
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hpnb.llm.fetching import Inputs, copy_source
from hpnb.llm.section_spec import NOTEBOOK_SOURCE, LlmSection
from hpnb.llm.sources import fingerprint, hub_id, hub_revision, listing, source_kind


@dataclass(frozen=True)
class TrialInputs:
    """This machine's copies of the model and of the tokenized dataset."""

    model_dir: Path
    data_dir: Path


def inputs_root(section: LlmSection) -> str:
    """Where the search's inputs are kept (see the module's docstring)."""
    if section.cache:
        return section.cache
    from hpnb.runner.worker.checkpointing import store_of
    from hpnb.runner.worker.trial_context import current

    context = current()
    if context is None:
        return os.path.join(os.path.expanduser("~"), ".cache", "hpnb", "llm")
    location = store_of(context).location
    return f"{location.url.rstrip('/')}/{location.key}/llm-inputs"


def source_fingerprint(source: str, revision: str | None, kind: str) -> str:
    """What a source is now: its hub revision, or its files' names, sizes and times."""
    if source_kind(source) == "hub":
        return fingerprint("hub", hub_id(source), hub_revision(hub_id(source), revision, kind))
    return fingerprint(source, listing(source)[2])


def trial_inputs(section: LlmSection, rows: Any = None, rows_fingerprint: str | None = None) -> TrialInputs:
    """The model and the prepared data, fetched and prepared at most once per search and machine."""
    from hpnb.runner.worker.trial_context import current

    inputs = Inputs(inputs_root(section))
    context = current()
    rank_zero = context is None or context.rank == 0  # the others' events are not the trial's
    model_print = source_fingerprint(section.model, section.revision, "model")
    fetch_model = (lambda folder: _fetch_model(section, folder)) if rank_zero else None
    model_dir = inputs.ensure(f"model-{model_print}", f"model {section.model}", fetch_model, said=_say)
    data_source = rows_fingerprint if section.dataset.source == NOTEBOOK_SOURCE else \
        source_fingerprint(section.dataset.source, section.dataset.revision, "dataset")
    data_print = fingerprint(model_print, data_source, dataclasses.asdict(section.dataset), section.task)
    prepare = (lambda folder: _prepare_data(section, model_dir, folder, rows)) if rank_zero else None
    data_dir = inputs.ensure(f"data-{data_print}", f"dataset {section.dataset.source}", prepare, said=_say)
    return TrialInputs(model_dir, data_dir)


def _fetch_model(section: LlmSection, folder: Path) -> None:
    if source_kind(section.model) == "hub":
        import huggingface_hub

        huggingface_hub.snapshot_download(hub_id(section.model), revision=section.revision,
                                          local_dir=str(folder))
        return
    copy_source(section.model, folder)


def _prepare_data(section: LlmSection, model_dir: Path, folder: Path, rows: Any) -> None:
    from hpnb.llm.building import load_tokenizer
    from hpnb.llm.data import prepare_data

    prepare_data(section.dataset, section.task, load_tokenizer(model_dir), folder, rows)


def _say(record: dict[str, Any]) -> None:
    """Tell the search's events (shown with its actions) and the trial's log what was fetched."""
    from hpnb.runner.worker.trial_context import current

    print(f"hpnb.llm: {record['action']} {record['what']} ({record['bytes'] / 2 ** 20:.1f} MiB) in "
          f"{record['seconds']:.2f} s", flush=True)
    context = current()
    if context is not None:
        context.events.append(["llm_fetched", {"trial": context.trial_id, **record}])
