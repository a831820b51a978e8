"""The ``murlan`` command line: one subcommand per task, registered in ``COMMANDS``.

Subcommands (``murlan --help`` lists them, ``murlan CMD --help`` shows options, defaults and an
example):

- ``replay FILE``   check a ``murlan-record/1`` game record and summarise it (replay.py)
- ``actions``       the action catalogue, ``--json`` for machines (actions.py)
- ``selfplay``      play a seeded match between random bots and write its record (selfplay.py)
- ``export``        a checkpoint's bundle for apps (bots.py, export.py; torch loads when it runs)
- ``arena``         a duplicate tournament between bots (bots.py, arena.py)
- ``play``          a match against three bots in the terminal (bots.py, play.py)
- ``serve``         play, replay and compare bots in the browser (serve.py; ``murlan_web``)
- ``train``         train a bot from a preset or resume a run (train.py; ``agents.presets``)

This package sits above both ``murlan_env`` and ``agents``: it is the only place that wires the
two together for the command line, so ``murlan_env`` never imports ``agents``.

Exit status: 0 success, 1 the work found a fault (an invalid record, a bundle that fails its
golden check), 2 bad input: an argument, file, rule flag or bot spec that cannot be used, with
ONE line on stderr naming the problem and the fix, never a traceback.

Adding a subcommand takes a few lines: write a function that takes the parsed arguments and
returns the exit status, and register it with its options and an example::

    def echo_options(parser: argparse.ArgumentParser) -> None:
        parser.add_argument("--n", type=int, default=1, help="the number to print")

    @command("echo", help="print a number", example="murlan echo --n 3", options=echo_options)
    def echo_command(args: argparse.Namespace) -> int:
        from agents.something import run  # import heavy or torch code inside the function
        return run(args)

A subcommand whose options and work live in a module of their own (``add_arguments`` and
``run_command``) registers in one call: ``module_command("arena", "murlan_cli.arena", ...)``.

Raise ``UsageError`` for bad input (exit 2, its message on stderr); scripts outside ``murlan``
report theirs with ``report_usage_error``. Options that several commands share
(``--rules``) live in ``murlan_cli.options``.
"""

from __future__ import annotations

import argparse
import dataclasses
import importlib
import os
import sys
from collections.abc import Callable, Sequence
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


@dataclasses.dataclass(frozen=True)
class Command:
    """A registered subcommand."""

    name: str
    help: str  # one line for ``murlan --help``
    example: str  # shown as the epilog of ``murlan NAME --help``
    options: Callable[[argparse.ArgumentParser], None]  # adds the subcommand's arguments
    run: Callable[[argparse.Namespace], int]  # does the work, returns the exit status
    details: str = ""  # more of ``murlan NAME --help``'s description, e.g. its exit statuses


COMMANDS: dict[str, Command] = {}


def command(
    name: str,
    *,
    help: str,  # mirrors argparse's own keyword
    example: str,
    options: Callable[[argparse.ArgumentParser], None] | None = None,
    details: str = "",
) -> Callable[[Callable[[argparse.Namespace], int]], Callable[[argparse.Namespace], int]]:
    """Decorator registering ``run(args) -> exit status`` as subcommand ``name``."""

    def register(run: Callable[[argparse.Namespace], int]) -> Callable[[argparse.Namespace], int]:
        if name in COMMANDS:
            raise ValueError(f"subcommand {name!r} is registered twice")
        add_options = options or (lambda parser: None)
        COMMANDS[name] = Command(name, help, example, add_options, run, details)
        return run

    return register


def module_command(
    name: str,
    module: str,
    *,
    help: str,  # mirrors argparse's own keyword
    example: str,
    details: str = "",
) -> None:
    """Register subcommand ``name`` whose options and work live in ``module``: its
    ``add_arguments(parser)`` and ``run_command(args) -> exit status``.

    The module is imported only when the parser is built or the command runs, so importing
    ``murlan_cli`` loads none of them.
    """

    def options(parser: argparse.ArgumentParser) -> None:
        importlib.import_module(module).add_arguments(parser)

    def run(args: argparse.Namespace) -> int:
        return importlib.import_module(module).run_command(args)

    command(name, help=help, example=example, options=options, details=details)(run)


