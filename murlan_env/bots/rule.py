"""The rule bot (``RuleBot``) and its hand planning: split a hand into combinations, judge it,
and choose the rule bot's move.

A *plan* is a way to play a hand out as a list of action ids (see ``combos``): bombs kept
whole, a choice of straights, then every remaining rank as one single, pair or triple (in
Murlan nothing attaches to a triple, so grouping a rank never costs a turn). ``plans`` lists
the candidate plans of a hand; ``hand_value`` scores a hand against the cards still unseen,
lower is better: the number of combinations that opponents can beat, less a credit for the
combinations they cannot ("controls", which win a trick and give the lead back).
``rule_moves`` is ``RuleBot``'s decision for a batch of games (``RuleBot`` describes the
policy), built on the two.

All of it is compiled (numba) and works on count arrays: a search asks the rule bot for a
move at every step of its rollouts for the seats that play like it, and each move looks
ahead at "what is my hand worth after this play" for every legal action, so the planner runs
several times per decision (``benchmarks/bot_speed.py`` times the bot).
"""

from __future__ import annotations

import functools

import numpy as np

from murlan_env.game import observation
from murlan_env.game.bitsets import (
    AFFORD,
    MASK_WORDS,
    action_words,
    jit,
    lowest_bit_index,
    spread_words,
)
from murlan_env.game.combos import (
    COST,
    JOKER_PAIR,
    KEY,
    KIND,
    LENGTH,
    N_ACTIONS,
    PASS,
    Kind,
    beats_matrix,
)

# Credit for each control in a plan: a control is free to play and can win back the lead.
CONTROL_CREDIT = 1.5
# At most this many plans per hand are kept (fewest combinations first).
MAX_PLANS = 8
# Longest plan: one combination per card at most (a hand never holds more than 18 cards).
MAX_PLAN_LEN = 24

_BJ, _RJ = 13, 14
# n-of-a-kind action id by count, plus the rank: 1-15 singles, 16-28 pairs, 29-41 triples,
# 42-54 quads.
_GROUP = np.array([0, 1, 16, 29, 42], np.int64)
# The straights, in action-id order, and the ranks (3..2) each one takes.
_STRAIGHT_ACTION = np.flatnonzero(KIND == Kind.STRAIGHT).astype(np.int64)
_STRAIGHT_COST = COST[_STRAIGHT_ACTION, :13].astype(np.int64)
IS_QUAD = KIND == Kind.QUAD
_COST = COST.astype(np.int64)
_KEY = KEY.astype(np.int64)
_LENGTH = LENGTH.astype(np.int64)
# Lowest rank each action uses (15 for pass), for "lead your lowest" rules.
LOW_RANK = np.where(COST.any(1), np.argmax(COST > 0, axis=1), 15).astype(np.int64)
# Sets of straights open in the search below at once, at most: siblings wait on a stack (a
# hand pays for at most 3 straights, so at most 1 + 3 x 53 sets wait), and straights per set.
_STACK = 256
_MAX_STRAIGHTS = 8


def group_action(rank: int, count: int) -> int:
    """Action id of ``count`` cards of ``rank`` (1-4; jokers only as singles)."""
    return int(_GROUP[count] + rank)


@jit
def _keep(plan, size, singles, plans, lengths, k_len, k_singles, n):
    """Insert ``plan[:size]`` among the ``n`` kept plans, ordered by (length, singles), after
    those with an equal key (a stable sort), dropping the last beyond ``MAX_PLANS``; returns
    how many are kept."""
    at = n
    while at > 0 and (k_len[at - 1], k_singles[at - 1]) > (size, singles):
        at -= 1
    if at >= MAX_PLANS:
        return n
    last = min(n, MAX_PLANS - 1)
    for i in range(last, at, -1):
        plans[i] = plans[i - 1]
        lengths[i] = lengths[i - 1]
        k_len[i] = k_len[i - 1]
        k_singles[i] = k_singles[i - 1]
    plans[at, :size] = plan[:size]
    lengths[at] = size
    k_len[at] = size
    k_singles[at] = singles
    return min(n + 1, MAX_PLANS)


