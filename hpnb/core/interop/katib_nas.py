"""Katib's DARTS Experiments: ``algorithmName: darts`` with a ``nasConfig``, read as a spec's ``nas:``
section and written back.

=====================================  ====================================================
Katib                                  hpnb
=====================================  ====================================================
nasConfig.graphConfig.numLayers        ``nas.layers``
nasConfig.operations                   ``nas.operations``: ``{type, filter_sizes}`` each
algorithm.algorithmSettings            ``nas.darts`` (numbers, by Katib's names)
objectiveMetricName: Best-Genotype     ``metric: Validation-Accuracy``, ``mode: max``: a
                                       trial's genotype is that of its best epoch
maxTrialCount, parallelTrialCount      ``trials``, ``parallel`` (supernets; seeds differ)
=====================================  ====================================================

This module also holds Katib's vocabulary of operations and its DARTS settings with their
defaults, which :mod:`hpnb.nas` checks a ``nas:`` section against.

Example:
    >>> notes = []
    >>> section = read_nas_config({"graphConfig": {"numLayers": 3}, "operations": [
    ...     {"operationType": "max_pooling", "parameters": [{"name": "filter_size",
    ...      "parameterType": "categorical", "feasibleSpace": {"list": ["3"]}}]},
    ...     {"operationType": "skip_connection"}]}, "spec.nasConfig", notes)
    >>> section
    {'layers': 3, 'operations': [{'type': 'max_pooling', 'filter_sizes': [3]}, 'skip_connection']}
    >>> nas_config(section)["operations"][0]["parameters"][0]["feasibleSpace"]
    {'list': ['3']}
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from hpnb.core.errors import SpecError, closest
from hpnb.core.interop.katib_format import Note, Setting, describe, settings_list, value_text
from hpnb.core.spec.values import as_int, as_mapping, as_number, check_keys

#: Katib's operation types -> the filter sizes each has a form for (none: it takes none).
OPERATION_TYPES: dict[str, tuple[int, ...]] = {
    "separable_convolution": (3, 5),
    "dilated_convolution": (3, 5),
    "avg_pooling": (3,),
    "max_pooling": (3,),
    "skip_connection": (),
}
#: Katib's DARTS settings and its defaults (its suggestion service's).
DARTS_SETTINGS: dict[str, int | float] = {
    "num_epochs": 50, "w_lr": 0.025, "w_lr_min": 0.001, "w_momentum": 0.9, "w_weight_decay": 3e-4,
    "w_grad_clip": 5.0, "alpha_lr": 3e-4, "alpha_weight_decay": 1e-3, "batch_size": 128,
    "init_channels": 16, "num_nodes": 4, "stem_multiplier": 3,
}
#: Katib's DARTS settings that mean nothing to hpnb: data-loading processes and log lines.
NOT_CARRIED_SETTINGS = {"num_workers": "hpnb holds the data in memory: no loading processes",
                        "print_step": "hpnb reports once per epoch"}
#: the metric Katib's DARTS trials print their genotype as, and what hpnb optimises instead.
GENOTYPE_METRIC = "Best-Genotype"
NAS_METRIC = "Validation-Accuracy"
#: Katib's DARTS trial image (CIFAR-10 only) that an exported Experiment runs.
DARTS_IMAGE = "docker.io/kubeflowkatib/darts-cnn-cifar10-cpu:v0.15.0"
_FILTER = "filter_size"
#: the DARTS paper's short names of Katib's operations.
DARTS_NAMES = {"sep_conv_3x3": "separable_convolution_3x3", "sep_conv_5x5": "separable_convolution_5x5",
                "dil_conv_3x3": "dilated_convolution_3x3", "dil_conv_5x5": "dilated_convolution_5x5",
                "avg_pool_3x3": "avg_pooling_3x3", "max_pool_3x3": "max_pooling_3x3",
                "skip_connect": "skip_connection"}


def is_darts(algorithm: Any) -> bool:
    """Whether Katib's ``algorithm`` is darts."""
    return isinstance(algorithm, Mapping) and algorithm.get("algorithmName") == "darts"


