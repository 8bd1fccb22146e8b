"""What reading and writing Katib v1beta1 Experiments share: names, settings lists and notes.

Katib writes every number of an Experiment's ``feasibleSpace`` and of its algorithm
settings as a string (``min: "0.01"``); :func:`number_text` writes a number so that
both Katib and hpnb read back the same value.

Example:
    >>> number_text(1e-05), number_text(64)
    ('1e-05', '64')
    >>> print(Note("spec.objective.goal", "not carried", line=9))
    spec.objective.goal [line 9]: not carried
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from hpnb.core.errors import SpecError, quote
from hpnb.core.spec.values import as_mapping, as_text, check_keys

API_VERSION = "kubeflow.org/v1beta1"
KIND = "Experiment"
#: Katib's objective types and the mode each one means.
OBJECTIVE_TYPES: dict[str, str] = {"minimize": "min", "maximize": "max"}
#: the annotation that keeps a search's objectives: Katib optimises one and records the others
#: (``additionalMetricNames``); its value is a JSON mapping ``{"metric": "min" | "max", ...}``, in order.
OBJECTIVES_ANNOTATION = "hpnb/objectives"
#: the annotation that keeps a search's constraints (Katib has none: it records the constrained
#: metrics, its algorithms and its best trial ignore them); a JSON mapping ``{"metric": {"max": 20}}``.
CONSTRAINTS_ANNOTATION = "hpnb/constraints"
#: Katib's parameter types (``parameterType``).
PARAMETER_TYPES: tuple[str, ...] = ("double", "int", "discrete", "categorical")
#: keys of Katib's ``feasibleSpace``.
FEASIBLE_SPACE_KEYS: tuple[str, ...] = ("min", "max", "step", "list", "distribution")
#: Katib's hyperparameter search algorithms that hpnb reads.
ALGORITHMS: tuple[str, ...] = ("random", "grid", "sobol", "tpe", "multivariate-tpe", "cmaes",
                               "bayesianoptimization", "hyperband", "pbt")
#: Katib's neural architecture search algorithms (not hyperparameter searches).
NAS_ALGORITHMS: tuple[str, ...] = ("enas", "darts")
#: Katib's early-stopping algorithms.
EARLY_STOPPING_ALGORITHMS: tuple[str, ...] = ("medianstop",)
#: Katib's medianstop defaults (its service's own).
MEDIANSTOP_DEFAULTS = {"min_trials_required": 3, "start_step": 4}
#: Katib's hyperband default ``eta``.
HYPERBAND_DEFAULT_ETA = 3
#: the container the exported trial template runs (Katib's ``primaryContainerName``).
TRIAL_CONTAINER = "training-container"
#: the image of the exported trial template: a placeholder the user replaces.
PLACEHOLDER_IMAGE = "FILL-IN/your-training-image:latest"


@dataclass(frozen=True)
class Note:
    """Something that does not carry over exactly: where it is, what happens to it."""

    field: str
    text: str
    line: int | None = None

    def __str__(self) -> str:
        where = f"{self.field} [line {self.line}]" if self.line is not None else self.field
        return f"{where}: {self.text}"


def number_text(value: int | float) -> str:
    """A number as the string Katib writes (the shortest text that reads back exactly)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise ValueError(f"not a finite number: {value!r}")
    return str(value) if isinstance(value, int) else repr(float(value))


def value_text(value: Any) -> str:
    """Any categorical value as Katib's string (``true``, ``null`` spelled as YAML does)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return "null"
    if isinstance(value, (int, float)):
        return number_text(value)
    return str(value)


@dataclass(frozen=True)
class Setting:
    """One ``{name, value}`` item of an ``algorithmSettings`` list."""

    name: str
    value: Any
    #: the path of its value, ``...algorithmSettings[2].value``.
    path: str

    @property
    def item(self) -> str:
        """The path of the whole item, ``...algorithmSettings[2]`` (where notes point)."""
        return self.path.rsplit(".", 1)[0]


def read_settings(value: Any, path: str) -> dict[str, Setting]:
    """A Katib ``algorithmSettings`` list as ``{name: Setting}``; a malformed list is a SpecError."""
    if value is None:
        return {}
    if not isinstance(value, list):
        raise SpecError(path, "must be a list of {name, value}", value=value,
                        allowed="- {name: SETTING, value: \"VALUE\"}")
    settings: dict[str, Setting] = {}
    for index, item in enumerate(value):
        item_path = f"{path}[{index}]"
        item = as_mapping(item, item_path, allowed="{name: SETTING, value: \"VALUE\"}")
        check_keys(item, item_path, ("name", "value"))
        name = as_text(item.get("name"), f"{item_path}.name", allowed="the setting's name")
        if name in settings:
            raise SpecError(f"{item_path}.name", "the same setting is given twice", value=name,
                            allowed="each setting once")
        if "value" not in item:
            raise SpecError(f"{item_path}.value", "is missing", allowed="value: the setting's value")
        settings[name] = Setting(name, item["value"], f"{item_path}.value")
    return settings


def settings_list(settings: Mapping[str, Any]) -> list[dict[str, str]]:
    """``{name: value}`` as Katib's ``algorithmSettings`` list of strings."""
    return [{"name": name, "value": value_text(value)} for name, value in settings.items()]


def describe(value: Any) -> str:
    """A value quoted for a note."""
    return quote(value)
