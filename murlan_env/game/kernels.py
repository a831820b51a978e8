"""The rules of Murlan, once: compiled functions over one game's record, and batch loops.

Each rule of RULES.md sections 3-6 is written here exactly once, as a function of one game's
record (a ``murlan_env.game.state.STATE_DTYPE`` record, updated in place):

- ``legal_one``: the legal actions of the seat to act (section 3 and the exchange);
- ``take_one``: which concrete cards a rank-level play takes from a hand;
- ``step_one``: a play, a pass or the give-back, tricks, going out, the hand's end (3-4);
- ``match_result``: points into scores, targets, winners and draws (6);
- ``start_hand_one``: a new hand from its deal, the opening duty and the exchange (5).

The batch loops (``legal_masks``, ``step_games``, ``start_hands``) call them for every game
of a (B,) record array; a single game is simply a batch of one, so the AEC env, the
Gymnasium envs, records, the terminal game and the search bot all play through the same
functions. ``murlan_env.game.engine`` wraps them as pure functions over ``State``. They are
checked against the slow scalar reference in tests/test_differential.py.

Compiled code is cached on disk beside this file (``cache=True``; numba picks a user cache
directory where that is not writable), so only the first use after an install pays the
compile.
"""

from __future__ import annotations

import numpy as np

from murlan_env.game.bitsets import (
    AFFORD,
    JOKER_BITS,
    NEXT_SEAT,
    POPCOUNT4,
    RANK_HI,
    RANK_LO,
    SUITED,
    first_card_of_rank,
    inline,
    jit,
    lowest_bit_index,
    rank_count,
    spread_words,
)
from murlan_env.game.cards import CARD_RANK, N_RANKS
from murlan_env.game.combos import COST, N_ACTIONS, PASS
from murlan_env.game.state import N_SEATS, TARGETS, Phase

PLAY, EXCHANGE, HAND_OVER, MATCH_OVER = (int(p) for p in Phase)
POINTS_BY_PLACE = np.array([3, 2, 1, 0], dtype=np.int16)
FIRST_TARGET, MAX_TARGET = TARGETS[0], TARGETS[-1]
# The give-back is a card of rank 3-10: card ids 0-31.
GIVE_BACK_CARDS = np.uint64((1 << 32) - 1)
GIVE_BACK_RANKS = 8


# --------------------------------------------------------------------------- legality


@inline
def legal_one(g, beats, must, row):
    """Write the legal actions of ``g``'s seat to act into ``row`` (MASK_WORDS,) uint64.

    Play: actions the hand can pay for, that beat the table (``beats``: (A, 2) action sets
    per table action) and, under the start-card duty, that use the start card's rank
    (``must``: an action set). Exchange: singles of ranks 3-10 held besides the card just
    received. Other phases: nothing.
    """
    hand = g.card_bits[g.to_act & (N_SEATS - 1)]
    w0 = np.uint64(0)
    w1 = np.uint64(0)
    if g.phase == PLAY:
        w0 = beats[g.table, 0]
        w1 = beats[g.table, 1]
        for r in range(N_RANKS):
            k = rank_count(hand, r)
            w0 &= AFFORD[r, k, 0]
            w1 &= AFFORD[r, k, 1]
        if g.start_duty:
            w0 &= must[0]
            w1 &= must[1]
    elif g.phase == EXCHANGE:
        received = CARD_RANK[g.ex_last_gives]
        for r in range(GIVE_BACK_RANKS):
            if rank_count(hand, r) - (r == received) > 0:
                w0 |= np.uint64(1) << np.uint64(1 + r)  # the single of rank r
    spread_words(w0, w1, row)


@jit
def legal_masks(data, beats, must, out):
    """``legal_one`` for every game: ``out`` (B, MASK_WORDS) uint64 as bool bytes."""
    for b in range(data.shape[0]):
        legal_one(data[b], beats, must, out[b])


# --------------------------------------------------------------------------- playing


@inline
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


@jit
def take_cards(hands, actions, start_duty, start_card, out):
    """Fill ``out`` (n,) uint64 with the cards each rank-level action takes from its hand."""
    for i in range(hands.shape[0]):
        out[i] = take_one(hands[i], actions[i], start_duty[i], start_card)


