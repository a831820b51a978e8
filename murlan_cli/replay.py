"""``murlan replay FILE``: check a ``murlan-record/1`` game record and summarise it.

Exit status: 0 a valid record; 1 an invalid record, a JSON object that breaks the format or the
rules (stdout names the first fault in reading order and why); 2 a file that is no record at all:
unreadable, not JSON, or JSON but not an object (one line on stderr).
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import TYPE_CHECKING

from murlan_cli.terminal import UsageError, console

if TYPE_CHECKING:
    from rich.console import Console


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The ``murlan replay`` options."""
    parser.add_argument("file", help="record file (JSON), or - for standard input")
    parser.add_argument("--plays", action="store_true", help="also list every play of every hand")


def run(args: argparse.Namespace) -> int:
    """Check the record and print its summary; UsageError for a file that is no record."""
    from murlan_env import records

    name = args.file
    try:
        data = sys.stdin.buffer.read() if name == "-" else open(name, "rb").read()
    except OSError as exc:
        raise UsageError(f"cannot read {name}: {exc.strerror or exc}") from None
    try:
        record = records.loads(data)
    except records.RecordError as exc:
        raise UsageError(
            f"{name} is not a game record ({exc.reason}); give a murlan-record/1 JSON file, "
            "e.g. one written by murlan selfplay or murlan play --record"
        ) from None
    out = console()
    result = records.validate(record)
    if not result.valid:
        out.print(f"{name}: invalid record at {result.fault}: {result.reason}", markup=False)
        return 1
    print_summary(out, name, record, args.plays)
    return 0


def print_summary(out: Console, name: str, rec: dict, plays: bool) -> None:
    """The record's rules, one table row per hand, the scores; every play if ``plays``. Hands
    and plays are counted from 1, as the validator's faults and ``murlan play`` count them."""
    from rich.table import Table

    from murlan_env import records

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
    named = records.players(rec)
    if named is not None:
        seats = ", ".join(f"seat {s} {who}" for s, who in enumerate(named))
        out.print(f"players: {seats}", markup=False)
    table = Table("hand", "dealer", "exchange", "plays", "finish (1st..last)", "points")
    for h, hand in enumerate(rec["hands"]):
        ex = hand["exchange"]
        ex_text = "-" if ex is None else f"{ex['last']}->{ex['first']} {ex['last_gives']}"
        if ex is not None:
            ex_text += f", {ex['first']}->{ex['last']} {ex['first_gives'] or '?'}"
        finish = " ".join(map(str, hand["finish"])) or "-"
        points = "unfinished" if hand["points"] is None else " ".join(map(str, hand["points"]))
        table.add_row(
            str(h + 1), str(hand["dealer"]), ex_text, str(len(hand["plays"])), finish, points
        )
    out.print(table)
    scores = "  ".join(f"seat {s}: {v}" for s, v in enumerate(rec["scores"]))
    out.print(f"scores: {scores}   target: {rec['target']}", markup=False)
    if plays:
        for h, hand in enumerate(rec["hands"]):
            out.print(f"hand {h + 1}:", markup=False)
            for p, (seat, cards) in enumerate(hand["plays"], start=1):
                out.print(f"  {p:3d}  seat {seat}  {cards or 'pass'}", markup=False)
