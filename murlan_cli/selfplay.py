"""``murlan selfplay``: a seeded match between random bots, written as a game record."""

from __future__ import annotations

import argparse
import sys

from murlan_cli.options import add_rules_argument, seed
from murlan_cli.terminal import UsageError


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The ``murlan selfplay`` options."""
    parser.add_argument("--seed", type=seed, default=0, help="seed of the deals and the bots")
    parser.add_argument("--out", help="record file to write (default: print the record)")
    add_rules_argument(parser, "--rule")
    parser.add_argument(
        "--max-hands",
        type=int,
        default=None,
        help="stop after this many hands (default: match end)",
    )


def run(args: argparse.Namespace) -> int:
    """Play the match and write or print its record."""
    import numpy as np

    from murlan_env import records
    from murlan_env.game.rules import Rules, RulesError

    try:
        rules = Rules.parse(args.rules)
    except RulesError as exc:
        raise UsageError(f"--rules: {exc}") from None
    if args.max_hands is not None and args.max_hands < 1:
        raise UsageError(f"--max-hands must be at least 1, got {args.max_hands}")
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