@jit
def _top_plans(counts, joker_pair, plans, lengths):
    """The hand ``counts`` (15,) planned: writes the ``MAX_PLANS`` plans with the fewest
    combinations (then the fewest singles, then in the order found) into ``plans``
    (MAX_PLANS, MAX_PLAN_LEN) and their lengths into ``lengths``; returns how many.

    Every multiset of straights the hand can pay for is tried, depth first with straights in
    non-decreasing id order (each set once); the ranks left become groups; jokers go as
    singles or, with ``joker_pair``, also as the joker pair.
    """
    base = np.empty(13, np.int64)
    n_base = 0
    rest = np.empty(13, np.int64)
    for r in range(13):
        rest[r] = counts[r]
        if counts[r] == 4:
            base[n_base] = _GROUP[4] + r
            n_base += 1
            rest[r] = 0
    has_bj, has_rj = counts[_BJ] > 0, counts[_RJ] > 0
    k_len = np.empty(MAX_PLANS, np.int64)
    k_singles = np.empty(MAX_PLANS, np.int64)
    n = 0
    n_straights = _STRAIGHT_ACTION.shape[0]
    st_start = np.empty(_STACK, np.int64)
    st_chosen = np.empty((_STACK, _MAX_STRAIGHTS), np.int64)
    st_n = np.empty(_STACK, np.int64)
    st_left = np.empty((_STACK, 13), np.int64)
    st_start[0], st_n[0] = 0, 0
    st_left[0] = rest
    top = 1
    plan = np.empty(MAX_PLAN_LEN, np.int64)
    while top:
        top -= 1
        start, k = st_start[top], st_n[top]
        left = st_left[top].copy()
        chosen = st_chosen[top, :k].copy()
        size = 0
        for i in range(n_base):
            plan[size] = base[i]
            size += 1
        for i in range(k):
            plan[size] = chosen[i]
            size += 1
        singles = 0
        for r in range(13):
            if left[r]:
                plan[size] = _GROUP[left[r]] + r
                size += 1
                singles += left[r] == 1
        with_singles, joker_singles = size, 0
        for has, rank in ((has_bj, _BJ), (has_rj, _RJ)):
            if has:
                plan[with_singles] = _GROUP[1] + rank
                with_singles += 1
                joker_singles += 1
        n = _keep(plan, with_singles, singles + joker_singles, plans, lengths, k_len, k_singles, n)
        if joker_pair and has_bj and has_rj:
            plan[size] = JOKER_PAIR
            n = _keep(plan, size + 1, singles, plans, lengths, k_len, k_singles, n)
        # The straights this set may still add, pushed last-first so the first comes out next.
        for i in range(n_straights - 1, start - 1, -1):
            fits = True
            for r in range(13):
                if _STRAIGHT_COST[i, r] > left[r]:
                    fits = False
                    break
            if fits:
                if top >= _STACK or k >= _MAX_STRAIGHTS:
                    raise RuntimeError("too many straight sets open in the plan search")
                st_start[top] = i
                st_n[top] = k + 1
                st_chosen[top, :k] = chosen
                st_chosen[top, k] = _STRAIGHT_ACTION[i]
                st_left[top] = left - _STRAIGHT_COST[i]
                top += 1
    return n


@jit
def _hand_value(counts, beatable, joker_pair, credit, plans, lengths):
    """(value, index into ``plans`` of the best plan, or -1 for the empty hand): see
    ``hand_value``; ``plans`` and ``lengths`` are scratch space that keeps the plans."""
    empty = True
    for r in range(counts.shape[0]):
        if counts[r]:
            empty = False
    if empty:
        return -np.inf, -1
    n = _top_plans(counts, joker_pair, plans, lengths)
    best, best_at = np.inf, 0
    for p in range(n):
        value = 0.0
        for j in range(lengths[p]):
            value += 1.0 if beatable[plans[p, j]] else 1.0 - credit
        if value < best:
            best, best_at = value, p
    return best, best_at


