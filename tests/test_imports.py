"""The import graph of the house (``murlan_env``, ``agents``, ``murlan_cli``, ``murlan_web``):
no cycle between modules anywhere, and nothing above ``murlan_env`` imported from it.

Every import counts, at the top of a module or inside a function: a function-level import
hides a cycle from Python at import time but not from a reader, who still cannot understand
either module without the other. ``murlan_env`` imports neither ``agents`` nor torch (nor the
layers above it, the command and the web app), and the level registry is a leaf of the bots:
only the layers above the bots (``eval``) import it. These tests read the source (AST), so
they hold for code no test runs.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = "murlan_env"
HOUSE = (PACKAGE, "agents", "murlan_cli", "murlan_web")
# Top-level packages murlan_env must never import: torch and everything built on it or on
# murlan_env (CONTRIBUTING.md: imports point one way).
FORBIDDEN = ("torch", "agents", "murlan_cli", "murlan_web")
REGISTRY = "murlan_env.bots.registry"
# The only packages that may import the level registry: those above the bots.
REGISTRY_IMPORTERS = ("murlan_env.eval",)


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


ALL_MODULES = {module_name(p): p for pkg in HOUSE for p in sorted((ROOT / pkg).rglob("*.py"))}
MODULES = {m: p for m, p in ALL_MODULES.items() if m.split(".")[0] == PACKAGE}


def imported_names(source: str, module: str, is_package: bool) -> set[str]:
    """Every dotted name ``module`` imports anywhere (top level, functions, classes):
    ``from X import n`` as ``X.n`` (n may be a submodule or a name in X, which ``resolve``
    tells apart); relative imports resolved against ``module``."""
    out: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            out.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = module.split(".")
                anchor = anchor if is_package else anchor[:-1]
                anchor = anchor[: len(anchor) - (node.level - 1)]
                base = ".".join(anchor + ([base] if base else []))
            out.update(f"{base}.{alias.name}" for alias in node.names)
    return out


def resolve(name: str, modules) -> str | None:
    """The module of ours that importing ``name`` loads by name: the longest prefix of it
    that is one of ``modules`` (``X.n`` where n is a function resolves to ``X``)."""
    parts = name.split(".")
    for end in range(len(parts), 0, -1):
        candidate = ".".join(parts[:end])
        if candidate in modules:
            return candidate
    return None


def import_graph(sources: dict[str, tuple[str, bool]]) -> dict[str, set[str]]:
    """module -> the modules of ``sources`` it imports (itself excluded). An import of a
    submodule is an edge to it only, not to the packages above it that Python also runs:
    those run for every submodule and would make every package with a re-export a cycle."""
    graph = {}
    for module, (source, is_package) in sources.items():
        targets = {resolve(n, sources) for n in imported_names(source, module, is_package)}
        graph[module] = {t for t in targets if t is not None and t != module}
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """One cycle (a list of modules, the first repeated at the end) per strongly connected
    component with more than one module (Tarjan's algorithm, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    components: list[list[str]] = []
    counter = 0
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph.get(child, ())))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    components.append(component)
    return [_cycle_in(graph, set(c)) for c in components]


def _cycle_in(graph: dict[str, set[str]], component: set[str]) -> list[str]:
    """A cycle through the first module of ``component``, by breadth-first search inside it."""
    start = min(component)
    came_from: dict[str, str] = {}
    frontier = [start]
    while frontier:
        nxt = []
        for node in frontier:
            for child in sorted(graph[node] & component):
                if child == start:
                    path = [node]
                    while path[-1] != start:
                        path.append(came_from[path[-1]])
                    return [start, *reversed(path[:-1]), start]
                if child not in came_from:
                    came_from[child] = node
                    nxt.append(child)
        frontier = nxt
    raise AssertionError(f"no cycle in {sorted(component)}")


@pytest.fixture(scope="module")
def graph() -> dict[str, set[str]]:
    """The house's import graph, with the imports the ``murlan`` command makes by name: its
    ``main`` loads the module of the command it runs, as the command table names it."""
    import murlan_cli

    sources = {m: (p.read_text(), p.name == "__init__.py") for m, p in ALL_MODULES.items()}
    found = import_graph(sources)
    found["murlan_cli"] |= {command.module for command in murlan_cli.COMMANDS.values()}
    return found


def test_no_import_cycle_anywhere_in_the_house(graph):
    assert {"murlan_cli.play", "agents.ppo", "murlan_web.app"} <= graph.keys()
    assert "murlan_cli.train" in graph["murlan_cli"]  # a command's module, loaded by name
    found = cycles(graph)
    assert found == [], "import cycles: " + "; ".join(" -> ".join(c) for c in found)


def test_murlan_env_imports_neither_torch_nor_the_layers_above():
    wrong = sorted(
        f"{module}: {name}"
        for module, path in MODULES.items()
        for name in imported_names(path.read_text(), module, path.name == "__init__.py")
        if name.split(".")[0] in FORBIDDEN
    )
    assert wrong == []


def test_the_level_registry_is_a_leaf_of_the_bots(graph):
    importers = sorted(m for m, targets in graph.items() if REGISTRY in targets)
    below = [
        m for m in importers if m.startswith(f"{PACKAGE}.") and not m.startswith(REGISTRY_IMPORTERS)
    ]
    assert below == [], f"{REGISTRY} is imported from below: {below}"


def test_every_module_is_read():
    assert {"murlan_env", "murlan_env.bots.registry", "murlan_env.game.engine"} <= set(MODULES)
    assert all(p.is_file() for p in MODULES.values())


def test_the_checks_see_what_they_look_for():
    # A cycle hidden in a function-level import, and a relative one.
    sources = {
        "pkg": ("", True),
        "pkg.a": ("from pkg import b\n", False),
        "pkg.b": ("def f():\n    from pkg.c import thing\n", False),
        "pkg.c": ("from . import a\n", False),
        "pkg.d": ("import pkg.a\nfrom pkg.a import name\n", False),
    }
    graph = import_graph(sources)
    assert graph["pkg.a"] == {"pkg.b"} and graph["pkg.c"] == {"pkg.a"}
    assert graph["pkg.d"] == {"pkg.a"}
    assert cycles(graph) == [["pkg.a", "pkg.b", "pkg.c", "pkg.a"]]
    del sources["pkg.c"]
    assert cycles(import_graph(sources)) == []
    assert "torch.nn" in imported_names("def f():\n    import torch.nn\n", "pkg.a", False)
    assert resolve("pkg.a.name", sources) == "pkg.a"
