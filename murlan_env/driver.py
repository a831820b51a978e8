"""One game played decision by decision, with its record and rewards: what the single-game
environments share.

The PettingZoo AEC env and the Gymnasium single-agent env both step one game at a time.
``GameDriver`` does that part once: it steps a ``Game`` (the engine's single-game fast path),
logs every decision to a ``Recorder``, pays the rewards at each hand's end, deals the next
hand from the env's generator while the episode goes on, and keeps the legal mask of the
seat to act. The envs add their API on top: agents and dicts for PettingZoo, the learner's
seat and its opponents for Gymnasium.
"""

from __future__ import annotations

import numpy as np

from murlan_env import engine
from murlan_env.combos import N_ACTIONS
from murlan_env.engine import _EXCHANGE, N_SEATS, State
from murlan_env.game import Game
from murlan_env.records import Recorder

REWARD_MODES = ("hand", "match")
EPISODE_MODES = ("match", "hand")


def check_modes(reward: str, episode: str) -> None:
    """Raise ValueError on an unknown or inconsistent reward/episode choice."""
    if reward not in REWARD_MODES:
        raise ValueError(f"reward must be one of {REWARD_MODES}, got {reward!r}")
    if episode not in EPISODE_MODES:
        raise ValueError(f"episode must be one of {EPISODE_MODES}, got {episode!r}")
    if reward == "match" and episode == "hand":
        raise ValueError('reward="match" needs episode="match": a single hand has no match result')


def hand_rewards(state: State, ended: np.ndarray) -> np.ndarray:
    """(B, 4) float32: points - 1.5 for every seat of the games whose hand just ``ended``."""
    return np.where(ended[:, None], state.points.astype(np.float32) - 1.5, 0.0).astype(np.float32)


def match_rewards(state: State, ended: np.ndarray) -> np.ndarray:
    """(B, 4) float32 for the games whose match just ``ended``: winners share +1, others -1."""
    winners = state.winners
    k = winners.sum(1, keepdims=True)
    # A four-way draw (possible in principle at the capped target) pays nothing.
    split = ended[:, None] & (k > 0) & (k < N_SEATS)
    win = 1.0 / np.maximum(k, 1)
    lose = -1.0 / np.maximum(N_SEATS - k, 1)
    return np.where(split, np.where(winners, win, lose), 0.0).astype(np.float32)


class GameDriver:
    """Steps one game from ``state`` (a batch of one) until the episode ends.

    ``reward`` and ``episode`` are the env options of the same names (see ``check_modes``);
    ``rng`` deals the following hands of a match.
    """

    def __init__(
        self, state: State, rng: np.random.Generator, reward: str = "hand", episode: str = "match"
    ) -> None:
        check_modes(reward, episode)
        if state.batch_size != 1:
            raise ValueError(f"GameDriver plays one game, got a batch of {state.batch_size}")
        self.rng = rng
        self.reward_mode = reward
        self.episode_mode = episode
        self.recorder = Recorder(state)
        self.over = bool(state.done[0])  # the episode is over
        self._use(Game.from_state(state), state)

    @property
    def state(self) -> State:
        """The engine State of the game (a batch of one), built when first read."""
        if self._state is None:
            self._state = self.game.to_state()
        return self._state

    @property
    def to_act(self) -> int:
        """The seat whose decision it is."""
        return self.game.to_act

    def observe(self, seat: int) -> np.ndarray:
        """(OBS_SIZE,) float32 observation from ``seat``."""
        return self.game.observe(seat)

    def env_observation(self, seat: int, acting: bool) -> dict[str, np.ndarray]:
        """The envs' ``{"observation", "action_mask"}`` from ``seat``: the mask is the legal
        actions (int8) when ``acting``, else all 0."""
        mask = self.mask.view(np.int8).copy() if acting else np.zeros(N_ACTIONS, np.int8)
        return {"observation": self.game.observe(seat), "action_mask": mask}

    def play(self, action: int) -> np.ndarray | None:
        """Apply a legal action of the seat to act (not checked here).

        Returns the (4,) float32 rewards of the seats when this decision ends a hand (under
        ``reward="match"``, zeros unless it also ends the match), else None. ``over`` turns
        True when the episode ends; otherwise a finished hand is followed by the next deal.
        """
        game = self.game
        exchange = game.phase == _EXCHANGE
        game.step(action)
        self._state = None
        hand, seat, cards = game.hand_no, game.last_seat, game.last_bits
        self.recorder.add_decision(0, hand, seat, action, exchange, cards)
        if not game.hand_over:
            self.mask = game.legal_mask()
            return None
        self.recorder.add_hand_end(0, game.hand_no, game.place, game.points)
        state = game.to_state()
        if self.reward_mode == "hand":
            rewards = hand_rewards(state, state.hand_over)[0]
        else:
            rewards = match_rewards(state, state.done)[0]
        if game.done or self.episode_mode == "hand":
            self.over = True
            self._use(game, state)
        else:
            state = engine.next_hand(state, self.rng)
            self.recorder.update(state)
            self._use(Game.from_state(state), state)
        return rewards

    def record(self) -> dict:
        """The murlan-record/1 dict of everything played so far."""
        self.recorder.sync(self.state)
        return self.recorder.record(game=0)

    def _use(self, game: Game, state: State) -> None:
        self.game = game
        self._state = state
        self.mask = game.legal_mask()


__all__ = [
    "EPISODE_MODES",
    "REWARD_MODES",
    "GameDriver",
    "check_modes",
    "hand_rewards",
    "match_rewards",
]
