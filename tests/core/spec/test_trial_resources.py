"""Careless ``resources.per_trial`` and ``resources.gpus``: one error naming the field, the value
and what is allowed, before anything starts."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import hpnb
from hpnb.core.errors import SpecError
from hpnb.core.spec.resources import parse_resources
from hpnb.core.store import Store

BAD = [
    # the nearest shares 1/k on either side are named
    ({"per_trial": {"gpu": 0.3}}, "resources.per_trial.gpu", "0.3", ["1/k of one GPU", "0.333 or 0.25"]),
    ({"per_trial": {"gpu": 0.4}}, "resources.per_trial.gpu", "0.4", ["share it evenly", "0.5 or 0.333"]),
    ({"per_trial": {"gpu": 0.6}}, "resources.per_trial.gpu", "0.6", ["share it evenly", "0.5 or 1"]),
    ({"per_trial": {"gpu": 1.5}}, "resources.per_trial.gpu", "1.5", ["whole GPUs", "a whole number"]),
    ({"per_trial": {"gpu": 0}}, "resources.per_trial.gpu", "0", ["more than 0"]),
    ({"per_trial": {"memory": "lots"}}, "resources.per_trial.memory", "'lots'", ["4Gi"]),
    ({"per_trial": {"Bad Name!": 1}}, "resources.per_trial.Bad Name!", "'Bad Name!'", ["cpu, gpu, memory"]),
    ({"per_trial": [1]}, "resources.per_trial", "[1]", ["{cpu: 2, gpu: 1, memory: 4Gi}"]),
    ({"gpus": "0,1"}, "resources.gpus", "'0,1'", ["[0, 1, 2, 3]"]),
    ({"gpus": []}, "resources.gpus", "[]", ["at least one GPU id"]),
    ({"gpus": [0, 0]}, "resources.gpus", "[0, 0]", ["each id once", "repeated: 0"]),
    ({"gpus": [-1]}, "resources.gpus.0", "-1", ["an integer >= 0"]),
]


@pytest.mark.parametrize(("resources", "field", "value", "words"), BAD)
def test_careless_per_trial_resources_name_the_field_the_value_and_what_is_allowed(
        resources: dict[str, Any], field: str, value: str, words: list[str]):
    with pytest.raises(SpecError) as raised:
        parse_resources(resources)
    message = str(raised.value)
    assert message.startswith(f"{field}: ") and f"(got {value})" in message and "allowed:" in message, message
    assert all(word in message for word in words), message


@pytest.mark.parametrize(("share", "kept"), [(0.5, 0.5), (0.25, 0.25), (0.33, 1 / 3), (1, 1.0), (4, 4.0)])
def test_shares_of_one_gpu_and_whole_gpus_are_taken(share: float, kept: float):
    assert parse_resources({"per_trial": {"gpu": share}}).per_trial.gpu() == pytest.approx(kept)


def square(x: float) -> float:
    return x * x


def test_a_search_with_a_gpu_fraction_that_is_not_1_over_k_records_and_starts_nothing(tmp_path: Path):
    path = tmp_path / "hpnb.sqlite"
    with pytest.raises(SpecError, match=r"resources\.per_trial\.gpu: a fraction of a GPU must share it"):
        hpnb.search(square, store=path, name="bad", metric="x", trials=2, parameters={"x": [1.0, 2.0]},
                    resources={"per_trial": {"gpu": 0.3}, "gpus": [0, 1]})
    with Store(path) as store:
        assert store.experiments() == []
