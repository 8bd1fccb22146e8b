"""What the training-code tests need installed: on CI (where ``.ci/test`` installs the ``llm``
extra, torch's CPU build first) a missing library fails the test; elsewhere it is skipped, saying
what to install."""

from __future__ import annotations

import importlib
import os
from types import ModuleType

import pytest


def require(*names: str, install: str) -> list[ModuleType]:
    """The modules ``names``, imported; a failure on CI, a skip elsewhere, naming ``install``."""
    try:
        return [importlib.import_module(name) for name in names]
    except ImportError as missing:
        if os.environ.get("CI"):
            pytest.fail(f"{missing.name} is missing: .ci/test installs the llm extra (required on CI)")
        pytest.skip(f"{missing.name} is missing: {install}")
