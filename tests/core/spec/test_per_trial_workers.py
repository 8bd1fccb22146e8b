"""A trial that spans several workers (``resources.per_trial.workers`` and ``procs_per_worker``):
what a spec says, what is stored, and every careless value refused before anything starts."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import hpnb
from hpnb.core.errors import SpecError
from hpnb.core.spec import parse_spec
from hpnb.core.spec.resources import parse_resources
from hpnb.core.spec.trial_resources import TrialResources, parse_per_trial
from hpnb.core.store import Store


def _spec(resources: dict[str, Any], parameters: dict[str, Any] | None = None) -> Any:
    return parse_spec({"metric": "loss", "parameters": parameters or {"lr": [0.1, 0.01]},
                       "resources": resources})


def test_a_trial_of_two_workers_with_two_processes_each_has_four_ranks():
    need = _spec({"threads_per_worker": 2,
                  "per_trial": {"workers": 2, "procs_per_worker": 2, "gpu": 1, "memory": "8Gi"}}
                 ).resources.per_trial
    assert (need.workers, need.procs_per_worker, need.ranks, need.is_gang) == (2, 2, 4, True)
    assert need.describe() == "workers=2 procs_per_worker=2 gpu=1 memory=8Gi"
    # the other keys are what each worker holds, as before; workers are never a Dask resource
    assert dict(need.amounts) == {"gpu": 1.0, "memory": 8 * 2.0**30}
    assert need.workers_for({"lr": 0.1}) == 2 and need.ranks_for({"lr": 0.1}) == 4


@pytest.mark.parametrize("per_trial", [None, {}, {"gpu": 1}, {"cpu": 2, "licence": 1}])
def test_without_workers_a_trial_is_one_process_of_one_worker_as_before(per_trial: Any):
    resources = parse_resources({"per_trial": per_trial})
    need = resources.per_trial
    assert (need.workers, need.procs_per_worker, need.ranks, need.is_gang) == (1, 1, 1, False)
    assert need.workers_for({}) == 1
    # what is stored and shown is what it was before workers existed
    assert "workers" not in need.describe() and "procs" not in need.describe()
    written = {name: str(value) for name, value in (per_trial or {}).items()}
    assert need.to_dict() == written
    assert resources.to_dict().get("per_trial") == (written or None)


def test_explicit_ones_are_the_default_exactly():
    explicit = parse_per_trial({"workers": 1, "procs_per_worker": 1, "gpu": 1}, "resources.per_trial")
    assert explicit == parse_per_trial({"gpu": 1}, "resources.per_trial")
    assert explicit.to_dict() == {"gpu": "1"} and not explicit.is_gang


def test_one_worker_of_several_processes_is_a_gang():
    need = parse_resources({"threads_per_worker": 4, "per_trial": {"procs_per_worker": 4}}).per_trial
    assert (need.ranks, need.is_gang, need.describe()) == (4, True, "procs_per_worker=4")
    assert not need  # it asks no Dask resource of its worker


@pytest.mark.parametrize("resources", [
    {"workers": 4, "threads_per_worker": 2, "per_trial": {"workers": 2, "procs_per_worker": 2, "gpu": 1}},
    {"workers": 4, "per_trial": {"workers": "3"}},
    {"adapt": {"maximum": 8}, "per_trial": {"workers": 8}},
    {"cluster": "tcp://scheduler:8786", "per_trial": {"workers": 16, "procs_per_worker": 8}},
])
def test_what_is_stored_reads_back_equal(resources: dict[str, Any]):
    spec = _spec(resources)
    assert parse_spec(spec.to_dict()) == spec
    assert parse_resources(spec.resources.to_dict()) == spec.resources


@pytest.mark.parametrize("parameter", [[1, 2, 4], {"type": "int", "min": 1, "max": 4},
                                       {"type": "discrete", "list": [2, 4]}, 2,
                                       {"type": "int", "min": 2, "max": 8, "step": 2}])
def test_a_parameter_sets_each_trials_workers(parameter: Any):
    spec = _spec({"threads_per_worker": 2, "per_trial": {"workers": {"parameter": "nodes"},
                                                         "procs_per_worker": 2}},
                 {"lr": [0.1, 0.01], "nodes": parameter})
    need = spec.resources.per_trial
    assert need.workers_parameter == "nodes" and need.is_gang
    assert need.describe() == "workers=parameter:nodes procs_per_worker=2"
    assert (need.workers_for({"nodes": 4, "lr": 0.1}), need.ranks_for({"nodes": 4})) == (4, 8)
    assert need.to_dict() == {"workers": {"parameter": "nodes"}, "procs_per_worker": 2}
    assert parse_spec(spec.to_dict()) == spec


def test_a_parameter_within_a_fixed_local_cluster_is_taken():
    spec = _spec({"workers": 4, "per_trial": {"workers": {"parameter": "nodes"}}},
                 {"nodes": {"type": "int", "min": 1, "max": 4}})
    assert spec.resources.per_trial.workers_for({"nodes": 3}) == 3


# (resources, parameters or None, field, value as quoted, words the message must hold)
BAD: list[tuple[dict[str, Any], dict[str, Any] | None, str, str, list[str]]] = [
    ({"per_trial": {"workers": 0}}, None, "resources.per_trial.workers", "0",
     ["at least 1", "{parameter: NAME}"]),
    ({"per_trial": {"workers": -2}}, None, "resources.per_trial.workers", "-2", ["at least 1"]),
    ({"per_trial": {"workers": 2.5}}, None, "resources.per_trial.workers", "2.5", ["whole number"]),
    ({"per_trial": {"workers": "two"}}, None, "resources.per_trial.workers", "'two'", ["whole number"]),
    ({"per_trial": {"workers": "nodes"}}, None, "resources.per_trial.workers", "'nodes'",
     ["did you mean '{parameter: nodes}'"]),
    ({"per_trial": {"workers": True}}, None, "resources.per_trial.workers", "True", ["whole number"]),
    ({"per_trial": {"workers": 10**6}}, None, "resources.per_trial.workers", "1000000", ["limit of 10,000"]),
    ({"per_trial": {"procs_per_worker": 0}}, None, "resources.per_trial.procs_per_worker", "0",
     ["at least 1", "processes"]),
    ({"per_trial": {"procs_per_worker": -1}}, None, "resources.per_trial.procs_per_worker", "-1",
     ["at least 1"]),
    ({"per_trial": {"procs_per_worker": 1.5}}, None, "resources.per_trial.procs_per_worker", "1.5",
     ["whole number"]),
    ({"per_trial": {"procs_per_worker": "many"}}, None, "resources.per_trial.procs_per_worker", "'many'",
     ["whole number"]),
    # a local cluster's size is known before it starts
    ({"threads_per_worker": 2, "per_trial": {"procs_per_worker": 4}}, None,
     "resources.per_trial.procs_per_worker", "4",
     ["4 processes per worker", "has 2 thread(s) (resources.threads_per_worker)", "at most 2"]),
    ({"per_trial": {"procs_per_worker": 2}}, None, "resources.per_trial.procs_per_worker", "2",
     ["has 1 thread(s)"]),
    ({"workers": 2, "per_trial": {"workers": 3}}, None, "resources.per_trial.workers", "3",
     ["3 workers per trial, but the local cluster has 2 (resources.workers)", "at most 2"]),
    ({"adapt": {"minimum": 0, "maximum": 2}, "per_trial": {"workers": 3}}, None,
     "resources.per_trial.workers", "3",
     ["3 workers per trial, but the local cluster has 2 (resources.adapt.maximum)"]),
    ({"workers": 2, "per_trial": {"workers": {"parameter": "nodes"}}},
     {"nodes": {"type": "int", "min": 1, "max": 3}}, "resources.per_trial.workers", "{'parameter': 'nodes'}",
     ["a trial may ask 3 workers (parameters.nodes)", "the local cluster has 2 (resources.workers)"]),
    # the parameter form
    ({"per_trial": {"workers": {"parameter": "node"}}}, {"nodes": [1, 2]},
     "resources.per_trial.workers.parameter", "'node'", ["names no parameter", "did you mean 'nodes'"]),
    ({"per_trial": {"workers": {"parameter": "nodes"}}}, {"nodes": [1, 2.5]},
     "resources.per_trial.workers.parameter", "'nodes'", ["parameters.nodes", "whole number >= 1"]),
    ({"per_trial": {"workers": {"parameter": "nodes"}}}, {"nodes": {"type": "int", "min": 0, "max": 2}},
     "resources.per_trial.workers.parameter", "'nodes'", ["parameters.nodes (int [0, 2])"]),
    ({"per_trial": {"workers": {"parameter": "nodes"}}}, {"nodes": {"min": 1.0, "max": 4.0}},
     "resources.per_trial.workers.parameter", "'nodes'", ["parameters.nodes", "not a number of workers"]),
    ({"per_trial": {"workers": {"parameter": "nodes"}}}, {"nodes": ["one", "two"]},
     "resources.per_trial.workers.parameter", "'nodes'", ["parameters.nodes"]),
    ({"per_trial": {"workers": {"parameter": "nodes"}}}, {"nodes": [True, False]},
     "resources.per_trial.workers.parameter", "'nodes'", ["parameters.nodes"]),
    ({"per_trial": {"workers": {"parameter": "nodes"}}},
     {"big": ["yes", "no"], "nodes": {"values": [1, 2], "when": {"big": "yes"}}},
     "resources.per_trial.workers.parameter", "'nodes'", ["when: condition", "every trial has"]),
    ({"per_trial": {"workers": {"param": "nodes"}}}, {"nodes": [1, 2]},
     "resources.per_trial.workers.param", "'param'", ["did you mean 'parameter'"]),
    ({"per_trial": {"workers": {"parameter": 3}}}, {"nodes": [1, 2]},
     "resources.per_trial.workers.parameter", "3", ["the name of a parameter"]),
    # the names other tools give them are not resources of the user's own
    ({"per_trial": {"num_workers": 2}}, None, "resources.per_trial.num_workers", "'num_workers'",
     ["did you mean 'workers'"]),
    ({"per_trial": {"nproc_per_node": 2}}, None, "resources.per_trial.nproc_per_node", "'nproc_per_node'",
     ["did you mean 'procs_per_worker'"]),
]


@pytest.mark.parametrize(("resources", "parameters", "field", "value", "words"), BAD)
def test_careless_workers_name_the_field_the_value_and_what_is_allowed(
        resources: dict[str, Any], parameters: dict[str, Any] | None, field: str, value: str,
        words: list[str]):
    with pytest.raises(SpecError) as raised:
        _spec(resources, parameters)
    message = str(raised.value)
    assert message.startswith(f"{field}: ") and f"(got {value})" in message and "allowed:" in message, message
    assert all(word in message for word in words), message


def test_the_error_names_the_line():
    text = "metric: loss\nparameters:\n  lr: [0.1, 0.01]\nresources:\n  workers: 2\n  per_trial:\n" \
           "    gpu: 1\n    workers: 3\n"
    with pytest.raises(SpecError, match=r"has 2 \(resources\.workers\).*\[line 8\]$"):
        parse_spec(text)


@pytest.mark.parametrize("resources", [
    {"cluster": "tcp://scheduler:8786", "per_trial": {"workers": 64, "procs_per_worker": 8}},
    {"cluster": "kubernetes", "workers": 2, "per_trial": {"workers": 4, "procs_per_worker": 4}},
    {"cluster": "client", "per_trial": {"workers": {"parameter": "nodes"}, "procs_per_worker": 4}},
])
def test_other_clusters_sizes_are_checked_when_they_start_not_before(resources: dict[str, Any]):
    need = _spec(resources, {"nodes": [1, 128]}).resources.per_trial
    assert need.procs_per_worker > 1


def test_a_workers_parameter_without_its_space_is_left_to_the_caller():
    # parse_resources alone has no space to check the parameter against: parse_spec does it
    need = parse_resources({"per_trial": {"workers": {"parameter": "nodes"}}}).per_trial
    assert need == TrialResources(workers_parameter="nodes")
    with pytest.raises(SpecError, match="names no parameter"):
        _spec({"per_trial": {"workers": {"parameter": "nodes"}}})


def square(x: float) -> float:
    return x * x


def test_a_search_asking_more_workers_than_its_local_cluster_records_and_starts_nothing(tmp_path: Path):
    path = tmp_path / "hpnb.sqlite"
    with pytest.raises(SpecError, match=r"3 workers per trial, but the local cluster has 2 \(resources"):
        hpnb.search(square, store=path, name="gang", metric="x", trials=2, parameters={"x": [1.0, 2.0]},
                    resources={"workers": 2, "per_trial": {"workers": 3}})
    with Store(path) as store:
        assert store.experiments() == []
