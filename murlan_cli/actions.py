"""``murlan actions``: the action catalogue, as a table or as JSON for machines."""

from __future__ import annotations

import argparse
import json

from murlan_cli import command, console


def actions_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--json", action="store_true", help="print the table as a JSON list")


@command(
    "actions",
    help="print the action catalogue: id, kind and ranks of every action",
    example="murlan actions --json > actions.json",
    options=actions_options,
)
def actions_command(args: argparse.Namespace) -> int:
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
