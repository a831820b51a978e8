"""Level vectors: the moves of every shipped level without a search (``easy``, ``medium``,
``hard``) at positions from real play, each with its decision seed, to hold another
implementation of the levels (the JavaScript client's) to ``BundleBot.act_for_seeds`` move for
move: the generator, the draws and their order, the sampling, the mix and the greedy and
random bots (docs/bundle.md, "Levels move for move").

``draws`` holds draws of the generator (``murlan_env.bots.draws``) as 64 bits and as the
uniform, for seeds at the ends of the range. ``positions``: each level plays whole seeded
matches in all four seats under the default rules and a variant it plays, every decision keyed
by a decision seed drawn as a driver draws it; every exchange give-back and a fraction of the
other decisions with a choice are kept, each with the position as murlan-bot/1 sends it, the
seed, the legal actions, the policy's float32 scores there, the level's action, its two draws
and whether the mix handed the decision to the weaker bot.

A port's own model gives scores within a small tolerance of these, not equal to them (the
JavaScript plain runtime: under 2e-5): sampling from its own scores, a draw that falls within
that tolerance of a boundary between two actions may pick the other one. ``near`` marks those
decisions (a change of every score by up to ``SCORE_SLACK`` could change the action); from the
vectors' scores every decision must match exactly.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from murlan_env.bots import draws
from murlan_env.bots.policy import BundleBot
from murlan_env.bots.protocol import legal_logits
from murlan_env.bundle.golden_positions import state_facts
from murlan_env.conformance.driving import play_to_end
from murlan_env.game import engine
from murlan_env.game.rules import Rules
from murlan_env.game.state import Phase

LEVEL_VECTORS_FORMAT = "murlan-level-vectors/1"
# The largest difference between a port's scores and these for which ``near`` is meant.
SCORE_SLACK = 1e-4
# The rules each level plays its matches under (a rule set a level does not play is skipped).
LEVEL_VARIANTS: tuple[Rules, ...] = (
    Rules(),
    Rules(joker_pair=True, straight_plus_one=True, tie_rule="leader", start_card="3C"),
)
# Seeds and draw indices of the generator's own vectors: the ends of the seed range, one bit
# each side of 2^31, and the draws a level makes and a few past them.
DRAW_SEEDS = (0, 1, 2**31 - 1, 2**31, 2**32 - 1, 3141592653)
DRAW_INDICES = (0, 1, 2, 7, 1000)


def draw_vectors() -> list[dict[str, Any]]:
    """The generator's draws for ``DRAW_SEEDS`` x ``DRAW_INDICES``: bits as 16 hex digits,
    the uniform as a float64."""
    seeds = np.array(DRAW_SEEDS, np.int64)
    out = []
    for index in DRAW_INDICES:
        bits = draws.draw_bits(seeds, index)
        uniform = draws.uniforms(seeds, index)
        for s, b, u in zip(DRAW_SEEDS, bits, uniform, strict=True):
            out.append({"seed": s, "index": index, "bits": f"{int(b):016x}", "uniform": float(u)})
    return out


def near_boundary(scores: np.ndarray, mask: np.ndarray, temperature: float, play: np.ndarray):
    """(B,) whether changing every score by up to ``SCORE_SLACK`` could change the policy's
    action: at temperature 0 the best two legal scores are within twice the slack; above, the
    play draw times the total falls within a bound of an edge of the picked action's share
    (each weight moves by a factor within exp(+-2 slack / T), so each cumulative share by
    under about 4 slack / T; the bound kept is 6 slack / T)."""
    mask = np.asarray(mask, bool)
    if temperature == 0:
        legal = np.where(mask, np.asarray(scores, np.float64), -np.inf)
        top2 = -np.sort(-legal, axis=1)[:, :2]
        return (mask.sum(1) > 1) & (top2[:, 0] - top2[:, 1] < 2 * SCORE_SLACK)
    w = np.where(mask, np.exp(legal_logits(scores, mask, temperature)), 0.0)
    cum = np.cumsum(w, axis=1)
    total = cum[:, -1]
    pick = play * total
    picked = np.argmax(cum > pick[:, None], axis=1)
    rows = np.arange(len(w))
    upper = cum[rows, picked]
    lower = upper - w[rows, picked]
    margin = np.minimum(pick - lower, upper - pick) / total
    return margin < 6 * SCORE_SLACK / temperature


def level_vectors(
    rng: np.random.Generator,
    bots: Mapping[str, BundleBot],
    matches: int = 1,
    keep: float = 0.15,
    variants: Sequence[Rules] = LEVEL_VARIANTS,
) -> dict[str, Any]:
    """Level positions from ``matches`` whole seeded matches per level and variant (see the
    module docstring); ``bots``: the levels by name, as ``murlan_env.bots.registry.make_bot``
    builds them (``murlan conformance levels``: every shipped level without a search)."""
    out_levels: dict[str, Any] = {}
    positions: list[dict[str, Any]] = []
    for name, bot in bots.items():
        out_levels[name] = {
            "policy": bot.bundle_dir.name,
            "temperature": bot.temperature,
            "mix": None if bot.weak is None else [bot.weak.name, bot.mix_p],
        }
        for rules in variants:
            if bot.rules_conflict(rules):
                continue
            positions += _play(bot, name, rules, rng, matches, keep)
    return {
        "format": LEVEL_VECTORS_FORMAT,
        "score_slack": SCORE_SLACK,
        "draws": draw_vectors(),
        "levels": out_levels,
        "positions": positions,
    }


def _play(
    bot: BundleBot, name: str, rules: Rules, rng, matches: int, keep: float
) -> list[dict[str, Any]]:
    """Whole matches with ``bot`` in every seat; the kept decisions as vector positions."""
    out = []

    def decide(waiting, sub, obs, mask):
        seeds = draws.decision_seeds(rng, waiting.size)
        actions = bot.act_for_seeds(obs, mask, seeds)
        scores = bot.scores(obs, mask)
        mix_u = draws.uniforms(seeds, draws.MIX_DRAW)
        play_u = draws.uniforms(seeds, draws.PLAY_DRAW)
        weak = mix_u < bot.mix_p if bot.weak is not None else np.zeros(waiting.size, bool)
        near = ~weak & near_boundary(scores, mask, bot.temperature, play_u)
        for i in range(waiting.size):
            legal = np.flatnonzero(mask[i])
            exchange = sub.phase[i] == Phase.EXCHANGE
            if not exchange and (legal.size < 2 or rng.random() >= keep):
                continue
            out.append(
                {
                    "level": name,
                    "position": state_facts(sub.index([i])),
                    "seed": int(seeds[i]),
                    "legal": [int(a) for a in legal],
                    "scores": [float(scores[i, a]) for a in legal],
                    "action": int(actions[i]),
                    "draws": [float(mix_u[i]), float(play_u[i])],
                    "weak": bool(weak[i]),
                    "near": bool(near[i]),
                }
            )
        return actions

    play_to_end(engine.init(rng, matches, rules), rng, decide)
    return out


__all__ = [
    "DRAW_INDICES",
    "DRAW_SEEDS",
    "LEVEL_VARIANTS",
    "LEVEL_VECTORS_FORMAT",
    "SCORE_SLACK",
    "draw_vectors",
    "level_vectors",
    "near_boundary",
]
