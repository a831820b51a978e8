"""What every command shares with the terminal: bad input (``UsageError``, exit status 2 and one
line on stderr) and the rich console.

A leaf: it imports no other ``murlan_cli`` module, so every command module can import it while
``murlan_cli`` loads the command modules (``murlan_cli.commands``) without an import loop.
"""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from rich.console import Console


class UsageError(Exception):
    """Bad input on the command line: its one-line message goes to stderr, exit status 2."""


def report_usage_error(prog: str, message: object) -> int:
    """Say what is wrong with the input as ONE line on stderr, ``PROG: error: MESSAGE``, and
    return exit status 2: the bad-input policy of every command line (``murlan`` and its
    subcommands, ``train.py``), written once."""
    print(f"{prog}: error: {message}", file=sys.stderr)
    return 2


def console() -> Console:
    """A rich Console on the ``sys.stdout`` of the moment (made per call: tests capture it)."""
    from rich.console import Console

    return Console(highlight=False, soft_wrap=True)


@contextlib.contextmanager
def stage_progress(
    labels: dict[str, str],
) -> Iterator[Callable[[str, int, int], None] | None]:
    """Progress bars on stderr, one per stage, for work that reports ``progress(stage, done,
    total)`` (making golden sets, exporting a bundle); ``labels`` names the stages. Yields
    that callback on a terminal and None off one (piped, CI), where bars would only add
    lines; the bars go when the block ends."""
    if not sys.stderr.isatty():
        yield None
        return
    from rich.console import Console
    from rich.progress import Progress

    with Progress(console=Console(stderr=True), transient=True) as bar:
        tasks: dict[str, int] = {}

        def progress(stage: str, done: int, total: int) -> None:
            if stage not in tasks:
                tasks[stage] = bar.add_task(labels.get(stage, stage), total=total)
            bar.update(tasks[stage], completed=done)

        yield progress
