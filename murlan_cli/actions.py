"""``murlan actions``: the action catalogue, as a table or as JSON for machines."""

from __future__ import annotations

import argparse
import json

from murlan_cli.terminal import console


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The ``murlan actions`` options."""
    parser.add_argument("--json", action="store_true", help="print the table as a JSON list")


def run(args: argparse.Namespace) -> int:
    """Print the action catalogue, as a table or as JSON."""
    from rich.table import Table

    from murlan_env.game.combos import action_catalogue

    rows = action_catalogue()
    if args.json:
        print(json.dumps(rows))
        return 0
    table = Table("id", "kind", "ranks", title=f"{len(rows)} actions")
    for row in rows:
        table.add_row(str(row["id"]), row["kind"], row["ranks"])
    console().print(table)
    return 0
