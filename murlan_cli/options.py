"""Options shared by several command lines: the one ``--rules`` syntax.

The ``murlan`` subcommands, ``train.py`` and the benchmark scripts take rule variants the same
way; the option lives here, in the command layer, so that ``murlan_env`` holds no argparse.
``Rules.parse`` (``murlan_env.game.rules``) reads what it collects.
"""

from __future__ import annotations

import argparse


def add_rules_argument(
    parser: argparse.ArgumentParser, *aliases: str, what: str = "variant flags"
) -> None:
    """The one ``--rules FLAG=VALUE[,...]`` option of every command line (repeatable; read
    it with ``Rules.parse(args.rules)``)."""
    parser.add_argument(
        "--rules",
        *aliases,
        action="append",
        default=[],
        metavar="FLAG=VALUE[,...]",
        help=f"{what} (RULES.md section 7), repeatable, e.g. sticky_pass=true,start_card=3C",
    )
