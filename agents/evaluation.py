"""Seeded evaluation of a policy against bots, comparable across runs.

A duplicate run (``murlan_env.eval.duplicate``): the learner sits in each of the four seats in turn
against three copies of the bot, on the same seeded boards, for the first ``n_hands`` hands of
a match (hand 1 with its opening duty, then hands with the exchange) or whole matches
(``n_hands=None``). The learner plays greedily (the argmax of its masked scores, as
``agents.policy_bot.TorchPolicyBot``); the bots draw from the run's seeded generator.

Points per hand are averaged per board over the four seatings, and the 95% confidence
interval is taken over boards, which removes most of the luck of the cards.
"""

from __future__ import annotations

import dataclasses

import torch
from torch import nn

from agents.policy_bot import TorchPolicyBot
from murlan_env.bots import registry
from murlan_env.bots.protocol import Bot
from murlan_env.eval.duplicate import DealSource, one_against_three, play_duplicate
from murlan_env.game.rules import Rules

LEARNER = "learner"


@dataclasses.dataclass
class EvalResult:
    """Outcome of ``evaluate`` for one bot."""

    bot: str  # the opponents' name
    points_per_hand: float  # learner's mean points per hand (0-3; 1.5 is par)
    ci95: float  # half-width of the 95% CI of points_per_hand, over boards
    win_rate: float  # share of hands the learner finished 1st (0.25 is par)
    hands: int  # hands played by the learner
    matches: int = 0  # finished matches (whole matches only)
    match_win_rate: float | None = None  # share of them won (a draw shares); None: no match
    match_win_ci95: tuple[float, float] | None = None  # its 95% interval
    boards: list[float] | None = None  # the learner's points per hand on each board

    def line(self) -> str:
        text = (
            f"vs {self.bot}: {self.points_per_hand:.3f} ± {self.ci95:.3f} points/hand "
            f"(par 1.5), 1st in {self.win_rate:.1%} of {self.hands} hands"
        )
        if self.matches and self.match_win_rate is not None and self.match_win_ci95:
            lo, hi = self.match_win_ci95
            text += (
                f", won {self.match_win_rate:.1%} [{lo:.0%}, {hi:.0%}] of {self.matches} matches"
            )
        return text


@torch.inference_mode()
def evaluate(
    policy: nn.Module,
    bot_name: str | Bot,
    *,
    seed: int = 1234,
    n_deals: int = 256,
    n_hands: int | None = 2,
    rules: Rules | None = None,
    deals: DealSource | None = None,
) -> EvalResult:
    """Play ``n_deals`` boards with ``policy`` in each seat against three ``bot_name`` bots.

    ``bot_name``: a ``murlan_env.bots.registry`` spec (or a Bot). ``n_hands``: hands per board
    (None: whole matches, which also measures the match win rate). ``deals``: the boards'
    deals (default: seeded from ``seed``, see ``murlan_env.eval.duplicate.seeded_deals``).
    """
    bot = registry.make_bot(bot_name) if isinstance(bot_name, str) else bot_name
    result = play_duplicate(
        [TorchPolicyBot(policy, LEARNER), bot],
        n_deals,
        lineups=one_against_three(),
        seed=seed,
        rules=rules,
        max_hands=n_hands,
        deals=deals,
    )
    learner = result.bot_results()[0]
    lo, hi = learner.points_ci95
    return EvalResult(
        bot=bot_name if isinstance(bot_name, str) else bot.name,
        points_per_hand=learner.points_per_hand,
        ci95=(hi - lo) / 2,
        win_rate=learner.first_rate,
        hands=learner.hands,
        matches=learner.matches,
        match_win_rate=learner.match_win_rate if learner.matches else None,
        match_win_ci95=learner.match_win_ci95 if learner.matches else None,
        boards=result.board_points()[:, 0].tolist(),
    )
