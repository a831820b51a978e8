"""MkDocs hooks (mkdocs.yml ``hooks:``): the pages that are built from elsewhere at build time.

- ``rules.md`` includes the rule book, which lives outside the repository in the shared folder
  beside the checkout (``../shared/RULES.md``), so the site always shows the rules the engine
  and its tests follow, never a copy that drifts. A missing rule book stops the build with one
  line that says where it was looked for.
- ``cli.md`` includes the ``--help`` of ``murlan`` and of each of its subcommands (``murlan
  train`` is what ``python train.py`` runs), run from this checkout at build time, so the
  reference cannot disagree with the parsers.

A page asks for either with a line of its own: ``<!-- murlan-docs: rules -->`` or
``<!-- murlan-docs: cli -->``. The functions take the repository root, so tests call them
without MkDocs.
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
    """Where the rule book is: the shared folder beside the checkout."""
    return root.parent / "shared" / "RULES.md"


def rules_markdown(root: Path = ROOT) -> str:
    """The rule book's text, or DocsSourceError naming the path it was looked for at."""
    path = rules_path(root)
    if not path.is_file():
        raise DocsSourceError(
            f"docs/rules.md includes the rule book, but {path} does not exist: the shared "
            "folder with RULES.md must sit beside the checkout (../shared/RULES.md)"
        )
    return path.read_text(encoding="utf-8")


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
