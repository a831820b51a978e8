"""The ``murlan`` command line: one subcommand per task, registered in ``COMMANDS``.

Subcommands (``murlan --help`` lists them, ``murlan CMD --help`` shows options and an example):

- ``replay FILE``   check a ``murlan-record/1`` game record and summarise it
- ``actions``       the action table (``--json`` for machines)
- ``selfplay``      play a seeded match between random bots and write its record
- ``export``, ``arena``, ``play``: see the end of this file

Exit status: 0 success, 1 an invalid record (the first fault and why), 2 a usage error.

Adding a subcommand takes a few lines: write a function that takes the parsed arguments and
returns the exit status, and register it with its options and an example::

    def _echo_options(parser: argparse.ArgumentParser) -> None:
        parser.add_argument("--n", type=int, default=1, help="the number to print")

    @command("echo", help="print a number", example="murlan echo --n 3", options=_echo_options)
    def echo_command(args: argparse.Namespace) -> int:
        from agents.something import run  # import heavy or torch code inside the function
        return run(args)

``murlan_env`` never imports torch: subcommands that need ``agents`` import it when they run.
Raise ``UsageError`` for a bad argument (exit 2, message on stderr).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import sys
from collections.abc import Callable, Sequence

import numpy as np
from rich.console import Console
from rich.table import Table

from murlan_env import records
from murlan_env.combos import action_table
from murlan_env.rules import RULE_CHOICES, Rules, RulesError


class UsageError(Exception):
    """A bad command-line argument: printed on stderr, exit status 2."""


@dataclasses.dataclass(frozen=True)
class Command:
    """A registered subcommand."""

    name: str
    help: str  # one line for ``murlan --help``
    example: str  # shown as the epilog of ``murlan NAME --help``
    options: Callable[[argparse.ArgumentParser], None]  # adds the subcommand's arguments
    run: Callable[[argparse.Namespace], int]  # does the work, returns the exit status


COMMANDS: dict[str, Command] = {}


def command(
    name: str,
    *,
    help: str,  # noqa: A002 - mirrors argparse's own keyword
    example: str,
    options: Callable[[argparse.ArgumentParser], None] | None = None,
) -> Callable[[Callable[[argparse.Namespace], int]], Callable[[argparse.Namespace], int]]:
    """Decorator registering ``run(args) -> exit status`` as subcommand ``name``."""

    def register(run: Callable[[argparse.Namespace], int]) -> Callable[[argparse.Namespace], int]:
        if name in COMMANDS:
            raise ValueError(f"subcommand {name!r} is registered twice")
        COMMANDS[name] = Command(name, help, example, options or (lambda parser: None), run)
        return run

    return register


def build_parser() -> argparse.ArgumentParser:
    """The ``murlan`` parser with one subparser per registered command."""
    parser = argparse.ArgumentParser(
        prog="murlan",
        description="Murlan, the Albanian climbing card game: tools for records, bots and play.",
        epilog="Run 'murlan COMMAND --help' for a command's options and an example.",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for cmd in COMMANDS.values():
        p = sub.add_parser(
            cmd.name,
            help=cmd.help,
            description=cmd.help,
            epilog=f"example:\n  {cmd.example}",
            formatter_class=argparse.RawDescriptionHelpFormatter,
        )
        cmd.options(p)
        p.set_defaults(_run=cmd.run)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``murlan`` console script; returns the exit status."""
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # --help (0) or a usage error (2): argparse has printed why
        return exc.code if isinstance(exc.code, int) else 0
    try:
        return args._run(args)
    except UsageError as exc:
        print(f"murlan {args.command}: error: {exc}", file=sys.stderr)
        return 2
    except BrokenPipeError:  # output piped into e.g. `head`: stop quietly, as Unix tools do
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1


def _console() -> Console:
    # Made per call so output goes to the sys.stdout of the moment (tests capture it).
    return Console(highlight=False, soft_wrap=True)


# --------------------------------------------------------------------------- replay


def _replay_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file", help="record file (JSON), or - for standard input")
    parser.add_argument("--plays", action="store_true", help="also list every play of every hand")


@command(
    "replay",
    help="check a murlan-record/1 game record against the rules and summarise it",
    example="murlan replay game.json      (exit 0: valid, 1: invalid, 2: usage error)",
    options=_replay_options,
)
def replay_command(args: argparse.Namespace) -> int:
    name = args.file
    try:
        data = sys.stdin.buffer.read() if name == "-" else open(name, "rb").read()  # noqa: SIM115
    except OSError as exc:
        raise UsageError(f"cannot read {name}: {exc.strerror or exc}") from None
    out = _console()
    result = records.validate(data)
    if not result.valid:
        out.print(f"{name}: invalid record at {result.fault}: {result.reason}", markup=False)
        return 1
    _print_summary(out, name, records.loads(data), args.plays)
    return 0


