"""The front door's part in built-in objectives: the section's room makes the objective and adds
its parameters, its errors carry their line, and a plain spec needs a function."""

from __future__ import annotations

import importlib
from typing import Any

import pytest

import hpnb.builtin_objective as builtin
from hpnb.core.errors import HpnbError, SpecError
from hpnb.core.spec import ExperimentSpec, parse_spec

CELL = """metric: loss
llm:
  model: ./tiny
  training:
    warmup: 3
"""


class RoomObjective:
    """What a room's ``prepare`` returns: an objective made from the section."""

    def __init__(self, section: dict[str, Any]) -> None:
        self.section = section

    def __call__(self, **params: Any) -> dict[str, float]:
        return {"loss": 0.0}


def prepare(spec: ExperimentSpec, given: Any) -> tuple[ExperimentSpec, RoomObjective]:
    """A room's ``prepare``: checks a field, adds the parameter the section declares (once)."""
    section = spec.llm or {}
    if "warmup" in section.get("training", {}):
        raise SpecError("llm.training.warmup", "is not a field of TrainingArguments",
                        suggestion="warmup_steps")
    if "lr" not in spec.space.names:
        spec = parse_spec({**spec.to_dict(), "parameters": {"lr": [0.1, 0.01]}})
    return spec, RoomObjective(section)


@pytest.fixture
def this_module_as_the_room(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(builtin.PREPARERS, "llm", __name__)
    assert importlib.import_module(__name__).prepare is prepare


def test_a_plain_spec_runs_the_given_function_and_needs_one() -> None:
    spec = parse_spec({"metric": "loss", "parameters": {"x": [1, 2]}})
    assert builtin.prepared(spec, print) == (spec, print)
    with pytest.raises(HpnbError, match="give the objective"):
        builtin.prepared(spec, None)


def test_the_sections_room_makes_the_objective_and_adds_its_parameters(this_module_as_the_room) -> None:
    spec = parse_spec("metric: loss\nllm: {model: ./tiny}\n")
    made, objective = builtin.prepared(spec, None)
    assert isinstance(objective, RoomObjective) and objective.section == {"model": "./tiny"}
    assert made.space.names == ("lr",) and made.llm == {"model": "./tiny"}
    again, _ = builtin.prepared(parse_spec(made.to_dict()), None)  # as a stored spec is resumed
    assert again == made


def test_a_rooms_error_names_its_line_in_the_cell(this_module_as_the_room) -> None:
    with pytest.raises(SpecError) as info:
        builtin.prepared(parse_spec(CELL), None, CELL)
    assert "llm.training.warmup" in str(info.value) and "line 5" in str(info.value)
    assert "warmup_steps" in str(info.value)
