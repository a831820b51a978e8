"""The game state: its schema, declared once, and the ``State`` of a batch of games.

Every field of a game is declared once in ``FIELDS``: name, shape (after the batch axis),
dtype, the value a blank game holds, and its meaning. From that one table come the record
dtype ``STATE_DTYPE`` (one record per game, so the compiled rules in ``murlan_env.game.kernels``
take the whole batch as a single array), the ``State`` attributes (``state.scores`` is the
(B, 4) int16 view of that field), the blank batch, and the builder ``make_state`` that tests
and the search bot use to set up positions from known facts.

Some facts are derived rather than stored, so they can never disagree with the cards:
``counts`` (cards per seat and rank), ``n_left`` (cards per seat) and ``n_out`` (places
given out) are computed from ``card_bits`` and ``place`` when read.

Seats are absolute (0-3) everywhere in the state; observations are egocentric
(``murlan_env.game.observation``).
"""

from __future__ import annotations

import dataclasses
import enum
from typing import Any

import numpy as np

from murlan_env.game.cards import N_CARDS, N_RANKS
from murlan_env.game.combos import PASS
from murlan_env.game.rules import Rules

N_SEATS = 4
# RULES.md 6: the first target and its raises.
TARGETS = (21, 31, 41, 51)


class Phase(enum.IntEnum):
    """What a game is waiting for."""

    PLAY = 0  # the seat to act plays a combination or passes
    EXCHANGE = 1  # the previous 1st player chooses the card to give back
    HAND_OVER = 2  # the hand is finished and the match goes on: next_hand
    MATCH_OVER = 3  # the match has been won or drawn


@dataclasses.dataclass(frozen=True)
class Field:
    """One field of a game's record."""

    name: str
    shape: tuple[int, ...]  # after the batch axis
    dtype: type
    blank: int  # the value every entry holds in a blank game
    meaning: str


FIELDS: tuple[Field, ...] = (
    Field("card_bits", (N_SEATS,), np.uint64, 0, "cards each seat holds now: bit c for card c"),
    Field("played", (N_SEATS, N_RANKS), np.int8, 0, "cards each seat played this hand, per rank"),
    Field("deal_bits", (N_SEATS,), np.uint64, 0, "this hand's deal before any exchange, as bits"),
    Field("phase", (), np.int8, Phase.PLAY, "Phase: what the game waits for"),
    Field("to_act", (), np.int8, 0, "seat whose decision it is (meaningless once over)"),
    Field("table", (), np.int16, PASS, "action id of the play to beat, PASS on an empty table"),
    Field("table_seat", (), np.int8, -1, "seat that made the play to beat, -1 when empty"),
    Field("passed", (N_SEATS,), np.bool_, 0, "passed since the last play (sticky: this trick)"),
    Field("place", (N_SEATS,), np.int8, -1, "finishing place 0-3 this hand, -1 while holding"),
    Field("start_duty", (), np.bool_, 0, "the next play must contain the start card"),
    Field("hand_no", (), np.int16, 0, "index of the current hand in the match, from 0"),
    Field("dealer", (), np.int8, 0, "dealer of the current hand"),
    Field("scores", (N_SEATS,), np.int16, 0, "match totals after the finished hands"),
    Field("target", (), np.int16, TARGETS[0], "current target (21, 31, 41, 51)"),
    Field("winners", (N_SEATS,), np.bool_, 0, "match winners (several on a draw), none while on"),
    Field("points", (N_SEATS,), np.int16, 0, "this hand's points once it is over, else 0"),
    Field("ex_last", (), np.int8, -1, "this hand's exchange: previous last player, -1 if none"),
    Field("ex_first", (), np.int8, -1, "this hand's exchange: previous 1st player, -1 if none"),
    Field("ex_last_gives", (), np.int8, -1, "card the last player gave, -1 if none"),
    Field("ex_first_gives", (), np.int8, -1, "card the 1st player gave back, -1 if not yet"),
    Field("last_seat", (), np.int8, -1, "seat of the most recent decision, -1 at a hand's start"),
    Field("last_action", (), np.int16, -1, "action of the most recent decision, -1 at the start"),
    Field("last_bits", (), np.uint64, 0, "cards of the most recent decision, as bits"),
)
FIELD_NAMES: tuple[str, ...] = tuple(f.name for f in FIELDS)
_BY_NAME = {f.name: f for f in FIELDS}
# Flags are stored as uint8 (numba's records hold no arrays of bool) and read as bool.
_BOOL_FIELDS = frozenset(f.name for f in FIELDS if f.dtype is np.bool_)
# One record per game. Wider fields first, so the aligned record has no padding to speak of.
STATE_DTYPE = np.dtype(
    [
        (f.name, np.uint8 if f.name in _BOOL_FIELDS else f.dtype, f.shape)
        for f in sorted(FIELDS, key=lambda f: -np.dtype(f.dtype).itemsize)
    ],
    align=True,
)
# A record as raw bytes: numpy copies and gathers a structured dtype field by field, many
# times slower than the bytes themselves; the records hold no objects, so their bytes are their
# values.
_RAW_RECORD = np.dtype((np.void, STATE_DTYPE.itemsize))


