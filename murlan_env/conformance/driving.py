"""Whole matches driven to their end for the vectors that watch decisions being made."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from murlan_env.game import engine
from murlan_env.game.state import Phase, State

# decide(waiting, sub, obs, mask) -> (len(waiting),) actions of the games waiting for one
Decide = Callable[[np.ndarray, State, np.ndarray, np.ndarray], np.ndarray]


def play_to_end(state: State, rng: np.random.Generator, decide: Decide) -> State:
    """Play ``state``'s matches to their end. Each next hand is dealt from ``rng`` as soon as
    a hand is over; otherwise ``decide`` is given the games waiting for a decision (their
    indices, their state ``sub``, its observations and legal masks) and chooses their
    actions. Returns the final state."""
    while True:
        if (state.phase == Phase.HAND_OVER).any():
            state = engine.next_hand(state, rng)
            continue
        waiting = np.flatnonzero(state.phase <= Phase.EXCHANGE)
        if not waiting.size:
            return state
        sub = state.index(waiting)
        obs, mask = engine.observe(sub), engine.legal_action_mask(sub)
        actions = np.zeros(state.batch_size, np.int16)
        actions[waiting] = decide(waiting, sub, obs, mask)
        state = engine.step(state, actions)


__all__ = ["Decide", "play_to_end"]
