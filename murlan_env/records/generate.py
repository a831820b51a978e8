"""Records of whole matches played by bots: ``selfplay``.

The games are played as one batch through the engine and written by a ``Recorder``; with
seeded generators the records are reproducible, which tests and examples rely on.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from murlan_env.game import engine
from murlan_env.game.engine import Phase, State
from murlan_env.game.rules import Rules
from murlan_env.records.writer import Recorder


def selfplay(
    rng: np.random.Generator,
    n_games: int = 1,
    rules: Rules | None = None,
    bots: Sequence[Any] | None = None,
    max_hands: int | None = None,
) -> Recorder:
    """Play ``n_games`` whole matches as one batch and return their Recorder.

    ``bots`` gives one ``Bot`` per seat (default: uniformly random legal actions). Games stop
    when the match is over, or after ``max_hands`` hands (then the last hand is finished but the
    match is not). All randomness (deals, dealers, bots) comes from ``rng``.
    """
    state = engine.init(rng, n_games, rules)
    rec = Recorder(state)
    while True:
        over = state.phase == Phase.HAND_OVER
        if max_hands is not None:
            over &= state.hand_no + 1 < max_hands
        if over.any():
            state = _next(state, over, rng)
            rec.update(state)
            continue
        waiting = state.phase <= Phase.EXCHANGE
        if not waiting.any():
            return rec
        mask = engine.legal_action_mask(state)
        if bots is None:
            actions = engine.random_legal_actions(mask, rng)
        else:
            actions = np.zeros(state.batch_size, np.int16)
            obs = engine.observe(state)
            for seat, bot in enumerate(bots):
                g = np.flatnonzero(waiting & (state.to_act == seat))
                if len(g):
                    actions[g] = bot.act(obs[g], mask[g], rng)
        state = engine.step(state, actions)
        rec.update(state)


def _next(state: State, moving: np.ndarray, rng: np.random.Generator) -> State:
    """next_hand for the ``moving`` games only (others keep their HAND_OVER phase)."""
    if moving.all() or (moving == (state.phase == Phase.HAND_OVER)).all():
        return engine.next_hand(state, rng=rng)
    # Hold back the games that reached max_hands by masking their phase for the call.
    held = (state.phase == Phase.HAND_OVER) & ~moving
    phase = state.phase.copy()
    phase[held] = Phase.MATCH_OVER
    out = engine.next_hand(state.replace(phase=phase), rng=rng)
    phase = out.phase.copy()
    phase[held] = Phase.HAND_OVER
    return out.replace(phase=phase)
