"""The fields of the installed ``TrainingArguments`` and ``LoraConfig``, read from their source
with :mod:`ast`, so that a spec is checked against the versions the workers run without the
notebook's process importing transformers or peft (seconds and hundreds of MB).

A field's type is known when its annotation names only plain types (``int``, ``float``, ``str``,
``bool``, ``list``, ``dict``, ``None``); an enum or a class of the library takes its value as
text or as the library defines it, and is left to the library to check on the worker.

Example:
    >>> fields = installed_fields("training")
    >>> fields["lr_scheduler_type"].accepts("cosine"), fields["lr_scheduler_type"].accepts("cosin")
    (True, False)
    >>> fields["learning_rate"].accepts(0.001), fields["learning_rate"].accepts("fast")
    (True, False)
    >>> fields["num_train_epochs"].describe()
    'float'
"""

from __future__ import annotations

import ast
import functools
import importlib.util
from dataclasses import dataclass
from pathlib import Path
from typing import Any

#: where each kind of field is defined: (module, class), the class's bases after it.
#: the modules whose enums the fields of each kind name (``SchedulerType``, ``IntervalStrategy``...).
ENUM_MODULES: dict[str, tuple[str, ...]] = {
    "training": ("transformers.training_args", "transformers.trainer_utils"), "lora": ()}
SOURCES: dict[str, tuple[tuple[str, str], ...]] = {
    "training": (("transformers.training_args", "TrainingArguments"),),
    "lora": (("peft.tuners.lora.config", "LoraConfig"), ("peft.config", "PeftConfig"),
             ("peft.config", "PeftConfigMixin")),
}
#: the Python types each plain annotation name accepts.
_PLAIN: dict[str, tuple[type, ...]] = {
    "int": (int,), "float": (int, float), "str": (str,), "bool": (bool,), "list": (list,),
    "List": (list,), "tuple": (list,), "Tuple": (list,), "dict": (dict,), "Dict": (dict,),
    "None": (type(None),), "Optional": (type(None),), "Union": (), "Literal": (str,),
}


@dataclass(frozen=True)
class FieldInfo:
    """One field of a dataclass: its name and the Python types its annotation admits (None when
    the annotation names a library type that hpnb does not check)."""

    name: str
    annotation: str
    types: tuple[type, ...] | None
    #: the texts the field takes, when it is an enum of the library's or a ``Literal`` of texts
    choices: tuple[str, ...] | None = None

    def accepts(self, value: Any) -> bool:
        """Whether ``value`` (as YAML gives it) fits the field's annotation."""
        if isinstance(value, str) and self.choices is not None:
            return value in self.choices
        if self.types is None:
            return True
        if isinstance(value, bool) and bool not in self.types:
            return False
        return isinstance(value, self.types)

    @property
    def takes_list(self) -> bool:
        """Whether a list is one value of this field (``target_modules``, ``report_to``)."""
        return "list" in self.annotation.lower()

    def describe(self) -> str:
        return self.annotation


def installed_fields(kind: str) -> dict[str, FieldInfo]:
    """The init fields of ``TrainingArguments`` (``kind="training"``) or ``LoraConfig`` (``"lora"``)
    of the installed library, by name.

    Raises:
        ModuleNotFoundError: the library is not installed (``pip install 'hpnb[llm]'``).
    """
    return dict(_fields(kind))


@functools.cache
def _fields(kind: str) -> tuple[tuple[str, FieldInfo], ...]:
    found: dict[str, FieldInfo] = {}
    enums: dict[str, tuple[str, ...]] = {}
    for module in ENUM_MODULES[kind]:
        enums.update(_enums(ast.parse(_source_file(module).read_text(encoding="utf-8"))))
    for module, name in reversed(SOURCES[kind]):  # the bases first, the class's own override them
        found.update(_class_fields(_source_file(module), name, enums))
    return tuple(found.items())


