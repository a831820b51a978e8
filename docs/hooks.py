"""MkDocs hooks (mkdocs.yml ``hooks:``): the pages that are built from other files at build time.

- ``rules.md`` includes the rule book, ``RULES.md`` at the repository root (the file the code
  cites by section), its headings moved one level down to sit under the page's own, so the
  site shows exactly the rules the engine and its tests follow, never a copy that drifts.
- ``cli.md`` includes the ``--help`` of ``murlan`` and of each of its subcommands (``murlan
  train`` is what ``python train.py`` runs), run from this checkout at build time, so the
  reference cannot disagree with the parsers.
- ``config.md`` is the trainers' configuration reference: every key of every config dataclass
  that ``agents`` exposes, with its type, default and docstring, read from the classes; each
  trainer's section also names the keys of the shared parts it takes, so every key a preset
  of that trainer may set is listed in one section.
- ``quickstart.md`` is the quickstart notebook, ``notebooks/quickstart.ipynb``.
- ``benchmarks.md`` is ``benchmarks/README.md``, where every figure lives with its command,
  and ``results.md`` its headline sections (speed, trainers, levels, learning curves).

A page asks for one with a line of its own: ``<!-- murlan-docs: NAME -->``, NAME one of
``SOURCES``. The functions take the
repository root, so tests call them without MkDocs. Nothing here reads outside the repository.
"""

from __future__ import annotations

import ast
import dataclasses
import importlib
import inspect
import os
import pkgutil
import re
import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MARKER = re.compile(r"^<!-- murlan-docs: (\w+) -->$", re.M)


class DocsSourceError(RuntimeError):
    """A page's build-time source is missing or fails to run."""


def rules_path(root: Path = ROOT) -> Path:
    """Where the rule book is: ``RULES.md`` at the repository root."""
    return root / "RULES.md"


def included(path: Path, *, demote: bool) -> str:
    """A Markdown file of the repository for a page to include: without its title (the page
    has its own), each heading one level lower if ``demote``, its links into docs/ made
    relative to the site (``../docs/x.png`` -> ``x.png``). DocsSourceError if it is missing."""
    if not path.is_file():
        raise DocsSourceError(f"a page includes {path}, which does not exist")
    lines, fenced = [], False
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.startswith("```"):
            fenced = not fenced
        elif not fenced and line.startswith("# "):
            continue  # the title: the page has its own
        elif not fenced and demote and line.startswith("#"):
            line = "#" + line
        lines.append(line)
    text = "\n".join(lines).strip() + "\n"
    return text.replace("](../docs/", "](")


def rules_markdown(root: Path = ROOT) -> str:
    """The rule book, its sections as subsections of the page's, or DocsSourceError naming
    the missing file."""
    path = rules_path(root)
    if not path.is_file():
        raise DocsSourceError(f"docs/rules.md includes the rule book, but {path} does not exist")
    return included(path, demote=True)


def benchmarks_markdown(root: Path = ROOT) -> str:
    """``benchmarks/README.md``, every measurement with its command, as a page of the site."""
    return included(root / "benchmarks" / "README.md", demote=False)


RESULT_SECTIONS = ("Headline figures", "The shipped policies and their levels")


def results_markdown(root: Path = ROOT) -> str:
    """The sections of ``benchmarks/README.md`` that give the headline results (speed, the
    trainers, the levels and the learning curves), as they are written there: one source for
    each figure. Links to other sections point to the benchmarks page."""
    text = benchmarks_markdown(root)
    sections = dict(re.findall(r"^## (.+?)\n(.*?)(?=^## |\Z)", text, re.M | re.S))
    parts = []
    for title in RESULT_SECTIONS:
        if title not in sections:
            raise DocsSourceError(f"benchmarks/README.md has no section '## {title}'")
        body = re.sub(r"\]\(#", "](benchmarks.md#", sections[title])
        parts += [f"## {title}", "", body.strip(), ""]
    return "\n".join(parts)