def copy_records(data: np.ndarray) -> np.ndarray:
    """A copy of (B,) state records, made as one copy of their bytes."""
    return data.view(_RAW_RECORD).copy().view(data.dtype)


def take_records(data: np.ndarray, games) -> np.ndarray:
    """A copy of the records of ``games`` (an index array, slice, bool mask or one index) as a
    (n,) array, gathered as bytes."""
    raw = np.array(data.view(_RAW_RECORD)[games], copy=True, ndmin=1)
    return raw.view(data.dtype)


def put_records(data: np.ndarray, games, records: np.ndarray) -> None:
    """Write ``records`` over the records of ``games`` of ``data`` (in place), as bytes."""
    data.view(_RAW_RECORD)[games] = records.view(_RAW_RECORD)


_BLANK = np.zeros((), STATE_DTYPE)
for _f in FIELDS:
    _BLANK[_f.name] = _f.blank


# --------------------------------------------------------------------------- card sets


def cards_to_bits(cards: np.ndarray) -> np.ndarray:
    """(..., 54) bool card masks -> (...) uint64 card sets (bit c for card id c)."""
    packed = np.packbits(np.asarray(cards, bool), axis=-1, bitorder="little")  # (..., 7)
    padded = np.zeros((*packed.shape[:-1], 8), np.uint8)
    padded[..., :7] = packed
    return padded.view("<u8")[..., 0].astype(np.uint64)


def bits_to_cards(bits: np.ndarray) -> np.ndarray:
    """(...) uint64 card sets -> (..., 54) bool card masks."""
    as_bytes = np.ascontiguousarray(bits, dtype="<u8")[..., None].view(np.uint8)
    return np.unpackbits(as_bytes, axis=-1, count=N_CARDS, bitorder="little").astype(bool)


def rank_counts_of_bits(bits: np.ndarray) -> np.ndarray:
    """(...) uint64 card sets -> (..., 15) int8 cards per rank."""
    value = np.ascontiguousarray(bits, np.uint64)
    out = np.empty((*value.shape, N_RANKS), np.int8)
    shifts = np.arange(13, dtype=np.uint64) * np.uint64(4)
    nibbles = (value[..., None] >> shifts) & np.uint64(0xF)
    out[..., :13] = _POPCOUNT4[nibbles]
    out[..., 13] = (value >> np.uint64(52)) & np.uint64(1)
    out[..., 14] = (value >> np.uint64(53)) & np.uint64(1)
    return out


_POPCOUNT4 = np.array([bin(i).count("1") for i in range(16)], np.int8)


# --------------------------------------------------------------------------- State


class State:
    """B games under one set of rules: ``data`` holds one ``STATE_DTYPE`` record per game.

    Every field of ``FIELDS`` reads as an attribute, a view of shape (B, *field.shape):
    ``state.scores``. ``counts``, ``n_left`` and ``n_out`` are derived when read. Engine
    functions never change a state they are given (unless it is donated, see
    ``murlan_env.game.engine.step``); treat the views as read-only.
    """

    __slots__ = ("rules", "data", "_owned")

    def __init__(self, rules: Rules, data: np.ndarray, *, owned: bool = False) -> None:
        if data.dtype != STATE_DTYPE or data.ndim != 1:
            raise ValueError("State data is a 1-d array of STATE_DTYPE records")
        self.rules = rules
        self.data = data
        # Donation (see engine.step) may write into ``data`` only while this state owns it: an
        # engine function made it for this state alone and no other state shares it.
        self._owned = owned

    @property
    def batch_size(self) -> int:
        return self.data.shape[0]

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
    def counts(self) -> np.ndarray:
        """(B, 4, 15) int8: cards each seat holds now, per rank."""
        return rank_counts_of_bits(self.card_bits)

    @property
    def n_left(self) -> np.ndarray:
        """(B, 4) int8: number of cards each seat holds now."""
        return self.counts.sum(-1, dtype=np.int8)

    @property
    def n_out(self) -> np.ndarray:
        """(B,) int8: places given out this hand."""
        return (self.place >= 0).sum(-1, dtype=np.int8)

    @property
    def done(self) -> np.ndarray:
        """(B,) bool: matches that are over."""
        return self.phase == Phase.MATCH_OVER

    @property
    def hand_over(self) -> np.ndarray:
        """(B,) bool: the current hand has finished (the match may be over too)."""
        return self.phase >= Phase.HAND_OVER

    def owns(self) -> bool:
        """Whether an engine function may update ``data`` in place when this state is donated."""
        return self._owned

    def disown(self) -> None:
        """Share ``data`` from now on: a donated call copies it before writing."""
        self._owned = False

    def copy(self) -> State:
        """An independent copy (owning its own records)."""
        return State(self.rules, copy_records(self.data), owned=True)

    def __copy__(self) -> State:
        self._owned = False  # the copy shares the records
        return State(self.rules, self.data)

    def __deepcopy__(self, memo) -> State:
        return self.copy()

    def __reduce__(self):
        return (_restore, (self.rules, self.data))

    def replace(self, **changes: Any) -> State:
        """A copy with some fields changed, each given for the whole batch (broadcast).

        ``cards``, ``deal`` and ``last_cards`` may be given as bool masks instead of the bits
        fields; derived facts (``counts``, ``n_left``, ``n_out``) cannot be set.
        """
        data = copy_records(self.data)
        _set_fields(data, changes)
        return State(self.rules, data, owned=True)

    def index(self, games) -> State:
        """The sub-batch of the given games (an index array, slice or bool mask), a copy."""
        return State(self.rules, take_records(self.data, games), owned=True)

    def __repr__(self) -> str:
        return f"State(batch_size={self.batch_size}, rules={self.rules})"


