"""The observation codec: what a seat sees, as a flat float32 vector, and back.

The layout is declared once, as named pieces (``PIECES``); the size, the slices, the
environments' spaces, the documentation table, the exported bundle's layout and its hash all
come from it (``murlan_env.game.observation_layout`` reads them off). ``encode`` writes
observations from engine states (a compiled function of one game, run for every game of a
batch); ``decode`` reads the facts back from vectors, and is the only way bots and the search
bot read an observation.

Observations are egocentric: seat slot 0 is the observing seat, then the next seats in turn
order, so one network serves every seat. They hold only what that seat may know: its own
cards, public plays and card counts, and the exchange cards it gave or received itself.
Every entry lies in [0, 1]: counts per rank use a thermometer code (4 bits per rank, bit k
set when at least k+1 cards of that rank; the jokers use bit 0 only), card counts are scaled
by ``CARDS_LEFT_SCALE`` and scores by ``SCORE_SCALE``.

Every entry is an integer code (0-60) times its piece's step (``STEP``, float32 arithmetic),
so ``to_codes``/``from_codes`` store observations as uint8 without loss: replay buffers and
checkpoints hold a quarter of the bytes.
"""

from __future__ import annotations

import dataclasses
import functools

import numpy as np

from murlan_env.game.bitsets import inline, jit, popcount, rank_count
from murlan_env.game.cards import CARD_RANK, N_RANKS, RANK_SIZE, RANKS
from murlan_env.game.combos import N_ACTIONS, PASS
from murlan_env.game.rules import RULE_CHOICES, Rules
from murlan_env.game.rules import flag_word as _word
from murlan_env.game.state import N_SEATS, TARGETS, Phase, State

# A seat holds at most 15 cards (a 1st player between receiving and giving back in the
# exchange): cards_left entries are n / 15.
CARDS_LEFT_SCALE = 15
# Scores are capped at 60 (above the 54 a "raise" match can reach) and scaled by it.
SCORE_SCALE = 60
# Thermometer bits per rank count (at most 4 cards of a rank).
THERMO = 4
# The rules piece: one entry per non-default value of each variant flag, in Rules' order.
RULE_FEATURES: tuple[tuple[str, object], ...] = tuple(
    (flag, value) for flag, choices in RULE_CHOICES.items() for value in choices[1:]
)


@dataclasses.dataclass(frozen=True)
class Piece:
    """A named, contiguous part of the observation vector.

    ``order`` says which fact each entry holds (the element order an app's encoder must
    follow) and ``value`` the float32 value written there, exactly as ``encode`` computes it;
    both are copied into every exported bundle's manifest (``murlan_env.bundle.manifest``).
    """

    name: str
    size: int
    meaning: str
    order: str = ""
    value: str = ""


