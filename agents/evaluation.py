"""Seeded evaluation of a policy against bots, comparable across runs.

A fixed set of deals comes from ``seed``; every deal is played with the learner in each of the
four seats against three copies of the bot (seats rotated, duplicate style), for ``n_hands``
hands of a match (the later hands' deals are fixed too, so the exchange is evaluated). The
learner plays greedily (argmax of its masked scores); the bots draw from their own seeded rng.

Points per hand are averaged per deal over the four seatings, and the 95% confidence interval
is taken over deals, which removes most of the luck of the cards.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import torch
from torch import nn

from agents.networks import policy_scores
from murlan_env import engine, registry
from murlan_env.engine import N_SEATS, Phase
from murlan_env.rules import Rules


@dataclasses.dataclass
class EvalResult:
    """Outcome of ``evaluate`` for one bot."""

    bot: str  # the opponents' name
    points_per_hand: float  # learner's mean points per hand (0-3; 1.5 is par)
    ci95: float  # half-width of the 95% CI of points_per_hand, over deals
    win_rate: float  # share of hands the learner finished 1st (0.25 is par)
    hands: int  # hands played by the learner

    def line(self) -> str:
        return (
            f"vs {self.bot}: {self.points_per_hand:.3f} ± {self.ci95:.3f} points/hand "
            f"(par 1.5), 1st in {self.win_rate:.1%} of {self.hands} hands"
        )


def fixed_deals(seed: int, n_deals: int, n_hands: int) -> tuple[np.ndarray, np.ndarray]:
    """(n_hands, n_deals, 4, 54) deals and (n_deals,) first dealers, from ``seed`` only."""
    rng = np.random.default_rng(seed)
    dealer = rng.integers(0, N_SEATS, n_deals).astype(np.int8)
    deals = []
    for h in range(n_hands):
        deals.append(engine.random_deal(rng, ((dealer + h) % N_SEATS).astype(np.int8)))
    return np.stack(deals), dealer


@torch.inference_mode()
def evaluate(
    policy: nn.Module,
    bot_name: str,
    *,
    seed: int = 1234,
    n_deals: int = 256,
    n_hands: int = 2,
    rules: Rules | None = None,
) -> EvalResult:
    """Play the fixed deals with ``policy`` in each seat against three ``bot_name`` bots."""
    rules = rules or Rules()
    bot = registry.make_bot(bot_name)
    rng = np.random.default_rng(seed + 1)
    deals, dealer = fixed_deals(seed, n_deals, n_hands)
    rep = lambda x: np.repeat(x, N_SEATS, axis=0)  # noqa: E731  game = deal * 4 + seat
    learner_seat = np.tile(np.arange(N_SEATS), n_deals)
    state = engine.deal_from(rep(deals[0]), rep(dealer), rules)
    b = state.batch_size
    rows = np.arange(b)
    points = np.zeros(b, np.float64)
    firsts = np.zeros(b, np.float64)
    hands_done = np.zeros(b, np.int64)
    for h in range(n_hands):
        if h > 0:
            state = engine.next_hand(state, hands=rep(deals[h]))
        playing = (state.phase == Phase.PLAY) | (state.phase == Phase.EXCHANGE)
        while playing.any():
            mask = engine.legal_action_mask(state)
            obs = engine.observe(state)
            mine = playing & (state.to_act == learner_seat)
            theirs = playing & ~mine
            actions = np.zeros(b, np.int64)
            if mine.any():
                scores = policy_scores(
                    policy, torch.from_numpy(obs[mine]), torch.from_numpy(mask[mine])
                )
                actions[mine] = scores.argmax(-1).numpy()
            if theirs.any():
                actions[theirs] = bot.act(obs[theirs], mask[theirs], rng)
            state = engine.step(state, actions)
            ended = playing & (state.phase >= Phase.HAND_OVER)
            points[ended] += state.points[rows, learner_seat][ended]
            firsts[ended] += state.place[rows, learner_seat][ended] == 0
            hands_done[ended] += 1
            playing &= ~ended
        if (state.phase == Phase.MATCH_OVER).all():
            break
    per_game = points / np.maximum(hands_done, 1)
    per_deal = per_game.reshape(n_deals, N_SEATS).mean(1)
    ci = 1.96 * per_deal.std(ddof=1) / np.sqrt(n_deals) if n_deals > 1 else float("nan")
    return EvalResult(
        bot=bot_name,
        points_per_hand=float(points.sum() / hands_done.sum()),
        ci95=float(ci),
        win_rate=float(firsts.sum() / hands_done.sum()),
        hands=int(hands_done.sum()),
    )
