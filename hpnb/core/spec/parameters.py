"""The ``parameters:`` section of a spec in all its accepted forms.

* compact mapping: ``batch: 64`` (fixed), ``optimizer: [sgd, adam]`` (categorical),
  ``depth: [2, 4, 8]`` (ordered: a list of numbers), ``seed: {values: [1, 7, 42], ordered: false}``,
  ``lr: {distribution: logUniform, min: 1e-5, max: 0.1}``, ``layers: {type: int, min: 1, max: 4}``;
* Legion strings: ``alpha: "1.0"`` (fixed 1.0), ``alpha: "[0.1, 10]"`` (a continuous uniform range),
  ``alpha: {range: "[0.1, 10]", step: "0.1"}``;
* a Katib list: ``- {name: lr, parameterType: double, feasibleSpace: {min: "0.01", max: "0.1"}}``.

A mapping (or a Katib item) may add ``when: {optimizer: sgd}``: the parameter is then active only
where its condition holds (see :mod:`hpnb.core.conditions`).

Example:
    >>> space = parse_parameters({"lr": "[0.1, 10]", "opt": ["sgd", "adam"], "batch": "64"})
    >>> [p.describe() for p in space]
    ['uniform [0.1, 10]', 'categorical [sgd, adam]', 'fixed 64']
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sized
from typing import Any

from hpnb.core.conditions import Condition, parse_when, same_value
from hpnb.core.errors import SpecError
from hpnb.core.ordinal_parameter import is_number
from hpnb.core.space import (
    DISTRIBUTIONS,
    CategoricalParameter,
    FixedParameter,
    FloatParameter,
    IntParameter,
    OrdinalParameter,
    Parameter,
    SearchSpace,
)
from hpnb.core.spec.values import (
    MAX_CATEGORICAL_VALUES,
    MAX_PARAMETERS,
    as_bool,
    as_float,
    as_int,
    as_mapping,
    as_number,
    as_text,
    check_keys,
    choose,
    number_from_text,
)
from hpnb.core.spec.yaml_lines import LineTable

#: ``type:`` / ``parameterType:`` spellings and the kind each one means.
TYPES: dict[str, str] = {"double": "double", "float": "double", "int": "int", "integer": "int",
                         "categorical": "categorical", "discrete": "discrete", "fixed": "fixed"}
_COMMON_KEYS = ("type", "parameterType", "feasibleSpace")
TYPE_KEYS: dict[str, tuple[str, ...]] = {
    "fixed": ("value",),
    "categorical": ("values", "list", "ordered", "default"),
    "discrete": ("values", "list", "ordered", "default"),
    "int": ("min", "max", "range", "step", "log", "distribution", "default"),
    "double": ("min", "max", "range", "step", "log", "distribution", "mu", "sigma", "mean", "std", "default"),
}
PARAMETER_KEYS = tuple(dict.fromkeys(_COMMON_KEYS + sum(TYPE_KEYS.values(), ())))
FEASIBLE_SPACE_KEYS = ("min", "max", "step", "list", "distribution")
KATIB_ITEM_KEYS = ("name", *PARAMETER_KEYS)
_NUMBER = r"\s*([+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)\s*"
_RANGE_TEXT = re.compile(rf"^\s*\[{_NUMBER},{_NUMBER}\]\s*$")
_SCALARS = (str, int, float, bool, type(None))


def _value_lists(definition: Any) -> list[tuple[str, Sized]]:
    """The lists of values in one parameter definition, by key (``""`` for a bare list)."""
    if isinstance(definition, list):
        return [("", definition)]
    if not isinstance(definition, Mapping):
        return []
    found = [(f".{key}", definition[key]) for key in ("values", "list")
             if isinstance(definition.get(key), Sized)]
    space = definition.get("feasibleSpace")
    if isinstance(space, Mapping) and isinstance(space.get("list"), Sized):
        found.append((".feasibleSpace.list", space["list"]))
    return found


def check_parameter_sizes(data: Any, path: str = "parameters") -> None:
    """Refuse more than MAX_PARAMETERS parameters, or a list of more than MAX_CATEGORICAL_VALUES
    values, counting only: nothing is read or copied before this check."""
    if not isinstance(data, (Mapping, list)):
        return
    if len(data) > MAX_PARAMETERS:
        raise SpecError(path, f"declares {len(data):,} parameters, more than the limit of {MAX_PARAMETERS:,} "
                        "(MAX_PARAMETERS)", allowed=f"at most {MAX_PARAMETERS:,} parameters")
    items = data.items() if isinstance(data, Mapping) else enumerate(data)
    for name, definition in items:
        for key, values in _value_lists(definition):
            if len(values) > MAX_CATEGORICAL_VALUES:
                raise SpecError(f"{path}.{name}{key}", f"lists {len(values):,} values, more than the limit "
                                f"of {MAX_CATEGORICAL_VALUES:,} (MAX_CATEGORICAL_VALUES)",
                                allowed=f"at most {MAX_CATEGORICAL_VALUES:,} values, or a range (min, max)")


def parse_parameters(data: Any, lines: LineTable | None = None, path: str = "parameters") -> SearchSpace:
    """Read a ``parameters:`` mapping or Katib list into a :class:`SearchSpace`."""
    if data is None:
        return SearchSpace(())
    conditions: list[Condition] = []
    if isinstance(data, list):
        parameters = _katib_list(data, lines or LineTable(), path, conditions)
    else:
        data = as_mapping(data, path, allowed="a mapping of name: definition, or a Katib list of {name: ...}")
        parameters = [parse_parameter(name, _split_when(name, value, conditions), f"{path}.{name}")
                      for name, value in data.items()]
    return SearchSpace(tuple(parameters), conditions=tuple(conditions))


def _split_when(name: str, definition: Any, conditions: list[Condition]) -> Any:
    """The definition without its ``when:`` (a mapping's only), whose condition joins ``conditions``."""
    if not isinstance(definition, Mapping) or "when" not in definition:
        return definition
    conditions.append(parse_when(str(name), definition["when"]))
    return {key: value for key, value in definition.items() if key != "when"}


def _katib_list(items: list[Any], lines: LineTable, path: str,
                conditions: list[Condition]) -> list[Parameter]:
    parameters: list[Parameter] = []
    for index, item in enumerate(items):
        item_path = f"{path}.{index}"
        item = as_mapping(item, item_path, allowed="{name: ..., parameterType: ..., feasibleSpace: {...}}")
        check_keys(item, item_path, (*KATIB_ITEM_KEYS, "when"))
        if "name" not in item:
            raise SpecError(f"{item_path}.name", "every parameter in a list needs a name",
                            allowed="name: followed by the parameter's name",
                            line=lines.find(item_path))
        name = as_text(item["name"], f"{item_path}.name")
        if any(p.name == name for p in parameters):
            raise SpecError(f"{path}.{name}", "duplicate parameter name", value=name,
                            allowed="each name once", line=lines.find(f"{item_path}.name"))
        lines.alias(item_path, f"{path}.{name}")
        lines.alias(f"{item_path}.feasibleSpace", f"{path}.{name}")
        definition = _split_when(name, {key: value for key, value in item.items() if key != "name"},
                                 conditions)
        parameters.append(parse_parameter(name, definition, f"{path}.{name}"))
    return parameters


def parse_parameter(name: str, value: Any, path: str) -> Parameter:
    """One parameter from any accepted form (see the module docstring)."""
    if isinstance(value, Mapping):
        return _from_mapping(name, _flatten(as_mapping(value, path), path), path)
    if isinstance(value, list):
        return _listed(name, value, path, kind=None, ordered=None, default=None)
    if isinstance(value, str):
        number = number_from_text(value)
        if number is not None:
            return FixedParameter(name, number)
        bounds = _range_text(value)
        if bounds is not None:
            return _double(name, {"min": bounds[0], "max": bounds[1]}, path)
        return FixedParameter(name, value)
    if isinstance(value, _SCALARS):
        if isinstance(value, float) and not math.isfinite(value):
            raise SpecError(path, "must be a finite number", value=value)
        return FixedParameter(name, value)
    raise SpecError(path, "is not a parameter definition", value=value,
                    allowed="a value (fixed), a list (categorical) or a mapping with min/max")


def _range_text(text: str) -> tuple[int | float, int | float] | None:
    match = _RANGE_TEXT.match(text)
    if match is None:
        return None
    low, high = number_from_text(match[1]), number_from_text(match[2])
    assert low is not None and high is not None
    return low, high


def _flatten(data: Mapping[str, Any], path: str) -> dict[str, Any]:
    """Merge a Katib ``feasibleSpace`` into its parameter and resolve synonyms."""
    check_keys(data, path, PARAMETER_KEYS)
    flat = {key: value for key, value in data.items() if key != "feasibleSpace"}
    if "feasibleSpace" in data:
        space = as_mapping(data["feasibleSpace"], f"{path}.feasibleSpace")
        check_keys(space, f"{path}.feasibleSpace", FEASIBLE_SPACE_KEYS)
        for key, value in space.items():
            if key in flat:
                raise SpecError(f"{path}.{key}", "is given both inside and outside feasibleSpace",
                                value=value)
            flat[key] = value
    for first, second in (("type", "parameterType"), ("values", "list"), ("mu", "mean"), ("sigma", "std"),
                          ("min", "range"), ("max", "range")):
        if first in flat and second in flat:
            raise SpecError(f"{path}.{second}", f"give either {first} or {second}, not both",
                            value=flat[second])
    for alias, key in (("list", "values"), ("mean", "mu"), ("std", "sigma")):
        if alias in flat:
            flat[key] = flat.pop(alias)
    if "range" in flat:
        bounds = flat.pop("range")
        low_high = _range_text(bounds) if isinstance(bounds, str) else None
        if isinstance(bounds, list) and len(bounds) == 2:
            low_high = (as_number(bounds[0], f"{path}.range"), as_number(bounds[1], f"{path}.range"))
        if low_high is None:
            raise SpecError(f"{path}.range", "is not a range", value=bounds,
                            allowed='"[min, max]", e.g. "[0.1, 10]"')
        flat["min"], flat["max"] = low_high
    return flat


def _infer_kind(flat: Mapping[str, Any], path: str) -> str:
    for key in ("type", "parameterType"):
        if key in flat:
            return TYPES[choose(flat[key], f"{path}.{key}", TYPES, "parameter type")]
    if "values" in flat:
        return "categorical"
    if "value" in flat:
        return "fixed"
    if any(key in flat for key in ("mu", "sigma", "distribution")):
        return "double"
    if "min" in flat or "max" in flat:
        numbers = [number_from_text(v) if isinstance(v, str) else v
                   for v in (flat.get("min"), flat.get("max"), flat.get("step", 1))]
        integral = all(isinstance(n, int) and not isinstance(n, bool) for n in numbers)
        return "int" if integral else "double"
    raise SpecError(path, "does not say what values the parameter takes", value=dict(flat),
                    allowed="min and max, a list of values (values: or list:), or value:")


def _from_mapping(name: str, flat: dict[str, Any], path: str) -> Parameter:
    kind = _infer_kind(flat, path)
    for key in flat:
        if key not in ("type", "parameterType") and key not in TYPE_KEYS[kind]:
            raise SpecError(f"{path}.{key}", f"is not used by a {kind} parameter", value=flat[key],
                            allowed=", ".join(TYPE_KEYS[kind]))
    if kind == "fixed":
        if "value" not in flat:
            raise SpecError(f"{path}.value", "a fixed parameter needs a value",
                            allowed="value: followed by it")
        return FixedParameter(name, _scalar(flat["value"], f"{path}.value"))
    if kind in ("categorical", "discrete"):
        if "values" not in flat:
            raise SpecError(f"{path}.list", f"a {kind} parameter needs a list of values",
                            allowed="list: [a, b, ...] (or values:)")
        written = next((flat[key] for key in ("type", "parameterType") if key in flat), None)
        return _listed(name, flat["values"], f"{path}.list", kind=None if written is None else kind,
                       ordered=flat.get("ordered"), default=flat.get("default"))
    if kind == "int":
        return _int(name, flat, path)
    return _double(name, flat, path)


def _scalar(value: Any, path: str) -> Any:
    if not isinstance(value, _SCALARS):
        raise SpecError(path, "must be a single value", value=value,
                        allowed="a string, number, boolean or null")
    return value


def _listed(name: str, values: Any, path: str, *, kind: str | None, ordered: Any, default: Any) -> Parameter:
    """A list of values: ordered when they are all numbers (unless ``ordered: false`` or a written
    ``type: categorical`` says otherwise), categorical when not, fixed when there is one value
    (unless ``type: categorical`` is written, as a stored search's spec writes it)."""
    if not isinstance(values, list):
        raise SpecError(path, "must be a list", value=values, allowed="a list such as [a, b, c]")
    if not values:
        raise SpecError(path, "a list of values needs at least one value", value=values,
                        allowed="a list with one or more values")
    choices = [_scalar(v, f"{path}.{i}") for i, v in enumerate(values)]
    parent = path.rsplit(".", 1)[0]
    if kind == "discrete":
        choices = [as_number(v, f"{path}.{i}", allowed="a number (discrete values are numbers)")
                   for i, v in enumerate(choices)]
        if default is not None:
            default = as_number(default, f"{parent}.default")
    numeric = all(is_number(v) for v in choices)
    order = None if ordered is None else as_bool(ordered, f"{parent}.ordered")
    if order is not None and not numeric and (order or all(isinstance(v, str) for v in choices)):
        raise SpecError(f"{parent}.ordered", "only a list of numbers has an order", value=order,
                        allowed="numbers, or leave ordered out (a list of labels is categorical)")
    if len(choices) == 1 and kind != "categorical":
        if default is not None and not same_value(default, choices[0]):
            raise SpecError(f"{parent}.default", "is not one of the values", value=default,
                            allowed=str(choices[0]))
        return FixedParameter(name, choices[0])
    if (numeric and kind != "categorical") if order is None else order:
        return OrdinalParameter(name, tuple(choices), default=default)
    return CategoricalParameter(name, tuple(choices), default=default)


def _int(name: str, flat: Mapping[str, Any], path: str) -> Parameter:
    for key in ("min", "max"):
        if key not in flat:
            raise SpecError(f"{path}.{key}", f"an int parameter needs {key}", allowed="an integer")
    log = as_bool(flat.get("log", False), f"{path}.log")
    distribution = flat.get("distribution")
    if distribution is not None:
        choose(distribution, f"{path}.distribution", DISTRIBUTIONS, "distribution")
        if distribution not in ("uniform", "logUniform"):
            raise SpecError(f"{path}.distribution", "int parameters are drawn uniformly or log-uniformly",
                            value=distribution, allowed="uniform, logUniform (or log: true); "
                            "use type: double for normal and logNormal")
        log = log or distribution == "logUniform"
    default = flat.get("default")
    return IntParameter(name, as_int(flat["min"], f"{path}.min"), as_int(flat["max"], f"{path}.max"),
                        step=as_int(flat.get("step", 1), f"{path}.step"), log=log,
                        default=None if default is None else as_int(default, f"{path}.default"))


def _double_distribution(flat: Mapping[str, Any], path: str) -> str:
    log = as_bool(flat.get("log", False), f"{path}.log")
    if "distribution" not in flat:
        has_scale = "mu" in flat or "sigma" in flat
        return ("logNormal" if log else "normal") if has_scale else ("logUniform" if log else "uniform")
    distribution = choose(flat["distribution"], f"{path}.distribution", DISTRIBUTIONS, "distribution")
    if log and not distribution.startswith("log"):
        raise SpecError(f"{path}.log", f"contradicts distribution {distribution}", value=True,
                        allowed="log: true with logUniform or logNormal (or leave log out)")
    return distribution


def _double(name: str, flat: Mapping[str, Any], path: str) -> Parameter:
    distribution = _double_distribution(flat, path)
    numbers = {key: as_float(flat[key], f"{path}.{key}")
               for key in ("min", "max", "mu", "sigma", "step", "default") if flat.get(key) is not None}
    low, high = numbers.get("min"), numbers.get("max")
    if distribution in ("uniform", "logUniform"):
        for key in ("mu", "sigma"):
            if key in numbers:
                raise SpecError(f"{path}.{key}", f"is not used by a {distribution} distribution",
                                value=numbers[key], allowed="min, max, step (mu and sigma are for normal)")
    elif "mu" not in numbers and "sigma" not in numbers and low is not None and high is not None:
        numbers["mu"], numbers["sigma"] = _katib_normal(distribution, low, high, path)
    return FloatParameter(name, distribution, low=low, high=high, mu=numbers.get("mu"),  # type: ignore[arg-type]
                          sigma=numbers.get("sigma"), step=numbers.get("step"),
                          default=numbers.get("default"))


def _katib_normal(distribution: str, low: float, high: float, path: str) -> tuple[float, float]:
    """Katib's normal from bounds alone: mu at the middle, the bounds three sigmas away."""
    if not low < high:
        raise SpecError(f"{path}.max", "must be greater than min", value=high,
                        allowed=f"a number above {low}")
    if distribution == "logNormal":
        if low <= 0:
            raise SpecError(f"{path}.min", "logNormal bounds must be > 0", value=low, allowed="a number > 0")
        low, high = math.log(low), math.log(high)
    return (low + high) / 2, (high - low) / 6
