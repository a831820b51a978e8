"""One game as a mutable object: the engine's fast path for a batch of one.

The batched engine pays a fixed cost per call whatever the batch size (copies of some 25
state arrays, a few dozen NumPy calls, the compiled kernels' dispatch: some 70 us a decision
at B=1), which is nothing per game at B=4096 and everything at B=1. ``Game`` is the same
engine for one game held in Python integers (cards as int bit sets, seats as small lists), so
that one decision costs a few microseconds: it serves the AEC env, where one game is stepped
at a time.

What it does and does not own:

- ``step`` (a play, a pass or the exchange give-back), ``legal_mask`` and ``observe`` follow
  ``engine.step``, ``engine.legal_action_mask`` and ``engine.observe`` exactly, and reuse their
  tables (``COST``, ``beats_table``, the joker and next-seat tables of
  ``murlan_env.kernels``). A lockstep test (tests/test_game.py) plays thousands of random
  matches under mixed variants through both and asserts the same mask, observation and
  full state after every decision.
- Everything that happens between hands (dealing, the automatic part of the exchange, the
  new match) goes through the batched engine: ``Game.from_state(engine.next_hand(...))``.
  Points, targets and match results at a hand's end also come from the engine
  (``engine._match_result``).

``to_state()`` returns the equivalent ``engine.State`` (a batch of one) at any moment.
"""

from __future__ import annotations

import functools

import numpy as np

from murlan_env import engine, kernels
from murlan_env.cards import CARD_RANK, N_RANKS
from murlan_env.combos import COST, LENGTH, N_ACTIONS, PASS
from murlan_env.engine import (
    _EXCHANGE,
    _HAND_OVER,
    _MATCH_OVER,
    _PLAY,
    GIVE_BACK_RANKS,
    N_SEATS,
    OBS_SIZE,
    OBS_SLICES,
    POINTS_BY_PLACE,
    RANK_SIZE_I8,
    SCORE_SCALE,
    TARGETS,
    State,
)
from murlan_env.rules import Rules

# Plain-Python copies of the engine's tables: indexing a list is some 10x cheaper than
# indexing a NumPy array for one element.
_JOKERS = [int(x) for x in kernels.JOKER_BITS]
_MAX_K = [int(x) for x in COST.max(1)]
_LENGTH = [int(x) for x in LENGTH]
_USES_RANK0 = [bool(x) for x in COST[:, 0] > 0]
_NEXT_SEAT = kernels.NEXT_SEAT.tolist()
_FIRST_SUIT = kernels.FIRST_SUIT.tolist()
_CARD_RANK = [int(r) for r in CARD_RANK]
_POINTS = [int(p) for p in POINTS_BY_PLACE]
_SUITED = int(kernels.SUITED)
# Nibble masks (one nibble per suited rank) for taking the first suits of every rank at once.
_NOT_BIT0 = int("E" * 13, 16)
_HIGH2 = int("C" * 13, 16)
_BIT3 = int("8" * 13, 16)


def _need_masks(cost: np.ndarray) -> list[list[int]]:
    """Per action and k = 0-3: the nibbles of the suited ranks it needs more than k cards of."""
    return [
        [sum(0xF << (4 * r) for r in range(13) if row[r] > k) for k in range(4)] for row in cost
    ]


_NEED = _need_masks(COST)
# The same when the start card (a 3) is already taken for the opening play: one 3 fewer.
_NEED_AFTER_START = _need_masks(COST - (COST[:, :1] > 0) * np.eye(N_RANKS, dtype=np.int8)[0])


def _as_int(words) -> int:
    """An action set as two uint64 words (kernels) -> one Python int, bit a for action a."""
    return int(words[0]) | int(words[1]) << 64


