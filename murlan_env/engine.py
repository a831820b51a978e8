"""The batched Murlan engine: game state as arrays and pure functions over a batch of games.

Everything about game flow lives here (RULES.md sections 3-6): dealing, the exchange, legal
actions, tricks and passing, going out, points, targets and match results. Environments,
records, bots and trainers all drive these functions. The one companion is
``murlan_env.game.Game``, these same functions specialised to a single game for the AEC env
(a batch of one pays ~200 NumPy calls per decision here): it reuses this module's tables,
hands dealing and hand ends back to it, and tests/test_game.py holds it to ``step``,
``legal_action_mask`` and ``observe`` state for state on thousands of random matches.

A ``State`` holds B independent games (each a match, hand after hand). ``step`` applies one
action per game; ``next_hand`` deals the following hand of games whose hand is over. Games
that are not waiting for a decision ignore their action, so a batch can step as one.
"""

from __future__ import annotations

import dataclasses
import enum
from collections.abc import Sequence

import numpy as np

from murlan_env.cards import (
    CARD_RANK,
    CARD_TO_RANK,
    N_CARDS,
    N_RANKS,
    parse_hand,
    rank_counts,
)
from murlan_env.combos import (
    COST,
    JOKER_PAIR,
    KEY,
    KIND,
    LADDER,
    LENGTH,
    N_ACTIONS,
    PASS,
    Kind,
    beats_table,
)
from murlan_env.rules import Rules

N_SEATS = 4
POINTS_BY_PLACE = np.array([3, 2, 1, 0], dtype=np.int16)
TARGETS = (21, 31, 41, 51)
MAX_TARGET = TARGETS[-1]
# Ranks a give-back may have: 3 to 10.
GIVE_BACK_RANKS = np.arange(N_RANKS) <= 7


class Phase(enum.IntEnum):
    """What a game is waiting for."""

    PLAY = 0  # the seat to act plays a combination or passes
    EXCHANGE = 1  # the previous 1st player chooses the card to give back
    HAND_OVER = 2  # the hand is finished and the match goes on: call next_hand
    MATCH_OVER = 3  # the match has been won or drawn


# Plain-int twins of the phases for hot paths (enum attribute lookups cost microseconds).
_PLAY, _EXCHANGE, _HAND_OVER, _MATCH_OVER = (int(p) for p in Phase)


@dataclasses.dataclass(frozen=True)
class State:
    """B games; every array is batch-first. Seats are absolute (0-3), not egocentric."""

    rules: Rules  # variant flags shared by the whole batch
    card_bits: np.ndarray  # (B, 4) uint64, cards each seat holds now: bit c set for card id c
    counts: np.ndarray  # (B, 4, 15) int8, cards each seat holds per rank
    n_left: np.ndarray  # (B, 4) int8, number of cards each seat holds
    played: np.ndarray  # (B, 4, 15) int8, cards each seat has played this hand, per rank
    deal_bits: np.ndarray  # (B, 4) uint64, this hand's deal before any exchange, as bits
    phase: np.ndarray  # (B,) int8, Phase
    to_act: np.ndarray  # (B,) int8, seat whose decision it is (meaningless once over)
    table: np.ndarray  # (B,) int16, action id of the play to beat, PASS when the table is empty
    table_seat: np.ndarray  # (B,) int8, seat that made the play to beat, -1 when empty
    passed: np.ndarray  # (B, 4) bool, passed since the last play (sticky: since the trick began)
    place: np.ndarray  # (B, 4) int8, finishing place 0-3 this hand, -1 while still holding cards
    n_out: np.ndarray  # (B,) int8, places given out this hand
    start_duty: np.ndarray  # (B,) bool, the next play must contain the start card (hand 1 opening)
    hand_no: np.ndarray  # (B,) int16, index of the current hand in the match, from 0
    dealer: np.ndarray  # (B,) int8, dealer of the current hand
    scores: np.ndarray  # (B, 4) int16, match totals after the finished hands
    target: np.ndarray  # (B,) int16, current target (21, 31, 41, 51)
    winners: np.ndarray  # (B, 4) bool, match winners (several on a draw), all False while on
    points: np.ndarray  # (B, 4) int16, this hand's points once it is over, 0 while it is played
    ex_last: np.ndarray  # (B,) int8, this hand's exchange: previous last player, -1 if none
    ex_first: np.ndarray  # (B,) int8, this hand's exchange: previous 1st player, -1 if none
    ex_last_gives: np.ndarray  # (B,) int8, card id the last player gave, -1 if none
    ex_first_gives: np.ndarray  # (B,) int8, card id the 1st player gave back, -1 if not yet
    last_seat: np.ndarray  # (B,) int8, seat of the most recent decision, -1 at a hand's start
    last_action: np.ndarray  # (B,) int16, action of the most recent decision, -1 at a hand's start
    last_bits: np.ndarray  # (B,) uint64, concrete cards of the most recent decision, as bits

    @property
    def batch_size(self) -> int:
        return self.phase.shape[0]

    @property
    def cards(self) -> np.ndarray:
        """(B, 4, 54) bool: cards each seat holds now."""
        return bits_to_cards(self.card_bits)

    @property
    def deal(self) -> np.ndarray:
        """(B, 4, 54) bool: this hand's deal, before any exchange."""
        return bits_to_cards(self.deal_bits)

    @property
    def last_cards(self) -> np.ndarray:
        """(B, 54) bool: concrete cards of the most recent decision (a play or a give-back)."""
        return bits_to_cards(self.last_bits)

    @property
    def done(self) -> np.ndarray:
        """(B,) bool: matches that are over."""
        return self.phase == _MATCH_OVER

    @property
    def hand_over(self) -> np.ndarray:
        """(B,) bool: the current hand has finished (the match may be over too)."""
        return self.phase >= _HAND_OVER

    def replace(self, **changes) -> State:
        """A copy with some fields changed; ``cards``/``last_cards`` may be given as bool masks."""
        if "cards" in changes:
            cards = np.asarray(changes.pop("cards"), dtype=bool)
            changes["card_bits"] = cards_to_bits(cards)
            changes.setdefault("counts", rank_counts(cards))
            changes.setdefault("n_left", cards.sum(-1).astype(np.int8))
        if "deal" in changes:
            changes["deal_bits"] = cards_to_bits(np.asarray(changes.pop("deal"), bool))
        if "last_cards" in changes:
            changes["last_bits"] = cards_to_bits(np.asarray(changes.pop("last_cards"), bool))
        return dataclasses.replace(self, **changes)

    def index(self, games) -> State:
        """The sub-batch of the given games (an index array, slice or bool mask)."""
        fields = {}
        for f in dataclasses.fields(self):
            value = getattr(self, f.name)
            fields[f.name] = value if f.name == "rules" else value[games]
        return State(**fields)


