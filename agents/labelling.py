"""Positions for expert iteration: where a policy chose, played on the duplicate runner, and
the moves a search chooses there.

``play_positions`` seats a policy against bots (or itself) on seeded boards and keeps every
decision it made with a choice outside the exchange: the observation, the legal mask, the
hand so far (what a search with a belief reads, ``murlan_env.bots.history``) and its move.
``label_positions`` asks a search (``SearchBot.search``) for its move and its mean hand points
per move at those positions, many positions per call: their worlds are weighed and played
out together, which costs less per position than one call each (``benchmarks/labels.py speed``).

Nothing here needs torch: the policy is any Bot with scores.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from pathlib import Path

import numpy as np

from murlan_env.bots.history import MAX_DECISIONS
from murlan_env.bots.protocol import Bot
from murlan_env.bots.search import SearchBot
from murlan_env.eval.duplicate import one_against_three, play_duplicate
from murlan_env.game import observation
from murlan_env.game.combos import N_ACTIONS


@dataclasses.dataclass
class Positions:
    """Decisions with a choice, as arrays (one row per position)."""

    obs: np.ndarray  # (N, OBS_SIZE) float32 the deciding seat's observation
    mask: np.ndarray  # (N, A) bool its legal moves
    log: np.ndarray  # (N, MAX_DECISIONS, 2) int16 the hand so far, [slot, action] rows
    log_length: np.ndarray  # (N,) int16 rows of ``log`` in use
    action: np.ndarray  # (N,) int16 the move the policy played

    def __len__(self) -> int:
        return len(self.obs)

    def history(self, rows: np.ndarray) -> list[np.ndarray]:
        """The hands so far of the given rows as (n, 2) int64 arrays (``SearchBot.act``'s)."""
        return [self.log[i, : self.log_length[i]].astype(np.int64) for i in rows]

    def take(self, rows: np.ndarray) -> Positions:
        """The positions of the given rows."""
        return Positions(*(getattr(self, f.name)[rows] for f in dataclasses.fields(self)))

    @staticmethod
    def concat(parts: list[Positions]) -> Positions:
        """The positions of every part, in order."""
        return Positions(
            *(
                np.concatenate([getattr(p, f.name) for p in parts])
                for f in dataclasses.fields(Positions)
            )
        )

    def save(self, path: str | Path) -> None:
        """Write the arrays to an .npz file (atomically: a kill leaves no half file)."""
        save_arrays(path, dataclasses.asdict(self))

    @staticmethod
    def load(path: str | Path) -> Positions:
        with np.load(path) as data:
            return Positions(**{f.name: data[f.name] for f in dataclasses.fields(Positions)})


def save_arrays(path: str | Path, arrays: dict[str, np.ndarray]) -> None:
    """``np.savez`` to ``path`` through a temporary file renamed into place."""
    path = Path(path)
    tmp = path.with_name(path.name + ".tmp.npz")
    np.savez(tmp, **arrays)
    tmp.replace(path)


class _Recorder:
    """A bot that plays like ``bot`` and keeps its decisions with a choice (``Positions``)."""

    uses_history = True

    def __init__(self, bot: Bot) -> None:
        self.bot = bot
        self.name = bot.name
        self.rows: list[tuple] = []

    def act(self, obs, mask, rng, history=None) -> np.ndarray:
        actions = np.asarray(self.bot.act(obs, mask, rng))
        chose = (mask.sum(1) > 1) & ~observation.decode(obs).exchanging
        for i in np.flatnonzero(chose):
            self.rows.append((obs[i], mask[i], history[i], int(actions[i])))
        return actions

    def positions(self) -> Positions:
        n = len(self.rows)
        log = np.zeros((n, MAX_DECISIONS, 2), np.int16)
        length = np.zeros(n, np.int16)
        for i, (_, _, hist, _) in enumerate(self.rows):
            log[i, : len(hist)] = hist
            length[i] = len(hist)
        return Positions(
            obs=np.array([r[0] for r in self.rows], np.float32).reshape(n, observation.SIZE),
            mask=np.array([r[1] for r in self.rows], bool).reshape(n, N_ACTIONS),
            log=log,
            log_length=length,
            action=np.array([r[3] for r in self.rows], np.int16),
        )


def play_positions(
    policy: Bot,
    opponent: Bot | None,
    boards: int,
    *,
    seed: int,
    max_hands: int = 2,
) -> Positions:
    """The decisions with a choice ``policy`` made on ``boards`` seeded boards (the first
    ``max_hands`` hands of each), in one seat against three ``opponent`` bots in turn, or in
    every seat (self-play) when ``opponent`` is None."""
    recorder = _Recorder(policy)
    if opponent is None:
        play_duplicate([recorder, recorder], boards, seed=seed, max_hands=max_hands)
    else:
        play_duplicate(
            [recorder, opponent],
            boards,
            lineups=one_against_three(),
            seed=seed,
            max_hands=max_hands,
        )
    return recorder.positions()


def label_positions(
    search: SearchBot,
    positions: Positions,
    rng: np.random.Generator,
    batch: int = 32,
    done: Callable[[int], None] | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """(N,) the search's move and (N, A) float32 its mean hand points per legal move (-inf
    illegal) at every position, ``batch`` positions per call of ``search.search``.
    ``done(n)`` is called after each call with the positions it labelled (progress bars,
    partial saves)."""
    n = len(positions)
    actions = np.zeros(n, np.int16)
    values = np.full((n, N_ACTIONS), -np.inf, np.float32)
    for start in range(0, n, batch):
        rows = np.arange(start, min(n, start + batch))
        chosen, mean = search.search(
            positions.obs[rows], positions.mask[rows], rng, positions.history(rows)
        )
        actions[rows] = chosen
        values[rows] = mean
        if done is not None:
            done(rows.size)
    return actions, values


__all__ = ["Positions", "label_positions", "play_positions", "save_arrays"]