def read_darts_settings(settings: Mapping[str, Setting], notes: list[Note]) -> dict[str, int | float]:
    """Katib's ``algorithmSettings`` of darts as ``nas.darts``: numbers, by Katib's names."""
    darts: dict[str, int | float] = {}
    for name, setting in settings.items():
        if name in NOT_CARRIED_SETTINGS:
            notes.append(Note(setting.item, f"{name}: {describe(setting.value)} not carried: "
                                            f"{NOT_CARRIED_SETTINGS[name]}"))
            continue
        if name not in DARTS_SETTINGS:
            known = (*DARTS_SETTINGS, *NOT_CARRIED_SETTINGS)
            raise SpecError(setting.path.rsplit(".", 1)[0] + ".name", "is not a setting of Katib's darts",
                            value=name, allowed=known, suggestion=closest(name, known))
        number = as_number(setting.value, setting.path)
        whole = isinstance(DARTS_SETTINGS[name], int) and number == int(number)
        darts[name] = int(number) if whole else number
    return darts


def read_nas_config(value: Any, path: str, notes: list[Note]) -> dict[str, Any]:
    """``nasConfig`` as the ``layers`` and ``operations`` of a ``nas:`` section."""
    if value is None:
        raise SpecError(path, "is missing: a darts Experiment says its architecture space there",
                        allowed="nasConfig: {graphConfig: {numLayers: N}, operations: [...]}")
    config = as_mapping(value, path)
    check_keys(config, path, ("graphConfig", "operations"))
    graph = as_mapping(config.get("graphConfig") or {}, f"{path}.graphConfig")
    check_keys(graph, f"{path}.graphConfig", ("numLayers", "inputSizes", "outputSizes"))
    if "numLayers" not in graph:
        raise SpecError(f"{path}.graphConfig.numLayers", "is missing",
                        allowed="numLayers: a whole number >= 1")
    for key in ("inputSizes", "outputSizes"):
        if key in graph:
            notes.append(Note(f"{path}.graphConfig.{key}", f"{describe(graph[key])} not carried: hpnb reads "
                                                           "the channels and classes from the data"))
    operations = config.get("operations")
    if not isinstance(operations, list) or not operations:
        raise SpecError(f"{path}.operations", "must be a non-empty list of operations", value=operations,
                        allowed="- {operationType: TYPE, parameters: [{name: filter_size, ...}]}")
    layers = as_int(graph["numLayers"], f"{path}.graphConfig.numLayers", minimum=1)
    return {"layers": layers,
            "operations": [_operation(item, f"{path}.operations[{i}]") for i, item in enumerate(operations)]}


def _operation(item: Any, path: str) -> Any:
    item = as_mapping(item, path, allowed="{operationType: TYPE, parameters: [...]}")
    check_keys(item, path, ("operationType", "parameters"))
    kind = item.get("operationType")
    if kind not in OPERATION_TYPES:
        raise SpecError(f"{path}.operationType", "is not an operation type Katib knows", value=kind,
                        allowed=tuple(OPERATION_TYPES), suggestion=closest(str(kind), tuple(OPERATION_TYPES)))
    parameters = item.get("parameters") or []
    if not isinstance(parameters, list):
        raise SpecError(f"{path}.parameters", "must be a list", value=parameters,
                        allowed="[{name: filter_size, parameterType: categorical, "
                                "feasibleSpace: {list: [...]}}]")
    sizes: list[int] = []
    for index, parameter in enumerate(parameters):
        where = f"{path}.parameters[{index}]"
        parameter = as_mapping(parameter, where)
        check_keys(parameter, where, ("name", "parameterType", "feasibleSpace"))
        if parameter.get("name") != _FILTER:
            raise SpecError(f"{where}.name", "is not a parameter of Katib's operations",
                            value=parameter.get("name"), allowed=_FILTER)
        listed = as_mapping(parameter.get("feasibleSpace") or {}, f"{where}.feasibleSpace").get("list")
        if not isinstance(listed, list) or not listed:
            raise SpecError(f"{where}.feasibleSpace.list", "must list the filter sizes", value=listed,
                            allowed='["3", "5"]')
        for position, size in enumerate(listed):
            number = as_int(size, f"{where}.feasibleSpace.list[{position}]", minimum=1)
            if number not in OPERATION_TYPES[kind]:
                raise SpecError(f"{where}.feasibleSpace.list[{position}]",
                                f"{kind} has no form with filter size {number}", value=size,
                                allowed=", ".join(map(str, OPERATION_TYPES[kind])) or "none")
            sizes.append(number)
    return {"type": kind, "filter_sizes": sizes} if sizes else kind


