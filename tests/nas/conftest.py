"""Fixtures of the architecture-search tests: a store of their own, and one torch thread."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from hpnb.core.store import Store
from tests.training_libraries import require


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    opened = Store(tmp_path / "hpnb.sqlite")
    yield opened
    opened.close()


@pytest.fixture(autouse=True)
def one_thread() -> None:
    [torch] = require("torch", install="hpnb.nas trains with torch (the nas extra: pip install 'hpnb[nas]')")
    torch.set_num_threads(1)
