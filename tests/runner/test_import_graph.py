"""The runner's modules import each other without a cycle (TYPE_CHECKING imports count too)."""

from __future__ import annotations

import ast
from pathlib import Path

import hpnb.runner

RUNNER = Path(hpnb.runner.__file__).parent
PACKAGE = "hpnb.runner"


def module_name(path: Path) -> str:
    parts = path.relative_to(RUNNER).with_suffix("").parts
    return ".".join((PACKAGE, *parts)).removesuffix(".__init__")


def imports_of(path: Path, modules: set[str]) -> set[str]:
    """The modules of ``modules`` that ``path`` imports, anywhere in it."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            found.add(node.module)
            found.update(f"{node.module}.{alias.name}" for alias in node.names)
    return {name for name in found if name in modules}


def import_graph() -> dict[str, set[str]]:
    """runner/'s modules and, for each, the runner modules it imports."""
    paths = {module_name(path): path for path in RUNNER.rglob("*.py")}
    return {name: imports_of(path, set(paths)) - {name} for name, path in paths.items()}


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One import cycle of ``graph`` (its modules in order, the first repeated at the end), or None."""
    done: set[str] = set()
    path: list[str] = []

    def visit(node: str) -> list[str] | None:
        if node in path:
            return [*path[path.index(node):], node]
        if node in done:
            return None
        path.append(node)
        for target in sorted(graph[node]):
            cycle = visit(target)
            if cycle:
                return cycle
        path.pop()
        done.add(node)
        return None

    for start in sorted(graph):
        cycle = visit(start)
        if cycle:
            return cycle
    return None


def test_find_cycle_finds_one() -> None:
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": set()}) is None


def test_the_runner_has_no_import_cycle() -> None:
    graph = import_graph()
    assert graph.get("hpnb.runner.driver")  # the walk sees imports
    assert find_cycle(graph) is None, " -> ".join(find_cycle(graph) or [])
