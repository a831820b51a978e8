"""Options shared by several command lines: the one ``--rules`` syntax, and ``--supports``.

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
        help=f"{what} (section 7 of the rule book, RULES.md), repeatable, e.g. sticky_pass=true,start_card=3C",
    )


def add_supports_argument(parser: argparse.ArgumentParser, what: str) -> None:
    """``--supports FLAG=VALUE[,...]`` (repeatable): rule variants a bundle's policy is
    measured to play (bot.json's ``supported_rules``); read it with ``supported_rules``."""
    parser.add_argument("--supports", action="append", metavar="FLAG=VALUE[,...]", help=what)


def supported_rules(texts: list[str] | None) -> dict[str, list]:
    """``--supports`` options as flag -> values; UsageError naming a bad flag or value."""
    from murlan_cli import UsageError
    from murlan_env.game.rules import Rules, RulesError

    out: dict[str, list] = {}
    for text in texts or []:
        try:
            flags = Rules.parse(text).to_dict()
        except RulesError as e:
            raise UsageError(f"--supports: {e}") from None
        for flag, value in flags.items():
            out.setdefault(flag, []).append(value)
    return out
