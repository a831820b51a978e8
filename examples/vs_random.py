"""Seeded evaluation shared by the examples: a policy's points per hand against 3 random bots.

A trained policy becomes a murlan bot (``FunctionBot``: the ``Bot`` protocol of
``murlan_env.bots.protocol``, one batched call for many games) and plays murlan's duplicate runner,
``murlan_env.eval.duplicate.play_duplicate``, the same one behind ``murlan arena`` and the trainers'
evaluation: every board (a seeded sequence of deals) is played four times, the policy in each
seat in turn against three random bots, so the luck of the cards mostly cancels out. Points per
hand are 3, 2, 1, 0 for 1st to 4th; par (four equal players) is 1.5. The confidence interval is
taken over boards, the independent unit.

Boards are the first two hands of a match: hand 1 with its opening duty, hand 2 with the
exchange (RULES.md 5).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from murlan_env.bots.baseline import RandomBot
from murlan_env.eval.duplicate import BotResult, one_against_three, play_duplicate

PAR = 1.5  # points per hand of a player as strong as the others
HANDS_PER_BOARD = 2

# (B, 544) float32 observations, (B, 109) bool legal masks -> (B,) legal actions.
BatchPolicy = Callable[[np.ndarray, np.ndarray], np.ndarray]


class FunctionBot:
    """A batched policy as a murlan bot (it ignores the bots' random generator)."""

    def __init__(self, name: str, act: BatchPolicy) -> None:
        self.name = name
        self._act = act

    def act(self, obs: np.ndarray, mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        return np.asarray(self._act(obs, mask))


def points_vs_random(act: BatchPolicy, boards: int = 150, seed: int = 10_000) -> BotResult:
    """The policy's result over ``boards`` seeded boards against three random bots.

    ``seed`` fixes the deals and the random bots' choices; pick one the training did not use.
    """
    result = play_duplicate(
        [FunctionBot("policy", act), RandomBot()],
        boards,
        lineups=one_against_three(),
        seed=seed,
        max_hands=HANDS_PER_BOARD,
    )
    return result.bot_results()[0]


def summary(result: BotResult) -> str:
    """One line that the examples print and their tests read."""
    low, high = result.points_ci95
    return (
        f"points per hand vs 3 random bots: {result.points_per_hand:.3f}, "
        f"95% CI [{low:.3f}, {high:.3f}] over {result.boards} boards, {result.hands} hands "
        f"(par {PAR})"
    )
