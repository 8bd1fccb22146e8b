"""A tiny Llama-style model and a text dataset for the fine-tuning tests, made once per session
(no download: the model is built from a configuration, its tokenizer trained on Python's help
topics)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from hpnb.core.store import Store
from tests.training_libraries import require

os.environ.setdefault("HF_HUB_OFFLINE", "1")


def require_training_libraries() -> None:
    require("torch", "transformers", "peft",
            install="fine-tuning needs the llm extra: pip install 'hpnb[llm]' (and torch's CPU build)")


@pytest.fixture(scope="session")
def tiny_source(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """``source/model`` (a tiny Llama saved with save_pretrained) and ``source/text.jsonl``."""
    require_training_libraries()
    import torch

    from hpnb.llm.demo import tiny_model, write_text_dataset

    torch.set_num_threads(1)
    folder = tmp_path_factory.mktemp("llm") / "source"
    tiny_model(folder / "model", hidden=32, vocab_size=300)
    write_text_dataset(folder / "text.jsonl", rows=120)
    return folder


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    opened = Store(tmp_path / "hpnb.sqlite")
    yield opened
    opened.close()
