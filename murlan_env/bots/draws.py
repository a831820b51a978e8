"""The random draws of a level: one counter-based generator that any language reproduces bit
for bit, so a level plays the same moves in every client (docs/bundle.md, "Levels move for
move", is the reference a port follows).

A level's decision (a play or the exchange give-back) is keyed by a **decision seed**, an
integer in [0, 2^32): the driver draws one per decision from its own seeded generator
(``decision_seeds``; ``murlan_env.bots.process`` sends the same number as a murlan-bot/1
request's ``seed``), so a match replays for the driver's seed and a level in another process
is asked with the very seed the level here uses. Every random number of the decision is a
draw of that seed's stream, by index:

- draw ``i`` is the ``i``-th output (from 0) of SplitMix64 seeded with the decision seed:
  ``z = (seed + (i + 1) * 0x9E3779B97F4A7C15) mod 2^64``, then
  ``z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9``, ``z = (z ^ (z >> 27)) * 0x94D049BB133111EB``,
  ``z = z ^ (z >> 31)`` (products mod 2^64); the output needs no state, only (seed, i);
- its uniform float in [0, 1) is ``(z >> 11) * 2^-53`` (the top 53 bits, exact in float64);
- draw ``MIX_DRAW`` (0) decides the mix: the weaker bot plays when ``u0 < p``;
- draw ``PLAY_DRAW`` (1) is the one draw of whoever plays: the policy's sample
  (``protocol.pick_from_scores``) or the random bot's pick (``engine.legal_action_at``);
  the greedy bot and a temperature-0 policy use no draw.
"""

from __future__ import annotations

import numpy as np

# SplitMix64's increment (the golden ratio's 64-bit fraction) and its mixer's multipliers.
GAMMA = np.uint64(0x9E3779B97F4A7C15)
MIX1 = np.uint64(0xBF58476D1CE4E5B9)
MIX2 = np.uint64(0x94D049BB133111EB)
# The index of each draw a level's decision makes.
MIX_DRAW = 0
PLAY_DRAW = 1
# Decision seeds are drawn in [0, SEED_RANGE).
SEED_RANGE = 2**32


def decision_seeds(rng: np.random.Generator, n: int) -> np.ndarray:
    """(n,) int64 decision seeds in [0, 2^32) from a driver's generator: one per decision,
    drawn alike by a level here and for a bot in another process (its request's ``seed``)."""
    return rng.integers(0, SEED_RANGE, n)


def draw_bits(seeds: np.ndarray, index: int) -> np.ndarray:
    """(n,) uint64: draw ``index`` of each decision seed's stream (SplitMix64's output)."""
    if index < 0:
        raise ValueError(f"a draw index is >= 0, got {index}")
    z = np.asarray(seeds).astype(np.uint64)
    step = np.uint64((index + 1) * int(GAMMA) % 2**64)
    with np.errstate(over="ignore"):
        z = z + step
        z = (z ^ (z >> np.uint64(30))) * MIX1
        z = (z ^ (z >> np.uint64(27))) * MIX2
    return z ^ (z >> np.uint64(31))


def uniforms(seeds: np.ndarray, index: int) -> np.ndarray:
    """(n,) float64 in [0, 1): draw ``index`` of each decision seed's stream as a uniform,
    its top 53 bits times 2^-53."""
    return (draw_bits(seeds, index) >> np.uint64(11)).astype(np.float64) * 2.0**-53


__all__ = [
    "GAMMA",
    "MIX1",
    "MIX2",
    "MIX_DRAW",
    "PLAY_DRAW",
    "SEED_RANGE",
    "decision_seeds",
    "draw_bits",
    "uniforms",
]
