"""The fields of the installed ``TrainingArguments`` and ``LoraConfig``, read from their source
with :mod:`ast`, so that a spec is checked against the versions the workers run without the
notebook's process importing transformers or peft (seconds and hundreds of MB).

A field's type is known when its annotation names only plain types (``int``, ``float``, ``str``,
``bool``, ``list``, ``dict``, ``None``); an enum or a class of the library takes its value as
text or as the library defines it, and is left to the library to check on the worker.

Example:
    >>> fields = installed_fields("training")
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

    def accepts(self, value: Any) -> bool:
        """Whether ``value`` (as YAML gives it) fits the field's annotation."""
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
    for module, name in reversed(SOURCES[kind]):  # the bases first, the class's own override them
        found.update(_class_fields(_source_file(module), name))
    return tuple(found.items())


def _source_file(module: str) -> Path:
    """The file of ``module``, found without importing its package (``find_spec`` of a submodule
    would import the package: seconds for transformers)."""
    top, _, rest = module.partition(".")
    spec = importlib.util.find_spec(top)
    if spec is None or spec.origin is None:
        raise ModuleNotFoundError(f"{top} is not installed: pip install 'hpnb[llm]'")
    return Path(spec.origin).parent.joinpath(*rest.split(".")).with_suffix(".py")


def _class_fields(path: Path, class_name: str) -> dict[str, FieldInfo]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    node = next((n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == class_name), None)
    if node is None:
        raise ImportError(f"{class_name} is not defined in {path.name}: an unknown version of its library")
    fields = {}
    for item in node.body:
        if isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name) and _is_init(item.value):
            text = ast.unparse(item.annotation)
            if not text.startswith("ClassVar"):
                fields[item.target.id] = FieldInfo(item.target.id, text, _types(item.annotation))
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