def replace_games(state: State, games, sub: State) -> State:
    """``state`` with the given games (index array or bool mask) replaced by those of ``sub``."""
    fields = {}
    for f in dataclasses.fields(State):
        if f.name != "rules":
            value = getattr(state, f.name).copy()
            value[games] = getattr(sub, f.name)
            fields[f.name] = value
    return dataclasses.replace(state, **fields)


def cards_to_bits(cards: np.ndarray) -> np.ndarray:
    """(..., 54) bool card masks -> (...) uint64 card sets (bit c for card id c)."""
    packed = np.packbits(cards, axis=-1, bitorder="little")  # (..., 7)
    padded = np.zeros((*packed.shape[:-1], 8), np.uint8)
    padded[..., :7] = packed
    return padded.view("<u8")[..., 0].astype(np.uint64)


def bits_to_cards(bits: np.ndarray) -> np.ndarray:
    """(...) uint64 card sets -> (..., 54) bool card masks."""
    as_bytes = np.ascontiguousarray(bits, dtype="<u8")[..., None].view(np.uint8)
    return np.unpackbits(as_bytes, axis=-1, count=N_CARDS, bitorder="little").astype(bool)


# --------------------------------------------------------------------------- dealing


def deal_sizes(dealer: int) -> list[int]:
    """Cards each seat is dealt: the two seats after the dealer get 14, the others 13."""
    return [14 if (seat - dealer) % N_SEATS in (1, 2) else 13 for seat in range(N_SEATS)]


def random_deal(rng: np.random.Generator, dealer: np.ndarray) -> np.ndarray:
    """(B, 4, 54) bool: shuffled packs dealt one card at a time from the seat after the dealer."""
    batch = dealer.shape[0]
    order = rng.random((batch, N_CARDS)).argsort(axis=1)  # card at each deal position
    seat_of_position = (dealer[:, None].astype(np.int64) + 1 + np.arange(N_CARDS)) % N_SEATS
    hands = np.zeros((batch, N_SEATS, N_CARDS), dtype=bool)
    rows = np.broadcast_to(np.arange(batch)[:, None], order.shape)
    hands[rows, seat_of_position, order] = True
    return hands


def parse_deal(hands) -> np.ndarray:
    """(B, 4, 54) bool from 4 card strings (one game), B lists of 4 strings, or a bool array."""
    if isinstance(hands, np.ndarray) and hands.dtype == bool:
        arr = hands
    else:
        games = [hands] if isinstance(hands[0], str) else hands
        arr = np.array([[parse_hand(h) for h in game] for game in games], dtype=bool)
    if arr.ndim == 2:
        arr = arr[None]
    if arr.shape[1:] != (N_SEATS, N_CARDS):
        raise ValueError(f"a deal has 4 hands of 54-card masks, got shape {arr.shape}")
    return arr


def check_deal(hands: np.ndarray, dealer: np.ndarray) -> None:
    """Raise ValueError unless each game's hands are a true 54-card deal for its dealer."""
    per_card = hands.sum(1)
    if (per_card != 1).any():
        game = int(np.flatnonzero((per_card != 1).any(1))[0])
        raise ValueError(f"game {game}: the hands must hold each of the 54 cards exactly once")
    for game, (sizes, d) in enumerate(zip(hands.sum(2), dealer, strict=True)):
        expected = deal_sizes(int(d))
        if list(sizes) != expected:
            raise ValueError(
                f"game {game}: dealer {int(d)} deals {expected} cards to seats 0-3, "
                f"got {list(sizes)}"
            )


def init(rng: np.random.Generator, batch_size: int = 1, rules: Rules | None = None) -> State:
    """B new matches at hand 1, each with a random dealer and a random deal."""
    dealer = rng.integers(0, N_SEATS, size=batch_size).astype(np.int8)
    return _new_matches(random_deal(rng, dealer), dealer, rules or Rules())


def deal_from(
    hands,
    dealer=0,
    rules: Rules | None = None,
    *,
    hand_no=0,
    scores=None,
    target=None,
    previous: tuple[int, int] | Sequence[tuple[int, int]] | None = None,
) -> State:
    """Games starting from explicit hands (the way tests and records build positions).

    ``hands``: 4 card strings for one game, a list of those, or a (B, 4, 54) bool array.
    By default each game is hand 1 of a new match. For a later hand give ``hand_no`` >= 1,
    ``previous=(first, last)`` (the previous hand's 1st and last seats) and optionally the
    match ``scores`` and ``target`` so far; the exchange then happens as in RULES.md 5.
    """
    rules = rules or Rules()
    deal = parse_deal(hands)
    batch = deal.shape[0]
    dealer = np.broadcast_to(np.asarray(dealer, dtype=np.int8), (batch,)).copy()
    check_deal(deal, dealer)
    hand_no = np.broadcast_to(np.asarray(hand_no, dtype=np.int16), (batch,)).copy()
    if (hand_no > 0).any() and previous is None:
        raise ValueError("a later hand (hand_no >= 1) needs previous=(first, last)")
    state = _new_matches(deal, dealer, rules, hand_no_override=hand_no, start=False)
    if scores is not None:
        state = state.replace(
            scores=np.broadcast_to(np.asarray(scores, np.int16), (batch, 4)).copy()
        )
    if target is not None:
        state = state.replace(target=np.broadcast_to(np.asarray(target, np.int16), (batch,)).copy())
    first = np.full(batch, -1, np.int8)
    last = np.full(batch, -1, np.int8)
    if previous is not None:
        prev = np.broadcast_to(np.asarray(previous, dtype=np.int8), (batch, 2))
        first[:], last[:] = prev[:, 0], prev[:, 1]
    return _start_hand(state, np.arange(batch), deal, first, last)