def plans(counts, joker_pair: bool = False) -> tuple[tuple[int, ...], ...]:
    """Candidate plans of a hand given as cards per rank (15 ints), fewest combinations first.

    Ranks held four times stay bombs; with ``joker_pair`` both jokers may go as the joker pair
    or as two singles. At most ``MAX_PLANS`` plans are returned; the empty hand has one
    empty plan.
    """
    out = np.empty((MAX_PLANS, MAX_PLAN_LEN), np.int64)
    lengths = np.empty(MAX_PLANS, np.int64)
    n = _top_plans(np.asarray(counts, np.int64), bool(joker_pair), out, lengths)
    return tuple(tuple(int(a) for a in out[p, : lengths[p]]) for p in range(n))


def hand_value(
    counts, beatable: np.ndarray, joker_pair: bool = False, credit: float = CONTROL_CREDIT
) -> tuple[float, tuple[int, ...]]:
    """(value, best plan) of a hand (15 counts): combinations minus ``credit`` per control.

    ``beatable`` (A,) bools (a row of ``beatable_actions``) marks the combinations an
    opponent could beat. Lower values are better; an empty hand is worth -inf. Of plans of
    equal value, the first of ``plans`` wins.
    """
    out = np.empty((MAX_PLANS, MAX_PLAN_LEN), np.int64)
    lengths = np.empty(MAX_PLANS, np.int64)
    value, at = _hand_value(
        np.asarray(counts, np.int64),
        np.asarray(beatable, bool),
        bool(joker_pair),
        float(credit),
        out,
        lengths,
    )
    return float(value), (() if at < 0 else tuple(int(a) for a in out[at, : lengths[at]]))


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


# --------------------------------------------------------------------------- the rule bot's moves


@jit
def _pays_exactly(action, counts):
    for r in range(counts.shape[0]):
        if _COST[action, r] != counts[r]:
            return False
    return True


@jit
def _lead_key(action, danger, block_at, lead_long):
    """(class, first, second), smaller first: an opponent with ``danger`` cards or fewer
    may go out on a lead of that size or less: lead other shapes first; if only such leads
    remain, lead high to block."""
    if danger <= block_at and _LENGTH[action] <= danger and KIND[action] != Kind.STRAIGHT:
        return 1, -LOW_RANK[action], 0
    if lead_long:
        return 0, -_LENGTH[action], LOW_RANK[action]
    return 0, LOW_RANK[action], -_LENGTH[action]


@jit
def _strong_key(action):
    """Controls lead longest first, then lowest."""
    return -_LENGTH[action], _KEY[action]


@jit
def _lead(counts, legal, n_legal, mask_row, beatable, danger, joker_pair, knobs, plans, lengths):
    block_at, _, credit, _, last_weak, lead_long = knobs
    for i in range(n_legal):
        if _pays_exactly(legal[i], counts):
            return legal[i]  # out in one play
    _, at = _hand_value(counts, beatable, joker_pair, credit, plans, lengths)
    plan = plans[at, : lengths[at]]  # read before anything plans again
    n_weak, n_strong = 0, 0
    best_strong, first_strong, best_weak, lowest_bomb = -1, -1, -1, -1
    for a in plan:
        if not mask_row[a]:
            continue
        if IS_QUAD[a]:
            if lowest_bomb < 0 or a < lowest_bomb:
                lowest_bomb = a
        elif beatable[a]:
            n_weak += 1
            if best_weak < 0 or _lead_key(a, danger, block_at, lead_long) < _lead_key(
                best_weak, danger, block_at, lead_long
            ):
                best_weak = a
        else:
            n_strong += 1
            if first_strong < 0:
                first_strong = a
            if best_strong < 0 or _strong_key(a) < _strong_key(best_strong):
                best_strong = a
    if n_strong and n_weak <= last_weak:
        return best_strong
    if n_weak:
        return best_weak
    if n_strong:
        return first_strong
    if lowest_bomb >= 0:
        return lowest_bomb
    # The opening duty can rule out every plan combination (e.g. a bomb of 3s): take the
    # legal lead that leaves the best hand (the lowest id of equal ones).
    return _least_after(counts, legal, n_legal, beatable, joker_pair, credit, plans, lengths)


