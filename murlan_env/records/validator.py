"""Checking and replaying ``murlan-record/1`` records through the engine: ``validate``, ``replay``.

A record is replayed hand by hand through the same engine that plays games: each deal goes
to ``engine.deal_from``/``engine.next_hand`` (which check it with ``dealing.check_deal``),
the engine makes the exchange's automatic moves, and every give-back and play is read by
``murlan_env.game.moves`` and applied with ``engine.step``. So the engine alone decides what is
legal; this module reads the JSON, compares the record with what the engine did, and names
the first difference with a location and a reason. The only place the record may differ from
the engine's choice is a suit: where RULES.md lets a player give "any" card of a rank in the
exchange, the record's card is followed (``_follow_card``).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

import numpy as np

from murlan_env.game import engine, moves
from murlan_env.game.cards import CARD_NAMES, CARD_RANK, N_CARDS, RANKS, cards_to_mask, format_cards
from murlan_env.game.dealing import deal_sizes
from murlan_env.game.engine import N_SEATS, Phase, State
from murlan_env.game.rules import Rules, RulesError
from murlan_env.records.files import EXCHANGE_KEYS, FORMAT, HAND_KEYS, RecordError, loads
from murlan_env.records.results import check_hand_result, check_totals
from murlan_env.records.values import card_ids, one_card, require_keys, seat, show, top_value

# A fixed generator for asking the engine who deals next (its deal is thrown away).
_PROBE_SEED = 0


@dataclasses.dataclass(frozen=True)
class Result:
    """Outcome of ``validate``: ``fault``/``reason`` are None for a valid record."""

    valid: bool
    fault: str | None = None
    reason: str | None = None

    def __str__(self) -> str:
        return "valid" if self.valid else f"invalid at {self.fault}: {self.reason}"


def validate(record: Mapping[str, Any] | str | bytes) -> Result:
    """Check a record (a dict, or its JSON text) against the format and the rules.

    Returns ``Result(valid=True)`` or the first fault in reading order with its reason; a bad
    record never raises.
    """
    try:
        _Replayer(record).run(keep_states=False)
    except RecordError as exc:
        return Result(False, exc.fault, exc.reason)
    return Result(True)


def replay(record: Mapping[str, Any] | str | bytes) -> list[State]:
    """Engine states (batch of one) a valid record passes through: each hand's start (after
    the automatic exchange moves) and the state after every decision. Raises RecordError."""
    return [point.state for point in _Replayer(record).run(keep_states=True)]


@dataclasses.dataclass(frozen=True)
class Decision:
    """A decision of a record: the state before play number ``plays`` (0-based, passes
    counted) of hand ``hand``, or before the give-back when ``exchange``."""

    hand: int
    plays: int
    exchange: bool
    state: State  # batch of one, waiting for this decision


def decisions(record: Mapping[str, Any] | str | bytes) -> list[Decision]:
    """Every decision a valid record reaches, in order, with the engine state at it (the
    golden test vectors of exported bundles are such positions). Raises RecordError."""
    points = _Replayer(record).run(keep_states=True)
    return [p for p in points if int(p.state.phase[0]) in _DECIDING]


# The phases as ints: numpy compares an array with an IntEnum member only after probing the
# member for its array protocols, which costs more than the comparison.
_PLAY = int(Phase.PLAY)
_DECIDING = (_PLAY, int(Phase.EXCHANGE))


class _Replayer:
    """Replays one record through the engine, raising RecordError at the first fault."""

    def __init__(self, record: Mapping[str, Any] | str | bytes) -> None:
        if isinstance(record, (str, bytes, bytearray)):
            record = loads(record)
        if not isinstance(record, Mapping):
            raise RecordError("json", f"a record is a JSON object, got {type(record).__name__}")
        self.record = record
        self.rules = Rules()
        self.states: list[Decision] = []
        self.keep = False

    def _keep(self, state: State, hand: int, plays: int, exchange: bool = False) -> None:
        if self.keep:
            self.states.append(Decision(hand, plays, exchange, state))

    def run(self, keep_states: bool) -> list[Decision]:
        self.keep = keep_states
        rec = self.record
        if rec.get("format") != FORMAT:
            got = show(rec["format"]) if "format" in rec else "nothing"
            raise RecordError("format", f'the format must be "{FORMAT}", got {got}')
        flags = top_value(rec, "rules")
        if not isinstance(flags, dict):
            raise RecordError("rules", f"rules must be an object of flags, got {show(flags)}")
        try:
            self.rules = Rules.from_dict(flags)
        except (RulesError, TypeError) as exc:
            raise RecordError("rules", str(exc)) from None
        hands = top_value(rec, "hands")
        if not isinstance(hands, list):
            raise RecordError("hands", f"hands must be a list of hands, got {show(hands)}")
        state = None
        for h, hand in enumerate(hands):
            state = self._hand(h, hand, state)
        check_totals(rec, state)
        return self.states

    # ------------------------------------------------------------------ one hand

    def _hand(self, h: int, hand: Any, prev: State | None) -> State:
        where = f"hand {h + 1}"
        if prev is not None:
            if prev.phase[0] == Phase.MATCH_OVER:
                won = [int(s) for s in np.flatnonzero(prev.winners[0])]
                raise RecordError(where, f"the match is over after hand {h} (winners {won})")
            if prev.phase[0] != Phase.HAND_OVER:
                raise RecordError(where, f"hand {h} is unfinished, so no hand can follow it")
        if not isinstance(hand, dict):
            raise RecordError(where, f"a hand must be an object, got {show(hand)}")
        require_keys(hand, HAND_KEYS, where, "hand")
        if not isinstance(hand["plays"], list):
            raise RecordError(where, f"plays must be a list, got {show(hand['plays'])}")
        state = self._deal(h, hand, prev)
        state, pending = self._exchange(h, hand["exchange"], state, prev)
        if pending and hand["plays"]:
            raise RecordError(
                f"hand {h + 1} exchange",
                f"first_gives is null, but seat {int(state.to_act[0])} must give a card back "
                "before the plays",
            )
        if not pending:
            self._keep(state, h, 0)
        for p, entry in enumerate(hand["plays"]):
            state = self._play(h, p, entry, state)
        check_hand_result(h, hand, state)
        return state

    def _deal(self, h: int, hand: dict, prev: State | None) -> State:
        """The hand's start from its dealer and deal, dealt by the engine."""
        where = f"hand {h + 1} deal"
        dealer = seat(hand["dealer"], where, "the dealer")
        if prev is not None:
            # The engine moves the dealer on: ask it by dealing a throwaway hand.
            probe = engine.next_hand(prev, np.random.default_rng(_PROBE_SEED))
            expected = int(probe.dealer[0])
            if dealer != expected:
                raise RecordError(
                    where, f"the dealer moves one seat each hand: expected {expected}, got {dealer}"
                )
        deal = hand["deal"]
        if not isinstance(deal, list) or len(deal) != N_SEATS:
            raise RecordError(where, f"the deal must be a list of 4 card strings, got {show(deal)}")
        masks = np.zeros((N_SEATS, N_CARDS), bool)
        for s, text in enumerate(deal):
            masks[s, card_ids(text, where, f"seat {s}'s cards")] = True
        try:
            if prev is None:
                return engine.deal_from(masks[None], dealer, self.rules)
            return engine.next_hand(prev, hands=masks[None])
        except ValueError as exc:  # dealing.check_deal: not a true deal for this dealer
            raise RecordError(where, _why_not_a_deal(masks, dealer) or str(exc)) from None

    def _exchange(self, h: int, ex: Any, state: State, prev: State | None) -> tuple[State, bool]:
        """Compare the record's exchange with the one the engine made; returns (state,
        give-back pending)."""
        where = f"hand {h + 1} exchange"
        last, first = int(state.ex_last[0]), int(state.ex_first[0])
        if last < 0:  # the engine made no exchange
            if ex is not None:
                raise RecordError(
                    where,
                    f"there is no exchange in this hand ({self._why_none(h, prev)}): write null",
                )
            return state, False
        if ex is None:
            raise RecordError(
                where,
                f"an exchange is due: seat {last} (last in hand {h}) and seat {first} (1st)",
            )
        if not isinstance(ex, dict):
            raise RecordError(where, f"the exchange must be an object or null, got {show(ex)}")
        require_keys(ex, EXCHANGE_KEYS, where, "exchange")
        if seat(ex["last"], where, "last") != last:
            raise RecordError(where, f"seat {last} was last in hand {h}, not seat {ex['last']}")
        if seat(ex["first"], where, "first") != first:
            raise RecordError(where, f"seat {first} was 1st in hand {h}, not seat {ex['first']}")

        # The last player's highest card: the engine gave one suit of that rank, any may go.
        gave = one_card(ex["last_gives"], where, "last_gives")
        engine_gave = int(state.ex_last_gives[0])
        if not state.deal[0, last, gave]:
            raise RecordError(where, f"seat {last} was not dealt {CARD_NAMES[gave]}")
        if CARD_RANK[gave] != CARD_RANK[engine_gave]:
            raise RecordError(
                where,
                f"seat {last} must give a card of their highest rank, "
                f"{RANKS[CARD_RANK[engine_gave]]}, not {CARD_NAMES[gave]}",
            )
        state = _follow_card(state, holder=last, taker=first, engine_card=engine_gave, card=gave)
        state = state.replace(ex_last_gives=np.array([gave], np.int8))

        back = ex["first_gives"]
        if state.phase[0] == Phase.EXCHANGE:  # the 1st player's choice: the next decision
            if back is None:  # the record stops at the give-back decision
                self._keep(state, h, 0, exchange=True)
                return state, True
            card = one_card(back, where, "first_gives")
            try:
                action = moves.read_give_back(state, card)
            except moves.IllegalMove as err:
                raise RecordError(where, str(err)) from None
            self._keep(state, h, 0, exchange=True)
            return engine.step(state, [action], cards=cards_to_mask([card])[None]), False

        # The engine gave back the 1st player's lowest card other than the one received.
        engine_back = int(state.ex_first_gives[0])
        no_choice = f"seat {first} holds no card {moves.GIVE_BACK} besides the one received, so"
        lowest = f"their lowest other card, a {RANKS[CARD_RANK[engine_back]]}"
        if back is None:
            raise RecordError(
                where,
                f"{no_choice} {lowest} ({CARD_NAMES[engine_back]}), goes back automatically: "
                "first_gives cannot be null",
            )
        card = one_card(back, where, "first_gives")
        if card == gave:
            raise RecordError(
                where, f"seat {first} cannot give back the card just received, {CARD_NAMES[card]}"
            )
        if not (state.cards[0, first, card] or card == engine_back):
            raise RecordError(where, f"seat {first} does not hold {CARD_NAMES[card]}")
        if CARD_RANK[card] != CARD_RANK[engine_back]:
            raise RecordError(
                where,
                f"{no_choice} they give back {lowest}, not {CARD_NAMES[card]}",
            )
        state = _follow_card(state, holder=first, taker=last, engine_card=engine_back, card=card)
        return state.replace(ex_first_gives=np.array([card], np.int8)), False

    def _why_none(self, h: int, prev: State | None) -> str:
        """Why the engine made no exchange in hand ``h``."""
        if prev is None:
            return "the first hand of a match has none"
        if self.rules.no_exchange:
            return "the no_exchange rule is on"
        prev_last = int(np.argmax(prev.place[0]))
        return f"seat {prev_last}, last in hand {h}, was dealt both jokers"

    def _play(self, h: int, p: int, entry: Any, state: State) -> State:
        where = f"hand {h + 1} play {p + 1}"
        if int(state.phase[0]) != _PLAY:
            raise RecordError(where, f"the hand is over after play {p}: no more plays")
        if not isinstance(entry, list) or len(entry) != 2:
            raise RecordError(where, f'a play is [seat, "cards"], got {show(entry)}')
        player = seat(entry[0], where, "the seat")
        to_act = int(state.to_act[0])
        if player != to_act:
            raise RecordError(where, f"it is seat {to_act}'s turn, not seat {player}'s")
        ids = card_ids(entry[1], where, "the cards")
        try:
            action = moves.read_play(state, ids)
        except moves.IllegalMove as err:
            raise RecordError(where, str(err)) from None
        state = engine.step(state, [action], cards=cards_to_mask(ids)[None])
        self._keep(state, h, p + 1)
        return state


