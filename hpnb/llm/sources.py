"""Where a model or a dataset comes from: a local folder or file, an fsspec URL, a hub id, or
(for a dataset) a ``pandas.DataFrame`` or ``datasets.Dataset`` of the notebook's.

A source is read where it is fetched (a worker), never in the notebook's process: here it is only
named, told apart and given a fingerprint (sizes and modification times, a hub revision), so that
a changed source is fetched again and an unchanged one is not.

Example:
    >>> source_kind("hf://org/name"), source_kind("s3://bucket/model"), source_kind("./tiny")
    ('hub', 'url', 'local')
    >>> hub_id("hf://org/name")
    'org/name'
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from pathlib import Path
from typing import Any

from hpnb.core.errors import HpnbError

_URL = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*://")
_HUB_ID = re.compile(r"^[A-Za-z0-9][\w.-]*/[\w.-]+$")
#: suffixes of the data files a dataset source may name, and the ``datasets`` builder of each.
DATA_FORMATS = {".jsonl": "json", ".json": "json", ".csv": "csv", ".parquet": "parquet", ".txt": "text",
                ".text": "text"}


class SourceError(HpnbError):
    """A model or dataset that cannot be reached (no network to the hub, a missing folder)."""


def source_kind(source: str) -> str:
    """``hub`` (``hf://org/name``, or ``org/name`` that is no local path), ``url`` (any other
    fsspec URL) or ``local``."""
    if source.startswith("hf://"):
        return "hub"
    if _URL.match(source):
        return "url"
    if _HUB_ID.match(source) and not os.path.exists(os.path.expanduser(source)):
        return "hub"
    return "local"


def hub_id(source: str) -> str:
    return source[len("hf://"):] if source.startswith("hf://") else source


def fingerprint(*parts: Any) -> str:
    """A short hash of JSON-able ``parts``.

    Example:
        >>> fingerprint({"a": 1}) == fingerprint({"a": 1}), len(fingerprint("x"))
        (True, 16)
    """
    text = json.dumps(parts, sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def listing(source: str) -> tuple[Any, str, list[dict[str, Any]]]:
    """The file system of a local or fsspec ``source``, its path, and its files (name, size,
    modification time: what a fingerprint is made of; nothing is opened).

    Raises:
        SourceError: nothing is there.
    """
    import fsspec

    fs, path = fsspec.core.url_to_fs(os.path.expanduser(source))
    path = path.rstrip("/") or "/"
    try:
        found = fs.find(path, detail=True) if fs.isdir(path) else {path: fs.info(path)}
    except (FileNotFoundError, OSError) as err:
        raise SourceError(f"{source!r} cannot be read ({type(err).__name__}: {err})") from err
    if not found:
        raise SourceError(f"{source!r} holds no files: give a folder saved with save_pretrained, "
                          "or a data file")
    files = [{"name": name[len(path):].lstrip("/") or os.path.basename(name),
              "size": int(info.get("size") or 0),
              "mtime": str(info.get("mtime") or info.get("LastModified") or info.get("ETag") or "")}
             for name, info in sorted(found.items()) if info.get("type", "file") != "directory"]
    return fs, path, files


def hub_revision(repo: str, revision: str | None, kind: str = "model") -> str:
    """The commit a hub ``repo`` (at ``revision``) points to now.

    Raises:
        SourceError: the hub cannot be reached (offline, no network), naming the repo and how to
            give a local folder instead.
    """
    try:
        import huggingface_hub

        api = huggingface_hub.HfApi()
        info = api.model_info(repo, revision=revision) if kind == "model" else \
            api.dataset_info(repo, revision=revision)
    except Exception as err:  # offline mode, no network, no such repo: all said the same way
        raise offline_error(repo, kind, err) from err
    return str(info.sha)


def offline_error(repo: str, kind: str, err: BaseException) -> SourceError:
    field = "llm.model" if kind == "model" else "llm.dataset.source"
    save = ("AutoModelForCausalLM.from_pretrained(...).save_pretrained(folder)" if kind == "model"
            else "datasets.load_dataset(...).to_json(file)")
    return SourceError(
        f"the {kind} {repo!r} cannot be fetched from the Hugging Face hub ({type(err).__name__}: "
        f"{str(err).splitlines()[0] if str(err) else 'no answer'}); where the hub is out of reach "
        f"(HF_HUB_OFFLINE, no network), save it where the workers can read it ({save}) and give "
        f"that folder or URL instead ({field}: /shared/{repo.split('/')[-1]})")


def read_json(source: str, name: str) -> dict[str, Any] | None:
    """A small JSON file of a local or fsspec folder (``config.json``), None when there is none."""
    import fsspec

    try:
        with fsspec.open(f"{os.path.expanduser(source).rstrip('/')}/{name}", "r") as handle:
            data = json.load(handle)
    except (FileNotFoundError, OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def data_format(name: str) -> str | None:
    """The ``datasets`` builder for a data file's name (None: not a data file)."""
    return DATA_FORMATS.get(Path(name).suffix.lower())