@jit
def _least_after(counts, legal, n_legal, beatable, joker_pair, credit, plans, lengths):
    """The legal action leaving the best hand, the lowest id of equal ones."""
    best, best_value = legal[0], np.inf
    for i in range(n_legal):
        after = counts - _COST[legal[i]]
        value, _ = _hand_value(after, beatable, joker_pair, credit, plans, lengths)
        if value < best_value:
            best, best_value = legal[i], value
    return best


@jit
def _follow(counts, legal, n_legal, beatable, danger, joker_pair, knobs, plans, lengths):
    block_at, finish, credit, save_high, _, _ = knobs
    now, _ = _hand_value(counts, beatable, joker_pair, credit, plans, lengths)
    progress, progress_after = -1, 0.0
    best, best_after = -1, 0.0  # the non-bomb leaving the best hand, cheapest of equal ones
    bomb, bomb_after = -1, 0.0
    for i in range(n_legal):
        a = legal[i]
        if a == PASS:
            continue
        if _pays_exactly(a, counts):
            return a  # out in one play
        after, _ = _hand_value(counts - _COST[a], beatable, joker_pair, credit, plans, lengths)
        if IS_QUAD[a]:
            if bomb < 0 or (after, a) < (bomb_after, bomb):
                bomb, bomb_after = a, after
            continue
        # Progress: a play that leaves a better hand (weak combinations shed cheaply).
        if after <= now - 1.0 + 1e-9:
            if progress < 0 or (_KEY[a], after) < (_KEY[progress], progress_after):
                progress, progress_after = a, after
        if best < 0 or (after, _KEY[a]) < (best_after, _KEY[best]):
            best, best_after = a, after
    if progress >= 0:
        early = now >= 3 and danger > block_at
        if not (early and LOW_RANK[progress] >= save_high):
            return progress
    # Taking the lead pays when the rest then goes out or an opponent must be stopped.
    blocking = danger <= block_at
    if best >= 0:
        if blocking or best_after <= finish:
            return best
    if bomb >= 0:
        if (blocking and danger <= 1) or bomb_after <= finish:
            return bomb
    return PASS


@jit
def rule_moves(hand, mask, beatable, danger, exchanging, leading, joker_pair, knobs, out):
    """``RuleBot``'s move per game into ``out`` (B,): ``hand`` (B, 15) its cards per rank,
    ``mask`` and ``beatable`` (B, A), ``danger`` (B,) the fewest cards an opponent holds,
    ``exchanging``, ``leading`` and ``joker_pair`` (B,) flags, ``knobs`` the bot's
    (danger, finish, credit, save_high, last_weak, lead_long) as (int, float, float, int,
    int, bool)."""
    plans = np.empty((MAX_PLANS, MAX_PLAN_LEN), np.int64)
    lengths = np.empty(MAX_PLANS, np.int64)
    legal = np.empty(mask.shape[1], np.int64)
    counts = np.empty(hand.shape[1], np.int64)
    credit = knobs[2]
    for g in range(hand.shape[0]):
        n_legal = 0
        for a in range(mask.shape[1]):
            if mask[g, a]:
                legal[n_legal] = a
                n_legal += 1
        if n_legal <= 1:
            out[g] = legal[0] if n_legal else PASS
            continue
        for r in range(hand.shape[1]):
            counts[r] = hand[g, r]
        if exchanging[g]:  # give back the card whose loss hurts the plan least
            out[g] = _least_after(
                counts, legal, n_legal, beatable[g], joker_pair[g], credit, plans, lengths
            )
        elif leading[g]:
            out[g] = _lead(
                counts,
                legal,
                n_legal,
                mask[g],
                beatable[g],
                danger[g],
                joker_pair[g],
                knobs,
                plans,
                lengths,
            )
        else:
            out[g] = _follow(
                counts, legal, n_legal, beatable[g], danger[g], joker_pair[g], knobs, plans, lengths
            )


