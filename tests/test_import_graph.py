"""No two modules of hpnb import each other, directly or through others (TYPE_CHECKING imports and
imports inside functions count too). ``from package import module`` is an import of that module;
``from package import name`` of the package (its ``__init__``)."""

from __future__ import annotations

import ast
from pathlib import Path

import hpnb

ROOT = Path(hpnb.__file__).parent
PACKAGE = "hpnb"


def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join((PACKAGE, *parts)).removesuffix(".__init__")


def imports_of(path: Path, modules: set[str]) -> set[str]:
    """The modules of ``modules`` that ``path`` imports, anywhere in it."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            for alias in node.names:
                submodule = f"{node.module}.{alias.name}"
                found.add(submodule if submodule in modules else node.module)
    return {name for name in found if name in modules}


def import_graph() -> dict[str, set[str]]:
    """hpnb's modules and, for each, the hpnb modules it imports."""
    paths = {module_name(path): path for path in ROOT.rglob("*.py")}
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


def test_imports_of_a_module_and_of_a_name_of_a_package_are_told_apart(tmp_path: Path) -> None:
    code = tmp_path / "m.py"
    code.write_text("from hpnb.core.store import codec\nfrom hpnb.core import control\n"
                    "from hpnb.core.store import Store\n")
    found = imports_of(code, {"hpnb.core.store", "hpnb.core.store.codec", "hpnb.core.control", "hpnb.core"})
    assert found == {"hpnb.core.store.codec", "hpnb.core.control", "hpnb.core.store"}


def test_hpnb_has_no_import_cycle() -> None:
    graph = import_graph()
    assert graph.get("hpnb.runner.driver") and graph.get("hpnb.jupyter.dashboard.dashboard")  # imports seen
    assert find_cycle(graph) is None, " -> ".join(find_cycle(graph) or [])