def help_text(root: Path, command: list[str]) -> str:
    """The help text a command prints, at a fixed width so the page does not depend on the
    terminal that builds it."""
    env = {**os.environ, "COLUMNS": "80", "PYTHONPATH": str(root)}
    done = subprocess.run(
        [sys.executable, *command, "--help"],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    if done.returncode != 0:
        shown = " ".join(command)
        raise DocsSourceError(f"'{shown} --help' failed: {done.stderr.strip()[-500:]}")
    return done.stdout.rstrip()


def subcommands(top_help: str) -> list[str]:
    """The subcommands ``murlan --help`` lists (one per line, indented under COMMAND)."""
    return re.findall(r"^    (\w+)  ", top_help, re.M)


def cli_markdown(root: Path = ROOT) -> str:
    """The command-line reference: each command's ``--help``, as printed."""
    top = help_text(root, ["-m", "murlan_cli"])
    names = subcommands(top)
    if not names:
        raise DocsSourceError("'murlan --help' lists no subcommands")
    parts = ["## murlan", "", "```text", top, "```", ""]
    for name in names:
        text = help_text(root, ["-m", "murlan_cli", name])
        parts += [f"## murlan {name}", "", "```text", text, "```", ""]
    return "\n".join(parts)


def config_classes(package: str = "agents") -> list[type]:
    """Every config dataclass that ``package``'s modules define (a dataclass whose name ends in
    ``Config``), in module order: found, not listed, so a new trainer's config is documented
    the moment it exists."""
    found = []
    top = importlib.import_module(package)
    modules = pkgutil.walk_packages(top.__path__, prefix=f"{package}.")
    for info in sorted(modules, key=lambda i: i.name):
        if any(part.startswith("_") for part in info.name.split(".")):
            continue
        module = importlib.import_module(info.name)
        for _, cls in inspect.getmembers(module, inspect.isclass):
            if (
                cls.__module__ == module.__name__
                and dataclasses.is_dataclass(cls)
                and cls.__name__.endswith("Config")
            ):
                found.append(cls)
    return found


def field_docs(cls: type) -> dict[str, str]:
    """The docstring under each field of a dataclass (``x: int = 1`` then ``\"\"\"...\"\"\"``), read
    from the source of the class and its bases; a field without one maps to ""."""
    docs: dict[str, str] = {}
    for klass in reversed(cls.__mro__):
        if not dataclasses.is_dataclass(klass):
            continue
        tree = ast.parse(textwrap.dedent(inspect.getsource(klass)))
        body = tree.body[0].body
        for node, after in zip(body, [*body[1:], None], strict=True):
            if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
                text = ""
                if isinstance(after, ast.Expr) and isinstance(after.value, ast.Constant):
                    text = inspect.cleandoc(str(after.value.value))
                docs[node.target.id] = text
    return docs


def field_default(field: dataclasses.Field) -> object:
    if field.default is not dataclasses.MISSING:
        return field.default
    if field.default_factory is not dataclasses.MISSING:
        return field.default_factory()
    return dataclasses.MISSING


def yaml_text(value: object) -> str:
    """A default as a YAML preset or a ``key=value`` override writes it."""
    import yaml

    return (
        yaml.safe_dump(value, default_flow_style=True, width=10_000).removesuffix("...\n").strip()
    )


def cell(text: str) -> str:
    """Text for a Markdown table cell: one line, pipes escaped."""
    return " ".join(str(text).split()).replace("|", "\\|")


def config_markdown(root: Path = ROOT) -> str:
    """The trainers' configuration reference: per config class, every key with its type,
    default and meaning, grouped by the class that declares it (shared parts once)."""
    if str(root) not in sys.path:
        sys.path.insert(0, str(root))
    classes = config_classes()
    if not classes:
        raise DocsSourceError("agents defines no config dataclass (a class named ...Config)")
    parts = []
    for cls in classes:
        docs = field_docs(cls)
        own = [f for f in dataclasses.fields(cls) if f.name in _declared(cls)]
        inherited = [b for b in cls.__mro__[1:] if dataclasses.is_dataclass(b)]
        summary = inspect.cleandoc(cls.__doc__ or "").split("\n\n")[0]
        parts += [
            f"## {cls.__name__}",
            "",
            f"`{cls.__module__}.{cls.__name__}`: {cell(summary)}",
            "",
        ]
        if inherited:  # every key the class takes is named here, the shared ones linked
            parts += ["Also takes the keys of the parts it is composed of:", ""]
            for base in inherited:
                keys = [f.name for f in dataclasses.fields(base) if f.name in _declared(base)]
                names = ", ".join(f"`{key}`" for key in keys) or "no keys of its own"
                parts.append(f"- [{base.__name__}](#{base.__name__.lower()}): {names}")
            parts.append("")
        if not own:
            parts += ["No keys of its own.", ""]
            continue
        parts += ["| key | type | default | meaning |", "|---|---|---|---|"]
        for field in own:
            default = field_default(field)
            shown = "required" if default is dataclasses.MISSING else f"`{yaml_text(default)}`"
            kind = field.type if isinstance(field.type, str) else field.type.__name__
            parts.append(
                f"| `{field.name}` | {cell(kind)} | {cell(shown)} | {cell(docs[field.name])} |"
            )
        parts.append("")
    return "\n".join(parts)


def _declared(cls: type) -> set[str]:
    """The fields ``cls`` itself declares (or re-declares), not those it only inherits."""
    return set(cls.__dict__.get("__annotations__", {}))


def notebook_markdown(root: Path = ROOT) -> str:
    """``notebooks/quickstart.ipynb`` as a page: its Markdown cells as they are, its code cells
    as Python blocks (outputs left out: tests/test_notebook.py runs the notebook)."""
    import json

    path = root / "notebooks" / "quickstart.ipynb"
    if not path.is_file():
        raise DocsSourceError(f"docs/quickstart.md includes {path}, which does not exist")
    parts = []
    for cell in json.loads(path.read_text(encoding="utf-8"))["cells"]:
        text = "".join(cell["source"]).strip()
        if cell["cell_type"] == "markdown":
            parts.append(text)
        elif cell["cell_type"] == "code" and text:
            parts.append(f"```python\n{text}\n```")
    return "\n\n".join(parts) + "\n"


SOURCES = {
    "quickstart": notebook_markdown,
    "rules": rules_markdown,
    "cli": cli_markdown,
    "config": config_markdown,
    "benchmarks": benchmarks_markdown,
    "results": results_markdown,
}


def expand(markdown: str, root: Path = ROOT) -> str:
    """The page with each ``<!-- murlan-docs: NAME -->`` line replaced by its source."""

    def source(match: re.Match) -> str:
        name = match.group(1)
        if name not in SOURCES:
            raise DocsSourceError(f"unknown docs source {name!r}; known: {sorted(SOURCES)}")
        return SOURCES[name](root)

    return MARKER.sub(source, markdown)


def on_page_markdown(markdown, page, config, files):  # MkDocs' hook signature
    """MkDocs hook: expand the page's build-time sources; a missing one aborts the build."""
    if not MARKER.search(markdown):
        return markdown
    from mkdocs.exceptions import PluginError

    try:
        return expand(markdown, Path(config["config_file_path"]).resolve().parent)
    except DocsSourceError as exc:
        raise PluginError(f"{page.file.src_path}: {exc}") from None
