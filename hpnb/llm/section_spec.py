"""The ``llm:`` section of a spec, read and checked into an :class:`LlmSection`:

```yaml
llm:
  model: ./tiny-llama          # a folder, an fsspec URL (s3://...), or a hub id (hf://org/name)
  task: causal-lm              # or sequence-classification
  dataset: {source: ./train.jsonl, text: text, eval: 0.1, max_length: 64}
  training: {num_train_epochs: 1, learning_rate: {min: 1.0e-4, max: 1.0e-2, log: true}}
  lora: {r: [4, 8], lora_alpha: 16, target_modules: [q_proj, v_proj]}
  samples: ["The meaning of"]  # completed at each evaluation, kept per trial
  cache: null                  # where fetched inputs are kept (default: the search's checkpoint folder)
```

Example:
    >>> section = parse_llm({"model": "./tiny", "dataset": "./train.jsonl",
    ...                      "training": {"learning_rate": [0.001, 0.01]}})
    >>> section.task, section.dataset.text, sorted(section.parameters())
    ('causal-lm', 'text', ['learning_rate'])
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from hpnb.core.errors import SpecError
from hpnb.core.spec.values import as_int, as_text, check_keys
from hpnb.llm.searched_fields import SearchedFields, check_no_clash, read_fields
from hpnb.llm.sources import source_kind

TASKS = ("causal-lm", "sequence-classification")
KEYS = ("model", "revision", "task", "dataset", "training", "lora", "samples", "max_new_tokens", "cache",
        "quantization", "num_labels")
DATASET_KEYS = ("source", "split", "text", "label", "eval", "max_length", "revision")
#: a dataset given as an object (a DataFrame or a Dataset) is named so in the spec.
NOTEBOOK_SOURCE = "notebook"


@dataclass(frozen=True)
class DatasetSpec:
    """``llm.dataset``: where the text comes from and how it is cut.

    Attributes:
        source: a file, folder, fsspec URL or hub id (``notebook``: an object given in Python).
        split: a hub split (``train[:3000]``), or the split of the files to read.
        text: the column holding the text; label: the class column (sequence classification).
        eval: the share (0.1) or count (200) of rows held out for evaluation, or a split's name.
        max_length: tokens per example.
    """

    source: str
    split: str = "train"
    text: str = "text"
    label: str | None = None
    eval: float | int | str = 0.1
    max_length: int = 128
    revision: str | None = None


@dataclass(frozen=True)
class LlmSection:
    """A checked ``llm:`` section: what every trial of the search fine-tunes, and on what."""

    model: str
    dataset: DatasetSpec
    training: SearchedFields
    lora: SearchedFields
    task: str = "causal-lm"
    revision: str | None = None
    samples: tuple[str, ...] = ()
    max_new_tokens: int = 20
    cache: str | None = None
    quantization: str | None = None
    num_labels: int = 2
    fields: Mapping[str, Any] = field(default_factory=dict, compare=False)

    def parameters(self) -> dict[str, Any]:
        """The search parameters the section declares, as the spec's ``parameters:`` takes them."""
        return {**self.training.parameters, **self.lora.parameters}


def parse_llm(data: Mapping[str, Any]) -> LlmSection:
    """Read an ``llm:`` mapping; SpecError naming the field (``llm.training.learning_rat``...)."""
    check_keys(data, "llm", KEYS)
    if data.get("model") is None:
        raise SpecError("llm.model", "names no model", allowed="a folder saved with save_pretrained, an "
                        "fsspec URL (s3://bucket/model) or a hub id (hf://org/name)")
    task = as_text(data.get("task", "causal-lm"), "llm.task")
    if task not in TASKS:
        raise SpecError("llm.task", "is not a task hpnb fine-tunes", value=task, allowed=TASKS)
    training, lora = read_fields(data.get("training"), "training"), read_fields(data.get("lora"), "lora")
    check_no_clash(training, lora, {})
    quantization = data.get("quantization")
    if quantization not in (None, "4bit", "8bit"):
        raise SpecError("llm.quantization", "is not a quantization", value=quantization,
                        allowed="4bit, 8bit (bitsandbytes, on a GPU), or leave it out")
    return LlmSection(
        model=_source(data["model"], "llm.model"), dataset=parse_dataset(data.get("dataset")),
        training=training, lora=lora, task=task,
        revision=None if data.get("revision") is None else as_text(data["revision"], "llm.revision"),
        samples=_samples(data.get("samples")),
        max_new_tokens=as_int(data.get("max_new_tokens", 20), "llm.max_new_tokens", minimum=1),
        cache=None if data.get("cache") is None else _source(data["cache"], "llm.cache"),
        quantization=quantization, num_labels=as_int(data.get("num_labels", 2), "llm.num_labels", minimum=2),
        fields=dict(data))


def _source(value: Any, path: str) -> str:
    """A source as given; a local path made absolute (workers may start in another folder)."""
    text = as_text(value, path, allowed="a folder, an fsspec URL or a hub id")
    if text == NOTEBOOK_SOURCE or source_kind(text) != "local":
        return text
    return os.path.abspath(os.path.expanduser(text))


def parse_dataset(data: Any) -> DatasetSpec:
    """``llm.dataset``: a source alone, or a mapping with ``source:`` and how to read it."""
    if data is None:
        raise SpecError("llm.dataset", "names no dataset", allowed="a data file (jsonl, csv, parquet, txt), "
                        "a folder of them, an fsspec URL, a hub id, or {source: ..., text: ...}")
    if isinstance(data, str):
        data = {"source": data}
    if not isinstance(data, Mapping):
        raise SpecError("llm.dataset", "must be a source or a mapping", value=data,
                        allowed="{source: ..., split: ..., text: ..., eval: 0.1}; in Python, a pandas "
                        "DataFrame or a datasets.Dataset given as dataset=")
    check_keys(data, "llm.dataset", DATASET_KEYS)
    if data.get("source") is None:
        raise SpecError("llm.dataset.source", "names no dataset",
                        allowed="a data file, a folder, a URL or a hub id")
    held = data.get("eval", 0.1)
    if isinstance(held, bool) or not isinstance(held, (int, float, str)) or \
            (isinstance(held, float) and not 0 < held < 1) or (isinstance(held, int) and held < 1):
        raise SpecError("llm.dataset.eval", "is not what to evaluate on", value=held,
                        allowed="a share of the rows (0 < eval < 1), a count of rows, or a split's name")
    return DatasetSpec(
        source=_source(data["source"], "llm.dataset.source"),
        split=as_text(data.get("split", "train"), "llm.dataset.split"),
        text=as_text(data.get("text", "text"), "llm.dataset.text"),
        label=None if data.get("label") is None else as_text(data["label"], "llm.dataset.label"),
        eval=held, max_length=as_int(data.get("max_length", 128), "llm.dataset.max_length", minimum=1),
        revision=None if data.get("revision") is None else as_text(data["revision"], "llm.dataset.revision"))


def _samples(value: Any) -> tuple[str, ...]:
    if value is None:
        return ()
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list):
        raise SpecError("llm.samples", "must be a list of prompts", value=value, allowed="[prompt, ...]")
    return tuple(as_text(prompt, f"llm.samples[{index}]") for index, prompt in enumerate(value))
