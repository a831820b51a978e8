"""Vectors that hold another implementation of the search to this one (``murlan vectors
search``; clients/js/tests/search.test.js reads them).

The search draws at random, and another language does not reproduce numpy's generator, so the
vectors fix what is drawn and keep what is deterministic given it: positions from real play
(a policy and the rule bot seated alternately, first two hands of each match), each with its
hand so far (``history``: ``[slot, action]`` rows, as ``HandLogs.turned`` gives them) and its
match cut at the decision (``record``, what a murlan-bot/1 request carries); fixed candidate
worlds with each model's log-likelihoods of the others' moves (``log_likelihoods``), the
world's log-likelihood, each slot's model (``world_log_likelihoods``) and the tempered weights
(``tempered_weights``); and fixed worlds, first moves, models per slot and uniforms, with the
moves and points of the rollout they give (``search.rollout_hand``, the policy sampled at the
level's playout temperature, every uniform taken from the list given).
"""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import Any

import numpy as np

from murlan_env.bots.belief import (
    log_likelihoods,
    sample_hidden_hands,
    state_from_observation,
    tempered_weights,
    world_log_likelihoods,
)
from murlan_env.bots.policy import BundleBot
from murlan_env.bots.protocol import MoveScores, SampledBot
from murlan_env.bots.rule import RuleBot
from murlan_env.bots.search import rollout_hand
from murlan_env.bundle.golden_positions import cut_record, state_facts
from murlan_env.game import engine
from murlan_env.game.state import N_SEATS, Phase
from murlan_env.records.generate import selfplay
from murlan_env.records.validator import decisions

SEARCH_VECTORS_FORMAT = "murlan-search-vectors/1"


class Uniforms:
    """A stand-in for a numpy Generator that hands out given uniforms in order."""

    def __init__(self, values: list[float]) -> None:
        self.values = values
        self.used = 0

    def random(self, size: int | None = None):
        n = 1 if size is None else int(size)
        if self.used + n > len(self.values):
            raise ValueError("the rollout needs more uniforms than the vector holds")
        out = np.array(self.values[self.used : self.used + n])
        self.used += n
        return out if size is not None else float(out[0])


@contextlib.contextmanager
def _logged_steps(moves: list[int]):
    """Log every action ``engine.step`` applies to a batch of one while the context lasts."""
    step = engine.step

    def logged(state, actions, *args, **kwargs):
        moves.append(int(np.asarray(actions).reshape(-1)[0]))
        return step(state, actions, *args, **kwargs)

    engine.step = logged
    try:
        yield
    finally:
        engine.step = step


def play_positions(policy, rng: np.random.Generator, n: int, games: int) -> list[dict[str, Any]]:
    """``n`` play decisions with a choice and at least two moves this hand, from ``games``
    matches of the policy and the rule bot seated alternately (two hands each)."""
    rule = RuleBot()
    rec = selfplay(rng, games, bots=[policy, rule, policy, rule], max_hands=2)
    found = []
    for g in range(games):
        record = rec.record(g)
        points = decisions(record)
        for i, d in enumerate(points):
            if d.exchange or d.state.phase[0] != Phase.PLAY:
                continue
            mask = engine.legal_action_mask(d.state)[0]
            same = [p for p in points[:i] if p.hand == d.hand and not p.exchange]
            if mask.sum() < 2 or len(same) < 2:
                continue
            after = [*same[1:], d]
            me = int(d.state.to_act[0])
            history = [
                [(int(p.state.to_act[0]) - me) % N_SEATS, int(q.state.last_action[0])]
                for p, q in zip(same, after, strict=True)
            ]
            found.append(
                {
                    "state": state_facts(d.state),
                    "record": cut_record(record, d.hand, d.plays, False),
                    "history": history,
                    "_obs": engine.observe(d.state),
                    "_mask": mask,
                }
            )
    picks = rng.choice(len(found), size=min(n, len(found)), replace=False)
    return [found[i] for i in sorted(picks)]


def search_vectors(
    rng: np.random.Generator,
    bundle_dir: str | Path,
    positions: int = 24,
    worlds: int = 24,
    alternative_candidates: int = 12,
    min_ess: float = 4.0,
    rollouts: int = 4,
    playout_temperature: float = 1.0,
    games: int = 4,
) -> dict[str, Any]:
    """The search vectors (module docstring) of the policy in ``bundle_dir``; models: 0 the
    policy, 1 the rule bot (``MoveScores`` in the belief, itself in the rollouts)."""
    policy = BundleBot(bundle_dir)
    rule = RuleBot()
    models = [policy, MoveScores(rule)]
    players = [SampledBot(policy, playout_temperature), rule]
    out = []
    for p in play_positions(policy, rng, positions, games):
        obs, mask = p.pop("_obs"), p.pop("_mask")
        log = np.array(p["history"], np.int64)
        pool = sample_hidden_hands(obs, rng, worlds)  # (1, K, 4, 15)
        per_model = [log_likelihoods(obs, [log], pool, m)[0] for m in models]
        log_lik, which = world_log_likelihoods(obs, [log], pool, models, alternative_candidates)
        runs = []
        for r in range(rollouts):
            world = pool[0, r]
            legal = np.flatnonzero(mask)
            first = int(legal[rng.integers(legal.size)])
            # Every other rollout has the policy at every seat, the others a model per seat.
            seats = rng.integers(0, len(players), N_SEATS) * (r % 2)
            uniforms = rng.random(4 * 54).tolist()
            moves: list[int] = []
            state = engine.step(state_from_observation(obs, world[None]), np.array([first]))
            with _logged_steps(moves):
                points = rollout_hand(state, Uniforms(uniforms), 0.0, None, (players, seats[None]))
            runs.append(
                {
                    "world": world.tolist(),
                    "first": first,
                    "models": seats.tolist(),
                    "uniforms": uniforms,
                    "moves": moves,
                    "points": points[0].tolist(),
                }
            )
        ll = log_lik[0]
        out.append(
            {
                **p,
                "worlds": pool[0].tolist(),
                "log_likelihoods": [m.tolist() for m in per_model],
                "world_log_likelihood": [x if np.isfinite(x) else None for x in ll.tolist()],
                "models": which[0].tolist(),
                "weights": tempered_weights(ll, min_ess).tolist(),
                "rollouts": runs,
            }
        )
    return {
        "format": SEARCH_VECTORS_FORMAT,
        "bundle": Path(bundle_dir).name,
        "model_names": ["policy", "rule"],
        "alternative_candidates": alternative_candidates,
        "min_ess": min_ess,
        "playout_temperature": playout_temperature,
        "positions": out,
    }


__all__ = ["SEARCH_VECTORS_FORMAT", "Uniforms", "play_positions", "search_vectors"]