class ArgumentParser(argparse.ArgumentParser):
    """argparse's parser held to the bad-input policy, for ``murlan`` and its subcommands.

    - An error is ONE line on stderr, ``PROG: error: MESSAGE (see 'PROG --help')``, and exit
      status 2; argparse's own prints the usage block first.
    - Options may come between positional arguments (``murlan arena random --boards 1
      greedy``): a parser whose positionals allow it reads its arguments with
      ``parse_known_intermixed_args``. The top parser, whose positional is the subcommand,
      cannot; its subparsers then read everything after the subcommand's name.
    """

    _intermixing = False

    def error(self, message: str):  # argparse's hook
        self.exit(2, f"{self.prog}: error: {message} (see '{self.prog} --help')\n")

    def parse_known_args(self, args=None, namespace=None):  # argparse's method
        if self._intermixing:
            return super().parse_known_args(args, namespace)
        self._intermixing = True  # parse_known_intermixed_args calls back into this method
        try:
            return self.parse_known_intermixed_args(args, namespace)
        except TypeError as exc:  # raised before parsing, by a parser argparse cannot intermix
            if "parse_intermixed_args" not in str(exc):
                raise
            return super().parse_known_args(args, namespace)
        finally:
            self._intermixing = False


class HelpFormatter(argparse.RawDescriptionHelpFormatter):
    """Keeps the example epilog as written and appends each option's default to its help.

    Unlike ``argparse.ArgumentDefaultsHelpFormatter`` it leaves out defaults that say nothing
    (None, False, an empty list) and help texts that already explain their default.
    """

    def _get_help_string(self, action: argparse.Action) -> str:
        text = action.help or ""
        default = action.default
        if (
            not action.option_strings
            or "default" in text
            or default is None
            or default is False
            or default == []
            or default is argparse.SUPPRESS
        ):
            return text
        return f"{text} (default: %(default)s)"


def build_parser() -> argparse.ArgumentParser:
    """The ``murlan`` parser with one subparser per registered command."""
    parser = ArgumentParser(
        prog="murlan",
        description="Murlan, the Albanian climbing card game: tools for records, bots and play.",
        epilog=(
            "Run 'murlan COMMAND --help' for a command's options and an example.\n"
            "Exit status: 0 success, 1 a fault found (e.g. an invalid record), 2 bad input."
        ),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for cmd in COMMANDS.values():
        p = sub.add_parser(
            cmd.name,
            help=cmd.help,
            description=f"{cmd.help}.\n\n{cmd.details}" if cmd.details else f"{cmd.help}.",
            epilog=f"example:\n  {cmd.example}",
            formatter_class=HelpFormatter,
        )
        cmd.options(p)
        p.set_defaults(run_command=cmd.run)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``murlan`` console script; returns the exit status."""
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # --help (0) or a usage error (2): argparse has printed why
        return exc.code if isinstance(exc.code, int) else 0
    try:
        return args.run_command(args)
    except UsageError as exc:
        return report_usage_error(f"murlan {args.command}", exc)
    except BrokenPipeError:  # output piped into e.g. `head`: stop quietly, as Unix tools do
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1


def console() -> Console:
    """A rich Console on the ``sys.stdout`` of the moment (made per call: tests capture it)."""
    from rich.console import Console

    return Console(highlight=False, soft_wrap=True)


# The subcommands register themselves on import (after COMMANDS and command exist). Their
# modules import the engine, torch or the web framework only when a command runs, so
# importing murlan_cli stays light.
from murlan_cli import actions, bots, replay, selfplay, serve, train, vectors  # noqa: E402, F401

__all__ = [
    "COMMANDS",
    "ArgumentParser",
    "Command",
    "HelpFormatter",
    "UsageError",
    "build_parser",
    "command",
    "console",
    "main",
    "module_command",
    "report_usage_error",
]
