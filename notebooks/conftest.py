"""Notebook tests (nbval): every notebook runs against a store of its own in a temporary directory,
so running the tests never touches the user's ``~/.hpnb``."""

from __future__ import annotations

import os
import tempfile

import pytest


def pytest_configure(config: pytest.Config) -> None:
    # The kernels nbval starts inherit this process's environment.
    os.environ["HPNB_HOME"] = tempfile.mkdtemp(prefix="hpnb-notebooks-")
