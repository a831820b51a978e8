"""The batched Murlan engine: game state as arrays and pure functions over a batch of games.

Everything about game flow lives here (RULES.md sections 3-6): dealing, the exchange, legal
actions, tricks and passing, going out, points, targets and match results. Environments,
records, bots and trainers all drive these functions. The per-game loops behind
``legal_action_mask``, ``random_legal_actions``, ``step`` and the start of each hand are
compiled (``murlan_env.kernels``, numba) and work on card and action bit sets; this module
owns the ``State`` they read and the copies they write, so every function here stays pure.

The one companion is ``murlan_env.game.Game``, these same functions specialised to a single
game for the AEC env (a batch of one still pays some 20 array calls and copies per decision
here): it reuses the kernels' tables, hands dealing and hand ends back to this module, and
tests/test_game.py holds it to ``step``, ``legal_action_mask`` and ``observe`` state for
state on thousands of random matches.

A ``State`` holds B independent games (each a match, hand after hand). ``step`` applies one
action per game; ``next_hand`` deals the following hand of games whose hand is over (or
``step(..., rng=rng)`` does both at once). Games that are not waiting for a decision ignore
their action, so a batch can step as one.
"""

from __future__ import annotations

import dataclasses
import enum
import functools
from collections.abc import Sequence

import numpy as np

from murlan_env import kernels
from murlan_env.cards import (
    CARD_RANK,
    CARD_TO_RANK,
    N_CARDS,
    N_RANKS,
    parse_hand,
    rank_counts,
)
from murlan_env.combos import (
    JOKER_PAIR,
    KIND,
    N_ACTIONS,
    PASS,
    Kind,
    beats_table,
)
from murlan_env.kernels import N_SEATS, POINTS_BY_PLACE, TARGETS  # noqa: F401 (re-exported)
from murlan_env.rules import Rules

# Ranks a give-back may have: 3 to 10.
GIVE_BACK_RANKS = np.arange(N_RANKS) <= 7


class Phase(enum.IntEnum):
    """What a game is waiting for."""

    PLAY = kernels.PLAY  # the seat to act plays a combination or passes
    EXCHANGE = kernels.EXCHANGE  # the previous 1st player chooses the card to give back
    HAND_OVER = kernels.HAND_OVER  # the hand is finished and the match goes on: next_hand
    MATCH_OVER = kernels.MATCH_OVER  # the match has been won or drawn


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
        self._disown()  # the new state shares arrays with this one
        return dataclasses.replace(self, **changes)

    def index(self, games) -> State:
        """The sub-batch of the given games (an index array, slice or bool mask)."""
        fields = {}
        for f in dataclasses.fields(self):
            value = getattr(self, f.name)
            fields[f.name] = value if f.name == "rules" else value[games]
        self._disown()  # a slice is a view of this state's arrays
        return State(**fields)

    def __copy__(self) -> State:
        self._disown()  # the copy shares every array
        new = object.__new__(State)
        new.__dict__.update(self.__dict__)
        return new

    # Donation (see ``step``) may write into the arrays a state owns: those an engine function
    # made for it alone, listed in the private ``_owned``. A state built by hand owns none;
    # once two states share an array, neither owns it.

    def _owns(self, name: str) -> bool:
        return name in self.__dict__.get("_owned", ())

    def _disown(self, names=None) -> None:
        """This state no longer owns the arrays of ``names`` (default: all)."""
        owned = self.__dict__.get("_owned", frozenset())
        self.__dict__["_owned"] = frozenset() if names is None else owned - names

    def _with(self, fields: dict[str, np.ndarray], *, donated: bool = False) -> State:
        """A copy with ``fields`` (State field names: arrays made for the new state alone)
        changed; it owns those and, when this state is ``donated``, what this state owned.
        (Faster than dataclasses.replace.)"""
        new = object.__new__(State)
        new.__dict__.update(self.__dict__)
        new.__dict__.update(fields)
        inherited = self.__dict__.get("_owned", frozenset()) - fields.keys()
        if donated:
            new.__dict__["_owned"] = frozenset(fields) | inherited
        else:
            self._disown(inherited)  # shared by the two states now
            new.__dict__["_owned"] = frozenset(fields)
        return new