def _restore(rules: Rules, data: np.ndarray) -> State:
    return State(rules, upgraded_records(data), owned=True)


def upgraded_records(saved: np.ndarray) -> np.ndarray:
    """A copy of saved state records (a pickled ``State``'s, e.g. in a training checkpoint) in
    this version's ``STATE_DTYPE``. Records of another schema are matched field by field:
    fields added since keep their ``blank`` value and fields since removed are dropped, so
    adding a field does not make older checkpoints unreadable. ValueError if a field of the
    same name changed its type or shape."""
    if saved.dtype == STATE_DTYPE:
        return np.array(saved, copy=True)
    data = blank_data(saved.shape[0])
    for name in saved.dtype.names or ():
        if name not in _BY_NAME:
            continue
        if saved.dtype[name] != STATE_DTYPE[name]:
            raise ValueError(
                f"saved games store the state field {name!r} as {saved.dtype[name]}, this "
                f"version as {STATE_DTYPE[name]}: they cannot be read"
            )
        data[name] = saved[name]
    return data


def _field_view(name: str, meaning: str) -> property:
    if name in _BOOL_FIELDS:

        def get(self: State) -> np.ndarray:
            return self.data[name].view(np.bool_)

    else:

        def get(self: State) -> np.ndarray:
            return self.data[name]

    return property(get, doc=meaning)


for _f in FIELDS:
    setattr(
        State,
        _f.name,
        _field_view(
            _f.name,
            f"({', '.join(['B', *map(str, _f.shape)])}) {np.dtype(_f.dtype).name}: {_f.meaning}",
        ),
    )

_AS_BITS = {"cards": "card_bits", "deal": "deal_bits", "last_cards": "last_bits"}
DERIVED = ("counts", "n_left", "n_out")


def _set_fields(data: np.ndarray, values: dict[str, Any]) -> None:
    """Write field values (broadcast over the batch) into records, checking every name."""
    for name, value in values.items():
        if name in _AS_BITS:
            name, value = _AS_BITS[name], cards_to_bits(np.asarray(value, bool))
        if name in DERIVED:
            raise ValueError(f"{name} is derived from the cards and places; set cards instead")
        if name not in _BY_NAME:
            raise ValueError(f"unknown state field {name!r}; fields: {list(FIELD_NAMES)}")
        data[name] = value


def blank_data(batch: int) -> np.ndarray:
    """(B,) records of blank games: every field at its ``blank`` value."""
    return np.full(batch, _BLANK, STATE_DTYPE)


def make_state(rules: Rules | None = None, batch_size: int | None = None, **facts: Any) -> State:
    """A state from known facts: any fields (arrays broadcast over the batch), the rest blank.

    ``cards``, ``deal`` and ``last_cards`` may be given as (B, 4, 54) / (B, 54) bool masks.
    The batch size is ``batch_size`` or the leading axis of the first array fact. Nothing is
    checked against the rules: this sets up positions (tests, the search bot's sampled
    worlds); the engine then plays on from them.
    """
    if batch_size is None:
        batch_size = 1
        for name, value in facts.items():
            shape = _BY_NAME[_AS_BITS.get(name, name)].shape if name not in DERIVED else ()
            arr = np.asarray(value)
            extra = 1 if name in ("cards", "deal", "last_cards") else 0
            if arr.ndim > len(shape) + extra:
                batch_size = arr.shape[0]
                break
    data = blank_data(batch_size)
    _set_fields(data, facts)
    return State(rules or Rules(), data, owned=True)


__all__ = [
    "DERIVED",
    "FIELDS",
    "FIELD_NAMES",
    "N_SEATS",
    "Phase",
    "STATE_DTYPE",
    "State",
    "TARGETS",
    "bits_to_cards",
    "blank_data",
    "cards_to_bits",
    "make_state",
    "rank_counts_of_bits",
    "upgraded_records",
]
