"""Where else a search is recorded while it runs: the ``tracking:`` section of a spec.

``tracking: {mlflow: {uri: URI, experiment: NAME, required: false}, tensorboard: DIR}``:

- ``mlflow``: an MLflow tracking URI (``http://host:5000``, ``https://...``, ``file:///folder``,
  ``sqlite:///file.db``, ...), or the mapping. ``experiment`` is the MLflow experiment the runs
  go to (default: the search's name). ``required: true`` refuses to start the search when MLflow
  cannot be reached; by default the search runs anyway, with one warning. A URI never holds a
  password or a token (the spec is stored): MLflow reads them from ``MLFLOW_TRACKING_USERNAME``,
  ``MLFLOW_TRACKING_PASSWORD`` or ``MLFLOW_TRACKING_TOKEN``.
- ``tensorboard``: a folder TensorBoard reads; one run folder per trial is written in it. A
  relative folder is taken from the current directory when the spec is read.

Whether the URI names a server that answers is checked when the search starts
(:mod:`hpnb.tracking`); this module checks the form only.

Example:
    >>> parse_tracking({"mlflow": "http://127.0.0.1:5000"}).mlflow
    MlflowSpec(uri='http://127.0.0.1:5000', experiment=None, required=False)
    >>> parse_tracking(None).enabled
    False
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from hpnb.core.errors import SpecError
from hpnb.core.spec.values import as_bool, as_mapping, as_text, check_keys

TRACKING_KEYS = ("mlflow", "tensorboard")
MLFLOW_KEYS = ("uri", "experiment", "required")
#: the longest URI, experiment name or folder accepted.
MAX_TEXT = 1000
_URI_ALLOWED = "a tracking URI such as http://127.0.0.1:5000, file:///folder or sqlite:///mlflow.db"
_SECRET_ALLOWED = ("a URI without a password; set MLFLOW_TRACKING_USERNAME and MLFLOW_TRACKING_PASSWORD "
                   "(or MLFLOW_TRACKING_TOKEN) in the environment instead")
_SECRET_QUERY = re.compile(r"(?i)(token|password|secret|key)=")


@dataclass(frozen=True)
class MlflowSpec:
    """``tracking.mlflow``: the URI, the MLflow experiment (None: the search's name), required."""

    uri: str
    experiment: str | None = None
    required: bool = False

    def to_dict(self) -> dict[str, Any]:
        return {"uri": self.uri, "experiment": self.experiment, "required": self.required}


@dataclass(frozen=True)
class TrackingSpec:
    """``tracking:``: MLflow (or None) and the TensorBoard folder (or None)."""

    mlflow: MlflowSpec | None = None
    tensorboard: str | None = None

    @property
    def enabled(self) -> bool:
        """Whether the search is tracked anywhere besides hpnb's store."""
        return self.mlflow is not None or self.tensorboard is not None

    def to_dict(self) -> dict[str, Any]:
        return {"mlflow": None if self.mlflow is None else self.mlflow.to_dict(),
                "tensorboard": self.tensorboard}


def masked(uri: str) -> str:
    """``uri`` with the password of its user part (if any) shown as ``***``.

    Example:
        >>> masked("https://me:s3cret@mlflow.example.com/")
        'https://me:***@mlflow.example.com/'
    """
    parts = urlsplit(uri)
    if parts.password is None:
        return uri
    user = parts.username or ""
    return parts._replace(netloc=f"{user}:***@{parts.netloc.rpartition('@')[2]}").geturl()


def has_secret(uri: str) -> bool:
    """Whether ``uri`` carries a password (``user:password@``) or a token in its query."""
    try:
        parts = urlsplit(uri)
        return parts.password is not None or bool(_SECRET_QUERY.search(parts.query))
    except ValueError:
        return False


def parse_tracking(value: Any) -> TrackingSpec:
    """The ``tracking:`` section; a :class:`SpecError` naming the field for anything else."""
    if value is None:
        return TrackingSpec()
    data = as_mapping(value, "tracking", allowed="{mlflow: {uri: URI, experiment: NAME}, tensorboard: DIR}")
    check_keys(data, "tracking", TRACKING_KEYS)
    mlflow = data.get("mlflow")
    folder = data.get("tensorboard")
    return TrackingSpec(mlflow=None if mlflow is None else _mlflow(mlflow),
                        tensorboard=None if folder is None else _folder(folder))


def _mlflow(value: Any) -> MlflowSpec:
    if isinstance(value, str):
        value = {"uri": value}
    data = as_mapping(value, "tracking.mlflow",
                      allowed="a URI, or {uri: URI, experiment: NAME, required: false}")
    check_keys(data, "tracking.mlflow", MLFLOW_KEYS)
    if "uri" not in data:
        raise SpecError("tracking.mlflow.uri", "is missing", allowed=_URI_ALLOWED)
    uri = _text(data["uri"], "tracking.mlflow.uri", _URI_ALLOWED)
    if has_secret(uri):
        raise SpecError("tracking.mlflow.uri", "holds a password or token, which would be stored with the "
                        "search", value=masked(uri), allowed=_SECRET_ALLOWED)
    experiment = data.get("experiment")
    if experiment is not None:
        experiment = _text(experiment, "tracking.mlflow.experiment", "a non-empty name")
    return MlflowSpec(uri, experiment, as_bool(data.get("required", False), "tracking.mlflow.required"))


def _folder(value: Any) -> str:
    text = _text(value, "tracking.tensorboard", "a folder, e.g. runs/tensorboard or /shared/tb")
    return os.path.abspath(os.path.expanduser(text))


def _text(value: Any, path: str, allowed: str) -> str:
    text = as_text(value, path, allowed=allowed)
    if len(text) > MAX_TEXT or any(ord(c) < 32 for c in text):
        raise SpecError(path, f"must be at most {MAX_TEXT} characters without control characters",
                        value=text, allowed=allowed)
    return text
