"""MkDocs hooks (mkdocs.yml ``hooks:``): the pages that are built from other files at build time.

- ``rules.md`` includes the rule book, ``RULES.md`` at the repository root (the file the code
  cites by section), its headings moved one level down to sit under the page's own, so the
  site shows exactly the rules the engine and its tests follow, never a copy that drifts.
- ``cli.md`` includes the ``--help`` of ``murlan`` and of each of its subcommands, and of
  ``python train.py``, run from this checkout at build time, so the reference cannot disagree
  with the parsers.
- ``config.md`` is the trainers' configuration reference: every key of every config dataclass
  that ``agents`` exposes, with its type, default and docstring, read from the classes.

A page asks for one with a line of its own: ``<!-- murlan-docs: rules -->``,
``<!-- murlan-docs: cli -->`` or ``<!-- murlan-docs: config -->``. The functions take the
repository root, so tests call them without MkDocs. Nothing here reads outside the repository.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MARKER = re.compile(r"^<!-- murlan-docs: (\w+) -->$", re.M)


class DocsSourceError(RuntimeError):
    """A page's build-time source is missing or fails to run."""


def rules_path(root: Path = ROOT) -> Path:
    """Where the rule book is: ``RULES.md`` at the repository root."""
    return root / "RULES.md"


def rules_markdown(root: Path = ROOT) -> str:
    """The rule book's text without its title, each heading one level lower (its sections
    become subsections of the page's), or DocsSourceError naming the missing file."""
    path = rules_path(root)
    if not path.is_file():
        raise DocsSourceError(f"docs/rules.md includes the rule book, but {path} does not exist")
    lines, fenced = [], False
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.startswith("```"):
            fenced = not fenced
        elif not fenced and line.startswith("# "):
            continue  # the title: the page has its own
        elif not fenced and line.startswith("#"):
            line = "#" + line
        lines.append(line)
    return "\n".join(lines).strip() + "\n"


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
    parts += ["## python train.py", "", "```text", help_text(root, ["train.py"]), "```", ""]
    return "\n".join(parts)


SOURCES = {"rules": rules_markdown, "cli": cli_markdown}


def expand(markdown: str, root: Path = ROOT) -> str:
    """The page with each ``<!-- murlan-docs: NAME -->`` line replaced by its source."""

    def source(match: re.Match) -> str:
        name = match.group(1)
        if name not in SOURCES:
            raise DocsSourceError(f"unknown docs source {name!r}; known: {sorted(SOURCES)}")
        return SOURCES[name](root)

    return MARKER.sub(source, markdown)


def on_page_markdown(markdown, page, config, files):  # noqa: ARG001 - MkDocs' hook signature
    """MkDocs hook: expand the page's build-time sources; a missing one aborts the build."""
    if not MARKER.search(markdown):
        return markdown
    from mkdocs.exceptions import PluginError

    try:
        return expand(markdown, Path(config["config_file_path"]).resolve().parent)
    except DocsSourceError as exc:
        raise PluginError(f"{page.file.src_path}: {exc}") from None