def _why_not_a_deal(masks: np.ndarray, dealer: int) -> str | None:
    """Why (4, 54) bool hands are not a true deal for ``dealer``, or None if they are."""
    per_card = masks.sum(0)
    for c in np.flatnonzero(per_card > 1):
        seats = [int(s) for s in np.flatnonzero(masks[:, c])]
        return f"{CARD_NAMES[c]} is dealt to seats {seats[0]} and {seats[1]}"
    missing = np.flatnonzero(per_card == 0)
    if len(missing):
        return f"the deal lacks {format_cards(missing)}: it must hold all 54 cards"
    sizes, expected = masks.sum(1).tolist(), deal_sizes(dealer)
    if sizes != expected:
        return f"dealer {dealer} deals {expected} cards to seats 0-3, the deal has {sizes}"
    return None


def _follow_card(state: State, holder: int, taker: int, engine_card: int, card: int) -> State:
    """Make ``card`` the exchanged card instead of ``engine_card`` (same rank, other suit).

    The engine's automatic exchange moved ``engine_card`` from ``holder`` to ``taker``;
    RULES.md lets any card of that rank go, so swap the two back to follow the record. Counts
    per rank are unchanged.
    """
    if card == engine_card:
        return state
    cards = state.card_bits.copy()
    swap = np.uint64((1 << engine_card) | (1 << card))
    cards[0, holder] ^= swap
    cards[0, taker] ^= swap
    return state.replace(card_bits=cards)
