"""The hand so far: each game's play decisions of its current hand, in order.

The observation (``murlan_env.game.observation``) says which cards each seat has played this hand,
but not in what order, nor who passed on what. A bot that reasons about the hidden hands from
how the others played (``SearchBot`` with a belief) needs that order. Drivers that serve such
bots keep a ``HandLogs`` beside their games and give each bot its games' logs turned to its
seat. Every entry is public: all four seats see every play and every pass. The exchange's
give-back is not logged (only its receiver sees the card).

A bot says it reads the logs with a true ``uses_history`` attribute; drivers then call
``bot.act(obs, mask, rng, history=logs)`` with one (n, 2) array of ``[slot, action]`` rows
per game (slot 0 is the acting seat, as in the observation). Duplicate play (arenas,
evaluation, the benchmarks), ``murlan play`` and the web game (its bots, hints and replays)
keep the logs, and so do the single-game environments: the Gymnasium env's opponents act with
them, and the PettingZoo env's ``bot_action(bot)`` asks a bot for the move of the agent to act
with them. Training rollouts do not keep them; a bot acting without them (a search with a
belief) deals the hidden cards uniformly, which makes ``expert`` a weaker bot. (Rollouts of a
network that reads the history, ``history: gru``, keep ``HandLogs`` of their own games and
feed the network ``HandLogs.encoded``: ``murlan_env.game.hand_history``'s fixed-size array.)

A bot that needs the whole match so far (a bot in another process, ``murlan_env.bots.process``,
which is sent the match's record and the position) says so with a true ``uses_match``
attribute; drivers that keep a ``records.Recorder`` of their games (duplicate play, ``murlan
play``, the web game) then call ``bot.act(obs, mask, rng, match=[MatchSoFar, ...])``, one per
game.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np

from murlan_env.game import hand_history
from murlan_env.game.cards import N_CARDS
from murlan_env.game.state import N_SEATS, Phase, State
from murlan_env.records.writer import Recorder

# Every play takes at least one card and at most three passes follow it before the trick
# ends, so no hand has more play decisions than this.
MAX_DECISIONS = N_SEATS * N_CARDS


def uses_history(bot: object) -> bool:
    """Whether ``bot.act`` wants the ``history`` of its games (see the module docstring)."""
    return bool(getattr(bot, "uses_history", False))


def uses_match(bot: object) -> bool:
    """Whether ``bot.act`` wants the ``match`` so far of its games (see the module docstring)."""
    return bool(getattr(bot, "uses_match", False))


@dataclasses.dataclass(frozen=True)
class MatchSoFar:
    """One game as a bot that reads the whole match sees it before its decision."""

    state: State  # the game now, a batch of one
    record: dict[str, Any]  # murlan-record/1 of the match as far as it has been played


def act_with_history(
    bot, obs, mask, rng, logs: HandLogs | None, games, seats, recorder: Recorder | None = None
) -> np.ndarray:
    """``bot.act(obs, mask, rng)`` for the given games (their indices in ``logs`` and in
    ``recorder``, and the seats acting), with the games' hands so far when ``logs`` keeps them
    and the bot reads them, and the matches so far when ``recorder`` keeps them (its current
    state is the games' state) and the bot reads them."""
    options = {}
    if logs is not None and uses_history(bot):
        options["history"] = logs.turned(games, seats)
    if recorder is not None and uses_match(bot):
        options["match"] = [
            MatchSoFar(recorder.state.index(np.array([g])), recorder.record(int(g)))
            for g in np.asarray(games, np.int64)
        ]
    return bot.act(obs, mask, rng, **options)


class HandLogs:
    """The play decisions of each of ``n_games`` games' current hand, in absolute seats."""

    def __init__(self, n_games: int) -> None:
        self.seats = np.zeros((n_games, MAX_DECISIONS), np.int8)
        self.actions = np.zeros((n_games, MAX_DECISIONS), np.int16)
        self.length = np.zeros(n_games, np.int64)

    def record(self, state: State, actions: np.ndarray) -> None:
        """Log ``actions`` (one per game of ``state``, the games these logs keep) before they
        are stepped. Only games waiting for a play decision log one."""
        rows = np.flatnonzero(state.phase == Phase.PLAY)
        at = self.length[rows]
        if rows.size and at.max() >= MAX_DECISIONS:
            raise RuntimeError(f"a hand lasted more than {MAX_DECISIONS} decisions: an engine bug")
        self.seats[rows, at] = state.to_act[rows]
        self.actions[rows, at] = np.asarray(actions)[rows]
        self.length[rows] += 1

    def add(self, game: int, seat: int, action: int) -> None:
        """Log one play decision of ``game`` (``record`` for a single game, without arrays)."""
        at = int(self.length[game])
        if at >= MAX_DECISIONS:
            raise RuntimeError(f"a hand lasted more than {MAX_DECISIONS} decisions: an engine bug")
        self.seats[game, at] = seat
        self.actions[game, at] = action
        self.length[game] = at + 1

    def clear(self, games: np.ndarray) -> None:
        """Start the given games' logs afresh (a new hand)."""
        self.length[np.asarray(games, np.int64)] = 0

    def encoded(self, games: np.ndarray, seats: np.ndarray) -> np.ndarray:
        """The games' hands so far as ``murlan_env.game.hand_history``'s (n, LENGTH, 2)
        array, slots counted from each game's entry in ``seats``."""
        games = np.asarray(games, np.int64)
        return hand_history.encode(
            self.seats[games], self.actions[games], self.length[games], seats
        )

    def turned(self, games: np.ndarray, seats: np.ndarray) -> list[np.ndarray]:
        """Each game's log as (n, 2) int64 ``[slot, action]`` rows, slots counted from the
        game's entry in ``seats`` (0 is that seat), as the seat's observation counts them."""
        out = []
        for g, seat in zip(np.asarray(games, np.int64), np.asarray(seats, np.int64), strict=True):
            n = self.length[g]
            slots = (self.seats[g, :n].astype(np.int64) - seat) % N_SEATS
            out.append(np.stack([slots, self.actions[g, :n].astype(np.int64)], axis=1))
        return out


__all__ = [
    "MAX_DECISIONS",
    "HandLogs",
    "MatchSoFar",
    "act_with_history",
    "uses_history",
    "uses_match",
]
