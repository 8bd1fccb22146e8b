"""Fixtures of the architecture-search tests: a store of their own, and one torch thread."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from hpnb.core.store import Store


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    opened = Store(tmp_path / "hpnb.sqlite")
    yield opened
    opened.close()


@pytest.fixture(autouse=True)
def one_thread() -> None:
    try:
        import torch
    except ImportError:
        if os.environ.get("CI"):
            pytest.fail("torch is missing: .ci/test installs the llm extra, torch with it (required on CI)")
        pytest.skip("hpnb.nas trains with torch (the nas extra: pip install 'hpnb[nas]')")
    torch.set_num_threads(1)
