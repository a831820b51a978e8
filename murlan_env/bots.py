"""Bots: one small interface for every player that is not a person.

A bot sees exactly what a seat may see: the egocentric observation vector of
``engine.observe`` (decode it with ``engine.OBS_SLICES``) and the legal-action mask. It acts
for a batch of games at once, so arenas and trainers drive many games in one call.
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

import numpy as np

from murlan_env.engine import random_legal_actions


@runtime_checkable
class Bot(Protocol):
    """Anything that picks one legal action per game from observations and masks."""

    name: str

    def act(self, obs: np.ndarray, mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """(B,) int actions, each legal under its row of ``mask`` (B, A).

        ``obs`` is (B, OBS_SIZE) float32 from ``engine.observe`` for the seat to act. All
        randomness comes from ``rng`` so games replay exactly for a seed.
        """
        ...


class RandomBot:
    """Uniformly random legal action."""

    name = "random"

    def act(self, obs: np.ndarray, mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        return random_legal_actions(mask, rng)