_RANK_NAMES = " ".join(RANKS)
_THERMO_ORDER = (
    f"rank-major: entry {THERMO}*r + k for rank r = 0..{N_RANKS - 1} ({_RANK_NAMES}) and "
    f"thermometer bit k = 0..{THERMO - 1}"
)
_THERMO_VALUE = "1.0 when more than k cards of rank r, else 0.0 (BJ and RJ: bit 0 only)"
_SLOTS = "entry s for seat slot s = 0..3"
PIECES: tuple[Piece, ...] = (
    Piece(
        "my_hand",
        N_RANKS * THERMO,
        "my cards: 15 ranks x 4 thermometer bits",
        _THERMO_ORDER,
        f"{_THERMO_VALUE}, counting the cards I hold now",
    ),
    Piece(
        "played",
        N_SEATS * N_RANKS * THERMO,
        "cards each seat slot played this hand: 4 x 60",
        f"slot-major, then as my_hand: entry {N_RANKS * THERMO}*s + {THERMO}*r + k for seat "
        "slot s = 0..3, rank r and bit k",
        f"{_THERMO_VALUE}, counting the cards slot s played since this hand's deal (the "
        "exchange is not a play)",
    ),
    Piece(
        "unseen",
        N_RANKS * THERMO,
        "cards neither in my hand nor played (the others'): 15 x 4",
        _THERMO_ORDER,
        f"{_THERMO_VALUE}, counting n = (4 of a suited rank, 1 of BJ or RJ) - the cards I "
        "hold - the cards all four slots played this hand",
    ),
    Piece(
        "cards_left",
        N_SEATS,
        f"cards each seat slot holds, / {CARDS_LEFT_SCALE}",
        _SLOTS,
        f"float32(n) * float32(1/{CARDS_LEFT_SCALE}) in float32 arithmetic (float32(1/"
        f"{CARDS_LEFT_SCALE}) = {float(np.float32(1 / CARDS_LEFT_SCALE))!r}; not n / "
        f"{CARDS_LEFT_SCALE}, which differs in the last bit for some n), n = the cards slot s "
        "holds now (0-15)",
    ),
    Piece(
        "table_action",
        N_ACTIONS,
        "one-hot action id of the play to beat (all 0: empty table)",
        "entry a for action id a of the action table",
        "1.0 at the action id of the play to beat; all 0.0 on an empty table (a trick's "
        "lead, the exchange), so entry 0 (pass) is never set",
    ),
    Piece(
        "table_seat",
        N_SEATS,
        "one-hot seat slot that made the play to beat",
        _SLOTS,
        "1.0 at the slot that made the play to beat; all 0.0 on an empty table",
    ),
    Piece(
        "passed",
        N_SEATS,
        "seat slots that passed since the play to beat (sticky: this trick)",
        _SLOTS,
        "1.0 when slot s passed since the play to beat (sticky_pass: in this trick); all 0.0 "
        "on an empty table",
    ),
    Piece(
        "places",
        N_SEATS * N_SEATS,
        "finishing place (1st-4th, one-hot) of each seat slot",
        f"slot-major: entry {N_SEATS}*s + p for seat slot s and place p = 0..3 (1st..4th)",
        "1.0 when slot s has gone out this hand in place p; all 0.0 for a slot still holding cards",
    ),
    Piece(
        "scores",
        N_SEATS,
        f"match score of each seat slot, / {SCORE_SCALE}, capped at 1",
        _SLOTS,
        f"float32(min(score, {SCORE_SCALE})) * float32(1/{SCORE_SCALE}) in float32 arithmetic "
        f"(float32(1/{SCORE_SCALE}) = {float(np.float32(1 / SCORE_SCALE))!r}), score = slot "
        "s's match total after the finished hands",
    ),
    Piece(
        "target",
        len(TARGETS),
        "one-hot current target: " + ", ".join(map(str, TARGETS)),
        "entry i for target " + ", ".join(f"{t} (i={i})" for i, t in enumerate(TARGETS)),
        "1.0 at the match's current target (with tie_rule=leader always 21)",
    ),
    Piece(
        "phase",
        2,
        "one-hot: play, exchange (choosing the card to give back)",
        "entry 0: a play (or pass); entry 1: the exchange give-back",
        "1.0 at the kind of decision asked for, 0.0 at the other",
    ),
    Piece(
        "start_duty",
        1,
        "1 when my play must contain the start card",
        "one entry",
        "1.0 when this decision is hand 1's first play, which must contain the start card",
    ),
    Piece(
        "exchange",
        2 * N_RANKS,
        "rank I received, rank I gave in this hand's exchange",
        f"entry r: rank r I received; entry {N_RANKS} + r: rank r I gave (r as in my_hand)",
        "1.0 at the rank of each exchange card I received or gave in this hand (the 1st "
        "player receives the last player's highest card and gives a card back; the last "
        "player the reverse); all 0.0 for the 2nd and 3rd players and in hands without an "
        "exchange; the give-back's entries are set once it is made",
    ),
    Piece(
        "rules",
        len(RULE_FEATURES),
        "variant flags: " + ", ".join(f"{flag}={value}" for flag, value in RULE_FEATURES),
        "entry i for the i-th (flag, value): "
        + ", ".join(f"{flag}={_word(value)}" for flag, value in RULE_FEATURES),
        "1.0 when the game's rules give that flag that value (all 0.0: the standard rules)",
    ),
)
SIZE = sum(p.size for p in PIECES)
SLICES: dict[str, slice] = {}
_offset = 0
for _p in PIECES:
    SLICES[_p.name] = slice(_offset, _offset + _p.size)
    _offset += _p.size
_CARDS_STEP = np.float32(1.0 / CARDS_LEFT_SCALE)
_SCORE_STEP = np.float32(1.0 / SCORE_SCALE)
# (SIZE,) float32: the value of one code step of each entry (observation = code * STEP).
STEP = np.ones(SIZE, np.float32)
STEP[SLICES["cards_left"]] = _CARDS_STEP
STEP[SLICES["scores"]] = _SCORE_STEP
STEP.setflags(write=False)

