"""Compiled per-game loops for the batched engine's hot path (numba).

``engine.legal_action_mask``, ``engine.random_legal_actions``, ``engine.step`` and the start
of each hand (``init``, ``next_hand``, ``new_matches``) spend their time here. Written as
NumPy over the batch, a B=4096 step of random play could not go below some 3.5 ms: dozens of
calls on small arrays and strided reads of (B, 109) masks. One compiled pass per game, on
card and action sets as uint64 bit sets, does it in about 0.5 ms (benchmarks/engine.py).

Every kernel is a plain loop over games with no state of its own: the engine passes in the
arrays a call changes (copies, or the donated state's own) to be updated, so ``engine``
stays a set of pure functions over ``State``. The rules themselves are checked against the
slow scalar reference in tests/ (tests/test_differential.py) and against
``murlan_env.game.Game`` (tests/test_game.py).

Sets as bits:
- cards: bit c for card id c; the 52 suited cards form 13 nibbles, one per rank, suits
  S H D C from the low bit; bits 52 and 53 are the jokers.
- actions: two uint64 words, bit a of word a // 64 for action id a.

Compiled code is cached on disk beside this file (``cache=True``; numba picks a user cache
directory where that is not writable), so only the first use after an install pays the
compile, about 15 s.
"""

from __future__ import annotations

import numba
import numba.extending
import numpy as np

from murlan_env.cards import CARD_RANK, N_RANKS
from murlan_env.combos import COST, LENGTH, N_ACTIONS, PASS

N_SEATS = 4
# Phase values (engine.Phase), as plain ints for compiled code.
PLAY, EXCHANGE, HAND_OVER, MATCH_OVER = 0, 1, 2, 3
N_WORDS = 2  # uint64 words per action set
assert N_ACTIONS <= 64 * N_WORDS
POINTS_BY_PLACE = np.array([3, 2, 1, 0], dtype=np.int16)
# The give-back is a card of rank 3-10: card ids 0-31.
GIVE_BACK_CARDS = np.uint64((1 << 32) - 1)
SUITED = np.uint64((1 << 52) - 1)


def action_words(flags: np.ndarray) -> np.ndarray:
    """(..., A) bool -> (..., 2) uint64 action sets."""
    flags = np.asarray(flags, dtype=bool)
    padded = np.zeros((*flags.shape[:-1], 64 * N_WORDS), bool)
    padded[..., :N_ACTIONS] = flags
    return np.packbits(padded, axis=-1, bitorder="little").view("<u8").astype(np.uint64)


# AFFORD[r, k]: the actions needing at most k cards of rank r. A hand can pay for an action
# when it is in AFFORD[r, count of r] for all 15 ranks.
AFFORD = action_words(COST.T[:, None, :] <= np.arange(5)[None, :, None])  # (15, 5, 2)
# MUST_USE[r]: the actions using a card of rank r (the start-card duty keeps those of its rank).
MUST_USE = action_words(COST.T > 0)  # (15, 2)
# JOKER_BITS[a]: the joker cards action a takes (its jokers are fixed: one card per rank).
JOKER_BITS = (np.where(COST[:, 13] > 0, 1 << 52, 0) | np.where(COST[:, 14] > 0, 1 << 53, 0)).astype(
    np.uint64
)


def _next_seat_table() -> np.ndarray:
    """(4, 16) int8: the first seat after ``s`` (wrapping round) in a 4-bit seat set, -1 if none."""
    table = np.full((N_SEATS, 16), -1, np.int8)
    for after in range(N_SEATS):
        for seats in range(16):
            for k in range(1, N_SEATS + 1):
                if seats >> ((after + k) % N_SEATS) & 1:
                    table[after, seats] = (after + k) % N_SEATS
                    break
    return table


