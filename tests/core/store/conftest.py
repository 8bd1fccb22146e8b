from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from hpnb.core.store import Store


@pytest.fixture
def store_path(tmp_path: Path) -> Path:
    return tmp_path / "home" / "hpnb.sqlite"


@pytest.fixture
def store(store_path: Path) -> Iterator[Store]:
    with Store(store_path) as opened:
        yield opened
