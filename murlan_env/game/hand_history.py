"""The history codec: the hand so far as a fixed-size integer array, for networks that read it.

The observation (``murlan_env.game.observation``) says which cards each seat has played this
hand, but not in what order, nor who passed on what; a network with a history encoder
(``agents.networks``, ``history: gru`` or ``attention``) reads that order from this array,
beside the observation. The layout is stated here once; rollouts, duplicate play (the
``ckpt:`` bot, the trainers' evaluation) and ONNX export all build it with ``encode``.

Layout: ``(B, LENGTH, 2)`` int16, one row per event, columns ``COLUMNS`` = (slot, action):

- an event is one play decision of the current hand (a play or a ``PASS``), in the order
  they were made, ``action`` its index in the action catalogue (``combos``) and ``slot`` the
  seat that made it counted from the acting seat (0 is the acting seat, then the next seats in
  turn order, as the observation counts them);
- the most recent ``LENGTH`` events, right-aligned: the last row is the latest event; a hand
  with fewer events is padded on the left with rows of ``PAD`` in both columns; a longer one
  keeps its latest ``LENGTH`` events (the observation still counts every card played);
- the hand starts afresh at each deal: the history never reaches into earlier hands.

The exchange is not an event: what the acting seat knows of it (the card it gave or received,
and who exchanged) is in the observation's ``exchange`` and seat pieces, and the give-back
decision of the previous 1st player is not a play decision. Every event is public (all four
seats see every play and pass), so the array holds only what the acting seat may know.
"""

from __future__ import annotations

import numpy as np

from murlan_env.game.state import N_SEATS

LENGTH = 64  # events kept: the latest LENGTH play decisions of the hand
COLUMNS = ("slot", "action")  # the two integers of an event row
PAD = -1  # both columns of a row that holds no event
DTYPE = np.int16


def encode(
    seats: np.ndarray, actions: np.ndarray, lengths: np.ndarray, to_act: np.ndarray
) -> np.ndarray:
    """(B, LENGTH, 2) int16 histories (see the module docstring) of B hands.

    ``seats`` and ``actions``: (B, L) the absolute seat and action of each hand's events in
    order, of which the first ``lengths`` (B,) are real; ``to_act`` (B,): the acting seat of
    each row, from whose point of view slots are counted (0 where ``seats`` are slots already).
    """
    seats, actions = np.asarray(seats), np.asarray(actions)
    lengths = np.asarray(lengths, np.int64)
    b = len(lengths)
    # Row j of the output holds event lengths - LENGTH + j, where that is one.
    at = lengths[:, None] - LENGTH + np.arange(LENGTH)
    real = at >= 0
    out = np.full((b, LENGTH, 2), PAD, DTYPE)
    if seats.shape[1]:
        at = np.maximum(at, 0)
        rows = np.arange(b)[:, None]
        slot = (seats[rows, at].astype(np.int64) - np.asarray(to_act, np.int64)[:, None]) % N_SEATS
        out[..., 0] = np.where(real, slot, PAD)
        out[..., 1] = np.where(real, actions[rows, at], PAD)
    return out


def from_rows(histories: list[np.ndarray]) -> np.ndarray:
    """(B, LENGTH, 2) histories of hands given as (n, 2) ``[slot, action]`` rows each (what
    ``murlan_env.bots.history.HandLogs.turned`` gives a bot), through ``encode``."""
    lengths = np.array([len(h) for h in histories], np.int64)
    width = int(lengths.max()) if len(lengths) else 0
    slots = np.zeros((len(histories), width), np.int64)
    actions = np.zeros((len(histories), width), np.int64)
    for i, h in enumerate(histories):
        h = np.asarray(h, np.int64).reshape(-1, 2)
        slots[i, : len(h)], actions[i, : len(h)] = h[:, 0], h[:, 1]
    return encode(slots, actions, lengths, np.zeros(len(histories), np.int64))


def empty(batch: int) -> np.ndarray:
    """(batch, LENGTH, 2) histories of hands with no event yet (all padding)."""
    return np.full((batch, LENGTH, 2), PAD, DTYPE)


__all__ = ["COLUMNS", "DTYPE", "LENGTH", "PAD", "empty", "encode", "from_rows"]