# Piece offsets as plain ints for the compiled encoder.
_MY_HAND = SLICES["my_hand"].start
_PLAYED = SLICES["played"].start
_UNSEEN = SLICES["unseen"].start
_CARDS_LEFT = SLICES["cards_left"].start
_TABLE_ACTION = SLICES["table_action"].start
_TABLE_SEAT = SLICES["table_seat"].start
_PASSED = SLICES["passed"].start
_PLACES = SLICES["places"].start
_SCORES = SLICES["scores"].start
_TARGET = SLICES["target"].start
_PHASE = SLICES["phase"].start
_START_DUTY = SLICES["start_duty"].start
_EXCHANGE = SLICES["exchange"].start
_RULES = SLICES["rules"].start
_TARGETS = np.array(TARGETS, np.int16)
_PLAY, _EXCHANGE_PHASE = int(Phase.PLAY), int(Phase.EXCHANGE)


# --------------------------------------------------------------------------- encoding


@functools.cache
def rule_flags(rules: Rules) -> np.ndarray:
    """(len(RULE_FEATURES),) float32: the ``rules`` piece of the observation (read-only)."""
    flags = np.array([getattr(rules, f) == v for f, v in RULE_FEATURES], np.float32)
    flags.setflags(write=False)
    return flags


@inline
def _thermometer(out, at, count):
    for k in range(THERMO):
        out[at + k] = count > k


@inline
def encode_one(g, me, flags, out):
    """Write the observation of game ``g`` from seat ``me`` into ``out`` (SIZE,) float32."""
    out[:] = 0.0
    mine = g.card_bits[me]
    for r in range(N_RANKS):
        held = rank_count(mine, r)
        _thermometer(out, _MY_HAND + THERMO * r, held)
        seen = held
        for k in range(N_SEATS):
            n = g.played[(me + k) % N_SEATS, r]
            _thermometer(out, _PLAYED + THERMO * (N_RANKS * k + r), n)
            seen += n
        _thermometer(out, _UNSEEN + THERMO * r, RANK_SIZE[r] - seen)
    for k in range(N_SEATS):
        s = (me + k) % N_SEATS
        out[_CARDS_LEFT + k] = np.float32(popcount(g.card_bits[s])) * _CARDS_STEP
        out[_PASSED + k] = g.passed[s]
        if g.place[s] >= 0:
            out[_PLACES + N_SEATS * k + g.place[s]] = 1.0
        out[_SCORES + k] = np.float32(min(g.scores[s], SCORE_SCALE)) * _SCORE_STEP
    if g.table != PASS:
        out[_TABLE_ACTION + g.table] = 1.0
        out[_TABLE_SEAT + (g.table_seat - me) % N_SEATS] = 1.0
    for i in range(_TARGETS.shape[0]):
        out[_TARGET + i] = g.target == _TARGETS[i]
    out[_PHASE] = g.phase == _PLAY
    out[_PHASE + 1] = g.phase == _EXCHANGE_PHASE
    out[_START_DUTY] = g.start_duty and g.to_act == me
    if g.ex_last_gives >= 0:
        given = CARD_RANK[g.ex_last_gives]
        if g.ex_first == me:
            out[_EXCHANGE + given] = 1.0
        if g.ex_last == me:
            out[_EXCHANGE + N_RANKS + given] = 1.0
        if g.ex_first_gives >= 0:
            back = CARD_RANK[g.ex_first_gives]
            if g.ex_last == me:
                out[_EXCHANGE + back] = 1.0
            if g.ex_first == me:
                out[_EXCHANGE + N_RANKS + back] = 1.0
    for i in range(flags.shape[0]):
        out[_RULES + i] = flags[i]


@jit
def encode_games(data, seats, flags, out):
    """``encode_one`` for every game of a record array, from ``seats`` (B,)."""
    for b in range(data.shape[0]):
        encode_one(data[b], seats[b], flags, out[b])


def encode(
    state: State, seats: np.ndarray | int | None = None, out: np.ndarray | None = None
) -> np.ndarray:
    """(B, SIZE) float32 observation of each game from ``seats`` (default: the seat to act).

    Named views: ``obs[:, SLICES["my_hand"]]``. ``out``: a (B, SIZE) float32 array with
    C-contiguous rows to write into (e.g. a rollout buffer) instead of a new one.
    """
    if out is None:
        out = np.empty((state.batch_size, SIZE), np.float32)
    encode_games(state.data, _seats(state, seats), rule_flags(state.rules), out)
    return out


