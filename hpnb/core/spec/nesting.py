"""How deeply a spec text nests, measured before YAML parses it.

PyYAML builds a document recursively, so a spec nested a few hundred levels
deep exhausts Python's stack, and finding that out takes the parser close to a
second. :func:`deepest_nesting` measures the nesting of the raw text in one
pass of regular expressions instead, for the two ways YAML nests:

- flow collections, ``[`` and ``{``: a bracket counts where a collection can
  begin (at the start of a line or after a blank, ``,`` or ``:``, and the
  brackets right after it), never inside a quoted string or a comment, so
  neither ``"[[[["`` nor ``a[[0]]`` counts; a closing bracket ends one level,
  never below none;
- block indentation: every content line opens a level at its indentation (and
  one more at each ``- ``, ``? `` or ``: `` that starts it), closing the levels
  indented as much or more.

Both measures are approximate, on the safe side for valid specs. They may
miss a level YAML builds (a list indented no further than its key; a quote
that only looks like the start of a string), which the parser's own check
then catches, slowly; and they read the text of a block scalar (``|``, ``>``)
as YAML, so its indentation and its brackets count too. Valid specs stay far
below the limit: the deepest in hpnb's tests, documents and notebooks nest 3
levels of brackets and 11 of indentation.

Example:
    >>> deepest_nesting("x: [[1, [2]], {a: '[[['}]  # [[\\n", limit=2)
    Nesting(kind='flow', levels=3, line=1)
    >>> deepest_nesting("a:\\n  b:\\n    c: 1\\n", limit=3) is None
    True
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

#: quoted scalars, from the opening quote on (loops unrolled, so that nothing backtracks far).
_DOUBLE_QUOTED = r'"[^"\\]*(?:\\.[^"\\]*)*"'
_SINGLE_QUOTED = r"'[^']*(?:''[^']*)*'"
#: more quoted scalars after blanks: a text of many short strings is still a few matches.
_MORE_QUOTED = rf"(?:[ \t]+(?:{_DOUBLE_QUOTED}|{_SINGLE_QUOTED}))*"
#: a character after which no quoted scalar begins (a quote after it is plain text).
_NOT_AFTER = r"[^\s\[{,:]"
#: what the flow measure looks at: quoted scalars, comments and runs of brackets that open
#: collections (``[[{``, blanks between them allowed; the first one after a blank, ``,`` or ``:``,
#: so that ``a[[0]]`` in a plain scalar opens nothing). Each branch starts with its character and
#: checks what precedes it after, so that the search skips every other character at C speed.
_FLOW_TOKEN = re.compile(
    rf'"(?<!{_NOT_AFTER}"){_DOUBLE_QUOTED[1:]}{_MORE_QUOTED}'
    rf"|'(?<!{_NOT_AFTER}'){_SINGLE_QUOTED[1:]}{_MORE_QUOTED}"
    r"|#(?<!\S#)[^\n]*"
    r"|[\[{](?<![^\s,:][\[{])(?:[ \t]*[\[{])*",
    re.DOTALL,
)
#: the indentation of a content line and the block indicators that start it (``- - x``); each part
#: is taken whole (``(?=(...))\1``, an atomic group), so a blank line is given up in one step.
_LINE_PREFIX = re.compile(r"^(?=([ \t]*))\1(?=((?:[-?:][ \t]+)*))\2(?=[^\s#])", re.MULTILINE)
_INDICATOR = re.compile(r"[-?:][ \t]+")


@dataclass(frozen=True)
class Nesting:
    """How deep a text nests: ``levels`` of ``kind`` nesting, reached on ``line`` (1-based)."""

    kind: Literal["flow", "block"]
    levels: int
    line: int


def _line_at(text: str, index: int) -> int:
    return text.count("\n", 0, index) + 1


def _opening(text: str, start: int, end: int) -> int:
    return text.count("[", start, end) + text.count("{", start, end)


def _closing(text: str, start: int, end: int) -> int:
    return text.count("]", start, end) + text.count("}", start, end)


def flow_nesting(text: str) -> Nesting:
    """The deepest nesting of ``[`` and ``{`` collections in ``text``, and where it is first reached."""
    depth = deepest = at = scanned = 0
    for match in _FLOW_TOKEN.finditer(text):
        start, scanned_before = match.start(), scanned
        scanned = match.end()
        depth = max(0, depth - _closing(text, scanned_before, start))
        if text[start] in "[{":
            opened = _opening(text, start, scanned)
            if depth + opened > deepest:
                deepest, at = depth + opened, start
            depth += opened
    return Nesting("flow", deepest, _line_at(text, at))


def block_nesting(text: str) -> Nesting:
    """The deepest indentation nesting of ``text``'s lines, and where it is first reached."""
    columns: list[int] = []  # the open levels' columns, increasing
    deepest = at = 0
    for match in _LINE_PREFIX.finditer(text):
        indent = len(match.group(1))
        while columns and columns[-1] >= indent:
            columns.pop()
        columns.append(indent)
        column = indent
        for indicator in _INDICATOR.finditer(match.group(2)):
            column += len(indicator.group())
            columns.append(column)
        if len(columns) > deepest:
            deepest, at = len(columns), match.start()
    return Nesting("block", deepest, _line_at(text, at))


def deepest_nesting(text: str, limit: int) -> Nesting | None:
    """The deepest nesting of ``text`` when it is deeper than ``limit`` levels, else None.

    Texts that cannot nest that deep (too few brackets, no line indented ``limit`` columns)
    are told apart by a count at C speed; the others take one pass of regular expressions:
    milliseconds for a deeply nested spec of MAX_SPEC_BYTES, about a tenth of a second at
    worst (a megabyte of short quoted strings).
    """
    if text.count("[") + text.count("{") > limit:
        flow = flow_nesting(text)
        if flow.levels > limit:
            return flow
    if re.search(rf"^(?:[ \t]|[-?:](?=[ \t])){{{limit}}}", text, re.MULTILINE):
        block = block_nesting(text)
        if block.levels > limit:
            return block
    return None
