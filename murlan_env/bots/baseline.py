"""The baseline bots: a uniformly random legal action (``RandomBot``) and the cheapest play
(``GreedyBot``), both fully vectorised.

| bot         | plays                                                                          |
|-------------|--------------------------------------------------------------------------------|
| RandomBot   | a uniformly random legal action                                                |
| GreedyBot   | the cheapest play that beats the table; leads its lowest rank; keeps bombs     |
"""

from __future__ import annotations

import numpy as np

from murlan_env.bots.rule import IS_QUAD
from murlan_env.game import observation
from murlan_env.game.combos import COST, PASS
from murlan_env.game.engine import legal_action_at, random_legal_actions


class RandomBot:
    """Uniformly random legal action."""

    name = "random"

    def act(self, obs: np.ndarray, mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        return random_legal_actions(mask, rng)

    def act_with_draws(self, obs: np.ndarray, mask: np.ndarray, uniforms: np.ndarray):
        """(B,) the actions for each row's one uniform draw: the legal action at
        floor(u * n_legal) in id order (a level's mix, ``murlan_env.bots.draws``)."""
        return legal_action_at(mask, uniforms)


class GreedyBot:
    """The cheapest play: a simple, fully vectorised baseline.

    - A play that empties the hand is always made (a bomb included).
    - Leading: all copies of its lowest rank (single, pair or triple as held), never a
      straight; with only bombs left, the lowest bomb.
    - Following: the lowest play of the table's shape that beats it, or pass.
    - Bombs are kept: no play uses a rank held four times (except to go out, to lead with
      only bombs left, or when the hand-1 opening card is part of a bomb and nothing else
      may lead), so greedy passes when only a bomb would beat.
    - Exchange: gives back its lowest card.
    """

    name = "greedy"

    def act_with_draws(self, obs: np.ndarray, mask: np.ndarray, uniforms: np.ndarray):
        """(B,) ``act``'s actions: greedy draws nothing (a level's mix reads no draw for it)."""
        return self.act(obs, mask, None)

    def act(
        self, obs: np.ndarray, mask: np.ndarray, rng: np.random.Generator | None = None
    ) -> np.ndarray:
        batch = len(obs)
        seen = observation.decode(obs)
        hand = seen.my_hand  # (B, 15)
        need = COST[None, :, :]
        goes_out = mask & (need == hand[:, None, :]).all(-1)
        bomb_rank = hand == 4  # (B, 15)
        touches_bomb = ((need > 0) & bomb_rank[:, None, :]).any(-1)
        keep = mask & ~touches_bomb & ~IS_QUAD[None, :]
        keep[:, PASS] = False
        rows = np.arange(batch)
        leading = ~mask[:, PASS]

        # Following: ids of one shape are ordered by key, so the first allowed id is cheapest.
        follow = np.where(keep.any(1), keep.argmax(1), PASS)
        # Leading: all copies of the lowest rank held outside bombs.
        free = (hand > 0) & ~bomb_rank
        low = free.argmax(1)
        n_low = hand[rows, low].astype(np.int64)
        first_id = np.array([0, 1, 16, 29, 42])[np.clip(n_low, 0, 4)]
        group = np.where(low >= 13, 1 + low, first_id + low)
        lowest_bomb = 42 + bomb_rank[:, :13].argmax(1)
        lead = np.where(free.any(1), group, lowest_bomb)
        lead_ok = mask[rows, lead]
        # The opening duty can forbid the lead above: then the first legal id (lowest single).
        lead = np.where(lead_ok, lead, mask.argmax(1))
        out = np.where(leading, lead, follow)
        out = np.where(goes_out.any(1), goes_out.argmax(1), out)
        out = np.where(seen.exchanging, mask.argmax(1), out)
        return out.astype(np.int16)


__all__ = ["GreedyBot", "RandomBot"]
