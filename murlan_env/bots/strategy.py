"""Hand planning for the rule-based bots: split a hand into combinations and judge it.

A *plan* is a way to play a hand out as a list of action ids (see ``combos``): bombs kept
whole, a choice of straights, then every remaining rank as one single, pair or triple (in
Murlan nothing attaches to a triple, so grouping a rank never costs a turn). ``plans`` lists
the candidate plans of a hand; ``hand_value`` scores a hand against the cards still unseen,
lower is better: the number of combinations that opponents can beat, less a credit for the
combinations they cannot ("controls", which win a trick and give the lead back).

Everything here works on one hand at a time, with small caches, so that bots can afford a
look-ahead "what is my hand worth after this play" for each candidate action.
"""

from __future__ import annotations

import bisect
import functools
import operator

import numpy as np

from murlan_env.game.bitsets import (
    AFFORD,
    MASK_WORDS,
    action_words,
    jit,
    lowest_bit_index,
    spread_words,
)
from murlan_env.game.combos import COST, JOKER_PAIR, KIND, N_ACTIONS, PASS, Kind

# Credit for each control in a plan: a control is free to play and can win back the lead.
CONTROL_CREDIT = 1.5
# At most this many plans per hand are kept (fewest combinations first).
MAX_PLANS = 8

_BJ, _RJ = 13, 14
# n-of-a-kind action id by (count, rank): 1-15 singles, 16-28 pairs, 29-41 triples, 42-54 quads.
_GROUP = {1: 1, 2: 16, 3: 29, 4: 42}
# Straights as (action id, bitmask of ranks), in action-id order.
_STRAIGHTS: tuple[tuple[int, int], ...] = tuple(
    (a, sum(1 << int(r) for r in np.flatnonzero(COST[a])))
    for a in range(N_ACTIONS)
    if KIND[a] == Kind.STRAIGHT
)
_STRAIGHT_RANKS = {a: tuple(int(r) for r in np.flatnonzero(COST[a])) for a, _ in _STRAIGHTS}
IS_QUAD = KIND == Kind.QUAD
# (A, 15) int cost rows as Python tuples, for fast per-game arithmetic.
COST_ROWS: tuple[tuple[int, ...], ...] = tuple(tuple(int(x) for x in row) for row in COST)


def group_action(rank: int, count: int) -> int:
    """Action id of ``count`` cards of ``rank`` (1-4; jokers only as singles)."""
    return _GROUP[count] + rank


@functools.lru_cache(maxsize=1 << 13)
def _straights_within(present: int) -> tuple[int, ...]:
    """Indices into ``_STRAIGHTS`` of the straights whose ranks are all in the bitmask
    ``present`` (one entry per subset of the 13 ranks)."""
    return tuple(i for i, (_, bits) in enumerate(_STRAIGHTS) if bits & present == bits)


@functools.lru_cache(maxsize=1 << 17)
def _straight_sets(counts: tuple[int, ...], start: int) -> tuple[tuple[tuple, tuple], ...]:
    """Every multiset of straights (ids >= ``start``, non-decreasing) that ``counts`` can pay.

    Returns pairs (straight ids, counts left). ``counts`` covers ranks 3..2 (13 entries).
    """
    present = 0
    for r, c in enumerate(counts):
        if c:
            present |= 1 << r
    out: list[tuple[tuple[int, ...], tuple[int, ...]]] = [((), counts)]
    fitting = _straights_within(present)
    for i in fitting[bisect.bisect_left(fitting, start) :]:
        action = _STRAIGHTS[i][0]
        left = list(counts)
        for r in _STRAIGHT_RANKS[action]:
            left[r] -= 1
        for chosen, rest in _straight_sets(tuple(left), i):
            out.append(((action, *chosen), rest))
    return tuple(out)


