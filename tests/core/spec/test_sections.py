"""A built-in objective's section (``nas:``, ``llm:``): kept as written, one at most, a mapping."""

from __future__ import annotations

import pytest

from hpnb.core.errors import SpecError
from hpnb.core.spec import parse_spec

LLM_SPEC = """metric: eval_loss
llm:
  model: ./tiny
  training:
    learning_rate: {min: 1.0e-5, max: 1.0e-3, log: true}
    per_device_train_batch_size: [4, 8]
"""


def test_a_section_is_kept_as_written_and_round_trips() -> None:
    spec = parse_spec(LLM_SPEC)
    assert spec.llm == {"model": "./tiny", "training": {
        "learning_rate": {"min": 1.0e-5, "max": 1.0e-3, "log": True}, "per_device_train_batch_size": [4, 8]}}
    assert spec.nas is None
    assert spec.section is not None and spec.section.kind == "llm"
    assert parse_spec(spec.to_dict()) == spec
    assert parse_spec(spec.to_dict()).to_dict()["llm"] == spec.llm


def test_a_spec_without_a_section_has_none_and_writes_none() -> None:
    spec = parse_spec({"metric": "loss", "parameters": {"x": [1, 2]}})
    assert spec.section is None and spec.llm is None and spec.nas is None
    assert "llm" not in spec.to_dict() and "nas" not in spec.to_dict()


def test_two_sections_are_refused_naming_both() -> None:
    with pytest.raises(SpecError) as info:
        parse_spec("metric: loss\nnas: {layers: 8}\nllm: {model: ./tiny}\n")
    assert "nas:" in str(info.value) and "llm:" in str(info.value) and "line 3" in str(info.value)


def test_a_section_that_is_not_a_mapping_says_what_it_holds() -> None:
    with pytest.raises(SpecError) as info:
        parse_spec("metric: loss\nllm: ./tiny\n")
    assert str(info.value).startswith("llm: must be a mapping") and "model" in str(info.value)


def test_a_misspelt_section_suggests_the_right_one() -> None:
    with pytest.raises(SpecError) as info:
        parse_spec("metric: loss\nllms: {model: ./tiny}\n")
    assert "llm" in str(info.value)