@inline
def places_given(g):
    """Places given out so far in ``g``'s hand."""
    n = 0
    for s in range(N_SEATS):
        n += g.place[s] >= 0
    return n


@inline
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


@jit
def match_results(scores, target, tie_leader, new_target, winners):
    """``match_result`` for n games: scores (n, 4), target (n,) -> new_target, winners."""
    for i in range(scores.shape[0]):
        new_target[i] = match_result(scores[i], target[i], tie_leader, winners[i])


@inline
def end_hand(g, tie_leader):
    """The hand is over: the seat still holding cards is last; points, scores and the match
    result follow, and the phase becomes HAND_OVER or, when the match has winners,
    MATCH_OVER."""
    n_out = places_given(g)
    for s in range(N_SEATS):
        if g.card_bits[s] != 0 and g.place[s] < 0:
            g.place[s] = n_out
    for s in range(N_SEATS):
        g.points[s] = POINTS_BY_PLACE[g.place[s]]
        g.scores[s] += g.points[s]
    g.target = match_result(g.scores, g.target, tie_leader, g.winners)
    g.phase = HAND_OVER
    for s in range(N_SEATS):
        if g.winners[s]:
            g.phase = MATCH_OVER


@inline
def give_back(g, action, given, has_given):
    """The previous 1st player gives back the single ``action`` (its rank's first suit
    besides the card just received, or the card ``given``); the last player leads."""
    first = g.to_act
    last = g.ex_last
    if has_given:
        back = lowest_bit_index(given)
    else:
        hand = g.card_bits[first] & ~(np.uint64(1) << np.uint64(g.ex_last_gives))
        back = first_card_of_rank(hand, action - 1)
    bit = np.uint64(1) << np.uint64(back)
    g.card_bits[first] &= ~bit
    g.card_bits[last] |= bit
    g.ex_first_gives = back
    g.phase = PLAY
    g.to_act = last
    g.last_seat = first
    g.last_action = action
    g.last_bits = bit


@inline
def step_one(g, action, given, has_given, sticky_pass, tie_leader, start_card):
    """Apply the seat to act's ``action`` (trusted to be legal) to game ``g``; games not
    waiting for a decision are left as they are. ``given``: the concrete cards of the play
    when ``has_given`` (records name them), else the engine takes them (``take_one``)."""
    if g.phase == EXCHANGE:
        give_back(g, action, given, has_given)
        return
    if g.phase != PLAY:
        return
    seat = g.to_act
    taken = np.uint64(0)
    if action != PASS:
        hand = g.card_bits[seat]
        taken = given if has_given else take_one(hand, action, g.start_duty, start_card)
        g.card_bits[seat] = hand & ~taken
        for r in range(RANK_LO[action], RANK_HI[action]):
            g.played[seat, r] += COST[action, r]
        if g.card_bits[seat] == 0:
            g.place[seat] = places_given(g)
        g.table = action
        g.table_seat = seat
        if not sticky_pass:
            g.passed[:] = False
        g.start_duty = False
    else:
        g.passed[seat] = True
    holders = 0
    passes = 0
    for s in range(N_SEATS):
        if g.card_bits[s] != 0:
            holders |= 1 << s
        if g.passed[s]:
            passes |= 1 << s
    eligible = holders & ~passes if sticky_pass else holders
    g.to_act = NEXT_SEAT[seat, eligible]
    g.last_seat = seat
    g.last_action = action
    g.last_bits = taken
    if POPCOUNT4[holders] <= 1:
        end_hand(g, tie_leader)
    elif g.table != PASS:
        owner = g.table_seat
        if holders & ~(1 << owner) & ~passes == 0:
            # Trick end: the player who made the last play leads, or if they are out,
            # the next seat holding cards.
            g.to_act = owner if g.card_bits[owner] != 0 else NEXT_SEAT[owner, holders]
            g.table = PASS
            g.table_seat = -1
            g.passed[:] = False