# The kernels' action sets as Python ints: ANDing 15 ints is the cheapest legality test for
# one hand. _AFFORD[r][k]: the actions that need at most k cards of rank r.
_AFFORD = [[_as_int(w) for w in row] for row in kernels.AFFORD]
_MUST_HOLD_START = _as_int(kernels.MUST_USE[0])
# (256, 8) bool: the bits of each byte, low bit first, to unpack an action set into a mask.
_BYTE_BITS = np.unpackbits(np.arange(256, dtype=np.uint8)[:, None], axis=1, bitorder="little")
_BYTE_BITS = _BYTE_BITS.astype(bool)
_MASK_BYTES = (N_ACTIONS + 7) // 8


@functools.lru_cache(maxsize=1 << 14)
def _mask_of(actions: int) -> np.ndarray:
    """(A,) bool mask of a Python-int action set (read-only: legal sets recur, so cached)."""
    as_bytes = np.frombuffer(actions.to_bytes(_MASK_BYTES, "little"), np.uint8)
    mask = _BYTE_BITS.take(as_bytes, axis=0).reshape(-1)[:N_ACTIONS]
    mask.setflags(write=False)
    return mask


# Seat slots seen from each seat: _SLOTS[me][k] is the seat k places after ``me``.
_SLOTS = [[(me + k) % N_SEATS for k in range(N_SEATS)] for me in range(N_SEATS)]
_OBS = {name: s.start for name, s in OBS_SLICES.items()}
_CARDS_END = OBS_SLICES["unseen"].stop
_CARDS_LEFT = OBS_SLICES["cards_left"]
_SCORES = OBS_SLICES["scores"]
_CARDS_LEFT_CODE = [n / 15.0 for n in range(16)]  # as engine.observe scales cards_left
_PASSED = OBS_SLICES["passed"]
_THERMO_CODE = engine._THERMO_CODE


def _lowest_per_nibble(bits: int) -> int:
    """The lowest set bit of every nibble (the first suit held of each rank)."""
    below = ((bits << 1) & _NOT_BIT0) | ((bits << 2) & _HIGH2) | ((bits << 3) & _BIT3)
    return bits & ~below


def take_bits(hand: int, action: int, start_duty: bool, start_bit: int) -> int:
    """The cards a rank-level play takes from ``hand`` (int bit sets), as engine.take_bits."""
    taken = hand & _JOKERS[action]
    rest = hand & _SUITED
    need = _NEED[action]
    if start_duty and _USES_RANK0[action] and hand & start_bit:
        taken |= start_bit
        rest &= ~start_bit
        need = _NEED_AFTER_START[action]
    for k in range(_MAX_K[action]):
        chosen = _lowest_per_nibble(rest) & need[k]
        taken |= chosen
        rest ^= chosen
    return taken


