"""Seeded evaluation shared by the examples: a policy's points per hand against 3 random bots.

Each deal is one hand on ``Murlan-v1`` (``episode="hand"``), played four times with the same
cards, the learner in each seat in turn (``reset(seed=deal_seed, options={"seat": s})`` deals
the same cards whatever the seat), so the luck of the deal mostly cancels out. Points per hand
are 3, 2, 1, 0 for 1st to 4th; four equal players average 1.5 (par). The confidence interval is
taken over deals, the independent unit (the four seatings of one deal share their cards).

Only the public Gymnasium API is used, so a policy trained with any library can be checked the
same way: ``act(observation, action_mask) -> action`` for one decision.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import gymnasium
import numpy as np

import murlan_env.gym_env  # noqa: F401  (registers Murlan-v1)

PAR = 1.5  # points per hand of a player as strong as the others

Policy = Callable[[np.ndarray, np.ndarray], int]


@dataclass(frozen=True)
class Evaluation:
    """Points per hand of a policy against three random bots, with a normal 95% CI."""

    mean: float
    low: float
    high: float
    deals: int  # each played once with the policy in every seat

    def summary(self) -> str:
        """One line that the examples print and their tests read."""
        return (
            f"points per hand vs 3 random bots: {self.mean:.3f}, "
            f"95% CI [{self.low:.3f}, {self.high:.3f}], {self.deals} deals x 4 seats (par {PAR})"
        )


def points_vs_random(act: Policy, deals: int = 150, seed: int = 10_000) -> Evaluation:
    """Play ``deals`` seeded hands with ``act`` in each of the four seats; see the module doc.

    ``act(observation, action_mask)`` gets the (544,) float32 observation and the (109,) bool
    mask of one decision and returns a legal action. The deals are ``seed``, ``seed + 1``, ...,
    so use seeds the training never saw.
    """
    env = gymnasium.make("murlan_env.gym_env:Murlan-v1", episode="hand", illegal="raise")
    per_deal = np.zeros(deals)
    for d in range(deals):
        for seat in range(4):
            obs, _ = env.reset(seed=seed + d, options={"seat": seat})
            hand_reward, done = 0.0, False
            while not done:
                action = act(obs["observation"], obs["action_mask"].astype(bool))
                obs, reward, done, _, _ = env.step(int(action))
                hand_reward += reward
            per_deal[d] += (hand_reward + PAR) / 4  # the hand reward is points - 1.5
    env.close()
    half = 1.96 * per_deal.std(ddof=1) / np.sqrt(deals)
    mean = float(per_deal.mean())
    return Evaluation(mean, mean - half, mean + half, deals)