NEXT_SEAT = _next_seat_table()
# Lowest set bit of a nibble: the first suit (S H D C) held of a rank; -1 for none.
FIRST_SUIT = np.array([-1, 0, 1, 0, 2, 0, 1, 0, 3, 0, 1, 0, 2, 0, 1, 0], np.int8)
POPCOUNT4 = np.array([bin(i).count("1") for i in range(16)], np.int8)
# Masks are written and read as uint64 words of 8 bool bytes: MASK_WORDS words per game, the
# bytes past the last action zero. BYTE_SPREAD[x]: the 8 bits of byte x as 8 bool bytes.
MASK_WORDS = (N_ACTIONS + 7) // 8
BYTE_SPREAD = np.unpackbits(np.arange(256, dtype=np.uint8)[:, None], axis=1, bitorder="little")
BYTE_SPREAD = np.ascontiguousarray(BYTE_SPREAD).view("<u8")[:, 0].astype(np.uint64)
# Actions' rank spans: COST[a, r] is zero outside RANK_LO[a] <= r < RANK_HI[a].
_uses = COST > 0
RANK_LO = np.where(_uses.any(1), _uses.argmax(1), 0).astype(np.int64)
RANK_HI = np.where(_uses.any(1), N_RANKS - _uses[:, ::-1].argmax(1), 0).astype(np.int64)
TARGETS = (21, 31, 41, 51)  # RULES.md 6: the first target and its raises
FIRST_TARGET, MAX_TARGET = TARGETS[0], TARGETS[-1]

_jit = numba.njit(cache=True, nogil=True, error_model="numpy")
_inline = numba.njit(cache=True, inline="always", error_model="numpy")


@numba.extending.intrinsic
def _ctpop(typingctx, x):
    """LLVM's population count (one POPCNT instruction where the CPU has it)."""
    if x != numba.types.uint64:
        return None

    def codegen(context, builder, signature, args):
        return builder.ctpop(args[0])

    return numba.types.uint64(numba.types.uint64), codegen


@_inline
def popcount(x):
    """Set bits of a uint64."""
    return np.int64(_ctpop(np.uint64(x)))


@_inline
def lowest_bit_index(x):
    """Index of the lowest set bit of a nonzero uint64."""
    return popcount((x & (~x + np.uint64(1))) - np.uint64(1))


@_inline
def rank_count(bits, rank):
    """Cards of ``rank`` in a card set."""
    if rank < 13:
        return np.int64(POPCOUNT4[(bits >> np.uint64(4 * rank)) & np.uint64(0xF)])
    return np.int64((bits >> np.uint64(39 + rank)) & np.uint64(1))  # rank 13: bit 52, 14: bit 53


@_inline
def first_card_of_rank(bits, rank):
    """The first card (suit order S H D C) of ``rank`` in a card set that holds one."""
    if rank < 13:
        return np.int64(4 * rank + FIRST_SUIT[(bits >> np.uint64(4 * rank)) & np.uint64(0xF)])
    return np.int64(39 + rank)


@_inline
def spread_words(w0, w1, row):
    """Write the action set (w0, w1) into ``row`` (MASK_WORDS,) uint64 as bool bytes."""
    for j in range(8):
        row[j] = BYTE_SPREAD[(w0 >> np.uint64(8 * j)) & np.uint64(0xFF)]
    for j in range(MASK_WORDS - 8):
        row[8 + j] = BYTE_SPREAD[(w1 >> np.uint64(8 * j)) & np.uint64(0xFF)]


@_jit
def legal_masks(counts, to_act, phase, table, start_duty, ex_last_gives, beats, must, out):
    """Fill ``out`` (B, MASK_WORDS) uint64, bool bytes, with each seat to act's legal actions.

    Play: actions the hand can pay for, that beat the table (``beats``: (A, 2) action sets
    per table action) and, under the start-card duty, that use the start card's rank
    (``must``: an action set). Exchange: singles of ranks 3-10 held besides the card just
    received. Other phases: nothing.
    """
    for b in range(phase.shape[0]):
        seat = to_act[b] & (N_SEATS - 1)
        w0 = np.uint64(0)
        w1 = np.uint64(0)
        if phase[b] == PLAY:
            t = table[b]
            w0 = beats[t, 0]
            w1 = beats[t, 1]
            for r in range(N_RANKS):
                k = min(counts[b, seat, r], 4)  # (4 at most in any valid state)
                w0 &= AFFORD[r, k, 0]
                w1 &= AFFORD[r, k, 1]
            if start_duty[b]:
                w0 &= must[0]
                w1 &= must[1]
        elif phase[b] == EXCHANGE:
            received = CARD_RANK[ex_last_gives[b]]
            for r in range(8):
                if counts[b, seat, r] - (r == received) > 0:
                    w0 |= np.uint64(1) << np.uint64(1 + r)  # the single of rank r
        spread_words(w0, w1, out[b])


