"""The Python entries of fine-tuning searches: :func:`search` (Katib's ``tune()`` names accepted)
and :func:`best_model`.

Example (not run here: it starts a cluster)::

    search = hpnb.llm.search("finetune.yaml", name="lora", dataset=frame, max_trial_count=8)
    model, tokenizer = hpnb.llm.best_model("lora", merge=True, tokenizer=True)
"""

from __future__ import annotations

import hashlib
import os
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from hpnb.core.errors import SpecError

if TYPE_CHECKING:
    from hpnb.handle import Search

#: Katib ``tune()`` arguments and the spec field each one is.
KATIB_NAMES = {"objective_metric_name": "metric", "objective_type": "mode", "algorithm_name": "strategy",
               "max_trial_count": "trials", "parallel_trial_count": "parallel",
               "max_failed_trial_count": "max_failures"}
#: keyword arguments that are fields of the ``llm:`` section.
SECTION_NAMES = ("model", "task", "training", "lora", "samples", "max_new_tokens", "cache", "revision",
                 "quantization", "num_labels")
_MODES = {"minimize": "min", "maximize": "max"}


def search(spec: str | os.PathLike[str] | Mapping[str, Any] | None = None, *, name: str | None = None,
           dataset: Any = None, resources_per_trial: Mapping[str, Any] | None = None,
           **fields: Any) -> Search:
    """Start a fine-tuning search: ``spec`` (YAML text, a file, or a dict with an ``llm:``
    section), with fields given as keywords (Katib's ``tune()`` names, the section's own, or
    ``hpnb.search``'s: ``store``, ``client``, ``overwrite``, ``resume``...).

    Args:
        dataset: the section's ``dataset`` (a source, a mapping), or a ``pandas.DataFrame`` or
            ``datasets.Dataset`` of the notebook's (it travels with the objective, once per worker).
        resources_per_trial: Katib's name for ``resources.per_trial`` (``{workers: 2, gpu: 1}``).

    Example (not run here)::

        hpnb.llm.search(model="./tiny", dataset="train.jsonl", training={"learning_rate": [1e-3, 1e-2]},
                        objective_metric_name="eval_loss", max_trial_count=4, name="lora")
    """
    import hpnb
    from hpnb.core.spec import parse_spec
    from hpnb.llm.objective import FineTune
    from hpnb.llm.section import prepare
    from hpnb.llm.section_spec import NOTEBOOK_SOURCE, parse_llm

    raw, run = _raw_spec(spec), _RUN_ARGUMENTS.intersection(fields)
    passed = {key: fields.pop(key) for key in run}
    section = dict(raw.get("llm") or {})
    for key in SECTION_NAMES:
        if key in fields:
            section[key] = fields.pop(key)
    rows, rows_print = None, None
    if dataset is not None and not isinstance(dataset, (str, Mapping)):
        rows, rows_print = dataset, data_fingerprint(dataset)
        given = section.get("dataset")
        section["dataset"] = {**(given if isinstance(given, Mapping) else {}), "source": NOTEBOOK_SOURCE}
    elif dataset is not None:
        section["dataset"] = dataset
    for katib, field in KATIB_NAMES.items():
        if katib in fields:
            value = fields.pop(katib)
            raw[field] = _MODES.get(value, value) if field == "mode" else value
    if resources_per_trial is not None:
        raw["resources"] = {**(raw.get("resources") or {}), "per_trial": dict(resources_per_trial)}
    raw = {**raw, **fields, "llm": section}
    raw.setdefault("metric", "eval_loss")
    parsed = parse_spec(raw)
    objective: Any = None if rows is None else \
        FineTune(parse_llm(section), rows, rows_print, metric=parsed.metric)
    parsed, made = prepare(parsed, objective)
    return hpnb.search(made, parsed, name=name, **passed)


_RUN_ARGUMENTS = frozenset({"store", "client", "overwrite", "resume", "namespace", "wait_for_cluster",
                            "detach"})


