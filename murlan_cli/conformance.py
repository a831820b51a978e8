"""``murlan conformance``: files that hold another implementation of the rules to this engine.

``transitions`` writes single transitions from every phase and variant (a JSON object),
``lockstep`` whole seeded random matches with the state after every decision (JSON lines,
one match a line), ``records`` valid and corrupted records with the validator's verdict,
``search`` the search's belief and rollouts for fixed worlds and uniforms
(``murlan_env.conformance.search``) of the ``expert`` level's policy,
``rule`` positions from real play with the rule bot's move and its moves' log-probabilities,
and ``levels`` the draws of the levels' generator and positions from real play with each
non-search level's move for the decision's seed (``murlan_env.conformance.levels``).
The JavaScript client's tests read them (clients/js/tests/make-vectors.sh).
"""

from __future__ import annotations

import argparse
import json
import sys

from murlan_cli.terminal import UsageError

KINDS = ("transitions", "lockstep", "records", "search", "rule", "levels")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The ``murlan conformance`` options."""
    parser.add_argument("kind", choices=KINDS, help="which vectors to write")
    parser.add_argument("--seed", type=int, default=0, help="seed of the matches and moves")
    parser.add_argument(
        "--matches",
        type=int,
        default=None,
        help="matches to play (default: transitions 2 per variant, lockstep 16, records 8, "
        "search 4, rule 2 per variant, levels 1 per level and variant)",
    )
    parser.add_argument("--out", help="file to write (default: print)")


def run(args: argparse.Namespace) -> int:
    """Write the vectors of one kind to ``--out`` or stdout."""
    import numpy as np

    from murlan_env.conformance import engine

    if args.matches is not None and args.matches < 1:
        raise UsageError(f"--matches must be at least 1, got {args.matches}")
    rng = np.random.default_rng(args.seed)
    if args.kind == "transitions":
        data = engine.transition_vectors(rng, matches=args.matches or 2)
        lines = [json.dumps({"seed": args.seed, **data})]
    elif args.kind == "lockstep":
        lines = [json.dumps(m) for m in engine.lockstep_matches(rng, args.matches or 16)]
    elif args.kind == "search":
        from murlan_env.bots import registry
        from murlan_env.conformance.search import search_vectors

        policy = registry.policies_dir() / registry.levels()["expert"]["policy"]
        data = search_vectors(rng, policy, games=args.matches or 4)
        lines = [json.dumps({"seed": args.seed, **data})]
    elif args.kind == "rule":
        from murlan_env.conformance.rule import rule_vectors

        lines = [json.dumps({"seed": args.seed, **rule_vectors(rng, args.matches or 2)})]
    elif args.kind == "levels":
        from murlan_env.bots import registry
        from murlan_env.conformance.levels import level_vectors

        bots = {
            n: registry.make_bot(n) for n, lv in registry.levels().items() if not lv.get("search")
        }
        data = level_vectors(rng, bots, args.matches or 1)
        lines = [json.dumps({"seed": args.seed, **data})]
    else:
        from murlan_env.conformance.records import record_vectors

        lines = [json.dumps({"seed": args.seed, **record_vectors(rng, args.matches or 8)})]
    text = "".join(line + "\n" for line in lines)
    if args.out is None:
        sys.stdout.write(text)
        return 0
    try:
        with open(args.out, "w", encoding="utf-8") as f:
            f.write(text)
    except OSError as exc:
        raise UsageError(f"cannot write {args.out}: {exc.strerror or exc}") from None
    return 0