class RuleBot:
    """The strongest rule-based bot here: it plans its hand and counts cards.

    Per game (compiled: ``rule_moves``, over its hand plans):

    - The hand is planned as bombs, straights and rank groups with the fewest combinations;
      its value counts the combinations opponents could beat and credits *controls* (those
      the unseen cards cannot beat, bombs aside), which win a trick and give the lead back.
    - Leading: with at most one beatable combination left, controls go first and the last
      weak one after; otherwise the weakest beatable combination of the plan (lowest rank,
      longer first), avoiding the shape an opponent about to go out can still play.
    - Following: the cheapest play that improves the plan's value (a weak combination of
      the plan, or a split that costs no turn); controls only to take the lead when close to
      going out or to stop an opponent with few cards; bombs only for the same reasons when
      nothing else does; otherwise pass.
    - Exchange: gives back the card whose loss hurts the plan least, lowest rank first.
    """

    name = "rule"

    def __init__(
        self,
        danger: int = 1,
        finish: float = 1.5,
        credit: float = CONTROL_CREDIT,
        save_high: int = 99,
        last_weak: int = 1,
        lead_long: bool = False,
    ) -> None:
        """Tuning knobs; the defaults were the best of those tried (benchmarks/bots_strength).

        Args:
            danger: an opponent holding at most this many cards is blocked (2 and 0 were
                weaker than 1).
            finish: hand value at or below which taking the lead is worth a control.
            credit: value credit per control (``rule.hand_value``).
            save_high: lowest rank (index, A = 11) not shed on a trick while the hand is
                still long; 99 = off (11 gained against greedy but lost against the default
                rule bot).
            last_weak: lead controls first once this few weak combinations are left (0 and 2
                were both weaker).
            lead_long: lead the longest weak combination rather than the lowest.
        """
        self.danger = danger
        self.finish = finish
        self.credit = credit
        self.save_high = save_high
        self.last_weak = last_weak
        self.lead_long = lead_long

    def act(self, obs: np.ndarray, mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        batch = len(obs)
        out = np.zeros(batch, np.int16)
        if batch == 0:
            return out
        mask = np.ascontiguousarray(mask, bool)
        seen = observation.decode(obs)
        left = seen.cards_left.astype(np.int64)
        # Games of one call normally share their rules; group by the flags in case they don't.
        flags = seen.rule_flags
        beatable = np.zeros(mask.shape, bool)
        joker_pair = np.zeros(batch, bool)
        # np.unique sorts the rows: a third of this method's time in a search's rollouts.
        groups = flags[:1] if (flags == flags[0]).all() else np.unique(flags, axis=0)
        for row in groups:
            same = (flags == row).all(1)
            rules = seen.rules(int(np.flatnonzero(same)[0]))
            beatable[same] = beatable_actions(seen.unseen[same], beats_matrix(rules))
            joker_pair[same] = rules.joker_pair
        danger = np.where(left[:, 1:] > 0, left[:, 1:], 99).min(1)  # (B,) fewest cards held
        knobs = (
            int(self.danger),
            float(self.finish),
            float(self.credit),
            int(self.save_high),
            int(self.last_weak),
            bool(self.lead_long),
        )
        rule_moves(
            np.ascontiguousarray(seen.my_hand),
            mask,
            beatable,
            danger,
            np.ascontiguousarray(seen.exchanging, bool),
            np.ascontiguousarray(seen.table == PASS),
            joker_pair,
            knobs,
            out,
        )
        return out
