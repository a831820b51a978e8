"""The command layer: argparse, printing and exit statuses live in ``murlan_cli`` only.

``murlan_env``, ``agents`` and ``murlan_web`` are libraries (CONTRIBUTING.md, "Where things
go"): no module outside the command layer builds a parser or writes to the terminal (the
trainers log through ``logging`` and show tqdm's progress bar, which a config can switch off),
so a program that imports them decides what reaches its users. These tests read the source
(AST), so they hold for code no test runs.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
# Every package but the command layer (murlan_cli): the check fails on a package it does not know.
PACKAGES = ("murlan_env", "agents", "murlan_web")
LIBRARY = sorted(path for package in PACKAGES for path in (ROOT / package).rglob("*.py"))

# Where the library may still do it, and why. Each entry must still be true (see
# test_every_exemption_is_still_needed), so a stale one fails instead of lingering.
ARGPARSE_EXEMPT: set[str] = set()  # none: every command's options live in murlan_cli
PRINT_EXEMPT = {
    # PettingZoo's render_mode="human" contract: env.render() prints the table.
    "murlan_env/envs/render.py",
}


def _tree(path: Path) -> ast.Module:
    return ast.parse(path.read_text(), filename=str(path))


def _imports(tree: ast.Module) -> set[str]:
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names.add(node.module.split(".")[0])
    return names


def _prints(tree: ast.Module) -> bool:
    """Whether the module calls print or builds a rich Console (which writes to a terminal)."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
            if node.func.id in ("print", "Console"):
                return True
        if isinstance(node, ast.ImportFrom) and node.module == "rich.console":
            return True
    return False


def _name(path: Path) -> str:
    return path.relative_to(ROOT).as_posix()


@pytest.mark.parametrize("path", LIBRARY, ids=_name)
def test_the_library_neither_parses_arguments_nor_prints(path):
    tree = _tree(path)
    if _name(path) not in ARGPARSE_EXEMPT:
        assert "argparse" not in _imports(tree), f"{_name(path)} imports argparse"
    if _name(path) not in PRINT_EXEMPT:
        assert not _prints(tree), f"{_name(path)} prints: return values, let murlan_cli print"


def test_every_package_is_checked_or_is_the_command_layer():
    found = {path.parent.name for path in ROOT.glob("*/__init__.py")}
    assert found == {*PACKAGES, "murlan_cli"}, found


def test_every_exemption_is_still_needed():
    for name in ARGPARSE_EXEMPT:
        assert "argparse" in _imports(_tree(ROOT / name)), f"{name} no longer needs exempting"
    for name in PRINT_EXEMPT:
        assert _prints(_tree(ROOT / name)), f"{name} no longer needs exempting"


def test_the_checks_see_what_they_look_for():
    """The AST checks find argparse and printing where they are (else the tests above could
    not fail)."""
    parsed = ast.parse("import argparse\nfrom rich.console import Console\n")
    assert "argparse" in _imports(parsed) and _prints(parsed)
    assert _prints(ast.parse("def f():\n    print('x')\n"))
    assert not _prints(ast.parse("from rich.table import Table\nTable('a').add_row('1')\n"))


SCRIPTS = sorted(
    path for folder in ("tests", "benchmarks", "examples") for path in (ROOT / folder).rglob("*.py")
)


def _edits_sys_path(tree: ast.Module) -> bool:
    """Whether the module touches ``sys.path`` (insert, append, assignment...)."""
    return any(
        isinstance(node, ast.Attribute)
        and node.attr == "path"
        and isinstance(node.value, ast.Name)
        and node.value.id == "sys"
        for node in ast.walk(tree)
    )


@pytest.mark.parametrize("path", SCRIPTS, ids=_name)
def test_tests_and_benchmarks_use_the_packages_not_the_train_script(path):
    """``train.py`` is a shim over ``murlan train``: what it did lives in ``agents.presets``
    and ``murlan_cli.train``, importable from an installed murlan without path edits."""
    tree = _tree(path)
    assert "train" not in _imports(tree), f"{_name(path)} imports train.py"
    assert not _edits_sys_path(tree), f"{_name(path)} edits sys.path"


def test_the_script_checks_see_what_they_look_for():
    parsed = ast.parse("import sys\nsys.path.insert(0, '.')\nimport train\n")
    assert _edits_sys_path(parsed) and "train" in _imports(parsed)
    assert not _edits_sys_path(ast.parse("import os\nos.path.join('a')\n"))


CLI = ROOT / "murlan_cli"


def _module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _cli_imports(tree: ast.Module, module: str, is_package: bool) -> set[str]:
    """The ``murlan_cli`` modules ``module`` imports, at the top or inside a function:
    ``from murlan_cli import x`` imports the package, and its submodule ``x`` if there is one.
    The parent package a submodule import runs first is left out: that is a loop only if the
    package imports the submodule back, which is an edge of its own."""
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:  # relative: from the package (or the module's own package)
                package = module.split(".")[: len(module.split(".")) - node.level + is_package]
                base = ".".join([*package, *([base] if base else [])])
            found.add(base)
            found |= {f"{base}.{alias.name}" for alias in node.names}
    return {name for name in found if name.split(".")[0] == "murlan_cli"}


def _cli_graph() -> dict[str, set[str]]:
    """Which ``murlan_cli`` module imports which: the import statements, and the package's
    ``main`` importing every module the command table names when that command runs."""
    import murlan_cli

    paths = sorted(CLI.glob("*.py"))
    modules = {_module_name(path) for path in paths}
    graph = {}
    for path in paths:
        name = _module_name(path)
        found = _cli_imports(_tree(path), name, path.name == "__init__.py")
        graph[name] = (found & modules) - {name}
    graph["murlan_cli"] |= {cmd.module for cmd in murlan_cli.COMMANDS.values()}
    return graph


def _cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One import loop in ``graph`` as the modules around it (first again at the end), or
    None."""
    done: set[str] = set()

    def visit(node: str, path: list[str]) -> list[str] | None:
        if node in path:
            return [*path[path.index(node) :], node]
        if node in done:
            return None
        for nxt in sorted(graph.get(node, ())):
            if found := visit(nxt, [*path, node]):
                return found
        done.add(node)
        return None

    return next((c for node in sorted(graph) if (c := visit(node, []))), None)


def test_the_command_layer_has_no_import_loop():
    """``murlan_cli`` loads each command's module by name from its table; the modules import
    the leaves they share (``terminal``, ``options``), never the package that loads them."""
    graph = _cli_graph()
    assert {"murlan_cli", "murlan_cli.commands", "murlan_cli.terminal"} <= set(graph)
    cycle = _cycle(graph)
    assert cycle is None, "import loop: " + " -> ".join(cycle)


def test_the_loop_check_sees_what_it_looks_for():
    """Top-level, function-level and ``from murlan_cli import name`` imports are edges, and a
    loop through any of them is found (else the test above could not fail)."""
    top = ast.parse("from murlan_cli import UsageError\nimport murlan_cli.options\n")
    assert _cli_imports(top, "murlan_cli.x", False) == {
        "murlan_cli",
        "murlan_cli.UsageError",
        "murlan_cli.options",
    }
    inner = ast.parse("def f():\n    from murlan_cli.terminal import console\n")
    assert "murlan_cli.terminal" in _cli_imports(inner, "murlan_cli.x", False)
    relative = ast.parse("from . import options\nfrom .terminal import console\n")
    assert {"murlan_cli.options", "murlan_cli.terminal"} <= _cli_imports(
        relative, "murlan_cli.x", False
    )
    assert _cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert _cycle({"a": {"b", "c"}, "b": {"c"}, "c": set()}) is None
