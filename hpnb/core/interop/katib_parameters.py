"""Katib's ``parameters`` list, both ways: items to :class:`Parameter` objects and back.

Reading is strict about Katib's own format (``parameterType`` one of Katib's four
types, ``feasibleSpace`` with Katib's keys, ``min`` and ``max`` for numbers, a
``list`` for the others) and then reads each item as the spec does. Katib has no
fixed parameter: a range with ``min == max`` or a list of one value is read as a
fixed value, and a fixed value is written as such a range or list.

Example:
    >>> items = [{"name": "lr", "parameterType": "double",
    ...           "feasibleSpace": {"min": "0.01", "max": "0.1", "distribution": "logUniform"}}]
    >>> [p.describe() for p in parameters_from_katib(items, "spec.parameters", [])]
    ['logUniform [0.01, 0.1]']
    >>> parameter_to_katib(parameters_from_katib(items, "spec.parameters", [])[0], [])["feasibleSpace"]
    {'min': '0.01', 'max': '0.1', 'distribution': 'logUniform'}
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from hpnb.core.errors import SpecError
from hpnb.core.interop.katib_format import (
    FEASIBLE_SPACE_KEYS,
    PARAMETER_TYPES,
    Note,
    describe,
    number_text,
    value_text,
)
from hpnb.core.space import (
    CategoricalParameter,
    FixedParameter,
    FloatParameter,
    IntParameter,
    OrdinalParameter,
    Parameter,
)
from hpnb.core.spec.parameters import parse_parameter
from hpnb.core.spec.values import as_mapping, as_number, as_text, check_keys, choose

_ITEM_KEYS = ("name", "parameterType", "feasibleSpace")
_RANGE_KEYS = ("min", "max", "step", "distribution")
_SPEC_TYPES = {"float": "double", "integer": "int"}


def parameters_from_katib(items: Any, path: str, notes: list[Note]) -> list[Parameter]:
    """The parameters of a Katib ``parameters`` list; what is approximated is added to ``notes``."""
    if not isinstance(items, list) or not items:
        raise SpecError(path, "must be a non-empty list of parameters", value=items,
                        allowed="- {name: NAME, parameterType: double|int|discrete|categorical, "
                                "feasibleSpace: {...}}")
    parameters: list[Parameter] = []
    for index, item in enumerate(items):
        parameter = _from_item(item, f"{path}[{index}]", notes)
        if any(p.name == parameter.name for p in parameters):
            raise SpecError(f"{path}[{index}].name", "duplicate parameter name", value=parameter.name,
                            allowed="each name once")
        parameters.append(parameter)
    return parameters


def _from_item(item: Any, path: str, notes: list[Note]) -> Parameter:
    item = as_mapping(item, path, allowed="{name, parameterType, feasibleSpace}")
    check_keys(item, path, _ITEM_KEYS)
    name = as_text(item.get("name"), f"{path}.name", allowed="the parameter's name")
    if "parameterType" not in item:
        raise SpecError(f"{path}.parameterType", "is missing", allowed=PARAMETER_TYPES)
    written = item["parameterType"]
    if written in _SPEC_TYPES:  # hpnb's own spellings, which Katib does not know
        raise SpecError(f"{path}.parameterType", "unknown Katib parameter type", value=written,
                        allowed=PARAMETER_TYPES, suggestion=_SPEC_TYPES[written])
    kind = choose(written, f"{path}.parameterType", PARAMETER_TYPES, "Katib parameter type")
    space_path = f"{path}.feasibleSpace"
    if "feasibleSpace" not in item:
        raise SpecError(space_path, "is missing", allowed="feasibleSpace: {min, max} or {list}")
    space = as_mapping(item["feasibleSpace"], space_path, allowed="a mapping of min, max, step, list, "
                                                                  "distribution")
    check_keys(space, space_path, FEASIBLE_SPACE_KEYS)
    if kind in ("double", "int"):
        return _number(name, kind, space, space_path, notes)
    return _listed(name, kind, space, space_path, notes)


def _number(name: str, kind: str, space: Mapping[str, Any], path: str, notes: list[Note]) -> Parameter:
    if "list" in space:
        raise SpecError(f"{path}.list", f"is not used by a {kind} parameter", value=space["list"],
                        allowed="min, max, step, distribution (list is for discrete and categorical)")
    for key in ("min", "max"):
        if key not in space:
            article = "an" if kind == "int" else "a"
            raise SpecError(f"{path}.{key}", f"is missing: {article} {kind} parameter needs min and max",
                            allowed=f"{key}: a number, written as Katib does (a string such as \"0.01\")")
    low = as_number(space["min"], f"{path}.min")
    high = as_number(space["max"], f"{path}.max")
    if low == high:
        notes.append(Note(path, f"min == max: the fixed value {describe(low)}"))
        return FixedParameter(name, int(low) if kind == "int" else float(low))
    definition: dict[str, Any] = {"type": kind, **{k: space[k] for k in _RANGE_KEYS if k in space}}
    if kind == "double":  # integral bounds of a double stay a double
        definition["min"], definition["max"] = float(low), float(high)
    try:
        return parse_parameter(name, definition, path)
    except SpecError as err:  # the space checks name the parameter as the spec does
        spec_prefix = f"parameters.{name}."
        if err.path.startswith(spec_prefix):
            raise SpecError(f"{path}.{err.path[len(spec_prefix):]}", err.problem, value=err.value,
                            allowed=err.allowed, suggestion=err.suggestion) from None
        raise


def _listed(name: str, kind: str, space: Mapping[str, Any], path: str, notes: list[Note]) -> Parameter:
    for key in _RANGE_KEYS:
        if key in space:
            raise SpecError(f"{path}.{key}", f"is not used by a {kind} parameter", value=space[key],
                            allowed="list (min, max, step and distribution are for double and int)")
    if "list" not in space:
        raise SpecError(f"{path}.list", f"is missing: a {kind} parameter needs a list of values",
                        allowed="list: [\"a\", \"b\", ...]")
    values = space["list"]
    if isinstance(values, list) and len(values) == 1:
        value = as_number(values[0], f"{path}.list[0]") if kind == "discrete" else values[0]
        notes.append(Note(path, f"a list of one value: the fixed value {describe(value)}"))
        return FixedParameter(name, value)
    return parse_parameter(name, {"type": kind, "list": values}, path)


def compact_parameter(parameter: Parameter) -> Any:
    """The shortest spec form of ``parameter`` that reads back equal (for written specs).

    Example:
        >>> compact_parameter(IntParameter("layers", 1, 4))
        {'type': 'int', 'min': 1, 'max': 4}
    """
    if isinstance(parameter, FixedParameter):
        return {"value": parameter.value} if isinstance(parameter.value, str) else parameter.value
    if isinstance(parameter, OrdinalParameter) and parameter.default is None:
        return list(parameter.values)
    if isinstance(parameter, CategoricalParameter) and parameter.default is None:
        if all(_is_number(value) for value in parameter.choices):
            return {"values": list(parameter.choices), "ordered": False}
        return list(parameter.choices)
    out = parameter.to_dict()
    if out.get("distribution") == "uniform":
        del out["distribution"]
    if "min" in out and "max" in out and "mu" in out:  # Katib's normal: the bounds say it all
        shorter = {key: value for key, value in out.items() if key not in ("mu", "sigma")}
        if parse_parameter(parameter.name, shorter, parameter.name) == parameter:
            return shorter
    return out


def parameter_to_katib(parameter: Parameter, notes: list[Note]) -> dict[str, Any]:
    """``parameter`` as a Katib ``parameters`` item; what Katib cannot say is added to ``notes``."""
    path = f"parameters.{parameter.name}"
    if getattr(parameter, "default", None) is not None:
        notes.append(Note(f"{path}.default", f"{describe(parameter.default)}: Katib has no default value"))
    if isinstance(parameter, FloatParameter):
        kind, space = "double", _float_space(parameter, path, notes)
    elif isinstance(parameter, IntParameter):
        kind, space = "int", {"min": number_text(parameter.low), "max": number_text(parameter.high)}
        if parameter.step != 1:
            space["step"] = number_text(parameter.step)
        if parameter.log:
            space["distribution"] = "logUniform"
    elif isinstance(parameter, OrdinalParameter):
        kind, space = "discrete", {"list": [number_text(value) for value in parameter.values]}
    elif isinstance(parameter, CategoricalParameter):
        kind, space = _listed_space(parameter.choices, path, notes)
    else:
        assert isinstance(parameter, FixedParameter)
        kind, space = _fixed_space(parameter.value, path, notes)
    return {"name": parameter.name, "parameterType": kind, "feasibleSpace": space}


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _listed_space(choices: tuple[Any, ...], path: str, notes: list[Note]) -> tuple[str, dict[str, Any]]:
    if all(_is_number(value) for value in choices):
        notes.append(Note(path, "numbers that are labels (ordered: false) are written as Katib's "
                                "discrete list, which hpnb reads back as ordered"))
        return "discrete", {"list": [number_text(value) for value in choices]}
    if not all(isinstance(value, str) for value in choices):
        notes.append(Note(path, "Katib's categorical values are strings: the values that are not "
                                "(numbers, booleans, null) are written as text and read back as text"))
    texts = [value_text(value) for value in choices]
    if len(set(texts)) < len(texts):
        notes.append(Note(path, "some values are the same text (such as 1 and '1'): Katib will refuse "
                                "the list until they differ"))
    return "categorical", {"list": texts}


def _fixed_space(value: Any, path: str, notes: list[Note]) -> tuple[str, dict[str, Any]]:
    if isinstance(value, int) and not isinstance(value, bool):
        return "int", {"min": number_text(value), "max": number_text(value)}
    if isinstance(value, float):
        return "double", {"min": number_text(value), "max": number_text(value)}
    return _listed_space((value,), path, notes)


def _float_space(parameter: FloatParameter, path: str, notes: list[Note]) -> dict[str, Any]:
    low, high = parameter.low, parameter.high
    if parameter.distribution in ("normal", "logNormal"):
        low, high = _normal_bounds(parameter, path, notes)
    assert low is not None and high is not None
    space: dict[str, Any] = {"min": number_text(low), "max": number_text(high)}
    if parameter.step is not None:
        space["step"] = number_text(parameter.step)
    if parameter.distribution != "uniform":
        space["distribution"] = parameter.distribution
    return space


def _normal_bounds(parameter: FloatParameter, path: str, notes: list[Note]) -> tuple[float, float]:
    """Bounds that Katib reads as this normal: its centre is their middle, 3 sigmas to either side."""
    assert parameter.mu is not None and parameter.sigma is not None
    mu, sigma, log = parameter.mu, parameter.sigma, parameter.distribution == "logNormal"
    low, high = mu - 3 * sigma, mu + 3 * sigma
    if log:
        low, high = math.exp(low), math.exp(high)
    if parameter.low is None and parameter.high is None:
        notes.append(Note(path, f"Katib's {parameter.distribution} has bounds: written truncated to "
                                f"mu +- 3 sigma, [{low:g}, {high:g}]"))
        return low, high
    exact = parameter.low is not None and parameter.high is not None and \
        math.isclose(parameter.low, low, rel_tol=1e-9) and math.isclose(parameter.high, high, rel_tol=1e-9)
    if not exact:
        notes.append(Note(path, f"Katib centres a {parameter.distribution} between its bounds, 3 sigmas "
                                f"to either side: mu={mu:g}, sigma={sigma:g} are not carried, only the "
                                "bounds"))
    low = parameter.low if parameter.low is not None else low
    high = parameter.high if parameter.high is not None else high
    return low, high