# Byte lanes: ONES has 1 in every byte, HIGHS the top bit of every byte.
ONES = np.uint64(0x0101010101010101)
HIGHS = np.uint64(0x8080808080808080)


@_jit
def pick_legal(mask_words, uniform, out):
    """Fill ``out`` (B,) with the legal action at position floor(u * n_legal) among each
    game's legal actions in id order (PASS where none is legal).

    ``mask_words`` (B, MASK_WORDS) uint64 is the mask as bool bytes, zero-padded.
    """
    for b in range(mask_words.shape[0]):
        row = mask_words[b]
        n = 0
        for j in range(row.shape[0]):
            n += popcount(row[j])
        out[b] = PASS
        if n == 0:
            continue
        k = int(uniform[b] * n)
        j = 0
        c = popcount(row[0])
        while k >= c:  # the word holding the k-th legal action
            k -= c
            j += 1
            c = popcount(row[j])
        # Byte i of row[j] * ONES counts the legal actions in bytes 0..i (at most 8, so no
        # carries); the top bit of byte i of ``past`` is set once that count exceeds k.
        past = (row[j] * ONES + np.uint64(0x80 - (k + 1)) * ONES) & HIGHS
        out[b] = 8 * j + lowest_bit_index(past) // 8


@_inline
def take_one(hand, action, start_duty, start_card):
    """The cards a rank-level play takes from ``hand``: per rank its first suits in the
    order S H D C, the start card first while the start-card duty holds."""
    taken = hand & JOKER_BITS[action]
    rest = hand & SUITED
    start_bit = np.uint64(1) << np.uint64(start_card)
    start_rank = start_card // 4
    forced = start_duty and COST[action, start_rank] > 0 and (hand & start_bit) != 0
    if forced:
        taken |= start_bit
        rest &= ~start_bit
    for r in range(RANK_LO[action], min(RANK_HI[action], 13)):
        need = COST[action, r]
        if forced and r == start_rank:
            need -= 1
        nibble = (rest >> np.uint64(4 * r)) & np.uint64(0xF)
        for _ in range(need):
            low = nibble & (~nibble + np.uint64(1))
            taken |= low << np.uint64(4 * r)
            nibble ^= low
    return taken


@_jit
def take_cards(hands, actions, start_duty, start_card, out):
    """Fill ``out`` (n,) uint64 with the cards each rank-level action takes from its hand."""
    for i in range(hands.shape[0]):
        out[i] = take_one(hands[i], actions[i], start_duty[i], start_card)


@_inline
def match_result(scores, target, tie_leader, winners):
    """The match result after a hand (RULES.md 6): fill ``winners`` (4,) bool from the match
    ``scores`` (4,) and return the new target. Default: a seat alone at or above the target
    wins; if several reach it the target rises by 10, and at 51 the top scores all win (a
    draw). ``tie_leader``: a unique top score of at least 21 wins."""
    top = scores.max()
    n_top = 0
    n_reached = 0
    for s in range(N_SEATS):
        n_top += scores[s] == top
        n_reached += scores[s] >= target
    if tie_leader:
        for s in range(N_SEATS):
            winners[s] = top >= FIRST_TARGET and n_top == 1 and scores[s] == top
        return target
    several = n_reached >= 2
    capped = several and target >= MAX_TARGET
    for s in range(N_SEATS):
        winners[s] = (n_reached == 1 and scores[s] >= target) or (capped and scores[s] == top)
    return target + 10 if several and not capped else target


@_jit
def match_results(scores, target, tie_leader, new_target, winners):
    """``match_result`` for n games: scores (n, 4), target (n,) -> new_target, winners."""
    for i in range(scores.shape[0]):
        new_target[i] = match_result(scores[i], target[i], tie_leader, winners[i])


