"""The nesting of a spec text, measured before YAML parses it."""

from __future__ import annotations

import pytest

from hpnb.core.spec.nesting import Nesting, block_nesting, deepest_nesting, flow_nesting


@pytest.mark.parametrize(("text", "levels"), [
    ("x: [[1], [2, [3]]]", 3),
    ("x: {a: [1, {b: 2}]}", 3),
    ("x: {a:[1]}", 2),
    ("x: [ [ [1] ] ]", 3),
    ("x: [\n  [\n    [1]]]", 3),
    ("x: [1]]]]\ny: [[2]]", 2),                       # extra closing brackets close nothing
    ("x: \"[[[\\\"[[\"\ny: '[[''[['\nz: [\"]]]\"]", 1),  # in quoted strings, with their escapes
    ("x: 1 # [[[\n# {{{\ny: a#[[[", 0),                # in comments; a '#' after text is text
    ("x: a[[[0]]]\ny: b{{c", 0),                       # in plain text
])
def test_flow_nesting_counts_brackets_that_open_collections(text: str, levels: int) -> None:
    assert flow_nesting(text).levels == levels


def test_flow_nesting_says_where_it_is_deepest() -> None:
    assert flow_nesting("a: [1]\nb: [\n  [[2]],\n  [[[3]]]]\n") == Nesting("flow", 4, 4)


@pytest.mark.parametrize(("text", "levels"), [
    ("a: 1\nb: 2\n", 1),
    ("a:\n  b:\n    c: 1\nd: 2\n", 3),
    ("a:\n  - b: 1\n    c:\n      - 2\n", 5),
    ("- - - a: 1\n", 4),
    ("? a\n: - b: 1\n", 3),
    ("a:\n\n   \n  # a comment, deeper\n      # and another\n  b: 1\n", 2),  # blank and comment lines
])
def test_block_nesting_counts_indentation_levels(text: str, levels: int) -> None:
    assert block_nesting(text).levels == levels


def test_block_nesting_says_where_it_is_deepest() -> None:
    assert block_nesting("a:\n  b:\n    c: 1\n  d:\n    e:\n      f: 1\n") == Nesting("block", 4, 6)


def test_deepest_nesting_is_none_within_the_limit() -> None:
    text = "a:\n  b: [[1]]\n"
    assert deepest_nesting(text, limit=2) is None
    assert deepest_nesting(text, limit=1) == Nesting("flow", 2, 2)
    assert deepest_nesting("a:\n  b:\n    c: 1\n", limit=2) == Nesting("block", 3, 3)