@functools.lru_cache(maxsize=1 << 17)
def plans(counts: tuple[int, ...], joker_pair: bool = False) -> tuple[tuple[int, ...], ...]:
    """Candidate plans of a hand given as cards per rank (15 ints), fewest combinations first.

    Ranks held four times stay bombs; with ``joker_pair`` both jokers may go as the joker pair
    or as two singles. At most ``MAX_PLANS`` plans are returned; the empty hand has one
    empty plan.
    """
    base: list[int] = []
    rest = list(counts[:13])
    for r in range(13):
        if rest[r] == 4:
            base.append(group_action(r, 4))
            rest[r] = 0
    single_jokers = tuple(group_action(r, 1) for r in (_BJ, _RJ) if counts[r])
    # (jokers, how many of them are singles)
    joker_options = [(single_jokers, len(single_jokers))]
    if joker_pair and counts[_BJ] and counts[_RJ]:
        joker_options.append(((JOKER_PAIR,), 0))
    # Each plan with its sort key: fewest combinations first; then fewer singles (they are
    # the hardest to get rid of late). Straights and bombs are never singles.
    keyed: list[tuple[tuple[int, int], tuple[int, ...]]] = []
    for straights, left in _straight_sets(tuple(rest), 0):
        groups = tuple(group_action(r, c) for r, c in enumerate(left) if c)
        singles = left.count(1)
        for jokers, joker_singles in joker_options:
            plan = (*base, *straights, *groups, *jokers)
            keyed.append(((len(plan), singles + joker_singles), plan))
    keyed.sort(key=operator.itemgetter(0))  # stable: ties keep the order found
    return tuple(plan for _, plan in keyed[:MAX_PLANS])


def beatable_actions(unseen: np.ndarray, beats: np.ndarray) -> np.ndarray:
    """(B, A) bool: which actions the unseen cards (B, 15) could beat.

    The unseen cards are pooled (they are spread over three opponents, so this errs on the
    side of caution). Bombs are ignored as threats to non-bombs: a quad is only counted as
    beatable by a higher quad. PASS is never beatable.
    """
    unseen = np.ascontiguousarray(unseen, np.int8)
    words = np.empty((unseen.shape[0], MASK_WORDS), np.uint64)
    _beatable_sets(unseen, _threat_sets(np.ascontiguousarray(beats, bool).tobytes()), words)
    return words.view(bool)[:, :N_ACTIONS]


@functools.lru_cache(maxsize=16)
def _threat_sets(beats_bytes: bytes) -> np.ndarray:
    """(A, 2) uint64: per action f, the set of actions f beats as a threat (a bomb threatens
    only bombs), for a beats table given as bytes (cached per table)."""
    beats = np.frombuffer(beats_bytes, bool).reshape(N_ACTIONS, N_ACTIONS)
    threat = beats & (~IS_QUAD[None, :] | IS_QUAD[:, None])  # [prev, new]
    threat[PASS] = False
    return action_words(threat.T)  # row f: the plays f beats


@jit
def _beatable_sets(unseen, threats, out):
    """``out`` (B, MASK_WORDS): the actions some play formable from ``unseen`` beats."""
    for b in range(unseen.shape[0]):
        f0 = ~np.uint64(1)  # every action but PASS ...
        f1 = ~np.uint64(0)
        for r in range(unseen.shape[1]):  # ... that the pooled unseen cards can pay for
            k = min(unseen[b, r], 4)
            f0 &= AFFORD[r, k, 0]
            f1 &= AFFORD[r, k, 1]
        o0 = np.uint64(0)
        o1 = np.uint64(0)
        for word, base in ((f0, 0), (f1, 64)):
            while word:
                f = base + lowest_bit_index(word)
                o0 |= threats[f, 0]
                o1 |= threats[f, 1]
                word &= word - np.uint64(1)
        spread_words(o0, o1, out[b])


def hand_value(
    counts: tuple[int, ...],
    beatable: np.ndarray,
    joker_pair: bool = False,
    credit: float = CONTROL_CREDIT,
) -> tuple[float, tuple[int, ...]]:
    """(value, best plan) of a hand: combinations minus ``credit`` per control.

    ``beatable`` (A,) bools (a row of ``beatable_actions``, as a list for speed) marks the
    combinations an opponent could beat. Lower values are better; an empty hand is worth -inf.
    """
    if not any(counts):
        return float("-inf"), ()
    best, best_plan = float("inf"), ()
    for plan in plans(counts, joker_pair):
        value = 0.0
        for a in plan:
            value += 1.0 if beatable[a] else 1.0 - credit
        if value < best:
            best, best_plan = value, plan
    return best, best_plan


def minus(counts: tuple[int, ...], action: int) -> tuple[int, ...]:
    """The hand ``counts`` after paying for ``action``."""
    return tuple(map(operator.sub, counts, COST_ROWS[action]))