def _source_file(module: str) -> Path:
    """The file of ``module``, found without importing its package (``find_spec`` of a submodule
    would import the package: seconds for transformers)."""
    top, _, rest = module.partition(".")
    spec = importlib.util.find_spec(top)
    if spec is None or spec.origin is None:
        raise ModuleNotFoundError(f"{top} is not installed: pip install 'hpnb[llm]'")
    return Path(spec.origin).parent.joinpath(*rest.split(".")).with_suffix(".py")


def _enums(tree: ast.Module) -> dict[str, tuple[str, ...]]:
    """The text values of each enum class of a module (``class SchedulerType(ExplicitEnum)``)."""
    found = {}
    for node in tree.body:
        bases = {getattr(base, "id", getattr(base, "attr", "")) for base in getattr(node, "bases", ())}
        if isinstance(node, ast.ClassDef) and bases & {"ExplicitEnum", "Enum"}:
            values = [item.value.value for item in node.body if isinstance(item, ast.Assign)
                      and isinstance(item.value, ast.Constant) and isinstance(item.value.value, str)]
            if values:
                found[node.name] = tuple(values)
    return found


def _choices(annotation: ast.expr, enums: dict[str, tuple[str, ...]]) -> tuple[str, ...] | None:
    """The texts a field takes: its enums' values (``SchedulerType | str``), or a ``Literal`` of
    texts alone; None when it takes other texts too (a list of options, a pattern)."""
    names = [getattr(node, "id", getattr(node, "attr", "")) for node in ast.walk(annotation)
             if isinstance(node, (ast.Name, ast.Attribute))]
    if set(names) == {"Literal"}:
        values = [node.value for node in ast.walk(annotation) if isinstance(node, ast.Constant)]
        texts = tuple(value for value in values if isinstance(value, str))
        return texts if texts and len(texts) == len(values) else None
    named = [enums[name] for name in names if name in enums]
    plain = ("str", "None", "Optional", "Union")
    if not named or any(name not in enums and name not in plain for name in names):
        return None
    return tuple(dict.fromkeys(value for values in named for value in values))


def _class_fields(path: Path, class_name: str, enums: dict[str, tuple[str, ...]]) -> dict[str, FieldInfo]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    node = next((n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == class_name), None)
    if node is None:
        raise ImportError(f"{class_name} is not defined in {path.name}: an unknown version of its library")
    fields = {}
    for item in node.body:
        if isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name) and _is_init(item.value):
            text = ast.unparse(item.annotation)
            if not text.startswith("ClassVar"):
                choices = _choices(item.annotation, enums)
                optional = "None" in text or "Optional" in text
                types = ((str, type(None)) if optional else (str,)) if choices is not None \
                    else _types(item.annotation)
                fields[item.target.id] = FieldInfo(item.target.id, text, types, choices)
    return fields


def _is_init(value: ast.expr | None) -> bool:
    """False for ``field(init=False, ...)``."""
    if isinstance(value, ast.Call) and getattr(value.func, "id", getattr(value.func, "attr", "")) == "field":
        return not any(k.arg == "init" and isinstance(k.value, ast.Constant) and k.value.value is False
                       for k in value.keywords)
    return True


def _types(annotation: ast.expr) -> tuple[type, ...] | None:
    """The types a plain annotation admits; None when it names anything else."""
    names: list[str] = []
    for node in ast.walk(annotation):
        if isinstance(node, ast.Name):
            names.append(node.id)
        elif isinstance(node, ast.Attribute):
            names.append(node.attr)
        elif isinstance(node, ast.Constant) and node.value is None:
            names.append("None")
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            return None  # a quoted forward reference
    if "Literal" in names:
        return (str, int, float, bool)
    if any(name not in _PLAIN and name != "Any" for name in names) or "Any" in names:
        return None
    return tuple(dict.fromkeys(t for name in names for t in _PLAIN[name]))