def _own(state: State, name: str, donate: bool) -> np.ndarray:
    """The array of field ``name`` for an engine function to write: the state's own when it
    is donated and owns it (see State._with), else a copy."""
    value = getattr(state, name)
    if donate and state._owns(name) and value.flags.c_contiguous and value.flags.writeable:
        return value
    return np.array(value, order="C")


def replace_games(state: State, games, sub: State, *, donate: bool = False) -> State:
    """``state`` with the given games (index array or bool mask) replaced by those of ``sub``.

    ``donate``: ``state`` may be updated in place, as for ``step``.
    """
    fields = {}
    for f in dataclasses.fields(State):
        if f.name != "rules":
            value = _own(state, f.name, donate)
            value[games] = getattr(sub, f.name)
            fields[f.name] = value
    return state._with(fields, donated=donate)


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
    return bits_to_cards(_random_deal_bits(rng, dealer))


def _random_deal_bits(rng: np.random.Generator, dealer: np.ndarray) -> np.ndarray:
    """(B, 4) uint64: ``random_deal`` as card sets."""
    order = rng.random((dealer.shape[0], N_CARDS)).argsort(axis=1)  # card at each position
    out = np.empty((dealer.shape[0], N_SEATS), np.uint64)
    kernels.deal_order_to_bits(order, np.ascontiguousarray(dealer, np.int8), out)
    return out


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
    return new_matches(
        _blank(batch_size, rules or Rules()), np.arange(batch_size), rng, donate=True
    )


def new_matches(state: State, games, rng: np.random.Generator, *, donate: bool = False) -> State:
    """``state`` with ``games`` (indices or a (B,) bool mask) restarted as new matches.

    Each gets hand 1 with a random dealer and deal, drawn exactly as ``init(rng, n)`` draws
    them, so this equals ``replace_games(state, games, init(rng, n, state.rules))``.
    ``donate``: ``state`` may be updated in place, as for ``step``.
    """
    games = np.asarray(games)
    g = np.flatnonzero(games) if games.dtype == bool else games.astype(np.intp).reshape(-1)
    if not g.size:
        return state
    dealer = rng.integers(0, N_SEATS, size=g.size).astype(np.int8)
    deal = _random_deal_bits(rng, dealer)
    fields = {name: _own(state, name, donate) for name in _START_HAND_FIELDS + _MATCH_ARRAYS}
    _start_matches(fields, state.rules, g, deal, dealer)
    return state._with(fields, donated=donate)


def _start_matches(
    fields, rules, g, deal, dealer, hand_no=0, scores=0, target=TARGETS[0], previous=None
) -> None:
    """Set, in place, games ``g`` of the arrays ``fields`` to a match with the given dealer,
    hand number, scores and target, at the start of a hand dealt ``deal`` after a previous
    hand whose (1st, last) seats were ``previous`` (n, 2) (none for hand 1)."""
    fields["dealer"][g] = dealer
    fields["hand_no"][g] = hand_no
    fields["scores"][g] = scores
    fields["target"][g] = target
    fields["winners"][g] = False
    seats = np.full((g.size, 2), -1, np.int8) if previous is None else previous
    _start_hands(fields, rules, g, deal, seats[:, 0], seats[:, 1])


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
    state = _blank(batch, rules)
    fields = {name: getattr(state, name) for name in _START_HAND_FIELDS + _MATCH_ARRAYS}
    _start_matches(
        fields,
        rules,
        np.arange(batch),
        cards_to_bits(deal),
        dealer,
        hand_no,
        0 if scores is None else np.broadcast_to(np.asarray(scores, np.int16), (batch, 4)),
        TARGETS[0] if target is None else np.broadcast_to(np.asarray(target, np.int16), (batch,)),
        None if previous is None else np.broadcast_to(np.asarray(previous, np.int8), (batch, 2)),
    )
    return state


