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
    # benchmarks: scripts whose job is to print tables, each with its own command line
    found = {path.parent.name for path in ROOT.glob("*/__init__.py")}
    assert found == {*PACKAGES, "murlan_cli", "benchmarks"}, found


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
