"""Strength of the rule-based bots: seeded duplicate deals on the batched engine.

Each matchup puts bot A in one seat against three copies of bot B; every deal (hand 1 with its
opening duty, then a hand with the exchange) is played four times with the bots rotated
through the seats, so the cards' luck cancels out. It prints A's points per hand with a 95%
confidence interval over deals (parity is 1.5: points per hand sum to 6 over four players),
and the decisions per second of each bot's ``act`` (time inside the bot only).

    python benchmarks/bots_strength.py --deals 1000 --seed 0
    python benchmarks/bots_strength.py --deals 300 --rules sticky_pass=true
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from murlan_cli.options import add_rules_argument
from murlan_env.bots.baseline import GreedyBot, RandomBot
from murlan_env.bots.history import uses_history
from murlan_env.bots.rule import RuleBot
from murlan_env.eval.duplicate import one_against_three, play_duplicate
from murlan_env.game.rules import Rules, RulesError

PARITY = 1.5


class Timed:
    """A bot wrapper that counts decisions and the seconds spent choosing them."""

    def __init__(self, bot) -> None:
        self.bot, self.name = bot, bot.name
        self.uses_history = uses_history(bot)  # pass the hand's history on to a bot that reads it
        self.decisions, self.seconds = 0, 0.0

    def act(self, obs: np.ndarray, mask: np.ndarray, rng: np.random.Generator, **history):
        start = time.perf_counter()
        out = self.bot.act(obs, mask, rng, **history)
        self.seconds += time.perf_counter() - start
        self.decisions += len(obs)
        return out


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=1000, help="duplicate deals per matchup")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--hands-per-deal", type=int, default=2)
    add_rules_argument(parser)
    args = parser.parse_args(argv)
    try:
        rules = Rules.parse(args.rules)
    except RulesError as e:
        parser.error(f"--rules: {e}")  # exits 2

    bots = {"random": Timed(RandomBot()), "greedy": Timed(GreedyBot()), "rule": Timed(RuleBot())}
    matchups = [("greedy", "random"), ("rule", "greedy"), ("rule", "random"), ("greedy", "rule")]
    print(f"rules {rules.to_dict()}  deals {args.deals} x 4 seats x {args.hands_per_deal} hands")
    print(f"{'A vs 3 x B':<20}{'A points/hand':>14}{'95% CI':>18}{'seconds':>9}")
    for a, b in matchups:
        start = time.perf_counter()
        result = play_duplicate(
            [bots[a], bots[b]],
            args.deals,
            lineups=one_against_three(),
            seed=args.seed,
            rules=rules,
            max_hands=args.hands_per_deal,
        )
        row = result.bot_results()[0]
        mean, (low, high) = row.points_per_hand, row.points_ci95
        elapsed = time.perf_counter() - start
        print(f"{a + ' vs ' + b:<20}{mean:>14.3f}{f'[{low:.3f}, {high:.3f}]':>18}{elapsed:>9.1f}")
    print(f"parity {PARITY}")
    for name, bot in bots.items():
        rate = bot.decisions / bot.seconds if bot.seconds else float("nan")
        print(f"{name:<8} {bot.decisions:>9} decisions  {rate:>10.0f} decisions/s")


if __name__ == "__main__":
    main()