def to_codes(obs: np.ndarray) -> np.ndarray:
    """(..., SIZE) uint8 integer codes of observations (lossless; see ``from_codes``)."""
    return np.rint(np.asarray(obs, np.float32) / STEP).astype(np.uint8)


def from_codes(codes: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
    """(..., SIZE) float32 observations from their codes: exactly what ``encode`` wrote."""
    return np.multiply(codes, STEP, out=out, dtype=np.float32)


# --------------------------------------------------------------------------- hidden facts

# What a seat may NOT know, for critics trained with privileged information (a critic that
# sees every hand while the policy sees only its own): the other seats' cards.
HIDDEN_PIECES: tuple[Piece, ...] = (
    Piece(
        "others_hands",
        (N_SEATS - 1) * N_RANKS * THERMO,
        "cards seat slots 1-3 hold: 3 x 15 ranks x 4 thermometer bits",
    ),
)
HIDDEN_SIZE = sum(p.size for p in HIDDEN_PIECES)


@inline
def encode_hidden_one(g, me, out):
    """Write the other seats' hands of game ``g``, seen from ``me``, into ``out``."""
    for k in range(1, N_SEATS):
        held = g.card_bits[(me + k) % N_SEATS]
        for r in range(N_RANKS):
            _thermometer(out, THERMO * (N_RANKS * (k - 1) + r), rank_count(held, r))


@jit
def encode_hidden_games(data, seats, out):
    """``encode_hidden_one`` for every game of a record array, from ``seats`` (B,)."""
    for b in range(data.shape[0]):
        encode_hidden_one(data[b], seats[b], out[b])


def encode_hidden(
    state: State, seats: np.ndarray | int | None = None, out: np.ndarray | None = None
) -> np.ndarray:
    """(B, HIDDEN_SIZE) float32: what ``seats`` (default: the seat to act) cannot see.

    Only for training (a privileged critic); never give it to a policy that plays.
    ``out``: an array to write into, as for ``encode``.
    """
    if out is None:
        out = np.empty((state.batch_size, HIDDEN_SIZE), np.float32)
    encode_hidden_games(state.data, _seats(state, seats), out)
    return out


def _seats(state: State, seats) -> np.ndarray:
    if seats is None:
        return np.ascontiguousarray(state.to_act)
    if isinstance(seats, int | np.integer):
        return np.full(state.batch_size, seats, np.int8)
    return np.ascontiguousarray(np.broadcast_to(np.asarray(seats, np.int8), (state.batch_size,)))


# --------------------------------------------------------------------------- decoding


class Decoded:
    """The facts of (B, SIZE) observations, by seat slot (0 = the observer).

    Each fact is decoded when it is first read and kept: a bot that reads its hand and the
    table (the rule bot, in every step of a search's rollouts) does not pay for the cards
    every seat played, the scores or the places.
    """

    def __init__(self, obs: np.ndarray) -> None:
        self._obs = obs

    def _piece(self, name: str) -> np.ndarray:
        return self._obs[:, SLICES[name]]

    @property
    def batch_size(self) -> int:
        return self._obs.shape[0]

    @functools.cached_property
    def my_hand(self) -> np.ndarray:
        """(B, 15) int8 my cards per rank."""
        return _counts(self._piece("my_hand"))

    @functools.cached_property
    def played(self) -> np.ndarray:
        """(B, 4, 15) int8 cards each slot played this hand."""
        return _counts(self._piece("played").reshape(self.batch_size, N_SEATS, N_RANKS * THERMO))

    @functools.cached_property
    def unseen(self) -> np.ndarray:
        """(B, 15) int8 cards held by the others, per rank."""
        return _counts(self._piece("unseen"))

    @functools.cached_property
    def cards_left(self) -> np.ndarray:
        """(B, 4) int8 cards each slot holds."""
        return np.rint(self._piece("cards_left") * CARDS_LEFT_SCALE).astype(np.int8)

    @functools.cached_property
    def table(self) -> np.ndarray:
        """(B,) int16 action id of the play to beat, PASS when empty."""
        table = _one_hot_index(self._piece("table_action") > 0.5)
        return np.where(table < 0, PASS, table).astype(np.int16)

    @functools.cached_property
    def table_slot(self) -> np.ndarray:
        """(B,) int8 slot that made the play to beat, -1 when empty."""
        return _one_hot_index(self._piece("table_seat") > 0.5).astype(np.int8)

    @functools.cached_property
    def passed(self) -> np.ndarray:
        """(B, 4) bool each slot passed on the play to beat."""
        return self._piece("passed") > 0.5

    @functools.cached_property
    def place(self) -> np.ndarray:
        """(B, 4) int8 finishing place, -1 while playing."""
        places = self._piece("places").reshape(self.batch_size, N_SEATS, N_SEATS) > 0.5
        return _one_hot_index(places).astype(np.int8)

    @functools.cached_property
    def scores(self) -> np.ndarray:
        """(B, 4) int16 match scores (capped at SCORE_SCALE)."""
        return np.rint(self._piece("scores") * SCORE_SCALE).astype(np.int16)

    @functools.cached_property
    def target(self) -> np.ndarray:
        """(B,) int16 the match's target score."""
        target = self._piece("target")
        return np.where(target.any(1), _TARGETS[target.argmax(1)], 0).astype(np.int16)

    @functools.cached_property
    def exchanging(self) -> np.ndarray:
        """(B,) bool: choosing the card to give back."""
        return self._piece("phase")[:, 1] > 0.5

    @functools.cached_property
    def start_duty(self) -> np.ndarray:
        """(B,) bool: the opening play must hold the start card."""
        return self._piece("start_duty")[:, 0] > 0.5

    @functools.cached_property
    def received(self) -> np.ndarray:
        """(B,) int8 rank received in this hand's exchange, -1 if none."""
        return _one_hot_index(self._exchange[:, 0]).astype(np.int8)

    @functools.cached_property
    def gave(self) -> np.ndarray:
        """(B,) int8 rank given in this hand's exchange, -1 if none."""
        return _one_hot_index(self._exchange[:, 1]).astype(np.int8)

    @functools.cached_property
    def rule_flags(self) -> np.ndarray:
        """(B, len(RULE_FEATURES)) bool the variant flags."""
        return self._piece("rules") > 0.5

    @property
    def _exchange(self) -> np.ndarray:
        return self._piece("exchange").reshape(self.batch_size, 2, N_RANKS) > 0.5

    def rules(self, game: int = 0) -> Rules:
        """The variant flags of one game's observation."""
        return decode_rule_flags(self.rule_flags[game])


def decode_rule_flags(flags: np.ndarray) -> Rules:
    """The Rules of one observation's ``rules`` piece ((len(RULE_FEATURES),) bool)."""
    chosen = {}
    for (flag, value), on in zip(RULE_FEATURES, flags, strict=True):
        if on:
            chosen[flag] = value
    return Rules.from_dict(chosen)


def _counts(bits: np.ndarray) -> np.ndarray:
    """(..., 15 * THERMO) thermometer bits -> (..., 15) int8 counts per rank."""
    planes = bits.reshape(*bits.shape[:-1], N_RANKS, THERMO)
    # The THERMO planes added one by one: a tenth of the time of a sum over the short last
    # axis, which the rule bot pays for every observation it decodes in a search's rollouts.
    total = planes[..., 0].copy()
    for k in range(1, THERMO):
        total += planes[..., k]
    return total.round().astype(np.int8)


def _one_hot_index(x: np.ndarray) -> np.ndarray:
    """Index of the set entry along the last axis, -1 where none is set."""
    return np.where(x.any(-1), x.argmax(-1), -1)


def decode(obs: np.ndarray) -> Decoded:
    """The facts of observations (B, SIZE) (see ``Decoded``); the inverse of ``encode``.

    Each fact is read from ``obs`` when it is first asked for, so ``obs`` must not change
    while the result is in use."""
    obs = np.asarray(obs, dtype=np.float32)
    if obs.ndim != 2 or obs.shape[1] != SIZE:
        raise ValueError(f"expected observations of shape (B, {SIZE}), got {obs.shape}")
    return Decoded(obs)


__all__ = [
    "CARDS_LEFT_SCALE",
    "Decoded",
    "HIDDEN_PIECES",
    "HIDDEN_SIZE",
    "encode_hidden",
    "from_codes",
    "to_codes",
    "STEP",
    "PIECES",
    "Piece",
    "RULE_FEATURES",
    "SCORE_SCALE",
    "SIZE",
    "SLICES",
    "decode",
    "decode_rule_flags",
    "encode",
    "rule_flags",
]
