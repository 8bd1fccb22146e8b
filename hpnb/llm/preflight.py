"""What is checked of an ``llm:`` search before anything starts, in the notebook's process, without
loading the model or any training library: the sources exist (a local path, the hub within
reach), the model fits a trial's memory (from its ``config.json``), quantization has a GPU.

Example:
    >>> from hpnb.core.spec import parse_spec
    >>> from hpnb.llm.section_spec import parse_llm
    >>> section = parse_llm({"model": "/nowhere/model", "dataset": "/nowhere/data.jsonl"})
    >>> check_before_start(section, parse_spec({"metric": "eval_loss"}))
    Traceback (most recent call last):
    ...
    hpnb.core.errors.SpecError: llm.model: no such folder on this machine (got '/nowhere/model'); ...
"""

from __future__ import annotations

import os

from hpnb.core.errors import SpecError
from hpnb.core.spec import ExperimentSpec
from hpnb.llm.memory import check_fits
from hpnb.llm.section_spec import NOTEBOOK_SOURCE, LlmSection
from hpnb.llm.sources import SourceError, hub_id, hub_revision, read_json, source_kind


def check_before_start(section: LlmSection, spec: ExperimentSpec) -> None:
    """Refuse, with one SpecError naming the field, a search that cannot run."""
    _check_source(section.model, "llm.model", "model", section.revision)
    if section.dataset.source != NOTEBOOK_SOURCE:
        _check_source(section.dataset.source, "llm.dataset.source", "dataset", section.dataset.revision)
    gpus = spec.resources.per_trial.amounts.get("gpu", 0)
    if section.quantization and not gpus:
        raise SpecError("llm.quantization", f"{section.quantization} loading (bitsandbytes) needs a GPU, "
                        "and the search's trials ask for none", value=section.quantization,
                        allowed="resources.per_trial: {gpu: 1} on a cluster with GPUs, or leave "
                        "quantization out on CPUs")
    if source_kind(section.model) != "hub":
        check_fits(read_json(section.model, "config.json"), _trial_memory(spec), section.model,
                   four_bit=section.quantization == "4bit")


def _check_source(source: str, path: str, kind: str, revision: str | None) -> None:
    found = source_kind(source)
    if found == "local" and not os.path.exists(os.path.expanduser(source)):
        what = "folder" if kind == "model" else "file or folder"
        raise SpecError(path, f"no such {what} on this machine", value=source,
                        allowed="a local path, an fsspec URL (s3://bucket/...) or a hub id (hf://org/name)")
    if found == "hub":
        try:
            hub_revision(hub_id(source), revision, kind)
        except SourceError as err:
            raise SpecError(path, str(err)) from None


def _trial_memory(spec: ExperimentSpec) -> float | None:
    """The memory one trial has: ``per_trial.memory``, else the workers' ``limits.memory``."""
    per_trial = spec.resources.per_trial.amounts.get("memory")
    if per_trial:
        return float(per_trial)
    limit = spec.resources.limits.get("memory")
    return None if limit is None else float(limit.value)