def _blank(batch: int, rules: Rules) -> State:
    """B games with every array allocated (zeros) and owned, for _start_matches to fill."""
    fields = {name: np.zeros((batch, *shape), dtype) for name, (shape, dtype) in _LAYOUT.items()}
    return State(rules=rules, **fields)._with(fields, donated=True)


# Each State array's shape after the batch axis, and its dtype (see the State fields).
_LAYOUT = {
    "card_bits": ((N_SEATS,), np.uint64),
    "counts": ((N_SEATS, N_RANKS), np.int8),
    "n_left": ((N_SEATS,), np.int8),
    "played": ((N_SEATS, N_RANKS), np.int8),
    "deal_bits": ((N_SEATS,), np.uint64),
    "phase": ((), np.int8),
    "to_act": ((), np.int8),
    "table": ((), np.int16),
    "table_seat": ((), np.int8),
    "passed": ((N_SEATS,), bool),
    "place": ((N_SEATS,), np.int8),
    "n_out": ((), np.int8),
    "start_duty": ((), bool),
    "hand_no": ((), np.int16),
    "dealer": ((), np.int8),
    "scores": ((N_SEATS,), np.int16),
    "target": ((), np.int16),
    "winners": ((N_SEATS,), bool),
    "points": ((N_SEATS,), np.int16),
    "ex_last": ((), np.int8),
    "ex_first": ((), np.int8),
    "ex_last_gives": ((), np.int8),
    "ex_first_gives": ((), np.int8),
    "last_seat": ((), np.int8),
    "last_action": ((), np.int16),
    "last_bits": ((), np.uint64),
}


def next_hand(
    state: State, rng: np.random.Generator | None = None, hands=None, *, donate: bool = False
) -> State:
    """Deal the next hand of every game whose hand is over and whose match goes on.

    The dealer moves one seat; the deal is random (``rng``) or given (``hands``, (B, 4, 54) bool
    or card strings, used for the games that move on). The exchange of RULES.md 5 follows: its
    automatic parts happen here, and the previous 1st player's choice, when there is one, is the
    next decision (Phase.EXCHANGE). Other games are returned unchanged. ``step(..., rng=rng)``
    does the same as part of the step. ``donate``: ``state`` may be updated in place, as for
    ``step``.
    """
    g = np.flatnonzero(state.phase == _HAND_OVER)
    if not g.size:
        return state
    dealer = (state.dealer[g] + 1) % N_SEATS
    if hands is None:
        if rng is None:
            raise ValueError("next_hand needs an rng or explicit hands")
        deal = _random_deal_bits(rng, dealer)
    else:
        deal = parse_deal(hands)
        if deal.shape[0] != state.batch_size:
            raise ValueError(f"expected {state.batch_size} deals, got {deal.shape[0]}")
        deal = deal[g]
        check_deal(deal, dealer)
        deal = cards_to_bits(deal)
    fields = {name: _own(state, name, donate) for name in _START_HAND_FIELDS}
    _start_hands(fields, state.rules, g, deal)
    return state._with(fields, donated=donate)


def _start_hands(fields: dict, rules: Rules, g, deal, first=None, last=None) -> None:
    """Reset, in place, the hand-level ``fields`` (private arrays, by State field name) of
    games ``g`` to the start of a hand dealt ``deal``; the automatic moves of the exchange
    happen here. Without ``first``/``last``, the games move on to their next hand: the 1st
    and last seats come from their places, and the dealer and hand number advance.
    """
    advance = first is None
    kernels.start_hands(
        np.ascontiguousarray(g, np.intp),
        np.ascontiguousarray(deal, np.uint64),
        _NO_SEATS if advance else np.ascontiguousarray(first, np.int8),
        _NO_SEATS if advance else np.ascontiguousarray(last, np.int8),
        advance,
        rules.no_exchange,
        rules.start_card_id,
        *(fields[name] for name in _START_HAND_FIELDS),
    )