def _new_matches(deal, dealer, rules, *, hand_no_override=None, start=True) -> State:
    batch = deal.shape[0]
    i8 = lambda v, shape=(batch,): np.full(shape, v, np.int8)  # noqa: E731
    state = State(
        rules=rules,
        card_bits=cards_to_bits(deal),
        counts=rank_counts(deal),
        n_left=deal.sum(2).astype(np.int8),
        played=np.zeros((batch, N_SEATS, N_RANKS), np.int8),
        deal_bits=cards_to_bits(deal),
        phase=i8(Phase.PLAY),
        to_act=i8(0),
        table=np.zeros(batch, np.int16),
        table_seat=i8(-1),
        passed=np.zeros((batch, N_SEATS), bool),
        place=i8(-1, (batch, N_SEATS)),
        n_out=i8(0),
        start_duty=np.zeros(batch, bool),
        hand_no=(
            np.zeros(batch, np.int16) if hand_no_override is None else hand_no_override.copy()
        ),
        dealer=dealer.astype(np.int8).copy(),
        scores=np.zeros((batch, N_SEATS), np.int16),
        target=np.full(batch, TARGETS[0], np.int16),
        winners=np.zeros((batch, N_SEATS), bool),
        points=np.zeros((batch, N_SEATS), np.int16),
        ex_last=i8(-1),
        ex_first=i8(-1),
        ex_last_gives=i8(-1),
        ex_first_gives=i8(-1),
        last_seat=i8(-1),
        last_action=np.full(batch, -1, np.int16),
        last_bits=np.zeros(batch, np.uint64),
    )
    if start:
        none = np.full(batch, -1, np.int8)
        state = _start_hand(state, np.arange(batch), deal, none, none)
    return state


def next_hand(state: State, rng: np.random.Generator | None = None, hands=None) -> State:
    """Deal the next hand of every game whose hand is over and whose match goes on.

    The dealer moves one seat; the deal is random (``rng``) or given (``hands``, (B, 4, 54) bool
    or card strings, used for the games that move on). The exchange of RULES.md 5 follows: its
    automatic parts happen here, and the previous 1st player's choice, when there is one, is the
    next decision (Phase.EXCHANGE). Other games are returned unchanged.
    """
    moving = state.phase == _HAND_OVER
    if not moving.any():
        return state
    dealer = np.where(moving, (state.dealer + 1) % N_SEATS, state.dealer).astype(np.int8)
    if hands is None:
        if rng is None:
            raise ValueError("next_hand needs an rng or explicit hands")
        deal = random_deal(rng, dealer[moving])
    else:
        deal = parse_deal(hands)
        if deal.shape[0] != state.batch_size:
            raise ValueError(f"expected {state.batch_size} deals, got {deal.shape[0]}")
        deal = deal[moving]
        check_deal(deal, dealer[moving])
    g = np.flatnonzero(moving)
    first = np.argmax(state.place[g] == 0, axis=1).astype(np.int8)
    last = np.argmax(state.place[g] == 3, axis=1).astype(np.int8)
    state = dataclasses.replace(state, dealer=dealer, hand_no=state.hand_no + moving)
    return _start_hand(state, g, deal, first, last)


# Fields that a new match or the next hand leaves as they are.
_MATCH_FIELDS = frozenset({"rules", "hand_no", "dealer", "scores", "target", "winners"})


def _start_hand(state: State, g: np.ndarray, deal, first, last) -> State:
    """Reset the hand-level fields of games ``g`` (indices) to the start of a hand.

    ``deal`` (n, 4, 54) bool is their new deal; ``first``/``last`` (n,) are the previous
    hand's 1st and last seats (-1 for hand 1 of a match).
    """
    s = {}
    for f in dataclasses.fields(State):
        value = getattr(state, f.name)
        s[f.name] = value if f.name in _MATCH_FIELDS else value.copy()
    rules = state.rules
    cards = deal.copy()
    s["deal_bits"][g] = cards_to_bits(deal)
    s["played"][g] = 0
    s["phase"][g] = _PLAY
    s["table"][g] = PASS
    s["table_seat"][g] = -1
    s["passed"][g] = False
    s["place"][g] = -1
    s["n_out"][g] = 0
    s["points"][g] = 0
    s["last_seat"][g] = -1
    s["last_action"][g] = -1
    s["last_bits"][g] = 0
    s["ex_last"][g] = -1
    s["ex_first"][g] = -1
    s["ex_last_gives"][g] = -1
    s["ex_first_gives"][g] = -1

    opening = s["hand_no"][g] == 0
    start_card = rules.start_card_id
    holder = np.argmax(deal[:, :, start_card], axis=1).astype(np.int8)
    s["start_duty"][g] = opening
    leader = np.where(opening, holder, last)
    if not rules.no_exchange:
        both_jokers = deal[np.arange(len(g)), last, -2:].all(1) & ~opening
        leader = np.where(both_jokers, first, leader)
        swap = ~opening & ~both_jokers
        if swap.any():
            rows = np.flatnonzero(swap)
            lg, fs, ls = _exchange_automatic(cards[rows], first[rows], last[rows])
            s["ex_last"][g[rows]] = last[rows]
            s["ex_first"][g[rows]] = first[rows]
            s["ex_last_gives"][g[rows]] = lg
            # The give-back is automatic when the 1st player has no card ranked 3-10 to choose.
            chosen = fs >= 0
            s["ex_first_gives"][g[rows]] = fs
            choose = rows[~chosen]
            s["phase"][g[choose]] = _EXCHANGE
            leader[choose] = first[choose]
            cards[rows] = ls
    s["card_bits"][g] = cards_to_bits(cards)
    s["counts"][g] = rank_counts(cards)
    s["n_left"][g] = cards.sum(2)
    s["to_act"][g] = leader
    return State(**s)