def _raw_spec(spec: str | os.PathLike[str] | Mapping[str, Any] | None) -> dict[str, Any]:
    from hpnb.core.spec.file import read_spec_file
    from hpnb.core.spec.yaml_lines import load_yaml

    if spec is None:
        return {}
    if isinstance(spec, Mapping):
        return dict(spec)
    text = str(spec)
    if isinstance(spec, os.PathLike) or ("\n" not in text and text.endswith((".yaml", ".yml"))):
        text = read_spec_file(spec)
    data = load_yaml(text)[0]
    if not isinstance(data, Mapping):
        raise SpecError("", "a spec is a mapping of fields", value=data, allowed="metric: ..., llm: {...}")
    return dict(data)


def data_fingerprint(rows: Any) -> str:
    """What a DataFrame or ``datasets.Dataset`` holds, hashed where it was given (so a changed
    frame is prepared again, an unchanged one is not)."""
    fingerprint = getattr(rows, "_fingerprint", None)
    if isinstance(fingerprint, str):
        return fingerprint
    try:
        import pandas

        hashed = pandas.util.hash_pandas_object(rows, index=False).to_numpy().tobytes()
    except (ImportError, TypeError) as err:
        raise SpecError("llm.dataset", "is neither a source nor a table", value=type(rows).__name__,
                        allowed="a file, folder, URL or hub id; a pandas.DataFrame or a datasets.Dataset",
                        ) from err
    return hashlib.sha256(hashed + repr(list(rows.columns)).encode()).hexdigest()[:16]


def best_model(name: str, merge: bool = False, *, tokenizer: bool = False, store: Any = None) -> Any:
    """The best trial's adapter on its base model (``PeftModel``), merged into it with ``merge``;
    with ``tokenizer``, ``(model, tokenizer)``.

    Example (not run here: it loads the model)::

        model = hpnb.llm.best_model("lora", merge=True)
    """
    import hpnb

    found = hpnb.load(name, store=store)
    best = found.best
    if best is None:
        raise ValueError(f"search {name!r} has no completed trial yet: no adapter to load")
    return load_adapter(found, int(best["trial_id"]), merge=merge, tokenizer=tokenizer)


def load_adapter(found: Search, trial_id: int, merge: bool = False, tokenizer: bool = False) -> Any:
    """Trial ``trial_id``'s adapter on its base model (see :func:`best_model`)."""
    import peft
    import transformers

    from hpnb.llm.section_spec import parse_llm

    section = parse_llm(found.spec.llm or {})
    adapter = _adapter_folder(found, trial_id)
    base = _base_folder(adapter)
    kind = transformers.AutoModelForSequenceClassification if section.task == "sequence-classification" \
        else transformers.AutoModelForCausalLM
    classify = section.task == "sequence-classification"
    extra: dict[str, Any] = {"num_labels": section.num_labels} if classify else {}
    model = peft.PeftModel.from_pretrained(kind.from_pretrained(str(base), local_files_only=True, **extra),
                                           str(adapter))
    if merge:
        model = model.merge_and_unload()
    if not tokenizer:
        return model
    from hpnb.llm.building import load_tokenizer

    return model, load_tokenizer(base)


def _adapter_folder(found: Search, trial_id: int) -> Path:
    files = [a for a in found.artifacts(trial_id) if a["name"].startswith("adapter/")]
    if not files:
        raise ValueError(f"trial {trial_id} of search {found.name!r} kept no adapter (it failed, or ran "
                         "before it could save one)")
    store = found.checkpoint_store()
    if store.local:
        return Path(files[0]["path"]).parent
    folder = Path(tempfile.mkdtemp(prefix="hpnb-llm-adapter-"))
    for item in files:
        store.fs.get_file(item["path"], str(folder / item["name"].split("/", 1)[1]))
    return folder


def _base_folder(adapter: Path) -> Path:
    """The fetched model the adapter was trained on (its config names it)."""
    import json

    config = json.loads((adapter / "adapter_config.json").read_text())
    base = Path(str(config.get("base_model_name_or_path") or ""))
    if not (base / "config.json").exists():
        raise FileNotFoundError(f"the base model of this adapter, {base}, is not on this machine: load it "
                                "where the search's inputs were fetched, or with "
                                "peft.PeftModel.from_pretrained")
    return base
