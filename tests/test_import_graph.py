"""hpnb's imports: no two modules import each other, directly or through others; each room imports
only the rooms below it (the layers of the package's map); the core imports no Jupyter and no
Dask; torch and its family are imported only in the training code's rooms, so a plain search never
loads them. TYPE_CHECKING imports and imports inside functions count too. ``from package import
module`` is an import of that module; ``from package import name`` of the package (its
``__init__``)."""

from __future__ import annotations

import ast
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import hpnb

ROOT = Path(hpnb.__file__).parent
PACKAGE = "hpnb"


def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join((PACKAGE, *parts)).removesuffix(".__init__")


def imported_names(path: Path) -> set[str]:
    """Every module name ``path`` imports, anywhere in it (``from a.b import c``: ``a.b`` and ``a.b.c``)."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            found.add(node.module)
            found.update(f"{node.module}.{alias.name}" for alias in node.names)
    return found


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


#: the rooms of the package, by level: a room imports only rooms of its level or below (README's map).
LEVELS = {
    "core": 0,
    "runner": 1, "runner.worker": 1, "runner.ranks": 1, "cluster": 1, "views": 1,
    "tracking": 2, "integrations": 2,
    "driving": 3, "llm": 3, "nas": 3,
    "llm.api": 4,  # hpnb.llm.search and best_model: a front door of fine-tuning searches
    "hpnb": 4, "api": 4, "builtin_objective": 4, "handle": 4, "search_insight": 4, "comparison": 4, "demo": 4,
    "jupyter": 5, "cli": 5, "__main__": 5, "testing": 5,
}
#: where torch and its family may be imported: the training code's rooms.
TRAINING_ROOMS = ("hpnb.integrations", "hpnb.llm", "hpnb.nas", "hpnb.runner.ranks")
TORCH_FAMILY = frozenset({"torch", "torchvision", "torchaudio", "transformers", "peft", "datasets",
                          "accelerate", "bitsandbytes", "trl", "lightning", "pytorch_lightning",
                          "tokenizers", "safetensors", "huggingface_hub", "torchmetrics"})
#: what the core never imports: the notebook's and the cluster's libraries.
NOT_IN_CORE = frozenset({"IPython", "ipykernel", "ipywidgets", "anywidget", "plotly", "tornado",
                         "jupyter_server", "jupyter_client", "dask", "distributed", "dask_kubernetes",
                         "dask_gateway", *TORCH_FAMILY})


def room_of(module: str) -> str:
    """The room a module of hpnb lives in: ``hpnb.runner.worker.objective`` -> ``runner.worker``."""
    parts = module.split(".")
    if len(parts) == 1:
        return "hpnb"
    if parts[1] in ("runner", "llm") and len(parts) > 2 and f"{parts[1]}.{parts[2]}" in LEVELS:
        return f"{parts[1]}.{parts[2]}"
    return parts[1]


def within(module: str, rooms: tuple[str, ...]) -> bool:
    return any(module == room or module.startswith(room + ".") for room in rooms)


def upward_imports(graph: dict[str, set[str]]) -> list[str]:
    """Each import of a room above the importer's, as ``importer -> imported``."""
    return sorted(f"{source} -> {target}" for source, targets in graph.items() for target in targets
                  if LEVELS[room_of(target)] > LEVELS[room_of(source)])


def library_imports(checked: Callable[[str], bool], names: frozenset[str]) -> list[str]:
    """Each import of a top-level library in ``names`` by a module of hpnb that is ``checked``."""
    paths = {module_name(path): path for path in ROOT.rglob("*.py")}
    return sorted(f"{module} imports {name}" for module, path in paths.items() if checked(module)
                  for name in imported_names(path) if name.partition(".")[0] in names)


def test_room_of_names_the_rooms_of_the_map() -> None:
    assert room_of("hpnb.runner.worker.objective") == "runner.worker"
    assert room_of("hpnb.runner.driver") == "runner"
    assert room_of("hpnb.driving.launch") == "driving"
    assert upward_imports({"hpnb.core.space": {"hpnb.runner.driver"}, "hpnb.api": {"hpnb.core.space"}}) == [
        "hpnb.core.space -> hpnb.runner.driver"]


def test_every_room_is_on_the_map() -> None:
    assert {room_of(module) for module in import_graph()} <= set(LEVELS)


def test_each_room_imports_only_rooms_below_it() -> None:
    assert upward_imports(import_graph()) == []


def test_the_core_imports_no_jupyter_no_dask_and_no_torch() -> None:
    assert library_imports(lambda module: room_of(module) == "runner", NOT_IN_CORE)  # the runner's: seen
    assert library_imports(lambda module: room_of(module) == "core", NOT_IN_CORE) == []


def test_torch_and_its_family_are_imported_only_in_the_training_rooms() -> None:
    assert library_imports(lambda module: True, TORCH_FAMILY)  # integrations import them: seen
    assert library_imports(lambda module: not within(module, TRAINING_ROOMS), TORCH_FAMILY) == []


def test_the_training_rooms_exist_and_only_the_front_door_and_the_notebook_import_them() -> None:
    graph = import_graph()
    assert {"hpnb.llm", "hpnb.nas", "hpnb.runner.ranks"} <= set(graph)
    objectives = ("hpnb.llm", "hpnb.nas")  # the built-in objectives: chosen by a spec, at the front door
    users = sorted(f"{source} -> {target}" for source, targets in graph.items() for target in targets
                   if within(target, objectives) and not within(source, objectives)
                   and LEVELS[room_of(source)] < LEVELS["hpnb"])
    assert users == []


PLAIN_PATH = """
import importlib, pkgutil, sys
import hpnb
skipped = ("hpnb.integrations", "hpnb.llm", "hpnb.nas", "hpnb.runner.ranks", "hpnb.__main__")
for info in pkgutil.walk_packages(hpnb.__path__, "hpnb."):
    if not any(info.name == room or info.name.startswith(room + ".") for room in skipped):
        importlib.import_module(info.name)
print(*sorted(name for name in sys.modules if name.partition(".")[0] in {family!r}))
"""


def test_importing_every_module_a_plain_search_can_reach_loads_no_torch() -> None:
    script = PLAIN_PATH.format(family=set(TORCH_FAMILY))
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=240)
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.split() == []