@jit
def step_games(data, actions, given, sticky_pass, tie_leader, start_card):
    """``step_one`` for every game, with ``actions`` (B,) and, when not empty, the concrete
    cards ``given`` (B,) uint64 of each play.

    Returns -1, or (changing nothing) the first game waiting for a decision whose action id
    lies outside the action catalogue: the tables are indexed by it.
    """
    for b in range(data.shape[0]):
        if data[b].phase <= EXCHANGE and not 0 <= actions[b] < N_ACTIONS:
            return b
    has_given = given.shape[0] > 0
    for b in range(data.shape[0]):
        cards = given[b] if has_given else np.uint64(0)
        step_one(data[b], actions[b], cards, has_given, sticky_pass, tie_leader, start_card)
    return -1


# --------------------------------------------------------------------------- a new hand


@inline
def start_hand_one(g, deal, first, last, no_exchange, start_card):
    """Reset ``g``'s hand to its start from ``deal`` (4,) uint64: the opening duty on hand 1
    of a match, else (unless ``no_exchange``) the exchange between ``last`` and ``first``,
    the previous hand's last and 1st seats. Scores, target, winners, dealer and hand number
    are left as they are.

    The last player's highest card goes to the 1st player, who gives back a card of rank
    3-10 (their choice: phase EXCHANGE, theirs to act) or, holding none besides the card
    received, their lowest other card; then the last player leads. If the last player holds
    both jokers there is no exchange and the 1st player leads.
    """
    hands = deal.copy()
    g.deal_bits[:] = hands
    g.played[:] = 0
    g.phase = PLAY
    g.table = PASS
    g.table_seat = -1
    g.passed[:] = False
    g.place[:] = -1
    g.points[:] = 0
    g.last_seat = -1
    g.last_action = -1
    g.last_bits = 0
    g.ex_last = -1
    g.ex_first = -1
    g.ex_last_gives = -1
    g.ex_first_gives = -1
    g.start_duty = g.hand_no == 0
    if g.hand_no == 0:
        start_bit = np.uint64(1) << np.uint64(start_card)
        leader = 0
        for s in range(N_SEATS):
            if hands[s] & start_bit:
                leader = s
                break
    else:
        leader = last
    if g.hand_no != 0 and not no_exchange:
        if (hands[last] >> np.uint64(52)) & np.uint64(3) == np.uint64(3):
            leader = first  # both jokers: no exchange, the 1st player leads
        else:
            top = N_RANKS - 1
            while rank_count(hands[last], top) == 0:
                top -= 1
            given = first_card_of_rank(hands[last], top)
            bit = np.uint64(1) << np.uint64(given)
            hands[last] &= ~bit
            hands[first] |= bit
            others = hands[first] & ~bit
            g.ex_last = last
            g.ex_first = first
            g.ex_last_gives = given
            if others & GIVE_BACK_CARDS:
                g.phase = EXCHANGE
                leader = first
            else:
                back = lowest_bit_index(others)
                back_bit = np.uint64(1) << np.uint64(back)
                hands[first] &= ~back_bit
                hands[last] |= back_bit
                g.ex_first_gives = back
    g.card_bits[:] = hands
    g.to_act = leader


@jit
def start_hands(data, games, deal, first, last, advance, no_exchange, start_card):
    """``start_hand_one`` for games ``games`` (n,) with deals ``deal`` (n, 4) uint64.

    ``first``/``last`` (n,) are the previous hand's 1st and last seats; with ``advance`` the
    games move on from the hand just finished instead: those seats come from its places, the
    dealer moves one seat and the hand number goes up by one.
    """
    for i in range(games.shape[0]):
        g = data[games[i]]
        if advance:
            f = 0
            lst = 0
            for s in range(N_SEATS - 1, -1, -1):  # the first seat of each place, as argmax
                if g.place[s] == 0:
                    f = s
                if g.place[s] == N_SEATS - 1:
                    lst = s
            g.dealer = (g.dealer + 1) % N_SEATS
            g.hand_no += 1
        else:
            f = first[i]
            lst = last[i]
        start_hand_one(g, deal[i], f, lst, no_exchange, start_card)


@jit
def deal_order_to_bits(order, dealer, out):
    """Fill ``out`` (n, 4) uint64 with the hands of packs dealt one card at a time from the
    seat after the dealer; ``order`` (n, 54) gives the card at each deal position."""
    for i in range(order.shape[0]):
        out[i, :] = 0
        for p in range(order.shape[1]):
            seat = (dealer[i] + 1 + p) % N_SEATS
            out[i, seat] |= np.uint64(1) << np.uint64(order[i, p])
