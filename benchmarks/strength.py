"""A bot's strength against every table that matters, with the duplicate-deal runner.

    python benchmarks/strength.py hard --boards 100 --frozen ckpt:early.pt

(``early.pt``: a copy of a strong run's ``checkpoint.pt`` taken early in its training; runs
keep only their latest checkpoint.)

Whole matches (RULES.md 6) on seeded boards, every seating, 95% CIs over boards; par is 1.5
points per hand and a 25% match win rate. The tables:

- ``3 x rule``: the bot in one seat against three rule bots, in each seat in turn;
- ``rule + search + greedy``: the bot with one rule, one search and one greedy bot, the four
  seated in every rotation;
- held-out opponents the bot was not trained against: three search bots, and three copies of
  a frozen earlier policy (``--frozen``);
- ``3 x greedy`` for scale.

With 100 boards a table gives about 4,000 hands for the bot (matches last some 10 hands).
"""

from __future__ import annotations

import argparse
import sys

from murlan_env.bots import registry
from murlan_env.bots.protocol import Bot
from murlan_env.eval.duplicate import one_against_three, play_duplicate, rotations


def table_results(
    bot: str | Bot,
    others: list[str],
    boards: int,
    seed: int,
    progress=None,
    max_hands: int | None = None,
):
    """The bot's (a spec or a Bot) BotResult at a table: one spec (three copies) or three
    specs (rotations); whole matches unless ``max_hands``."""
    player = registry.make_bot(bot) if isinstance(bot, str) else bot
    bots = [player] + [registry.make_bot(s) for s in others]
    lineups = one_against_three() if len(others) == 1 else rotations(4)
    result = play_duplicate(
        bots, boards, lineups=lineups, seed=seed, progress=progress, max_hands=max_hands
    )
    return result.bot_results()[0]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0],
        epilog="example: python benchmarks/strength.py hard --boards 100",
    )
    parser.add_argument("bot", help="the bot spec to measure (e.g. hard, ckpt:runs/x)")
    parser.add_argument("--boards", type=int, default=100, help="boards per table")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--search", default="search:100", help="the search bot's spec")
    parser.add_argument("--frozen", default=None, help="a frozen earlier policy (held out)")
    args = parser.parse_args(argv)
    tables = [
        ("3 x rule", ["rule"]),
        (f"rule + {args.search} + greedy", ["rule", args.search, "greedy"]),
        (f"3 x {args.search} (held out)", [args.search]),
    ]
    if args.frozen:
        tables.append((f"3 x {args.frozen} (held out)", [args.frozen]))
    tables.append(("3 x greedy", ["greedy"]))
    print(f"{args.bot}: whole matches, {args.boards} boards per table, seed {args.seed}")
    print("| table | points/hand (95% CI) | 1st | match wins (95% CI) | hands | matches |")
    print("|---|---|---|---|---|---|")
    for name, others in tables:
        r = table_results(args.bot, others, args.boards, args.seed)
        lo, hi = r.points_ci95
        wlo, whi = r.match_win_ci95
        print(
            f"| {name} | {r.points_per_hand:.3f} ({lo:.3f}-{hi:.3f}) | {r.first_rate:.0%} "
            f"| {r.match_win_rate:.0%} ({wlo:.0%}-{whi:.0%}) | {r.hands} | {r.matches} |",
            flush=True,
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