def _first_card_of_rank(hand: np.ndarray, rank: np.ndarray) -> np.ndarray:
    """(n,) card ids: for each (54,) hand, its first card (suit order S H D C) of ``rank``."""
    of_rank = hand & (CARD_RANK[None, :] == rank[:, None])
    return np.argmax(of_rank, axis=1).astype(np.int8)


def _exchange_automatic(cards: np.ndarray, first: np.ndarray, last: np.ndarray):
    """The automatic moves of an exchange on n deals (n, 4, 54).

    The last player gives their highest card. The 1st player's give-back is automatic only
    when they hold no card ranked 3-10 other than the one just received: then their lowest
    other card goes back. Returns (card the last gave, card the 1st gave back or -1 when it
    is theirs to choose, the cards after these moves).
    """
    n = cards.shape[0]
    rows = np.arange(n)
    cards = cards.copy()
    last_hand = cards[rows, last]
    top_rank = (N_RANKS - 1 - np.argmax(rank_counts(last_hand)[:, ::-1] > 0, axis=1)).astype(
        np.int8
    )
    given = _first_card_of_rank(last_hand, top_rank)
    cards[rows, last, given] = False
    cards[rows, first, given] = True
    first_hand = cards[rows, first].copy()
    first_hand[rows, given] = False
    can_choose = (first_hand & GIVE_BACK_RANKS[CARD_RANK][None, :]).any(1)
    lowest = np.argmax(first_hand, axis=1).astype(np.int8)
    back = np.where(can_choose, -1, lowest).astype(np.int8)
    auto = np.flatnonzero(~can_choose)
    cards[auto, first[auto], back[auto]] = False
    cards[auto, last[auto], back[auto]] = True
    return given, back, cards


# --------------------------------------------------------------------------- per-seat rows

# (B, 4, R) arrays (counts, played) are read and written one (game, seat) row at a time. Seen
# as B*4 opaque R-byte items, a row is gathered or scattered as one item, about twice as fast
# as fancy indexing with a (rows, seats) pair that moves R elements per game.


def _flat_seat_index(seats: np.ndarray) -> np.ndarray:
    """(B,) flat indices game * 4 + seat into the (B * 4) rows of batch-first seat arrays.

    Seat -1 (no seat to act: a finished game) reads as seat 3 of the same game, as a plain
    negative index would, so it never lands on a neighbouring game's row.
    """
    return np.arange(seats.shape[0]) * N_SEATS + (seats.astype(np.intp) & (N_SEATS - 1))


def _row_items(arr: np.ndarray) -> np.ndarray:
    """(B*4,) opaque items, one per (game, seat) row of a C-contiguous (B, 4, R) array."""
    return arr.reshape(-1, arr.shape[-1]).view(f"V{arr.shape[-1] * arr.itemsize}")[:, 0]


def seat_rows(arr: np.ndarray, seats: np.ndarray) -> np.ndarray:
    """(B, R) copy of ``arr[b, seats[b]]`` for each game b of a (B, 4, R) array."""
    arr = np.ascontiguousarray(arr)
    at = _flat_seat_index(seats)
    return _row_items(arr)[at].view(arr.dtype).reshape(arr.shape[0], arr.shape[-1])


def _add_to_seat_rows(arr: np.ndarray, at: np.ndarray, delta: np.ndarray) -> np.ndarray:
    """A copy of the (B, 4, R) array ``arr`` with ``delta`` (B, R) added to the rows at the
    flat (game * 4 + seat) indices ``at``."""
    out = np.array(arr, order="C")
    items = _row_items(out)
    rows = items[at].view(arr.dtype).reshape(delta.shape)
    rows += delta
    items[at] = rows.view(items.dtype).reshape(-1)
    return out


# --------------------------------------------------------------------------- legality


# Straights as (top ladder position, length) and the rank of each ladder position; the
# affordability rows of the action table are computed feature-major, (A, B), because row-wise
# operations on contiguous batch vectors are an order of magnitude faster than strided columns.
_STRAIGHTS = np.flatnonzero(KIND == Kind.STRAIGHT)
_STRAIGHT_TOP = KEY[_STRAIGHTS].astype(np.intp)
_STRAIGHT_LEN = LENGTH[_STRAIGHTS][:, None]
_LADDER_RANKS = np.array(LADDER, dtype=np.intp)


def _id_range(ids: np.ndarray) -> slice:
    """The contiguous id range of a group of actions, as a slice (so writes land in place)."""
    assert (np.diff(ids) == 1).all()
    return slice(int(ids[0]), int(ids[-1]) + 1)


_STRAIGHT_IDS = _id_range(_STRAIGHTS)
_SINGLES, _PAIRS, _TRIPLES, _QUADS = (
    _id_range(np.flatnonzero((KIND == k) & (np.arange(N_ACTIONS) != JOKER_PAIR)))
    for k in (Kind.SINGLE, Kind.PAIR, Kind.TRIPLE, Kind.QUAD)
)