@_jit
def step_games(
    actions,
    given,
    sticky_pass,
    tie_leader,
    start_card,
    card_bits,
    counts,
    n_left,
    played,
    phase,
    to_act,
    table,
    table_seat,
    passed,
    place,
    n_out,
    start_duty,
    scores,
    target,
    winners,
    points,
    ex_last,
    ex_last_gives,
    ex_first_gives,
    last_seat,
    last_action,
    last_bits,
):
    """Apply one action to every game waiting for a decision, updating the arrays in place.

    ``given`` (B,) uint64 holds the concrete cards of each play when the caller names them
    (records); when empty, the engine chooses them (``take_one``). A hand that ends gets its
    places, points, scores and match result (``match_result``), and the phase HAND_OVER or,
    when the match has winners, MATCH_OVER.
    """
    has_given = given.shape[0] > 0
    for b in range(phase.shape[0]):
        if phase[b] == EXCHANGE:
            first = to_act[b]
            last = ex_last[b]
            if has_given:
                back = lowest_bit_index(given[b])
            else:
                hand = card_bits[b, first] & ~(np.uint64(1) << np.uint64(ex_last_gives[b]))
                back = first_card_of_rank(hand, actions[b] - 1)
            bit = np.uint64(1) << np.uint64(back)
            rank = CARD_RANK[back]
            card_bits[b, first] &= ~bit
            card_bits[b, last] |= bit
            counts[b, first, rank] -= 1
            counts[b, last, rank] += 1
            n_left[b, first] -= 1
            n_left[b, last] += 1
            ex_first_gives[b] = back
            phase[b] = PLAY
            to_act[b] = last
            last_seat[b] = first
            last_action[b] = actions[b]
            last_bits[b] = bit
            continue
        if phase[b] != PLAY:
            continue
        seat = to_act[b]
        action = actions[b]
        taken = np.uint64(0)
        if action != PASS:
            hand = card_bits[b, seat]
            if has_given:
                taken = given[b]
            else:
                taken = take_one(hand, action, start_duty[b], start_card)
            card_bits[b, seat] = hand & ~taken
            for r in range(RANK_LO[action], RANK_HI[action]):
                c = COST[action, r]
                counts[b, seat, r] -= c
                played[b, seat, r] += c
            n_left[b, seat] -= LENGTH[action]
            if n_left[b, seat] <= 0:
                place[b, seat] = n_out[b]
                n_out[b] += 1
            table[b] = action
            table_seat[b] = seat
            if not sticky_pass:
                passed[b, :] = False
            start_duty[b] = False
        else:
            passed[b, seat] = True
        holders = 0
        passes = 0
        for s in range(N_SEATS):
            if n_left[b, s] > 0:
                holders |= 1 << s
            if passed[b, s]:
                passes |= 1 << s
        eligible = holders & ~passes if sticky_pass else holders
        to_act[b] = NEXT_SEAT[seat, eligible]
        if POPCOUNT4[holders] <= 1:
            # Hand end: the one seat still holding cards takes the last place.
            for s in range(N_SEATS):
                if n_left[b, s] > 0 and place[b, s] < 0:
                    place[b, s] = n_out[b]
            n_out[b] = N_SEATS
            for s in range(N_SEATS):
                points[b, s] = POINTS_BY_PLACE[place[b, s]]
                scores[b, s] += points[b, s]
            target[b] = match_result(scores[b], target[b], tie_leader, winners[b])
            phase[b] = HAND_OVER
            for s in range(N_SEATS):
                if winners[b, s]:
                    phase[b] = MATCH_OVER
        elif table[b] != PASS:
            owner = table_seat[b]
            others = holders & ~(1 << owner)
            if others & ~passes == 0:
                # Trick end: the player who made the last play leads, or if they are out,
                # the next seat holding cards.
                to_act[b] = owner if n_left[b, owner] > 0 else NEXT_SEAT[owner, holders]
                table[b] = PASS
                table_seat[b] = -1
                passed[b, :] = False
        last_seat[b] = seat
        last_action[b] = action
        last_bits[b] = taken