_NO_SEATS = np.zeros(0, np.int8)
# The State fields kernels.start_hands writes, in its argument order (dealer and hand_no only
# when games advance to their next hand).
_START_HAND_FIELDS = (
    "dealer",
    "hand_no",
    "card_bits",
    "counts",
    "n_left",
    "played",
    "deal_bits",
    "phase",
    "to_act",
    "table",
    "table_seat",
    "passed",
    "place",
    "n_out",
    "start_duty",
    "points",
    "ex_last",
    "ex_first",
    "ex_last_gives",
    "ex_first_gives",
    "last_seat",
    "last_action",
    "last_bits",
)
# The match-level arrays _START_HAND_FIELDS leaves out: a new match resets them too.
_MATCH_ARRAYS = ("scores", "target", "winners")


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


# --------------------------------------------------------------------------- legality


@functools.cache
def _beats_words(rules: Rules) -> np.ndarray:
    """(A, 2) uint64: beats_table(rules) as action sets, one per action on the table."""
    return kernels.action_words(beats_table(rules))


def legal_action_mask(state: State) -> np.ndarray:
    """(B, A) bool: the legal actions of the seat to act; all False in games not waiting.

    Play: actions the hand can pay for (``COST``) that beat the table (``beats_table``) and,
    under the start-card duty, contain the start card. Exchange: the singles of ranks 3-10
    the 1st player may give back. (The result is a view of a zero-padded buffer that
    ``random_legal_actions`` reads as words.)
    """
    rules = state.rules
    words = np.empty((state.batch_size, kernels.MASK_WORDS), np.uint64)
    kernels.legal_masks(
        np.ascontiguousarray(state.counts),
        np.ascontiguousarray(state.to_act),
        np.ascontiguousarray(state.phase),
        np.ascontiguousarray(state.table),
        np.ascontiguousarray(state.start_duty),
        np.ascontiguousarray(state.ex_last_gives),
        _beats_words(rules),
        kernels.MUST_USE[rules.start_card_id // 4],
        words,
    )
    return words.view(bool)[:, :N_ACTIONS]


def _mask_words(mask: np.ndarray) -> np.ndarray:
    """(B, MASK_WORDS) uint64: a (B, A) bool mask as zero-padded words of bool bytes."""
    base = mask.base
    if (
        mask.dtype == bool
        and isinstance(base, np.ndarray)
        and base.dtype == np.uint64
        and base.shape == (mask.shape[0], kernels.MASK_WORDS)
        and base.flags.c_contiguous
        and mask.strides == (8 * kernels.MASK_WORDS, 1)
        and mask.ctypes.data == base.ctypes.data
    ):
        return base  # a mask from legal_action_mask: its buffer is already the words
    words = np.zeros((mask.shape[0], kernels.MASK_WORDS), np.uint64)
    words.view(bool)[:, :N_ACTIONS] = mask
    return words


# --------------------------------------------------------------------------- stepping


def take_bits(hands, actions, start_duty, start_card: int) -> np.ndarray:
    """(n,) uint64: the cards rank-level plays take from hands (n,) uint64 card sets.

    Suits go in the order S H D C, except that the start card goes first while the
    start-card duty holds, so the opening play contains it.
    """
    hands = np.ascontiguousarray(hands, np.uint64)
    out = np.empty(hands.shape[0], np.uint64)
    kernels.take_cards(
        hands,
        np.ascontiguousarray(actions, np.intp),
        np.ascontiguousarray(np.broadcast_to(start_duty, hands.shape), bool),
        start_card,
        out,
    )
    return out


def choose_cards(state: State, actions: np.ndarray) -> np.ndarray:
    """(B, 54) bool: the concrete cards the engine plays for each game's rank-level action."""
    actions = np.asarray(actions, dtype=np.intp)
    hand = state.card_bits[np.arange(state.batch_size), state.to_act]
    bits = take_bits(hand, actions, state.start_duty, state.rules.start_card_id)
    return bits_to_cards(np.where(actions == PASS, np.uint64(0), bits))


# The State fields kernels.step_games writes, in its argument order.
_STEP_FIELDS = (
    "card_bits",
    "counts",
    "n_left",
    "played",
    "phase",
    "to_act",
    "table",
    "table_seat",
    "passed",
    "place",
    "n_out",
    "start_duty",
    "scores",
    "target",
    "winners",
    "points",
    "ex_last",
    "ex_last_gives",
    "ex_first_gives",
    "last_seat",
    "last_action",
    "last_bits",
)
_STEP_WRITES = tuple(name for name in _STEP_FIELDS if name not in ("ex_last", "ex_last_gives"))
_NO_CARDS = np.zeros(0, np.uint64)


def step(
    state: State,
    actions,
    cards: np.ndarray | None = None,
    *,
    rng: np.random.Generator | None = None,
    donate: bool = False,
) -> State:
    """Apply one action per game and return the new state.

    ``actions``: (B,) ints, legal for the seat to act (see legal_action_mask); games that are
    not waiting for a decision ignore theirs. ``cards`` optionally gives the concrete cards of
    each play, (B, 54) bool, as records do; by default the engine picks them (choose_cards).
    The caller is trusted: illegal actions are not checked here.

    With ``rng``, games whose hand this step ends and whose match goes on are dealt their
    next hand at once, exactly as ``next_hand(new_state, rng)`` would deal it (same random
    draws), without a second pass over the batch.

    ``donate=True`` lets the step write into ``state``'s arrays instead of copying them (about
    a megabyte at B=4096; a third of the time of a random-play step). ``state`` must not be
    used afterwards, nor any array read from it: write loops as
    ``state = step(state, actions, donate=True)``. States made from it earlier are safe: a
    donated step writes only into arrays that no other state shares (see State._with).
    """
    actions = np.ascontiguousarray(np.asarray(actions).reshape(-1), dtype=np.intp)
    if actions.shape[0] != state.batch_size:
        raise ValueError(f"expected {state.batch_size} actions, got {actions.shape[0]}")
    out_of_range = ((actions < 0) | (actions >= N_ACTIONS)) & (state.phase < _HAND_OVER)
    if out_of_range.any():
        game = int(np.flatnonzero(out_of_range)[0])
        raise ValueError(
            f"game {game}: action {actions[game]} is not an action id 0-{N_ACTIONS - 1}"
        )
    given = _NO_CARDS if cards is None else cards_to_bits(np.asarray(cards, dtype=bool))
    fields = {name: _own(state, name, donate) for name in _STEP_WRITES}
    rules = state.rules
    kernels.step_games(
        actions,
        given,
        rules.sticky_pass,
        rules.tie_rule == "leader",
        rules.start_card_id,
        *(fields.get(name, np.ascontiguousarray(getattr(state, name))) for name in _STEP_FIELDS),
    )
    if rng is not None:
        g = np.flatnonzero(fields["phase"] == _HAND_OVER)
        if g.size:
            deal = _random_deal_bits(rng, (state.dealer[g] + 1) % N_SEATS)
            for name in _START_HAND_FIELDS:
                if name not in fields:
                    fields[name] = _own(state, name, donate)
            _start_hands(fields, rules, g, deal)
    return state._with(fields, donated=donate)


def _match_result(scores: np.ndarray, target: np.ndarray, rules: Rules):
    """New targets and winners (n, 4) after a hand, by RULES.md 6 or the ``leader`` tie rule."""
    scores = np.ascontiguousarray(scores, np.int16)
    new_target = np.empty(scores.shape[0], np.int16)
    winners = np.empty(scores.shape, bool)
    kernels.match_results(
        scores,
        np.ascontiguousarray(target, np.int16),
        rules.tie_rule == "leader",
        new_target,
        winners,
    )
    return new_target, winners


# --------------------------------------------------------------------------- helpers


def random_legal_actions(mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """(B,) a uniformly random legal action per game (PASS where nothing is legal).

    Draws one uniform number u per game and takes the legal action at position
    floor(u * n_legal) among the game's legal actions, so the choice is exactly uniform.
    """
    mask = np.asarray(mask, dtype=bool)
    if mask.ndim != 2 or mask.shape[1] != N_ACTIONS:
        raise ValueError(f"expected a (B, {N_ACTIONS}) mask, got shape {mask.shape}")
    out = np.empty(mask.shape[0], np.int16)
    kernels.pick_legal(_mask_words(mask), rng.random(mask.shape[0]), out)
    return out


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
    "new_matches",
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
