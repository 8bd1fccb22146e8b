"""Notebook tests (nbval): the notebooks' searches go to a store in a temporary directory, so running
the tests never touches the user's ``~/.hpnb``."""

from __future__ import annotations

import os
import shutil
import tempfile

import pytest


def pytest_configure(config: pytest.Config) -> None:
    # The kernels nbval starts inherit this process's environment.
    home = tempfile.mkdtemp(prefix="hpnb-notebooks-")
    os.environ["HPNB_HOME"] = home
    config.add_cleanup(lambda: shutil.rmtree(home, ignore_errors=True))
