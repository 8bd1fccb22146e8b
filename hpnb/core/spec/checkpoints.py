"""Where trials keep their checkpoints: the ``checkpoints:`` section of a spec.

``checkpoints: {store: URL, keep: N}``: ``store`` is a folder (absolute, or ``~/...``) or an
fsspec URL (``s3://bucket/prefix``, ``gs://...``, ``file:///shared/ckpt``) that the driver
and every worker can write; by default a folder beside the experiment store
(``$HPNB_HOME/checkpoints``). ``keep`` is how many checkpoints of each trial are kept (the
newest; default 1). Whether the store can be written is checked (a probe written and
deleted) when the search starts, before any trial runs.

Example:
    >>> parse_checkpoints({"store": "s3://models/hpnb", "keep": 2})
    CheckpointsSpec(store='s3://models/hpnb', keep=2)
    >>> parse_checkpoints(None)
    CheckpointsSpec(store=None, keep=1)
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from hpnb.core.errors import SpecError
from hpnb.core.spec.values import as_int, as_mapping, check_keys

CHECKPOINT_KEYS = ("store", "keep")
#: the most checkpoints of one trial a search may keep.
MAX_KEEP = 100
_URL = re.compile(r"[a-z][a-z0-9+.-]*://\S+")
_STORE_ALLOWED = "an absolute folder (/shared/ckpt, ~/ckpt) or an fsspec URL (s3://bucket/prefix)"


@dataclass(frozen=True)
class CheckpointsSpec:
    """``checkpoints:``: the store's URL (None: ``$HPNB_HOME/checkpoints``) and how many to keep."""

    store: str | None = None
    keep: int = 1

    def to_dict(self) -> dict[str, Any]:
        return {"store": self.store, "keep": self.keep}


def parse_checkpoints(value: Any) -> CheckpointsSpec:
    """The ``checkpoints:`` section; a :class:`SpecError` naming the field for anything else."""
    if value is None:
        return CheckpointsSpec()
    data = as_mapping(value, "checkpoints", allowed="{store: URL, keep: N}")
    check_keys(data, "checkpoints", CHECKPOINT_KEYS)
    store = data.get("store")
    if store is not None:
        store = _store(store)
    keep = as_int(data.get("keep", 1), "checkpoints.keep", minimum=1, maximum=MAX_KEEP)
    return CheckpointsSpec(store, keep)


def _store(value: Any) -> str:
    if not isinstance(value, str) or not value.strip():
        raise SpecError("checkpoints.store", "must be a non-empty string", value=value,
                        allowed=_STORE_ALLOWED)
    text = value.strip()
    if any(ord(c) < 32 for c in text) or len(text) > 1000:
        raise SpecError("checkpoints.store", "is not a folder or URL", value=value, allowed=_STORE_ALLOWED)
    if _URL.fullmatch(text) or text.startswith(("/", "~")):
        return text
    raise SpecError("checkpoints.store", "must be an absolute folder or a URL with a scheme "
                    "(a relative folder would differ between the driver and the workers)",
                    value=value, allowed=_STORE_ALLOWED)