def nas_config(section: Mapping[str, Any]) -> dict[str, Any]:
    """A ``nas:`` section's ``nasConfig``: ``numLayers`` and each operation type with its filter sizes
    (an operation given by its genotype name, ``max_pooling_3x3``, joins its type's list)."""
    by_type: dict[str, list[int]] = {}
    for item in section.get("operations") or list(OPERATION_TYPES):
        kind, sizes = _type_and_sizes(item)
        listed = by_type.setdefault(kind, [])
        listed.extend(size for size in sizes if size not in listed)
    operations: list[dict[str, Any]] = []
    for kind, sizes in by_type.items():
        operation: dict[str, Any] = {"operationType": kind}
        if sizes:
            operation["parameters"] = [{"name": _FILTER, "parameterType": "categorical",
                                        "feasibleSpace": {"list": [value_text(s) for s in sizes]}}]
        operations.append(operation)
    return {"graphConfig": {"numLayers": section["layers"]}, "operations": operations}


def _type_and_sizes(item: Any) -> tuple[str, list[int]]:
    """An operation of a ``nas:`` section (already checked by :mod:`hpnb.nas`) as type and sizes."""
    if isinstance(item, Mapping):
        sizes = item.get("filter_sizes", item.get("filter_size"))
        listed = sizes if isinstance(sizes, list) else ([] if sizes is None else [sizes])
        kind = str(item["type"])
        return kind, [int(s) for s in listed] or list(OPERATION_TYPES.get(kind, ()))
    name = DARTS_NAMES.get(str(item), str(item))
    if name in OPERATION_TYPES:
        return name, list(OPERATION_TYPES[name])
    kind, _, size = name.rpartition("_")
    return kind, [int(size.split("x")[0])]


def darts_algorithm(darts: Mapping[str, Any], notes: list[Note]) -> dict[str, Any]:
    """``nas.darts`` as Katib's ``algorithm`` (hpnb's own settings said in notes)."""
    settings = {k: v for k, v in darts.items() if k in DARTS_SETTINGS}
    for name, value in darts.items():
        if name == "order" and value == "second":
            continue  # Katib's DARTS trial is second order
        if name not in DARTS_SETTINGS:
            what = ("Katib's DARTS trial is second order only" if name == "order"
                    else "Katib has no guard against skip connections" if name == "stop_at_skip_connections"
                    else "Katib's darts has no such setting")
            notes.append(Note(f"nas.darts.{name}", f"{describe(value)} not carried: {what}"))
    algorithm: dict[str, Any] = {"algorithmName": "darts"}
    if settings:
        algorithm["algorithmSettings"] = settings_list(settings)
    return algorithm


def darts_trial_template() -> dict[str, Any]:
    """Katib's DARTS trial (its example's): the image gets the settings, space and layers."""
    references = (("algorithmSettings", "Algorithm settings of DARTS Experiment", "algorithm-settings"),
                  ("searchSpace", "Search Space of DARTS Experiment", "search-space"),
                  ("numberLayers", "Number of Neural Network layers", "num-layers"))
    flags = [f'--{reference}="${{trialParameters.{name}}}"' for name, _, reference in references]
    container = {"name": "training-container", "image": DARTS_IMAGE,
                 "command": ["python3", "run_trial.py", *flags]}
    pod = {"containers": [container], "restartPolicy": "Never"}
    return {"primaryContainerName": "training-container",
            "trialParameters": [{"name": n, "description": d, "reference": r} for n, d, r in references],
            "trialSpec": {"apiVersion": "batch/v1", "kind": "Job", "spec": {"template": {"spec": pod}}}}


def genotype_collector() -> dict[str, Any]:
    """Katib's metrics collector of a DARTS trial: its ``Best-Genotype=Genotype(...)`` line."""
    return {"collector": {"kind": "StdOut"},
            "source": {"filter": {"metricsFormat": ["([\\w-]+)=(Genotype.*)"]}}}
