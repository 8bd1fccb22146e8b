"""YAML loading that remembers where every key is and refuses duplicate keys.

PyYAML's safe loader keeps the last of two equal keys without a word and
forgets line numbers once a document is built. :func:`load_yaml` composes the
node tree with the safe loader, walks it once to record the line of every
mapping key and list item (by dotted path) and to reject duplicate keys, then
constructs plain Python values with the same safe loader.

Example:
    >>> data, lines = load_yaml("metric: loss\\nparameters:\\n  lr: [1, 2]\\n")
    >>> data["parameters"]["lr"]
    [1, 2]
    >>> lines.find("parameters.lr")
    3
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

import yaml

from hpnb.core.errors import SpecError
from hpnb.core.spec.file import check_spec_size

#: a document whose aliases repeat more values than this is refused (alias bombs).
MAX_ALIAS_VALUES = 100_000


@dataclass
class LineTable:
    """1-based YAML line numbers keyed by dotted field path (``parameters.lr.max``)."""

    lines: dict[str, int] = field(default_factory=dict)

    def find(self, path: str) -> int | None:
        """The line of ``path``, or of its closest enclosing field that has one."""
        parts = re.sub(r"\[(\d+)\]", r".\1", path).split(".") if path else []
        while parts:
            line = self.lines.get(".".join(parts))
            if line is not None:
                return line
            parts.pop()
        return None

    def alias(self, source: str, target: str) -> None:
        """Make every path below ``source`` known below ``target`` as well."""
        prefix = source + "."
        for path, line in list(self.lines.items()):
            if path == source:
                self.lines.setdefault(target, line)
            elif path.startswith(prefix):
                self.lines.setdefault(target + "." + path[len(prefix):], line)

    def drop(self, path: str) -> None:
        """Forget ``path`` and everything below it (a value replaced from elsewhere)."""
        prefix = path + "."
        for key in [k for k in self.lines if k == path or k.startswith(prefix)]:
            del self.lines[key]


def _join(base: str, key: str) -> str:
    return f"{base}.{key}" if base else key


class _Walker:
    """Records key lines and finds duplicate keys in a composed node tree."""

    def __init__(self) -> None:
        self.table = LineTable()
        self.seen: set[int] = set()
        self.repeats = 0
        self.active: set[int] = set()

    def walk(self, node: yaml.Node, path: str) -> None:
        if id(node) in self.seen:  # reached again through an alias
            self.repeats += 1
            if self.repeats > MAX_ALIAS_VALUES:
                raise SpecError("", f"the YAML document is too large: its aliases repeat more than "
                                f"{MAX_ALIAS_VALUES:,} values (MAX_ALIAS_VALUES)",
                                allowed="fewer or smaller aliases (*name)",
                                line=node.start_mark.line + 1)
        self.seen.add(id(node))
        if id(node) in self.active:  # a recursive alias
            raise SpecError(path, "a YAML alias refers to itself", line=node.start_mark.line + 1)
        self.active.add(id(node))
        try:
            if isinstance(node, yaml.MappingNode):
                self._walk_mapping(node, path)
            elif isinstance(node, yaml.SequenceNode):
                for index, item in enumerate(node.value):
                    child = _join(path, str(index))
                    self.table.lines.setdefault(child, item.start_mark.line + 1)
                    self.walk(item, child)
        finally:
            self.active.discard(id(node))

    def _walk_mapping(self, node: yaml.MappingNode, path: str) -> None:
        seen: dict[str, int] = {}
        for key_node, value_node in node.value:
            if key_node.tag == "tag:yaml.org,2002:merge":
                self.walk(value_node, path)
                continue
            key = str(key_node.value) if isinstance(key_node, yaml.ScalarNode) else "?"
            line = key_node.start_mark.line + 1
            child = _join(path, key)
            if key in seen:
                raise SpecError(child, f"duplicate key (first given on line {seen[key]})",
                                value=key, allowed="each key once", line=line)
            seen[key] = line
            self.table.lines[child] = line
            self.walk(value_node, child)


def load_yaml(text: str) -> tuple[Any, LineTable]:
    """Safe-load one YAML document and return it with the line of every field.

    Raises:
        SpecError: on text above MAX_SPEC_BYTES (before parsing), a syntax error (with its
            line), a duplicate mapping key or aliases that repeat too many values.
    """
    loader = yaml.SafeLoader(check_spec_size(text))
    try:
        node = loader.get_single_node()
        if node is None:
            return None, LineTable()
        walker = _Walker()
        walker.walk(node, "")
        return loader.construct_document(node), walker.table
    except yaml.MarkedYAMLError as err:
        mark = err.problem_mark or err.context_mark
        problem = err.problem or err.context or "invalid YAML"
        raise SpecError("", f"YAML syntax error: {problem}",
                        line=None if mark is None else mark.line + 1) from None
    except yaml.YAMLError as err:
        raise SpecError("", f"YAML error: {err}") from None
    except RecursionError:
        raise SpecError("", "the YAML document is nested too deeply",
                        allowed="a few levels of nesting") from None
    finally:
        loader.dispose()


def line_of(text: str | None, path: str) -> int | None:
    """The line of field ``path`` in the spec ``text`` (None when it is not text or has no such field).

    Example:
        >>> line_of("metric: loss\\nwarm_start:\\n  from: old\\n", "warm_start.from")
        3
    """
    if not isinstance(text, str):
        return None
    try:
        return load_yaml(text)[1].find(path)
    except SpecError:
        return None