def affordable_actions(hands: np.ndarray) -> np.ndarray:
    """(A, B) bool, feature-major: which actions each hand (B, 15) counts can pay for."""
    hand_t = np.ascontiguousarray(hands.T)  # (15, B)
    out = np.empty((N_ACTIONS, hand_t.shape[1]), bool)
    out[PASS] = True
    has = np.greater_equal(hand_t, 1, out=out[_SINGLES])
    np.greater_equal(hand_t[:13], 2, out=out[_PAIRS])
    np.greater_equal(hand_t[:13], 3, out=out[_TRIPLES])
    np.greater_equal(hand_t[:13], 4, out=out[_QUADS])
    # run[p]: consecutive ladder positions held, ending at position p.
    ladder = has[_LADDER_RANKS].view(np.int8)
    run = np.empty_like(ladder)
    run[0] = ladder[0]
    for p in range(1, len(_LADDER_RANKS)):
        np.multiply(run[p - 1] + 1, ladder[p], out=run[p])
    np.greater_equal(run[_STRAIGHT_TOP], _STRAIGHT_LEN, out=out[_STRAIGHT_IDS])
    np.logical_and(has[13], has[14], out=out[JOKER_PAIR])
    return out


def legal_action_mask(state: State) -> np.ndarray:
    """(B, A) bool: the legal actions of the seat to act; all False in games not waiting.

    The result is a transposed view of a feature-major (A, B) array: index it as (B, A).
    """
    hands = seat_rows(state.counts, state.to_act)  # (B, 15)
    must = _MUST_HOLD_START[state.rules.start_card_id // 4]
    if state.batch_size < _FEATURE_MAJOR_FROM:
        # Few games: one broadcast comparison beats the row-wise passes below.
        mask = (hands[:, None, :] >= COST).all(-1) & beats_table(state.rules)[state.table]
        if state.start_duty.any():
            mask[state.start_duty] &= must
    else:
        mask_t = affordable_actions(hands)
        # Gathering whole rows of the beats table, then ANDing through the transposed view,
        # is faster than gathering its columns.
        mask_t &= beats_table(state.rules)[state.table].T
        if state.start_duty.any():
            mask_t[:, state.start_duty] &= must[:, None]
        mask = mask_t.T
    exchanging = state.phase == _EXCHANGE
    if exchanging.any():
        mask[exchanging] = _give_back_mask(state, exchanging)
    mask[state.phase >= _HAND_OVER] = False
    return mask


# Batch size from which masks are computed feature-major (see affordable_actions).
_FEATURE_MAJOR_FROM = 32
# (15, A) bool: the actions using a card of each rank (the start-card duty keeps those of its rank).
_MUST_HOLD_START = (COST > 0).T.copy()


def _give_back_mask(state: State, games: np.ndarray) -> np.ndarray:
    """(n, A) bool: singles of ranks 3-10 the 1st player holds, the card just received aside."""
    g = np.flatnonzero(games)
    counts = state.counts[g, state.to_act[g]].copy()
    counts[np.arange(len(g)), CARD_RANK[state.ex_last_gives[g]]] -= 1
    mask = np.zeros((len(g), N_ACTIONS), bool)
    mask[:, 1:16] = (counts > 0) & GIVE_BACK_RANKS
    return mask


# --------------------------------------------------------------------------- stepping


# Card sets are uint64 bit sets; the 52 suited cards form 13 nibbles, one per rank, suits
# S H D C from the low bit. Taking "the first k suits" of a rank is then a few bit operations
# on a whole batch at once.
_U64 = np.uint64
_SUITED = _U64((1 << 52) - 1)
_NIBBLE_NOT_BIT0 = _U64(int("E" * 13, 16))
_NIBBLE_HIGH2 = _U64(int("C" * 13, 16))
_NIBBLE_BIT3 = _U64(int("8" * 13, 16))
_CARD_BIT = (np.uint64(1) << np.arange(N_CARDS, dtype=np.uint64)).astype(np.uint64)


def _need_masks(cost: np.ndarray) -> np.ndarray:
    """(A, 4) uint64: for each action and k, the nibbles of the suited ranks needing > k cards."""
    out = np.zeros((cost.shape[0], 4), np.uint64)
    for k in range(4):
        for rank in range(13):
            out[:, k] |= np.where(cost[:, rank] > k, _U64(0xF << (4 * rank)), _U64(0))
    return out


_NEED_MASK = _need_masks(COST)
# The same when the start card (a 3) is already taken for the opening play: one 3 fewer.
_NEED_MASK_AFTER_START = _need_masks(COST - (COST[:, :1] > 0) * np.eye(N_RANKS, dtype=np.int8)[0])
_JOKER_BITS = np.where(COST[:, 13] > 0, _CARD_BIT[52], _U64(0)) | np.where(
    COST[:, 14] > 0, _CARD_BIT[53], _U64(0)
)
_MAX_PER_RANK = COST.max(1)
# Feature-major copies, so each suit pass gathers one (B,) vector.
_NEED_MASK_T = np.ascontiguousarray(_NEED_MASK.T)
_NEED_MASK_AFTER_START_T = np.ascontiguousarray(_NEED_MASK_AFTER_START.T)


def _lowest_per_nibble(bits: np.ndarray) -> np.ndarray:
    """The lowest set bit of every nibble of each uint64."""
    # A bit is the lowest of its nibble when no lower bit of the same nibble is set. Bit i of
    # ``below`` gathers bits i-1, i-2 and i-3, each masked to stay inside its nibble.
    below = (bits << _U64(1)) & _NIBBLE_NOT_BIT0
    below |= (bits << _U64(2)) & _NIBBLE_HIGH2
    below |= (bits << _U64(3)) & _NIBBLE_BIT3
    np.invert(below, out=below)
    return np.bitwise_and(bits, below, out=below)


def _take_bits(hand: np.ndarray, actions: np.ndarray, start_duty: np.ndarray, start_card: int):
    """(n,) uint64: the cards a rank-level play takes from each hand (uint64 sets).

    Suits go in the order S H D C, except that the start card goes first while the
    start-card duty holds, so the opening play contains it.
    """
    taken = hand & _JOKER_BITS[actions]
    rest = hand & _SUITED
    rounds = int(_MAX_PER_RANK[actions].max(initial=0))  # most cards of one rank needed
    start_bit = _CARD_BIT[start_card]
    forced = start_duty & (COST[actions, 0] > 0) & ((hand & start_bit) != 0)
    if forced.any():
        taken |= np.where(forced, start_bit, _U64(0))
        rest &= np.where(forced, ~start_bit, ~_U64(0))
        # (4, n): per suit pass k, the nibbles needing more than k cards, one 3 fewer if forced
        need = np.where(forced, _NEED_MASK_AFTER_START_T[:, actions], _NEED_MASK_T[:, actions])
    else:
        need = None
    for k in range(rounds):
        lowest = _lowest_per_nibble(rest)
        chosen = lowest & (_NEED_MASK_T[k].take(actions) if need is None else need[k])
        taken |= chosen
        rest ^= chosen
    return taken


def choose_cards(state: State, actions: np.ndarray) -> np.ndarray:
    """(B, 54) bool: the concrete cards the engine plays for each game's rank-level action."""
    rows = np.arange(state.batch_size)
    actions = np.asarray(actions, dtype=np.intp)
    hand = state.card_bits[rows, state.to_act]
    bits = _take_bits(hand, actions, state.start_duty, state.rules.start_card_id)
    return bits_to_cards(np.where(actions == PASS, _U64(0), bits))


def step(state: State, actions, cards: np.ndarray | None = None) -> State:
    """Apply one action per game and return the new state.

    ``actions``: (B,) ints, legal for the seat to act (see legal_action_mask); games that are
    not waiting for a decision ignore theirs. ``cards`` optionally gives the concrete cards of
    each play, (B, 54) bool, as records do; by default the engine picks them (choose_cards).
    The caller is trusted: illegal actions are not checked here.
    """
    actions = np.asarray(actions, dtype=np.intp).reshape(-1)
    if actions.shape[0] != state.batch_size:
        raise ValueError(f"expected {state.batch_size} actions, got {actions.shape[0]}")
    card_bits = None if cards is None else cards_to_bits(np.asarray(cards, dtype=bool))
    playing = state.phase == _PLAY
    exchanging = state.phase == _EXCHANGE
    if exchanging.any():
        state = _step_exchange(state, exchanging, actions, card_bits)
    if playing.any():
        state = _step_play(state, playing, actions, card_bits)
    return state


def _step_exchange(state: State, games, actions, card_bits) -> State:
    g = np.flatnonzero(games)
    first, last = state.to_act[g], state.ex_last[g]
    if card_bits is None:
        hand = state.card_bits[g, first] & ~_CARD_BIT[state.ex_last_gives[g]]
        rank = (actions[g] - 1).astype(np.intp)
        suits = (hand >> (_U64(4) * rank.astype(np.uint64))) & _U64(0xF)
        back = (rank * 4 + _FIRST_SUIT[suits.astype(np.intp)]).astype(np.int8)
    else:
        back = np.argmax(bits_to_cards(card_bits[g]), axis=1).astype(np.int8)
    bit = _CARD_BIT[back]
    card_bits = state.card_bits.copy()
    card_bits[g, first] &= ~bit
    card_bits[g, last] |= bit
    counts = state.counts.copy()
    counts[g, first, CARD_RANK[back]] -= 1
    counts[g, last, CARD_RANK[back]] += 1
    n_left = state.n_left.copy()
    n_left[g, first] -= 1
    n_left[g, last] += 1
    gives, phase, to_act = state.ex_first_gives.copy(), state.phase.copy(), state.to_act.copy()
    gives[g] = back
    phase[g] = _PLAY
    to_act[g] = last
    last_seat, last_action = state.last_seat.copy(), state.last_action.copy()
    last_bits = state.last_bits.copy()
    last_seat[g] = first
    last_action[g] = actions[g]
    last_bits[g] = bit
    return dataclasses.replace(
        state,
        card_bits=card_bits,
        counts=counts,
        n_left=n_left,
        ex_first_gives=gives,
        phase=phase,
        to_act=to_act,
        last_seat=last_seat,
        last_action=last_action,
        last_bits=last_bits,
    )


def _seat_bits(flags: np.ndarray) -> np.ndarray:
    """(B, 4) bool -> (B,) uint8 with bit s set for seat s."""
    # The 4 flag bytes as one little-endian word: multiplying by 0x01020408 gathers byte s
    # into bit 24 + s, so no per-seat loop or packbits call is needed.
    words = np.ascontiguousarray(flags, dtype=bool).view("<u4")[:, 0]
    return ((words * np.uint32(0x01020408)) >> np.uint32(24)).astype(np.uint8)


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


_NEXT_SEAT = _next_seat_table()
# Lowest set bit of a nibble: the first suit (S H D C) held of a rank.
_FIRST_SUIT = np.array([-1, 0, 1, 0, 2, 0, 1, 0, 3, 0, 1, 0, 2, 0, 1, 0], np.intp)
_POPCOUNT4 = np.array([bin(i).count("1") for i in range(16)], np.int8)
_SEAT_BIT = np.array([1, 2, 4, 8, 0], np.uint8)  # index -1 (no seat) -> no bit


def _step_play(state: State, games, actions, card_bits) -> State:
    rules = state.rules
    rows = np.arange(state.batch_size)
    seat = state.to_act
    acts = np.where(games, actions, PASS)
    is_play = acts != PASS
    is_pass = games & ~is_play

    at = _flat_seat_index(seat)  # (game, seat to act) in (B, 4) arrays
    hand = state.card_bits.reshape(-1)[at]
    if card_bits is None:
        taken = _take_bits(hand, acts, state.start_duty, rules.start_card_id)
    else:
        taken = card_bits
    taken = np.where(is_play, taken, _U64(0))
    need = COST[acts]  # (B, 15); zero for passes

    new_bits = state.card_bits.copy()
    new_bits.reshape(-1)[at] = hand & ~taken
    counts = _add_to_seat_rows(state.counts, at, -need)
    played = _add_to_seat_rows(state.played, at, need)
    n_left = state.n_left.copy()
    n_left.reshape(-1)[at] -= LENGTH[acts]

    holders = n_left > 0  # (B, 4)
    holder_bits = _seat_bits(holders)
    place, n_out = state.place, state.n_out
    went_out = is_play & ~holders.reshape(-1)[at]
    if went_out.any():
        place, n_out = place.copy(), n_out + went_out
        place[went_out, seat[went_out]] = state.n_out[went_out]

    table = np.where(is_play, acts, state.table).astype(np.int16)
    table_seat = np.where(is_play, seat, state.table_seat).astype(np.int8)
    passed = state.passed.copy()
    passed[rows[is_pass], seat[is_pass]] = True
    if not rules.sticky_pass:
        passed &= ~is_play[:, None]
    passed_bits = _seat_bits(passed)
    start_duty = state.start_duty & ~is_play

    # Hand end: only one seat still holds cards; it takes the last place.
    hand_end = games & (_POPCOUNT4[holder_bits] <= 1)
    phase, points, scores = state.phase, state.points, state.scores
    target, winners = state.target, state.winners
    if hand_end.any():
        e = np.flatnonzero(hand_end)
        phase, points, scores = phase.copy(), points.copy(), scores.copy()
        target, winners = target.copy(), winners.copy()
        if not went_out.any():
            place = place.copy()
        rest = holders[e] & (place[e] < 0)
        place[e] = np.where(rest, n_out[e, None], place[e])
        n_out = n_out.copy()
        n_out[e] = N_SEATS
        points[e] = POINTS_BY_PLACE[place[e]]
        scores[e] += points[e]
        t, w = _match_result(scores[e], target[e], rules)
        target[e], winners[e] = t, w
        phase[e] = np.where(w.any(1), _MATCH_OVER, _HAND_OVER)

    # Trick end: every other seat still holding cards has passed since the play to beat.
    others = holder_bits & ~_SEAT_BIT[table_seat]
    trick_end = games & ~hand_end & (table != PASS) & ((others & ~passed_bits) == 0)
    eligible = holder_bits if not rules.sticky_pass else holder_bits & ~passed_bits
    to_act = np.where(games, _NEXT_SEAT[seat, eligible], seat).astype(np.int8)
    if trick_end.any():
        e = np.flatnonzero(trick_end)
        owner = table_seat[e]
        # The player who made the last play leads; if out, the next seat holding cards.
        to_act[e] = np.where(holders[e, owner], owner, _NEXT_SEAT[owner, holder_bits[e]])
        table[e] = PASS
        table_seat[e] = -1
        passed[e] = False

    return dataclasses.replace(
        state,
        card_bits=new_bits,
        counts=counts,
        n_left=n_left,
        played=played,
        phase=phase,
        to_act=to_act,
        table=table,
        table_seat=table_seat,
        passed=passed,
        place=place,
        n_out=n_out,
        start_duty=start_duty,
        scores=scores,
        target=target,
        winners=winners,
        points=points,
        last_seat=np.where(games, seat, state.last_seat).astype(np.int8),
        last_action=np.where(games, acts, state.last_action).astype(np.int16),
        last_bits=np.where(games, taken, state.last_bits),
    )


def _match_result(scores: np.ndarray, target: np.ndarray, rules: Rules):
    """New targets and winners (n, 4) after a hand, by RULES.md 6 or the ``leader`` tie rule."""
    top = scores.max(1)
    at_top = scores == top[:, None]
    if rules.tie_rule == "leader":
        won = (top >= TARGETS[0]) & (at_top.sum(1) == 1)
        return target.copy(), at_top & won[:, None]
    reached = scores >= target[:, None]
    n_reached = reached.sum(1)
    winners = reached & (n_reached == 1)[:, None]
    several = n_reached >= 2
    capped = several & (target >= MAX_TARGET)
    winners |= at_top & capped[:, None]
    new_target = np.where(several & ~capped, target + 10, target).astype(np.int16)
    return new_target, winners


# --------------------------------------------------------------------------- helpers


def random_legal_actions(mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """(B,) a uniformly random legal action per game (PASS where nothing is legal).

    Draws one uniform number per game and takes the legal action at that position among the
    game's legal actions, so the choice is exactly uniform.
    """
    mask = np.asarray(mask, dtype=bool)
    if mask.shape[0] < 64:
        # Small batches: one cumulative count per game row is cheapest.
        n_legal = mask.sum(1)
        pick = (rng.random(mask.shape[0]) * n_legal).astype(np.int64)
        action = np.argmax(np.cumsum(mask, axis=1) > pick[:, None], axis=1)
        return np.where(n_legal > 0, action, PASS).astype(np.int16)
    mask_t = mask.T  # (A, B), contiguous for engine masks
    if not mask_t.flags.c_contiguous:
        mask_t = np.ascontiguousarray(mask_t)
    as_int = mask_t.view(np.uint8)
    n_legal = np.add.reduce(as_int, axis=0, dtype=np.uint8)
    pick = (rng.random(mask_t.shape[1]) * n_legal).astype(np.uint8)
    # position[a]: legal actions with id <= a. A row-by-row running sum: numpy's cumsum along
    # axis 0 is some 40x slower than these contiguous adds.
    position = np.empty_like(as_int)
    position[0] = as_int[0]
    for a in range(1, as_int.shape[0]):
        np.add(position[a - 1], as_int[a], out=position[a])
    # The chosen id is the number of ids whose running count is still <= pick.
    action = np.add.reduce(position <= pick, axis=0, dtype=np.int16)
    return np.where(n_legal > 0, action, PASS).astype(np.int16)


def holders(state: State) -> np.ndarray:
    """(B, 4) bool: seats still holding cards."""
    return state.n_left > 0


__all__ = [
    "JOKER_PAIR",
    "KIND",
    "Kind",
    "N_ACTIONS",
    "N_SEATS",
    "PASS",
    "Phase",
    "State",
    "choose_cards",
    "deal_from",
    "deal_sizes",
    "init",
    "legal_action_mask",
    "next_hand",
    "random_legal_actions",
    "step",
]


# --------------------------------------------------------------------------- observations

# The observation layout, egocentric: "seat slot" 0 is the observing seat, then the next
# seats in turn order. Counts per rank use a thermometer code: 4 bits per rank, bit k set
# when at least k+1 cards of that rank (the jokers use bit 0 only).
OBS_PIECES: tuple[tuple[str, int, str], ...] = (
    ("my_hand", 60, "my cards: 15 ranks x 4 thermometer bits"),
    ("played", 240, "cards each seat slot has played this hand: 4 x (15 x 4)"),
    ("unseen", 60, "cards neither in my hand nor played (held by the others): 15 x 4"),
    ("cards_left", 4, "cards each seat slot holds, / 15 (15: a 1st player mid-exchange)"),
    ("table_action", N_ACTIONS, "one-hot action id of the play to beat (all 0: empty table)"),
    ("table_seat", 4, "one-hot seat slot that made the play to beat"),
    ("passed", 4, "seat slots that passed since the play to beat (sticky: since the trick began)"),
    ("places", 16, "finishing place (1st-4th, one-hot) of each seat slot, 0 while playing"),
    ("scores", 4, "match score of each seat slot, / 60, capped at 1"),
    ("target", 4, "one-hot current target: 21, 31, 41, 51"),
    ("phase", 2, "one-hot: play, exchange (choosing the card to give back)"),
    ("start_duty", 1, "1 when my play must contain the start card"),
    ("exchange", 30, "rank I received, rank I gave in this hand's exchange: 2 x 15 one-hot"),
    (
        "rules",
        5,
        "variant flags: sticky_pass, joker_pair, straight_plus_one, tie_rule=leader, no_exchange",
    ),
)
OBS_SIZE = sum(size for _, size, _ in OBS_PIECES)
OBS_SLICES: dict[str, slice] = {}
_offset = 0
for _name, _size, _ in OBS_PIECES:
    OBS_SLICES[_name] = slice(_offset, _offset + _size)
    _offset += _size

# Scores are scaled by 60 (above the 54 a "raise" match can reach) and capped there, so every
# observation entry lies in [0, 1] under every tie rule.
SCORE_SCALE = 60
# (5,) complex128: the thermometer code of a count 0-4 (bit k set when count >= k + 1) as
# 4 float32 packed into one 16-byte item, so coding a count is a single gather.
_THERMO_CODE = (
    (np.arange(5)[:, None] >= np.arange(1, 5)).astype(np.float32).view(np.complex128)[:, 0]
)


def observe(state: State, seats: np.ndarray | None = None) -> np.ndarray:
    """(B, OBS_SIZE) float32 observation of each game from ``seats`` (default: the seat to act).

    Only what that seat may know: its own cards, public plays and counts, and the exchange
    cards it gave or received itself. Named views: ``obs[:, OBS_SLICES["my_hand"]]``.
    """
    batch = state.batch_size
    rows = np.arange(batch)
    me = state.to_act if seats is None else np.broadcast_to(np.asarray(seats, np.int8), (batch,))
    slots = (me[:, None].astype(np.int64) + np.arange(N_SEATS)) % N_SEATS  # (B, 4) seat per slot
    r2 = rows[:, None]
    out = np.zeros((batch, OBS_SIZE), np.float32)

    def put(name, value):
        out[:, OBS_SLICES[name]] = value.reshape(batch, -1)

    # my_hand, played (4 slots) and unseen are adjacent pieces: one thermometer lookup.
    my_counts = seat_rows(state.counts, me)
    unseen = RANK_SIZE_I8 - my_counts - state.played.sum(1, dtype=np.int8)
    counts = np.concatenate([my_counts[:, None], state.played[r2, slots], unseen[:, None]], 1)
    out[:, : OBS_SLICES["unseen"].stop] = _THERMO_CODE[counts].view(np.float32).reshape(batch, -1)
    put("cards_left", state.n_left[r2, slots] / 15.0)
    on_table = state.table != PASS
    out[rows[on_table], OBS_SLICES["table_action"].start + state.table[on_table]] = 1.0
    put("table_seat", slots == state.table_seat[:, None])
    put("passed", state.passed[r2, slots])
    put("places", state.place[r2, slots][:, :, None] == np.arange(N_SEATS))
    put("scores", np.minimum(state.scores[r2, slots], SCORE_SCALE) / float(SCORE_SCALE))
    put("target", state.target[:, None] == np.array(TARGETS))
    put("phase", state.phase[:, None] == np.array([_PLAY, _EXCHANGE]))
    put("start_duty", state.start_duty & (state.to_act == me))
    if (state.ex_last_gives >= 0).any():
        exchange = np.zeros((batch, 2, N_RANKS), np.float32)
        got = (state.ex_first == me) & (state.ex_last_gives >= 0)
        exchange[got, 0, CARD_RANK[state.ex_last_gives[got]]] = 1.0
        gave = (state.ex_last == me) & (state.ex_last_gives >= 0)
        exchange[gave, 1, CARD_RANK[state.ex_last_gives[gave]]] = 1.0
        got_back = (state.ex_last == me) & (state.ex_first_gives >= 0)
        exchange[got_back, 0, CARD_RANK[state.ex_first_gives[got_back]]] = 1.0
        gave_back = (state.ex_first == me) & (state.ex_first_gives >= 0)
        exchange[gave_back, 1, CARD_RANK[state.ex_first_gives[gave_back]]] = 1.0
        put("exchange", exchange)
    out[:, OBS_SLICES["rules"]] = rule_flags(state.rules)
    return out


def rule_flags(rules: Rules) -> np.ndarray:
    """(5,) float32: the ``rules`` piece of the observation (see OBS_PIECES)."""
    flags = [
        rules.sticky_pass,
        rules.joker_pair,
        rules.straight_plus_one,
        rules.tie_rule == "leader",
        rules.no_exchange,
    ]
    return np.array(flags, np.float32)


RANK_SIZE_I8 = CARD_TO_RANK.sum(0).astype(np.int8)
