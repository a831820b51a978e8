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
        help=f"{what} (section 7 of the rule book, RULES.md), repeatable, "
        "e.g. sticky_pass=true,start_card=3C",
    )


def add_supports_argument(parser: argparse.ArgumentParser, what: str) -> None:
    """``--supports FLAG=VALUE[,...]`` (repeatable): rule variants a bundle's policy is
    measured to play (bot.json's ``supported_rules``); read it with ``supported_rules``."""
    parser.add_argument("--supports", action="append", metavar="FLAG=VALUE[,...]", help=what)


def supported_rules(texts: list[str] | None) -> dict[str, list]:
    """``--supports`` options as flag -> values; UsageError naming a bad flag or value."""
    from murlan_cli.terminal import UsageError
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


# Argument types: argparse turns their ArgumentTypeError into one line and exit status 2
# (murlan_cli.ArgumentParser), before any work starts.


def seed(text: str) -> int:
    """A seed: an integer from 0 (numpy's generators take no negative seed)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"a seed is a whole number from 0, got {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"a seed is a whole number from 0, got {value}")
    return value


def count(text: str) -> int:
    """A count of at least 1 (hands, positions, boards)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


def output_file(text: str) -> str:
    """A file to write: its folder must exist and be writable, so that the work is not lost
    at the end."""
    import os
    from pathlib import Path

    folder = Path(text).expanduser().parent
    if not folder.is_dir():
        raise argparse.ArgumentTypeError(f"cannot write {text}: there is no folder {folder}")
    if Path(text).expanduser().is_dir():
        raise argparse.ArgumentTypeError(f"cannot write {text}: it is a folder; name a file")
    if not os.access(folder, os.W_OK):
        raise argparse.ArgumentTypeError(f"cannot write {text}: the folder {folder} is read-only")
    return text


def png_file(text: str) -> str:
    """A PNG image to write (``output_file`` whose name ends in .png: the chart's format
    follows the name)."""
    from pathlib import Path

    if Path(text).suffix.lower() != ".png":
        raise argparse.ArgumentTypeError(f"a chart is a PNG image: name a .png file, got {text!r}")
    return output_file(text)


def output_folder(text: str) -> str:
    """A folder to write into (made when missing): not an existing file, and its nearest
    existing folder writable."""
    import os
    from pathlib import Path

    path = Path(text).expanduser()
    if path.exists() and not path.is_dir():
        raise argparse.ArgumentTypeError(f"cannot write into {text}: it is a file; name a folder")
    existing = next(p for p in (path, *path.parents) if p.exists())
    if not existing.is_dir() or not os.access(existing, os.W_OK):
        raise argparse.ArgumentTypeError(f"cannot write into {text}: {existing} is read-only")
    return text
