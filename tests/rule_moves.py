"""The rule bot's moves at fixed positions: ``tests/data/rule_moves.npz`` and how it is made.

``tests/test_bots.py`` holds ``RuleBot`` to the moves stored there, for each rule variant and
each set of knobs below, at the positions ``positions`` plays. The stored moves were first made
by the pure-Python rule bot (before it was compiled to ``murlan_env.bots.rule.rule_moves``);
the compiled bot makes every one of them. Change them only on purpose, when the rule bot's play
changes::

    python tests/rule_moves.py            # writes tests/data/rule_moves.npz
    python tests/rule_moves.py --check    # exit 1 if the bot's moves differ from the file
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

from murlan_env.bots.baseline import GreedyBot
from murlan_env.bots.rule import RuleBot
from murlan_env.game import engine
from murlan_env.game.rules import Rules

DATA = Path(__file__).resolve().parent / "data" / "rule_moves.npz"
VARIANTS = [
    {},
    {"joker_pair": True},
    {"straight_plus_one": True},
    {"sticky_pass": True, "start_card": "3C"},
    {"no_exchange": True},
]
KNOBS = [
    {},
    {"lead_long": True, "save_high": 11},
    {"danger": 2, "last_weak": 0, "finish": 2.5},
]


def positions(variant: int, n: int = 1600) -> tuple[np.ndarray, np.ndarray]:
    """(obs, mask) of ``n`` positions with a choice under ``VARIANTS[variant]``, from 12 seeded
    matches played on by greedy and random moves (half each), several hands deep (exchanges
    included)."""
    rng = np.random.default_rng(100 + variant)
    state = engine.init(rng, 12, Rules(**VARIANTS[variant]))
    greedy = GreedyBot()
    obs_parts, mask_parts, got = [], [], 0
    while got < n:
        mask = engine.legal_action_mask(state)
        obs = engine.observe(state)
        live = mask.any(1)
        choice = live & (mask.sum(1) > 1)
        obs_parts.append(obs[choice])
        mask_parts.append(mask[choice])
        got += int(choice.sum())
        actions = np.where(live, np.argmax(mask, 1), 0)
        g = np.flatnonzero(live)
        if g.size:
            by_greedy = greedy.act(obs[g], mask[g], rng)
            by_chance = engine.random_legal_actions(mask[g], rng)
            actions[g] = np.where(rng.random(g.size) < 0.5, by_greedy, by_chance)
        state = engine.step(state, actions, rng=rng)
    return np.concatenate(obs_parts)[:n], np.concatenate(mask_parts)[:n]


def moves() -> dict[str, np.ndarray]:
    """``RuleBot``'s moves at every variant's positions under every set of knobs, keyed as the
    file stores them (``variant{v}_knobs{k}``)."""
    out = {}
    for v in range(len(VARIANTS)):
        obs, masks = positions(v)
        for k, knobs in enumerate(KNOBS):
            played = RuleBot(**knobs).act(obs, masks, np.random.default_rng(0))
            out[f"variant{v}_knobs{k}"] = played.astype(np.int8)
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="compare with the file, write nothing")
    args = parser.parse_args(argv)
    made = moves()
    if args.check:
        with np.load(DATA) as stored:
            differ = [key for key in made if not np.array_equal(stored[key], made[key])]
        print("same" if not differ else f"different: {differ}")
        return 1 if differ else 0
    np.savez_compressed(DATA, **made)
    print(f"wrote {DATA}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
