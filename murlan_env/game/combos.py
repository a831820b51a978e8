"""The static action catalogue: every rank-level play of RULES.md section 2, and who beats whom.

An action names ranks, not suits: "a pair of 7s", "the straight 3 4 5 6 7". Which concrete
cards a play uses is chosen by the engine (or given by a record). Ids are stable:

| ids       | kind     | ranks                                                      |
|-----------|----------|------------------------------------------------------------|
| 0         | pass     |                                                            |
| 1-15      | single   | 3 .. RJ                                                    |
| 16-28     | pair     | 3 .. 2                                                     |
| 29-41     | triple   | 3 .. 2                                                     |
| 42-54     | quad     | 3 .. 2                                                     |
| 55-107    | straight | by length 5..13, then by top card, low to high            |
| 108       | pair     | BJ RJ (only with the ``joker_pair`` variant)               |

The exchange decision (the previous 1st player's give-back) uses the single ids of ranks 3-10.
``beats_matrix(rules)`` is an (A, A) bool array: ``beats[prev, new]`` says whether ``new`` may be
played on ``prev``; row 0 (pass) stands for the empty table, where any play but pass may lead.
"""

from __future__ import annotations

import enum
import functools

import numpy as np

from murlan_env.game.cards import N_RANKS, RANK, RANKS
from murlan_env.game.rules import Rules


class Kind(enum.IntEnum):
    """Combination kinds; the joker pair is a PAIR."""

    PASS = 0
    SINGLE = 1
    PAIR = 2
    TRIPLE = 3
    QUAD = 4
    STRAIGHT = 5


# The straight ladder A 2 3 ... K A: ladder position -> rank index.
LADDER: tuple[int, ...] = (RANK["A"], RANK["2"], *range(RANK["3"], RANK["K"] + 1), RANK["A"])
MIN_STRAIGHT, MAX_STRAIGHT = 5, 13


def _build_table():
    kinds, keys, costs, ranks_text = [Kind.PASS], [-1], [np.zeros(N_RANKS, np.int8)], [""]

    def add(kind, key, rank_list):
        cost = np.zeros(N_RANKS, np.int8)
        for r in rank_list:
            cost[r] += 1
        kinds.append(kind)
        keys.append(key)
        costs.append(cost)
        ranks_text.append(" ".join(RANKS[r] for r in rank_list))

    for r in range(15):
        add(Kind.SINGLE, r, [r])
    for kind, n in ((Kind.PAIR, 2), (Kind.TRIPLE, 3), (Kind.QUAD, 4)):
        for r in range(13):
            add(kind, r, [r] * n)
    for length in range(MIN_STRAIGHT, MAX_STRAIGHT + 1):
        # Length 13 is read high only (2..A): one 13-card straight, not two.
        first_top = 13 if length == MAX_STRAIGHT else length - 1
        for top in range(first_top, 14):
            add(Kind.STRAIGHT, top, [LADDER[p] for p in range(top - length + 1, top + 1)])
    add(Kind.PAIR, 13, [RANK["BJ"], RANK["RJ"]])  # the joker pair outranks the pair of 2s
    return (
        np.array(kinds, np.int8),
        np.array(keys, np.int8),
        np.stack(costs),
        tuple(ranks_text),
    )


# (A,) int8 Kind of each action.
KIND: np.ndarray
# (A,) int8 comparison key: rank for n-of-a-kind, ladder position of the top card for straights.
KEY: np.ndarray
# (A, 15) int8 cards of each rank the action consumes.
COST: np.ndarray
# Ranks of each action in RULES.md notation, straights in ladder order ("A 2 3 4 5").
RANKS_TEXT: tuple[str, ...]
KIND, KEY, COST, RANKS_TEXT = _build_table()
for _arr in (KIND, KEY, COST):
    _arr.setflags(write=False)

N_ACTIONS = len(KIND)
PASS = 0
JOKER_PAIR = N_ACTIONS - 1
# (A,) int8 number of cards each action plays.
LENGTH = COST.sum(1).astype(np.int8)
LENGTH.setflags(write=False)
# single action id of each rank: SINGLE_OF_RANK[r].
SINGLE_OF_RANK = np.arange(1, 16, dtype=np.int16)

_ID_BY_COST = {COST[a].tobytes(): a for a in range(1, N_ACTIONS)}


def action_of_counts(counts: np.ndarray) -> int | None:
    """The action whose rank counts are exactly ``counts`` (15,), or None if no play has them.

    The joker pair is returned whether or not the variant is on: legality is the engine's job.
    """
    counts = np.asarray(counts, dtype=np.int8)
    if not counts.any():
        return PASS
    return _ID_BY_COST.get(counts.tobytes())


@functools.cache
def beats_matrix(rules: Rules) -> np.ndarray:
    """(A, A) bool: ``[prev, new]`` is True when ``new`` may be played on ``prev``.

    Row PASS is the empty table (the leader may play anything but pass); elsewhere pass is
    always allowed. Disabled actions (the joker pair without its variant) are never legal.
    """
    prev_kind, new_kind = KIND[:, None], KIND[None, :]
    prev_key, new_key = KEY[:, None].astype(np.int16), KEY[None, :].astype(np.int16)
    same_shape = (prev_kind == new_kind) & (LENGTH[:, None] == LENGTH[None, :])
    if rules.straight_plus_one:
        step_ok = np.where(new_kind == Kind.STRAIGHT, new_key == prev_key + 1, new_key > prev_key)
    else:
        step_ok = new_key > prev_key
    beats = same_shape & step_ok
    is_quad = KIND == Kind.QUAD
    beats |= is_quad[None, :] & ~is_quad[:, None]  # a bomb beats any non-bomb play
    beats[PASS, :] = True  # the leader plays anything ...
    beats[PASS, PASS] = False  # ... but cannot pass
    beats[1:, PASS] = True  # passing is always allowed on a non-empty table
    if not rules.joker_pair:
        beats[:, JOKER_PAIR] = False
        beats[JOKER_PAIR, :] = False
    beats.setflags(write=False)
    return beats


def action_catalogue() -> list[dict]:
    """The catalogue as JSON-ready rows ``{"id", "kind", "ranks"}`` (``murlan actions --json``)."""
    return [
        {"id": a, "kind": Kind(int(KIND[a])).name.lower(), "ranks": RANKS_TEXT[a]}
        for a in range(N_ACTIONS)
    ]


def describe(action: int) -> str:
    """Short human name of an action, e.g. ``"pair 7 7"`` or ``"pass"``."""
    if action == PASS:
        return "pass"
    return f"{Kind(int(KIND[action])).name.lower()} {RANKS_TEXT[action]}"