class Game:
    """One Murlan game, stepped in place. Fields mirror ``engine.State`` for one game."""

    __slots__ = (
        "rules",
        "bits",
        "counts",
        "n_left",
        "played8",
        "unseen_base",
        "deal_bits",
        "phase",
        "to_act",
        "table",
        "table_seat",
        "passed",
        "place",
        "n_out",
        "start_duty",
        "hand_no",
        "dealer",
        "scores",
        "target",
        "winners",
        "points",
        "ex_last",
        "ex_first",
        "ex_last_gives",
        "ex_first_gives",
        "last_seat",
        "last_action",
        "last_bits",
        "_beats",
        "_start_bit",
        "_obs_base",
        "_obs_counts",
        "_left8",
        "_afford",
    )

    # ------------------------------------------------------------------ conversion

    @classmethod
    def from_state(cls, state: State, game: int = 0) -> Game:
        """Game ``game`` of a batched state, as a Game (the state is not changed)."""
        g = cls.__new__(cls)
        rules = state.rules
        g.rules = rules
        g.bits = [int(b) for b in state.card_bits[game]]
        g.counts = state.counts[game].copy()
        g.n_left = [int(n) for n in state.n_left[game]]
        # Seat s's played counts are rows s and s + 4, so the seats in turn order from any
        # seat are one contiguous slice.
        g.played8 = np.concatenate([state.played[game], state.played[game]])
        g.unseen_base = RANK_SIZE_I8 - state.played[game].sum(0, dtype=np.int8)
        g.deal_bits = [int(b) for b in state.deal_bits[game]]
        g.phase = int(state.phase[game])
        g.to_act = int(state.to_act[game])
        g.table = int(state.table[game])
        g.table_seat = int(state.table_seat[game])
        g.passed = [bool(p) for p in state.passed[game]]
        g.place = [int(p) for p in state.place[game]]
        g.n_out = int(state.n_out[game])
        g.start_duty = bool(state.start_duty[game])
        g.hand_no = int(state.hand_no[game])
        g.dealer = int(state.dealer[game])
        g.scores = [int(s) for s in state.scores[game]]
        g.target = int(state.target[game])
        g.winners = [bool(w) for w in state.winners[game]]
        g.points = [int(p) for p in state.points[game]]
        g.ex_last = int(state.ex_last[game])
        g.ex_first = int(state.ex_first[game])
        g.ex_last_gives = int(state.ex_last_gives[game])
        g.ex_first_gives = int(state.ex_first_gives[game])
        g.last_seat = int(state.last_seat[game])
        g.last_action = int(state.last_action[game])
        g.last_bits = int(state.last_bits[game])
        g._beats = _beats_sets(rules)
        g._start_bit = 1 << rules.start_card_id
        g._obs_base = g._observation_bases()
        g._obs_counts = np.empty(6 * N_RANKS, np.intp)  # observe's scratch space
        # The cards_left piece of each seat at s and s + 4, so any seat's view is one slice.
        g._left8 = np.array([_CARDS_LEFT_CODE[n] for n in g.n_left] * 2, np.float32)
        g._afford = [None] * N_SEATS  # each seat's affordable actions, until its hand changes
        return g

    def to_state(self) -> State:
        """The equivalent engine State: a batch of one game."""
        i8, i16 = np.int8, np.int16
        return State(
            rules=self.rules,
            card_bits=np.array([self.bits], np.uint64),
            counts=self.counts[None].copy(),
            n_left=np.array([self.n_left], i8),
            played=self.played8[None, :N_SEATS].copy(),
            deal_bits=np.array([self.deal_bits], np.uint64),
            phase=np.array([self.phase], i8),
            to_act=np.array([self.to_act], i8),
            table=np.array([self.table], i16),
            table_seat=np.array([self.table_seat], i8),
            passed=np.array([self.passed], bool),
            place=np.array([self.place], i8),
            n_out=np.array([self.n_out], i8),
            start_duty=np.array([self.start_duty], bool),
            hand_no=np.array([self.hand_no], i16),
            dealer=np.array([self.dealer], i8),
            scores=np.array([self.scores], i16),
            target=np.array([self.target], i16),
            winners=np.array([self.winners], bool),
            points=np.array([self.points], i16),
            ex_last=np.array([self.ex_last], i8),
            ex_first=np.array([self.ex_first], i8),
            ex_last_gives=np.array([self.ex_last_gives], i8),
            ex_first_gives=np.array([self.ex_first_gives], i8),
            last_seat=np.array([self.last_seat], i8),
            last_action=np.array([self.last_action], i16),
            last_bits=np.array([self.last_bits], np.uint64),
        )

    # ------------------------------------------------------------------ queries

    @property
    def hand_over(self) -> bool:
        """The current hand has finished (the match may be over too)."""
        return self.phase >= _HAND_OVER

    @property
    def done(self) -> bool:
        """The match is over."""
        return self.phase == _MATCH_OVER

    def legal_mask(self) -> np.ndarray:
        """(A,) bool: the legal actions of the seat to act (all False once the hand is over)."""
        phase = self.phase
        if phase == _PLAY:
            affordable = self._afford[self.to_act]
            if affordable is None:
                affordable = -1
                for afford, k in zip(_AFFORD, self.counts[self.to_act].tolist(), strict=True):
                    affordable &= afford[k]
                self._afford[self.to_act] = affordable
            actions = affordable & self._beats[self.table]
            if self.start_duty:
                actions &= _MUST_HOLD_START
            return _mask_of(actions).copy()
        mask = np.zeros(N_ACTIONS, bool)
        if phase == _EXCHANGE:
            counts = self.counts[self.to_act].copy()
            counts[_CARD_RANK[self.ex_last_gives]] -= 1
            mask[1:16] = (counts > 0) & GIVE_BACK_RANKS
        return mask

    def observe(self, me: int) -> np.ndarray:
        """(OBS_SIZE,) float32: ``engine.observe`` of this game from seat ``me``."""
        out = self._obs_base[me].copy()
        # my_hand, played (seat slots me, me+1, ...) and unseen: thermometer codes of 90 counts,
        # gathered in one go as complex128 items of 4 float32 each (see engine._THERMO_CODE).
        counts, mine = self._obs_counts, self.counts[me]
        counts[:N_RANKS] = mine
        counts[N_RANKS:-N_RANKS] = self.played8[me : me + N_SEATS].reshape(-1)
        np.subtract(self.unseen_base, mine, out=counts[-N_RANKS:])
        _THERMO_CODE.take(counts, out=out[:_CARDS_END].view(np.complex128))
        slots = _SLOTS[me]
        passed, place = self.passed, self.place
        out[_CARDS_LEFT] = self._left8[me : me + N_SEATS]
        if self.n_out:
            at = _OBS["places"]
            for k, s in enumerate(slots):
                if place[s] >= 0:
                    out[at + 4 * k + place[s]] = 1.0
        if self.table != PASS:
            out[_OBS["table_action"] + self.table] = 1.0
            out[_OBS["table_seat"] + (self.table_seat - me) % N_SEATS] = 1.0
        if any(passed):
            out[_PASSED] = [passed[s] for s in slots]
        if self.phase == _PLAY:
            out[_OBS["phase"]] = 1.0
            if self.start_duty and self.to_act == me:
                out[_OBS["start_duty"]] = 1.0
        elif self.phase == _EXCHANGE:
            out[_OBS["phase"] + 1] = 1.0
        if self.ex_last_gives >= 0 and me in (self.ex_first, self.ex_last):
            got, gave = _OBS["exchange"], _OBS["exchange"] + N_RANKS
            given = _CARD_RANK[self.ex_last_gives]
            back = _CARD_RANK[self.ex_first_gives] if self.ex_first_gives >= 0 else -1
            if self.ex_first == me:
                out[got + given] = 1.0
                if back >= 0:
                    out[gave + back] = 1.0
            if self.ex_last == me:
                out[gave + given] = 1.0
                if back >= 0:
                    out[got + back] = 1.0
        return out

    def _observation_bases(self) -> list[np.ndarray]:
        """Per observing seat, the pieces that change only between hands: scores, target, rules.

        They are filled once per hand (and again when it ends), so ``observe`` only writes
        what a decision can change.
        """
        bases = []
        for me in range(N_SEATS):
            out = _rules_piece(self.rules).copy()
            scores = [self.scores[s] for s in _SLOTS[me]]
            out[_SCORES] = [min(score, SCORE_SCALE) / SCORE_SCALE for score in scores]
            out[_OBS["target"] + TARGETS.index(self.target)] = 1.0
            out.setflags(write=False)
            bases.append(out)
        return bases

    # ------------------------------------------------------------------ stepping

    def step(self, action: int) -> None:
        """Apply the seat to act's action (trusted to be legal), as ``engine.step`` does."""
        if self.phase == _PLAY:
            self._step_play(action)
        elif self.phase == _EXCHANGE:
            self._step_exchange(action)

    def _step_exchange(self, action: int) -> None:
        first, last = self.to_act, self.ex_last
        hand = self.bits[first] & ~(1 << self.ex_last_gives)
        rank = action - 1
        back = rank * 4 + _FIRST_SUIT[(hand >> (4 * rank)) & 0xF]
        bit = 1 << back
        self.bits[first] &= ~bit
        self.bits[last] |= bit
        self.counts[first, rank] -= 1
        self.counts[last, rank] += 1
        self.n_left[first] -= 1
        self.n_left[last] += 1
        for seat in (first, last):
            self._left8[seat::N_SEATS] = _CARDS_LEFT_CODE[self.n_left[seat]]
            self._afford[seat] = None
        self.ex_first_gives = back
        self.phase = _PLAY
        self.to_act = last
        self.last_seat, self.last_action, self.last_bits = first, action, bit

    def _step_play(self, action: int) -> None:
        seat = self.to_act
        n_left, passed = self.n_left, self.passed
        taken = 0
        if action != PASS:
            taken = take_bits(self.bits[seat], action, self.start_duty, self._start_bit)
            self.bits[seat] &= ~taken
            cost = COST[action]
            self.counts[seat] -= cost
            self.played8[seat::N_SEATS] += cost
            self.unseen_base -= cost
            n_left[seat] -= _LENGTH[action]
            self._left8[seat::N_SEATS] = _CARDS_LEFT_CODE[n_left[seat]]
            self._afford[seat] = None
            if n_left[seat] == 0:
                self.place[seat] = self.n_out
                self.n_out += 1
            self.table, self.table_seat = action, seat
            if not self.rules.sticky_pass:
                passed[:] = (False,) * N_SEATS
            self.start_duty = False
        else:
            passed[seat] = True
        holder_bits = (n_left[0] > 0) | (n_left[1] > 0) << 1 | (n_left[2] > 0) << 2
        holder_bits |= (n_left[3] > 0) << 3
        passed_bits = passed[0] | passed[1] << 1 | passed[2] << 2 | passed[3] << 3
        eligible = holder_bits & ~passed_bits if self.rules.sticky_pass else holder_bits
        self.to_act = _NEXT_SEAT[seat][eligible]
        self.last_seat, self.last_action, self.last_bits = seat, action, taken
        if holder_bits & (holder_bits - 1) == 0:  # at most one seat holds cards: hand over
            self._end_hand()
            return
        table_seat = self.table_seat
        others = holder_bits & ~(1 << table_seat if table_seat >= 0 else 0)
        if self.table != PASS and others & ~passed_bits == 0:  # trick over
            if n_left[table_seat] > 0:
                self.to_act = table_seat
            else:
                self.to_act = _NEXT_SEAT[table_seat][holder_bits]
            self.table, self.table_seat = PASS, -1
            passed[:] = (False,) * N_SEATS

    def _end_hand(self) -> None:
        """Last place to the seat still holding cards, points, scores and the match result."""
        place = self.place
        for s in range(N_SEATS):
            if self.n_left[s] > 0 and place[s] < 0:
                place[s] = self.n_out
        self.n_out = N_SEATS
        self.points = [_POINTS[p] for p in place]
        self.scores = [s + p for s, p in zip(self.scores, self.points, strict=True)]
        target, winners = engine._match_result(
            np.array([self.scores], np.int16), np.array([self.target], np.int16), self.rules
        )
        self.target = int(target[0])
        self.winners = [bool(w) for w in winners[0]]
        self.phase = _MATCH_OVER if any(self.winners) else _HAND_OVER
        self._obs_base = self._observation_bases()


@functools.cache
def _beats_sets(rules: Rules) -> tuple[int, ...]:
    """Each row of ``beats_table(rules)`` as a Python-int action set."""
    return tuple(_as_int(w) for w in engine._beats_words(rules))


@functools.cache
def _rules_piece(rules: Rules) -> np.ndarray:
    """(OBS_SIZE,) float32 zeros with the rule-flag piece filled in."""
    out = np.zeros(OBS_SIZE, np.float32)
    out[OBS_SLICES["rules"]] = engine.rule_flags(rules)
    out.setflags(write=False)
    return out


__all__ = ["Game", "take_bits"]