def _print_summary(out: Console, name: str, rec: dict, plays: bool) -> None:
    rules = rec["rules"]
    flags = ", ".join(f"{k}={json.dumps(v)}" for k, v in rules.items()) or "standard rules"
    winners = rec["winners"]
    if not winners:
        status = "match goes on"
    elif len(winners) == 1:
        status = f"won by seat {winners[0]}"
    else:
        status = f"drawn between seats {', '.join(map(str, winners))}"
    out.print(f"{name}: valid murlan-record/1, {len(rec['hands'])} hand(s), {status}", markup=False)
    out.print(f"rules: {flags}", markup=False)
    table = Table("hand", "dealer", "exchange", "plays", "finish (1st..last)", "points")
    for h, hand in enumerate(rec["hands"]):
        ex = hand["exchange"]
        ex_text = "-" if ex is None else f"{ex['last']}->{ex['first']} {ex['last_gives']}"
        if ex is not None:
            ex_text += f", {ex['first']}->{ex['last']} {ex['first_gives'] or '?'}"
        finish = " ".join(map(str, hand["finish"])) or "-"
        points = "unfinished" if hand["points"] is None else " ".join(map(str, hand["points"]))
        table.add_row(str(h), str(hand["dealer"]), ex_text, str(len(hand["plays"])), finish, points)
    out.print(table)
    scores = "  ".join(f"seat {s}: {v}" for s, v in enumerate(rec["scores"]))
    out.print(f"scores: {scores}   target: {rec['target']}", markup=False)
    if plays:
        for h, hand in enumerate(rec["hands"]):
            out.print(f"hand {h}:", markup=False)
            for p, (seat, cards) in enumerate(hand["plays"]):
                out.print(f"  {p:3d}  seat {seat}  {cards or 'pass'}", markup=False)


# --------------------------------------------------------------------------- actions


def _actions_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--json", action="store_true", help="print the table as a JSON list")


@command(
    "actions",
    help="print the action table: id, kind and ranks of every action",
    example="murlan actions --json > actions.json",
    options=_actions_options,
)
def actions_command(args: argparse.Namespace) -> int:
    rows = action_table()
    if args.json:
        print(json.dumps(rows))
        return 0
    table = Table("id", "kind", "ranks", title=f"{len(rows)} actions")
    for row in rows:
        table.add_row(str(row["id"]), row["kind"], row["ranks"])
    _console().print(table)
    return 0


# --------------------------------------------------------------------------- selfplay


def _rules_of(pairs: Sequence[str]) -> Rules:
    """Rules from ``KEY=VALUE`` strings; values are JSON (true, false) or plain words (3C)."""
    flags = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep:
            raise UsageError(f"--rule takes KEY=VALUE, got {pair!r}; flags: {list(RULE_CHOICES)}")
        try:
            flags[key] = json.loads(value)
        except ValueError:
            flags[key] = value
    try:
        return Rules.from_dict(flags)
    except RulesError as exc:
        raise UsageError(str(exc)) from None


def _selfplay_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--seed", type=int, default=0, help="seed of deals and bots (default 0)")
    parser.add_argument("--out", help="record file to write (default: print the record)")
    parser.add_argument(
        "--rule",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="a variant flag, repeatable, e.g. --rule sticky_pass=true --rule start_card=3C",
    )
    parser.add_argument(
        "--max-hands",
        type=int,
        default=None,
        help="stop after this many hands (default: match end)",
    )


@command(
    "selfplay",
    help="play a seeded match between random bots and write its game record",
    example="murlan selfplay --seed 7 --rule joker_pair=true --out game.json",
    options=_selfplay_options,
)
def selfplay_command(args: argparse.Namespace) -> int:
    rules = _rules_of(args.rule)
    if args.max_hands is not None and args.max_hands < 1:
        raise UsageError("--max-hands must be at least 1")
    rec = records.selfplay(np.random.default_rng(args.seed), 1, rules, max_hands=args.max_hands)
    record = rec.record(0)
    if args.out is None:
        sys.stdout.write(records.dumps(record))
        return 0
    try:
        records.save(record, args.out)
    except OSError as exc:
        raise UsageError(f"cannot write {args.out}: {exc.strerror or exc}") from None
    print(
        f"wrote {args.out}: {len(record['hands'])} hand(s), scores {record['scores']}, "
        f"winners {record['winners']}"
    )
    return 0


# --------------------------------------------------------------------------- export


def _export_options(parser: argparse.ArgumentParser) -> None:
    from murlan_env.bundle_bot import export_arguments

    export_arguments(parser)


@command(
    "export",
    help="write a checkpoint's bundle for apps: model.onnx, bot.json, golden.json",
    example="murlan export runs/quick --out bundles/quick",
    options=_export_options,
)
def export_command(args: argparse.Namespace) -> int:
    from agents.export import run  # torch is imported only when exporting

    return run(args)


# --------------------------------------------------------------------------- arena, play


def _arena_options(parser: argparse.ArgumentParser) -> None:
    from agents.arena import add_arguments  # numpy only: torch loads for ckpt: bots only

    add_arguments(parser)


@command(
    "arena",
    help="seeded duplicate tournament between bots: points, match wins, ratings",
    example="murlan arena random greedy rule search:200 ckpt:runs/x --boards 40 --seed 0",
    options=_arena_options,
)
def arena_command(args: argparse.Namespace) -> int:
    from agents.arena import run_command

    return run_command(args)


def _play_options(parser: argparse.ArgumentParser) -> None:
    from murlan_env.play import add_arguments

    add_arguments(parser)


@command(
    "play",
    help="play a match against three bots in the terminal",
    example="murlan play --seed 3 --bots rule,greedy,search:100 --record game.json",
    options=_play_options,
)
def play_command(args: argparse.Namespace) -> int:
    from murlan_env.play import run_command

    return run_command(args)


if __name__ == "__main__":
    sys.exit(main())
