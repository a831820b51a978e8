"""``murlan arena``: the command line of a seeded duplicate tournament between bots.

The tournament, its report, table and chart are ``murlan_env.eval.arena`` (no argparse, no
printing); this module reads the options, turns bad input into a usage error (exit 2, one line
on stderr), shows a progress bar on a terminal and prints or writes the report.

``murlan arena random greedy rule search:200 ckpt:runs/x --boards 40 --seed 0``
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from murlan_cli.options import add_rules_argument, output_file, png_file, seed
from murlan_cli.terminal import UsageError

REPLACED = (
    "{option} is gone: use --boards N (N seeded boards, each played by every lineup as a "
    "whole match) and --max-hands K to stop each board after K hands"
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The ``murlan arena`` options."""
    from murlan_env.eval.arena import DEFAULT_BOARDS  # numpy only: torch loads for ckpt: bots

    parser.add_argument(
        "bots", nargs="+", help="bot specs: random greedy rule search:200 ckpt:PATH bundle:DIR"
    )
    parser.add_argument(
        "--boards",
        type=int,
        default=DEFAULT_BOARDS,
        help=f"seeded boards, each played by every lineup (default {DEFAULT_BOARDS})",
    )
    parser.add_argument(
        "--max-hands",
        type=int,
        default=None,
        metavar="K",
        help="stop each board after K hands (default: whole matches)",
    )
    parser.add_argument("--seed", type=seed, default=0, help="seed of the boards' deals")
    add_rules_argument(parser)
    parser.add_argument(
        "--json",
        nargs="?",
        const="-",
        type=output_file,
        default=None,
        metavar="FILE",
        help="write the report as JSON (to stdout without FILE)",
    )
    parser.add_argument(
        "--png", type=png_file, default=None, metavar="FILE.png", help="save a chart of the report"
    )
    # Options of earlier versions, kept only to say what replaced them.
    for gone in ("--hands", "--lanes"):
        parser.add_argument(gone, default=None, help=argparse.SUPPRESS)


def run(args: argparse.Namespace) -> int:
    """Run ``murlan arena`` from parsed arguments; UsageError for bad input."""
    from murlan_env.bots import registry
    from murlan_env.eval.arena import run_arena, save_chart
    from murlan_env.game.rules import Rules, RulesError

    for option in ("hands", "lanes"):
        if getattr(args, option, None) is not None:
            raise UsageError(REPLACED.format(option="--" + option))
    try:
        if args.boards < 1:
            raise ValueError(f"--boards must be at least 1, got {args.boards}")
        if args.max_hands is not None and args.max_hands < 1:
            raise ValueError(f"--max-hands must be at least 1, got {args.max_hands}")
        rules = Rules.parse(args.rules)
        bots = [registry.make_bot(spec) for spec in args.bots]
        if len(bots) < 2:
            raise ValueError("an arena needs at least 2 bots")
        for bot in bots:
            why = registry.rules_conflict(bot, rules)
            if why:
                raise ValueError(why)
    except (ValueError, RulesError, FileNotFoundError) as err:
        raise UsageError(str(err)) from None
    bar, progress = _progress_bar()
    try:
        report = run_arena(bots, args.boards, args.seed, rules, args.max_hands, progress)
    finally:
        if bar is not None:
            bar.close()
        for bot in bots:  # end the processes of bots in other programs
            if callable(getattr(bot, "close", None)):
                bot.close()
    if args.json == "-":
        print(json.dumps(report, indent=2))
    else:
        print_report(report)
        if args.json:
            Path(args.json).write_text(json.dumps(report, indent=2))
    if args.png:
        save_chart(report, args.png)
    return 0


def print_report(report: dict[str, Any], console=None) -> None:
    """Print the one-line summary and the table. Off a terminal (piped, CI) the table keeps
    its natural width: no column is truncated or wrapped to fit an assumed 80 columns."""
    from rich.console import Console
    from rich.measure import Measurement

    from murlan_env.bots.process import describe_faults
    from murlan_env.eval.arena import report_table

    console = console or Console()
    table = report_table(report)
    if not console.is_terminal:
        natural = Measurement.get(console, console.options.update_width(1 << 20), table).maximum
        console = Console(file=console.file, width=natural, no_color=True, highlight=False)
    console.print(f"murlan arena: {report['summary']}", soft_wrap=True)
    console.print(table)
    for row in report.get("faults", ()):
        for line in describe_faults(row["bot"], row):
            console.print(line, soft_wrap=True, markup=False)


def _progress_bar():
    """A tqdm bar on stderr and its ``progress`` callback, or (None, None) off a terminal."""
    if not sys.stderr.isatty():
        return None, None
    from tqdm import tqdm

    bar = tqdm(unit="hand", file=sys.stderr, leave=False)

    def progress(done: int, total: int) -> None:
        bar.total = total
        bar.update(done - bar.n)

    return bar, progress
