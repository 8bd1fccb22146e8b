"""The ``training:`` and ``lora:`` mappings of an ``llm:`` section: each field a value or a search
parameter written in hpnb's parameter syntax, checked against the installed ``TrainingArguments``
and ``LoraConfig`` before anything starts.

What is a parameter: a mapping (``{min: 1e-5, max: 1e-3, log: true}``, ``{values: [4, 8]}``) or,
for a field that does not take a list, a list (``r: [4, 8, 16]``). For a field that takes a list
(``target_modules``, ``report_to``) a list is its value; a choice between lists is written
``{values: [[q_proj, v_proj], [q_proj, k_proj, v_proj, o_proj]]}``: each list is searched as one
label (``q_proj,v_proj``) and given back to the field as the list. Parameters are named by their
field, as Katib's ``tune()`` names them; a name given in both mappings is an error.

Example:
    >>> fields = read_fields({"learning_rate": {"min": 1e-5, "max": 1e-3, "log": True},
    ...                       "num_train_epochs": 1}, "training")
    >>> fields.fixed, sorted(fields.parameters)
    ({'num_train_epochs': 1}, ['learning_rate'])
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from hpnb.core.errors import SpecError, closest
from hpnb.core.ordinal_parameter import OrdinalParameter
from hpnb.core.parameter_kinds import CategoricalParameter, FixedParameter, IntParameter, Parameter
from hpnb.core.spec.parameters import PARAMETER_KEYS, parse_parameter
from hpnb.llm.fields import FieldInfo, installed_fields

#: fields hpnb sets for every trial: giving them is an error that says why.
SET_BY_HPNB = {"output_dir": "each trial's Trainer writes to a folder of its own",
               "resume_from_checkpoint": "a paused or retried trial goes on from its own checkpoint"}
_WHAT = {"training": "TrainingArguments", "lora": "LoraConfig"}
_JOIN = ","


@dataclass(frozen=True)
class SearchedFields:
    """One mapping read: its fixed values, its parameters' definitions (as the spec's
    ``parameters:`` takes them), and the lists a searched label stands for."""

    kind: str
    fixed: dict[str, Any] = field(default_factory=dict)
    parameters: dict[str, Any] = field(default_factory=dict)
    lists: dict[str, dict[str, list[Any]]] = field(default_factory=dict)

    def values(self, params: Mapping[str, Any]) -> dict[str, Any]:
        """The fields' values for a trial of ``params`` (the fixed ones and the searched ones)."""
        chosen = {name: params[name] for name in self.parameters if name in params}
        for name, labels in self.lists.items():
            if name in chosen and chosen[name] in labels:
                chosen[name] = list(labels[chosen[name]])
        return {**self.fixed, **chosen}


def read_fields(data: Any, kind: str) -> SearchedFields:
    """Read ``llm.training`` (``kind="training"``) or ``llm.lora``; SpecError naming the field."""
    path = f"llm.{kind}"
    if data is None:
        return SearchedFields(kind)
    if not isinstance(data, Mapping):
        raise SpecError(path, f"must be a mapping of {_WHAT[kind]} fields", value=data)
    known = installed_fields(kind)
    read = SearchedFields(kind)
    for name, value in data.items():
        info = _known_field(str(name), known, f"{path}.{name}", kind)
        definition, labels = _definition(value, info)
        if definition is None:
            _check_value(value, info, f"{path}.{name}")
            read.fixed[info.name] = value
            continue
        parameter = parse_parameter(info.name, _without_when(definition), f"{path}.{name}")
        listed = isinstance(parameter, (CategoricalParameter, OrdinalParameter))
        for index, candidate in enumerate(_candidates(parameter)):
            where = f"{path}.{name}.values[{index}]" if listed else f"{path}.{name}"
            shown = labels.get(candidate, candidate) if listed else value
            _check_value(labels.get(candidate, candidate), info, where, shown)
        read.parameters[info.name] = definition
        if labels:
            read.lists[info.name] = labels
    return read


def _known_field(name: str, known: Mapping[str, FieldInfo], path: str, kind: str) -> FieldInfo:
    if name in SET_BY_HPNB:
        raise SpecError(path, f"is set by hpnb: {SET_BY_HPNB[name]}", allowed="leave it out")
    if name not in known:
        raise SpecError(path, f"is not a field of the installed {_WHAT[kind]}", value=name,
                        suggestion=closest(name, known), allowed=f"a field of {_WHAT[kind]}")
    return known[name]


def _definition(value: Any, info: FieldInfo) -> tuple[Any, dict[str, list[Any]]]:
    """The parameter definition ``value`` is (None: a plain value) and the lists its labels stand for."""
    if isinstance(value, Mapping) and value and set(value) <= {*PARAMETER_KEYS, "when"}:
        choices = value.get("values", value.get("list"))
        if info.takes_list and isinstance(choices, list) and any(isinstance(c, list) for c in choices):
            labels = {_JOIN.join(map(str, c)) if isinstance(c, list) else c: c for c in choices}
            key = "values" if "values" in value else "list"
            return {**value, key: list(labels)}, {k: v for k, v in labels.items() if isinstance(v, list)}
        return dict(value), {}
    if isinstance(value, list) and not info.takes_list:
        return value, {}
    return None, {}


def _without_when(definition: Any) -> Any:
    if isinstance(definition, Mapping):
        return {key: value for key, value in definition.items() if key != "when"}
    return definition


def _candidates(parameter: Parameter) -> list[Any]:
    """Values that stand for what ``parameter`` can take (its bounds for a range)."""
    if isinstance(parameter, FixedParameter):
        return [parameter.value]
    if isinstance(parameter, CategoricalParameter):
        return list(parameter.choices)
    if isinstance(parameter, OrdinalParameter):
        return list(parameter.values)
    if isinstance(parameter, IntParameter):
        return [parameter.low, parameter.high]
    return [0.5]  # a float range: any float stands for it


def _check_value(value: Any, info: FieldInfo, path: str, shown: Any = None) -> None:
    if isinstance(value, str) and info.choices is not None and value not in info.choices:
        raise SpecError(path, f"is not a value this field takes ({info.describe()})", value=value,
                        allowed=", ".join(info.choices), suggestion=closest(value, info.choices))
    if not info.accepts(value):
        raise SpecError(path, f"is of the wrong type for this field ({info.describe()})",
                        value=value if shown is None else shown, allowed=_allowed(info))


def _allowed(info: FieldInfo) -> str:
    names = {int: "an integer", float: "a number", str: "text", bool: "true or false", list: "a list",
             dict: "a mapping", type(None): "null"}
    return " or ".join(dict.fromkeys(names[t] for t in info.types or ())) or info.describe()


def check_no_clash(training: SearchedFields, lora: SearchedFields, given: Mapping[str, Any]) -> None:
    """A parameter named by its field must be one: refuse a field in both mappings, or a searched
    field whose name the spec's ``parameters:`` also declares differently."""
    for name in set(training.fixed) | set(training.parameters):
        if name in lora.fixed or name in lora.parameters:
            raise SpecError(f"llm.lora.{name}", "is also given in llm.training: a field is named once, "
                            "since its search parameter is named by the field", value=name,
                            allowed="give it in one of training: and lora:")
    for name in (*training.parameters, *lora.parameters):
        if name in given:
            raise SpecError(f"parameters.{name}", "is also a field searched in the llm: section",
                            value=name, allowed="declare it in llm.training or llm.lora only")
