"""Episodes and rewards: what an environment or a trainer pays, and when an episode ends.

One definition serves the PettingZoo AEC env, the Gymnasium envs and the trainers' rollouts.
Both reward modes are zero-sum (the four rewards of an event add up to 0):

- ``HAND`` ("hand"): when a hand ends, every seat gets its points for the hand minus 1.5,
  that is 1st +1.5, 2nd +0.5, 3rd -0.5, last -1.5. Nothing else is rewarded.
- ``MATCH`` ("match"): when the match ends, the k winners share +1 (each +1/k) and the 4-k
  others share -1 (each -1/(4-k)): a sole winner +1 and the others -1/3 each; a two-way draw
  +1/2 and -1/2; a three-way draw +1/3 and -1; a four-way draw 0. Nothing before the end.

Episodes end at the end of a match (``MATCH``) or of a hand (``HAND``); the match reward
needs match episodes, since a single hand has no match result.

``advance`` is the batched loop's one step, written once for every caller that plays many
games together (the self-play vector env, the trainers' rollouts, the imitation recorder):
step the engine, read what the step ended and paid, then deal on (the next hand of a match
that goes on, a new match where the episode ended).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from murlan_env.game import engine
from murlan_env.game.state import N_SEATS, State

HAND = "hand"
MATCH = "match"
REWARD_MODES = (HAND, MATCH)
EPISODE_MODES = (MATCH, HAND)
# Points per hand average 1.5 over the four seats (3 + 2 + 1 + 0).
PAR_POINTS = 1.5


def check_modes(reward: str, episode: str = MATCH) -> None:
    """Raise ValueError on an unknown or inconsistent reward/episode choice."""
    if reward not in REWARD_MODES:
        raise ValueError(f"reward must be one of {REWARD_MODES}, got {reward!r}")
    if episode not in EPISODE_MODES:
        raise ValueError(f"episode must be one of {EPISODE_MODES}, got {episode!r}")
    if reward == MATCH and episode == HAND:
        raise ValueError('reward="match" needs episode="match": a single hand has no match result')


def rewards(state: State, mode: str) -> np.ndarray:
    """(B, 4) float32 rewards of every seat for the step that produced ``state``.

    Call it right after ``engine.step`` (before the next hand is dealt): games whose hand
    (``HAND``) or match (``MATCH``) just ended pay as described above, the others pay 0.
    """
    if mode == HAND:
        ended = state.hand_over
        return np.where(ended[:, None], state.points - np.float32(PAR_POINTS), 0.0).astype(
            np.float32
        )
    if mode == MATCH:
        winners = state.winners
        k = winners.sum(1, keepdims=True)
        split = state.done[:, None] & (k > 0) & (k < N_SEATS)
        win = 1.0 / np.maximum(k, 1)
        lose = -1.0 / np.maximum(N_SEATS - k, 1)
        return np.where(split, np.where(winners, win, lose), 0.0).astype(np.float32)
    raise ValueError(f"reward must be one of {REWARD_MODES}, got {mode!r}")


def ended(state: State | Transition, episode: str) -> np.ndarray:
    """(B,) bool: games whose episode (a match or a hand) ended at the step to ``state`` (or
    at the step a ``Transition`` describes: it reads ``done`` and ``hand_over`` of either)."""
    if episode == MATCH:
        return state.done
    if episode == HAND:
        return state.hand_over
    raise ValueError(f"episode must be one of {EPISODE_MODES}, got {episode!r}")


class Transition(NamedTuple):
    """What one ``advance`` step did in each of B games, read before the deal that follows."""

    rewards: np.ndarray  # (B, 4) float32, every seat's reward for the step (zero-sum per game)
    hand_over: np.ndarray  # (B,) bool, the step ended the game's hand (its match may go on)
    done: np.ndarray  # (B,) bool, the step ended the game's match (as ``State.done``)
    ended: np.ndarray  # (B,) bool, the step ended the game's episode (``advance``'s episode)
    points: np.ndarray  # (B, 4) int16, hand points (3/2/1/0) of each seat where hand_over
    scores: np.ndarray  # (B, 4) int16, match scores after the step, before any new match
    winners: np.ndarray  # (B, 4) bool, winners of the matches that ended at this step


def advance(
    state: State,
    actions: np.ndarray,
    rng: np.random.Generator,
    *,
    reward: str = HAND,
    episode: str = MATCH,
    donate: bool = False,
) -> tuple[State, Transition]:
    """Play one action per game, pay ``reward``, and deal on; returns (state, transition).

    Games whose hand ended and whose match goes on get their next hand; games whose episode
    ended (the match, or with ``episode=HAND`` the hand) start a new match, so the returned
    state waits for a decision in every game. The deals are drawn from ``rng`` in one fixed
    order (next hands, then new matches), so a seed replays exactly. Actions must be legal
    (the caller checks them). ``donate``: ``state`` may be updated in place (see
    ``engine.step``); the transition's arrays never alias the returned state.
    """
    state = engine.step(state, actions, donate=donate)
    done = state.done
    episode_ended = ended(state, episode)
    transition = Transition(
        rewards=rewards(state, reward),
        hand_over=state.hand_over,
        done=done,
        ended=episode_ended,
        points=state.points.copy(),
        scores=state.scores.copy(),
        winners=state.winners & done[:, None],
    )
    # The stepped state is this function's own (a copy, or the donated one): deal into it.
    if episode == MATCH:
        state = engine.next_hand(state, rng, donate=True)
    state = engine.new_matches(state, episode_ended, rng, donate=True)
    return state, transition


__all__ = [
    "EPISODE_MODES",
    "Transition",
    "advance",
    "HAND",
    "MATCH",
    "PAR_POINTS",
    "REWARD_MODES",
    "check_modes",
    "ended",
    "rewards",
]