@_jit
def start_hands(
    games,
    deal,
    first,
    last,
    advance,
    no_exchange,
    start_card,
    dealer,
    hand_no,
    card_bits,
    counts,
    n_left,
    played,
    deal_bits,
    phase,
    to_act,
    table,
    table_seat,
    passed,
    place,
    n_out,
    start_duty,
    points,
    ex_last,
    ex_first,
    ex_last_gives,
    ex_first_gives,
    last_seat,
    last_action,
    last_bits,
):
    """Reset the hand of games ``games`` (n,) to its start: the dealt cards, the opening
    duty and the exchange; scores, target and winners are left as they are.

    ``deal`` (n, 4) uint64 is their new deal; ``first``/``last`` (n,) the previous hand's 1st
    and last seats, or with ``advance`` the seats placed 1st and 4th in the hand just
    finished, whose dealer moves one seat and whose hand number goes up by one.

    Hand 1 of a match: the start card's holder leads under the duty. Later
    hands (unless ``no_exchange``): the last player's highest card goes to the 1st player,
    who gives back a card of rank 3-10 (their choice: phase EXCHANGE, theirs to act) or,
    holding none besides the card received, their lowest other card; then the last player
    leads. If the last player holds both jokers there is no exchange and the 1st player leads.
    """
    start_bit = np.uint64(1) << np.uint64(start_card)
    for i in range(games.shape[0]):
        b = games[i]
        if advance:
            f = 0
            lst = 0
            for s in range(N_SEATS - 1, -1, -1):  # the first seat of each place, as argmax
                if place[b, s] == 0:
                    f = s
                if place[b, s] == N_SEATS - 1:
                    lst = s
            dealer[b] = (dealer[b] + 1) % N_SEATS
            hand_no[b] += 1
        else:
            f = first[i]
            lst = last[i]
        hands = deal[i].copy()
        deal_bits[b, :] = hands
        played[b] = 0
        phase[b] = PLAY
        table[b] = PASS
        table_seat[b] = -1
        passed[b, :] = False
        place[b, :] = -1
        n_out[b] = 0
        points[b, :] = 0
        last_seat[b] = -1
        last_action[b] = -1
        last_bits[b] = 0
        ex_last[b] = -1
        ex_first[b] = -1
        ex_last_gives[b] = -1
        ex_first_gives[b] = -1
        start_duty[b] = hand_no[b] == 0
        if hand_no[b] == 0:
            leader = 0
            for s in range(N_SEATS):
                if hands[s] & start_bit:
                    leader = s
                    break
        else:
            leader = lst
        if hand_no[b] != 0 and not no_exchange:
            if (hands[lst] >> np.uint64(52)) & np.uint64(3) == np.uint64(3):
                leader = f  # both jokers: no exchange, the 1st player leads
            else:
                top = N_RANKS - 1
                while rank_count(hands[lst], top) == 0:
                    top -= 1
                given = first_card_of_rank(hands[lst], top)
                bit = np.uint64(1) << np.uint64(given)
                hands[lst] &= ~bit
                hands[f] |= bit
                others = hands[f] & ~bit
                ex_last[b] = lst
                ex_first[b] = f
                ex_last_gives[b] = given
                if others & GIVE_BACK_CARDS:
                    phase[b] = EXCHANGE
                    leader = f
                else:
                    back = lowest_bit_index(others)
                    back_bit = np.uint64(1) << np.uint64(back)
                    hands[f] &= ~back_bit
                    hands[lst] |= back_bit
                    ex_first_gives[b] = back
        for s in range(N_SEATS):
            card_bits[b, s] = hands[s]
            total = 0
            for r in range(N_RANKS):
                c = rank_count(hands[s], r)
                counts[b, s, r] = c
                total += c
            n_left[b, s] = total
        to_act[b] = leader


@_jit
def deal_order_to_bits(order, dealer, out):
    """Fill ``out`` (n, 4) uint64 with the hands of packs dealt one card at a time from the
    seat after the dealer; ``order`` (n, 54) gives the card at each deal position."""
    for i in range(order.shape[0]):
        out[i, :] = 0
        for p in range(order.shape[1]):
            seat = (dealer[i] + 1 + p) % N_SEATS
            out[i, seat] |= np.uint64(1) << np.uint64(order[i, p])
