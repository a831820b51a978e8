"""The ``murlan`` command line: one subcommand per module, named in one table.

``murlan_cli.commands.COMMANDS`` lists every subcommand: its name, its module, the group and
one-line help ``murlan --help`` shows, an example and more help for ``murlan NAME --help``.
Each module has two functions, ``add_arguments(parser)`` and ``run(args) -> exit status``, and
is imported only when its command is parsed, run or asked for ``--help``: ``murlan --help``
imports none of them, so it stays fast and loads neither the engine nor torch. Adding a
subcommand is a module with those two functions and a row in the table; nothing registers
itself on import.

Imports point one way: this package's ``__init__`` reads the table (``commands``) and the
terminal helpers (``terminal``) and loads command modules by name; a command module imports
``murlan_cli.terminal`` and ``murlan_cli.options``, never ``murlan_cli`` itself
(``tests/test_imports.py`` holds every module to that).

This package sits above both ``murlan_env`` and ``agents``: it is the only place that wires the
two together for the command line, so ``murlan_env`` never imports ``agents``.

Exit status: 0 success, 1 the work found a fault (an invalid record, a bundle that fails its
golden check), 2 bad input: an argument, file, rule flag or bot spec that cannot be used, with
ONE line on stderr naming the problem and the fix, never a traceback. A command raises
``UsageError`` for bad input (``murlan_cli.terminal``; scripts outside ``murlan`` report theirs
with ``report_usage_error``). Options that several commands share (``--rules``) live in
``murlan_cli.options``.
"""

from __future__ import annotations

import argparse
import importlib
import os
import shutil
import sys
import textwrap
from collections.abc import Sequence
from types import ModuleType

from murlan_cli.commands import COMMANDS, RENAMED, Command
from murlan_cli.terminal import UsageError, console, report_usage_error


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


class CommandParser(ArgumentParser):
    """The parser of one subcommand. Its options are its module's ``add_arguments``, added the
    first time it parses or prints its help: building the ``murlan`` parser imports no command
    module, and running one command imports only that command's. A ``notice`` (a renamed
    command's new name) goes to stderr once, before the arguments are read."""

    def __init__(self, *args, command: Command, notice: str = "", **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.command = command
        self.notice = notice
        self._module: ModuleType | None = None

    def module(self) -> ModuleType:
        """The command's module, its options added to this parser on the first call."""
        if self._module is None:
            self._module = importlib.import_module(self.command.module)
            self._module.add_arguments(self)
        return self._module

    def parse_known_args(self, args=None, namespace=None):  # argparse's method
        if self.notice:
            print(self.notice, file=sys.stderr)
            self.notice = ""
        self.module()
        return super().parse_known_args(args, namespace)

    def format_help(self) -> str:  # argparse's method
        self.module()
        return super().format_help()


def command_list(width: int) -> str:
    """The commands under their group headings, one line each and wrapped to ``width``, as
    ``murlan --help`` lists them (argparse lists a subcommand's choices under one heading)."""
    column = 4 + max(len(name) for name in COMMANDS) + 2
    lines: list[str] = []
    for group in dict.fromkeys(cmd.group for cmd in COMMANDS.values()):
        lines += ["", f"{group}:"]
        for cmd in COMMANDS.values():
            if cmd.group == group:
                text = textwrap.wrap(cmd.help, max(width - column, 20))
                lines.append(f"    {cmd.name:<{column - 6}}  {text[0]}")
                lines += [" " * column + more for more in text[1:]]
    return "\n".join(lines)


def build_parser() -> argparse.ArgumentParser:
    """The ``murlan`` parser: one subparser per command of the table, and one per old name of
    a renamed command (not listed). No command module is imported until its subparser parses
    or prints its help."""
    width = shutil.get_terminal_size().columns - 2  # as argparse's own formatter
    parser = ArgumentParser(
        prog="murlan",
        usage="%(prog)s [-h] COMMAND ...",
        description="Murlan, the Albanian climbing card game: tools for records, bots and play.\n"
        + command_list(width),
        epilog=(
            "Run 'murlan COMMAND --help' for a command's options and an example.\n"
            "Exit status: 0 success, 1 a fault found (e.g. an invalid record), 2 bad input.\n"
            "New to murlan? 'murlan play' deals you a match in the terminal."
        ),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    sub = parser.add_subparsers(
        dest="command",
        prog="murlan",  # each subcommand's usage line: murlan NAME ...
        metavar="COMMAND",
        required=True,
        help=argparse.SUPPRESS,  # the description lists the commands, grouped
        parser_class=CommandParser,
    )
    renamed = {old: COMMANDS[new] for old, new in RENAMED.items()}
    for name, cmd in [*COMMANDS.items(), *renamed.items()]:
        description = f"{cmd.help}.\n\n{cmd.details}" if cmd.details else f"{cmd.help}."
        notice = f"murlan {name} is now murlan {cmd.name}" if name in renamed else ""
        sub.add_parser(
            name,
            command=cmd,
            notice=notice,
            description=f"{notice}.\n\n{description}" if notice else description,
            epilog=f"example:\n  {cmd.example}",
            formatter_class=HelpFormatter,
        )
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``murlan`` console script; returns the exit status."""
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # --help (0) or a usage error (2): argparse has printed why
        return exc.code if isinstance(exc.code, int) else 0
    cmd = COMMANDS[RENAMED.get(args.command, args.command)]
    try:
        return importlib.import_module(cmd.module).run(args)
    except UsageError as exc:
        return report_usage_error(f"murlan {args.command}", exc)
    except BrokenPipeError:  # output piped into e.g. `head`: stop quietly, as Unix tools do
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1


__all__ = [
    "COMMANDS",
    "RENAMED",
    "ArgumentParser",
    "Command",
    "CommandParser",
    "HelpFormatter",
    "UsageError",
    "build_parser",
    "command_list",
    "console",
    "main",
    "report_usage_error",
]
