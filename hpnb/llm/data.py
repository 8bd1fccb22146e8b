"""The dataset of an ``llm:`` search, read once from its source, held out for evaluation and
tokenized, then saved (``train/`` and ``eval/``, Arrow files every trial maps from disk).

Example (not run here: it needs datasets and a tokenizer)::

    prepare_data(section.dataset, "causal-lm", tokenizer, folder, rows=None)
    train, evaluation = load_prepared(folder)
"""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

from hpnb.llm.section_spec import NOTEBOOK_SOURCE, DatasetSpec
from hpnb.llm.sources import data_format, hub_id, source_kind

#: the seed of the evaluation hold-out: every trial and every resume holds out the same rows.
SPLIT_SEED = 0


def read_rows(spec: DatasetSpec, rows: Any = None) -> tuple[Any, Any]:
    """The training rows and the evaluation rows (None: hold out ``spec.eval`` of the training ones)."""
    import datasets

    if spec.source == NOTEBOOK_SOURCE:
        table = rows if isinstance(rows, datasets.Dataset) else \
            datasets.Dataset.from_pandas(rows, preserve_index=False)
        return table, None
    if source_kind(spec.source) == "hub":
        repo = hub_id(spec.source)
        train = datasets.load_dataset(repo, split=spec.split, revision=spec.revision)
        held = datasets.load_dataset(repo, split=spec.eval, revision=spec.revision) \
            if isinstance(spec.eval, str) else None
        return train, held
    return _read_files(spec), None


def _read_files(spec: DatasetSpec) -> Any:
    import datasets

    from hpnb.llm.fetching import copy_source

    with tempfile.TemporaryDirectory(prefix="hpnb-llm-data-") as scratch:
        copy_source(spec.source, Path(scratch))
        if (Path(scratch) / "dataset_info.json").exists():  # a folder saved with save_to_disk
            return datasets.load_from_disk(scratch).flatten_indices()
        files = sorted(p for p in Path(scratch).rglob("*") if p.is_file() and data_format(p.name))
        builders = {data_format(p.name) for p in files}
        if not files or len(builders) != 1:
            found = ", ".join(sorted(p.name for p in Path(scratch).rglob("*") if p.is_file())[:5])
            held = "no data file" if not files else "files of several formats"
            raise ValueError(f"llm.dataset.source {spec.source!r} holds {held} "
                             f"({found or 'nothing'}); give jsonl, csv, parquet or txt files of one format")
        table = datasets.load_dataset(builders.pop(), data_files=[str(p) for p in files], split="train",
                                      cache_dir=str(Path(scratch) / ".cache"))
        return table.flatten_indices()  # in memory: the scratch folder goes


def prepare_data(spec: DatasetSpec, task: str, tokenizer: Any, folder: Path, rows: Any = None) -> None:
    """Read, hold out and tokenize the dataset into ``folder`` (``train/`` and ``eval/``)."""
    train, held = read_rows(spec, rows)
    for table, name in ((train, "dataset"), (held, "evaluation split")):
        if table is not None and spec.text not in table.column_names:
            raise ValueError(f"llm.dataset.text: the {name} has no column {spec.text!r}; its columns: "
                             f"{', '.join(table.column_names)}")
    train = train.filter(lambda row: bool(row[spec.text] and str(row[spec.text]).strip()))
    if held is None:
        test_size = spec.eval if isinstance(spec.eval, float) else min(int(spec.eval), len(train) - 1)
        parts = train.train_test_split(test_size=test_size, seed=SPLIT_SEED)
        train, held = parts["train"], parts["test"]
    for table, name in ((train, "train"), (held, "eval")):
        _tokenized(table, spec, task, tokenizer).save_to_disk(str(folder / name))


def _tokenized(table: Any, spec: DatasetSpec, task: str, tokenizer: Any) -> Any:
    def encode(batch: dict[str, list[Any]]) -> dict[str, Any]:
        encoded = tokenizer([str(t) for t in batch[spec.text]], truncation=True, max_length=spec.max_length)
        if task == "sequence-classification":
            encoded["labels"] = batch[spec.label or "label"]
        return dict(encoded)

    if task == "sequence-classification":
        label = spec.label or "label"
        if label not in table.column_names:
            raise ValueError(f"llm.dataset.label: the dataset has no column {label!r}; its columns: "
                             f"{', '.join(table.column_names)}")
        if table.features[label].dtype == "string":
            table = table.class_encode_column(label)
    return table.map(encode, batched=True, remove_columns=table.column_names)


def load_prepared(folder: Path) -> tuple[Any, Any]:
    """The tokenized training and evaluation sets (memory-mapped from ``folder``)."""
    import datasets

    return datasets.load_from_disk(str(folder / "train")), datasets.load_from_disk(str(folder / "eval"))
