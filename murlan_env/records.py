"""Game records in the ``murlan-record/1`` format of RULES.md section 8: write, check, replay.

A record is one JSON object describing a match, finished or not: the rules in force, every
hand's dealer, deal, exchange and plays (passes included), and the finish orders, points,
scores, target and winners those plays imply. This module has three parts:

- ``Recorder`` watches a batch of games driven by the engine and writes one record per game.
  Usage::

      state = engine.init(rng, B, rules)        # or engine.deal_from(...)
      rec = Recorder(state)
      state = engine.step(state, actions); rec.update(state)   # after every step ...
      state = engine.next_hand(state, rng); rec.update(state)  # ... and every next_hand
      rec.record(game=0)                          # a JSON-ready dict

- ``validate(record) -> Result`` replays a record through the same engine (there is one
  implementation of the rules) and names the first fault, e.g. ``"hand 1 play 4"``, with a
  reason in words. Locations are ``format``, ``rules``, ``hands``, ``hand H`` (the hand object
  itself: its keys, a hand after the match is over or after an unfinished hand), ``hand H deal``,
  ``hand H exchange``, ``hand H play P``, ``hand H finish``, ``hand H points``, ``scores``,
  ``target``, ``winners`` and ``json`` (not a JSON object); H and P are 0-based indices into
  the JSON arrays. A bad record never raises: every fault comes back as a Result.
- ``replay(record)`` returns the engine states the record passes through (raises
  ``RecordError`` at the first fault); ``load``/``loads``/``save``/``dumps`` read and write
  record files; ``selfplay`` plays whole matches with bots and records them.

Suits matter in records but not to the engine's action ids: plays carry their concrete cards,
and where RULES.md lets a player give "any" card of a rank in the exchange the record's card
is used, not the engine's default suit.
"""

from __future__ import annotations

import dataclasses
import json
import os
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from murlan_env import engine
from murlan_env.cards import CARD_NAMES, CARD_RANK, RANKS, CardError, format_cards, parse_cards
from murlan_env.combos import (
    JOKER_PAIR,
    KIND,
    N_ACTIONS,
    PASS,
    RANKS_TEXT,
    Kind,
    action_of_counts,
    describe,
)
from murlan_env.engine import N_SEATS, Phase, State
from murlan_env.rules import Rules, RulesError

FORMAT = "murlan-record/1"
HAND_KEYS = ("dealer", "deal", "exchange", "plays", "finish", "points")
TOP_KEYS = ("format", "rules", "hands", "scores", "target", "winners")
EXCHANGE_KEYS = ("last", "first", "last_gives", "first_gives")


class RecordError(ValueError):
    """A record that breaks the format or the rules: ``fault`` says where, ``reason`` why."""

    def __init__(self, fault: str, reason: str) -> None:
        super().__init__(f"{fault}: {reason}")
        self.fault = fault
        self.reason = reason


@dataclasses.dataclass(frozen=True)
class Result:
    """Outcome of ``validate``: ``fault``/``reason`` are None for a valid record."""

    valid: bool
    fault: str | None = None
    reason: str | None = None

    def __str__(self) -> str:
        return "valid" if self.valid else f"invalid at {self.fault}: {self.reason}"


# --------------------------------------------------------------------------- card helpers

# Phases as plain ints for the per-step recorder (enum lookups cost microseconds each).
_EXCHANGE, _HAND_OVER = int(Phase.EXCHANGE), int(Phase.HAND_OVER)
assert int(Phase.PLAY) < _EXCHANGE < _HAND_OVER


def _ids(bits: int | np.integer) -> list[int]:
    """Card ids of a uint64 bit set, lowest first."""
    value = int(bits)
    return [c for c in range(54) if value >> c & 1]


# Ladder position of each rank within each straight, so straights are written in ladder order
# ("AS 2H 3D 4C 5S"); other plays are written lowest card first.
_LADDER_POS = np.zeros((N_ACTIONS, 15), np.int8)
for _a in range(N_ACTIONS):
    if KIND[_a] == Kind.STRAIGHT:
        for _i, _name in enumerate(RANKS_TEXT[_a].split()):
            _LADDER_POS[_a, RANKS.index(_name)] = _i


def play_text(cards, action: int | None = None) -> str:
    """Canonical string of a play: lowest card first, a straight in ladder order; "" is a pass."""
    ids = sorted(int(c) for c in cards)
    if action is not None and KIND[action] == Kind.STRAIGHT:
        ids.sort(key=lambda c: (_LADDER_POS[action, CARD_RANK[c]], c))
    return " ".join(CARD_NAMES[c] for c in ids)


def _finish_of(place: np.ndarray) -> list[int]:
    """Seats in finishing order from a (4,) array of places (-1 while still playing)."""
    return [int(s) for s in np.argsort(place, kind="stable") if place[s] >= 0]


# --------------------------------------------------------------------------- Recorder

_DECISION = np.dtype(
    [
        ("game", np.int32),
        ("hand", np.int16),  # state.hand_no when the decision was made
        ("seat", np.int8),
        ("action", np.int16),
        ("exchange", np.bool_),  # the exchange give-back rather than a play
        ("cards", np.uint64),
    ]
)
_HAND = np.dtype(
    [
        ("game", np.int32),
        ("hand", np.int16),
        ("dealer", np.int8),
        ("deal", np.uint64, (4,)),
        ("ex", np.int8, (4,)),  # last, first, last_gives, first_gives (-1: none / pending)
    ]
)
_END = np.dtype(
    [("game", np.int32), ("hand", np.int16), ("place", np.int8, (4,)), ("points", np.int16, (4,))]
)


class Recorder:
    """Builds ``murlan-record/1`` records for a batch of games as the engine drives them.

    Create it right after ``engine.init``/``engine.deal_from`` and call ``update`` with every
    new state (after each ``step`` and each ``next_hand``). Each update finds, with array
    operations over the batch, the games that made a decision (their ``last_seat``,
    ``last_action`` and ``last_cards`` changed within the same hand), the games that finished
    a hand, and the games that started a new one (``hand_no`` grew), and logs them as compact
    events; ``record(game)`` turns one game's events into a dict. An update with an unchanged
    state (or games that did not move) logs nothing, so the batch can be mixed.
    """

    def __init__(self, state: State) -> None:
        self.rules = state.rules
        self.state = state
        self._decisions: list[np.ndarray] = []
        self._decision_rows: list[tuple] = []  # from add_decision, not yet in _decisions
        self._end_rows: list[tuple] = []  # from add_hand_end, not yet in _ends
        self._hands: list[np.ndarray] = [self._hand_events(state, np.ones(state.batch_size, bool))]
        self._ends: list[np.ndarray] = []
        self._cache: tuple | None = None

    @property
    def batch_size(self) -> int:
        return self.state.batch_size

    def update(self, state: State) -> None:
        """Log what changed from the previous state to ``state`` (same batch, same rules)."""
        prev = self.state
        if state is prev:
            return
        self._flush()
        if state.batch_size != prev.batch_size or state.rules != prev.rules:
            raise ValueError("Recorder.update needs the same batch of games and the same rules")
        same_hand = state.hand_no == prev.hand_no
        changed = (
            (state.last_seat != prev.last_seat)
            | (state.last_action != prev.last_action)
            | (state.last_bits != prev.last_bits)
        )
        waiting = prev.phase <= _EXCHANGE
        decided = waiting & same_hand & changed & (state.last_seat >= 0)
        if decided.any():
            g = np.flatnonzero(decided)
            ev = np.zeros(len(g), _DECISION)
            ev["game"] = g
            ev["hand"] = state.hand_no[g]
            ev["seat"] = state.last_seat[g]
            ev["action"] = state.last_action[g]
            ev["exchange"] = prev.phase[g] == _EXCHANGE
            ev["cards"] = state.last_bits[g]
            self._decisions.append(ev)
            ended = decided & (state.phase >= _HAND_OVER) & (prev.phase < _HAND_OVER)
            if ended.any():
                e = np.flatnonzero(ended)
                end = np.zeros(len(e), _END)
                end["game"] = e
                end["hand"] = state.hand_no[e]
                end["place"] = state.place[e]
                end["points"] = state.points[e]
                self._ends.append(end)
        new_hand = state.hand_no != prev.hand_no
        if new_hand.any():
            self._hands.append(self._hand_events(state, new_hand))
        self.state = state
        self._cache = None

    def add_decision(
        self, game: int, hand: int, seat: int, action: int, exchange: bool, cards: int
    ) -> None:
        """Log one decision directly, for drivers that step a game without building States.

        ``cards`` is the int bit set of the cards played (or given back: ``exchange``). Such a
        driver logs every decision and hand end itself, gives ``update`` only the states that
        start a hand, and calls ``sync`` with the current state before ``record``.
        """
        self._decision_rows.append((game, hand, seat, action, exchange, cards))
        self._cache = None

    def add_hand_end(self, game: int, hand: int, place, points) -> None:
        """Log the end of a hand (finishing places and points), as ``add_decision``."""
        self._end_rows.append((game, hand, tuple(place), tuple(points)))
        self._cache = None

    def sync(self, state: State) -> None:
        """Take ``state`` as the current state without logging anything from it."""
        self._flush()
        self.state = state
        self._cache = None

    def _flush(self) -> None:
        """Move the directly logged rows into the event arrays, keeping their order."""
        if self._decision_rows:
            self._decisions.append(np.array(self._decision_rows, _DECISION))
            self._decision_rows = []
        if self._end_rows:
            self._ends.append(np.array(self._end_rows, _END))
            self._end_rows = []

    @staticmethod
    def _hand_events(state: State, games: np.ndarray) -> np.ndarray:
        g = np.flatnonzero(games)
        ev = np.zeros(len(g), _HAND)
        ev["game"] = g
        ev["hand"] = state.hand_no[g]
        ev["dealer"] = state.dealer[g]
        ev["deal"] = state.deal_bits[g]
        ev["ex"] = np.stack(
            [state.ex_last[g], state.ex_first[g], state.ex_last_gives[g], state.ex_first_gives[g]],
            axis=1,
        )
        return ev

    def _grouped(self) -> tuple:
        """Events of each kind concatenated and stably sorted by game, with group bounds."""
        if self._cache is None:
            self._flush()
            out = []
            for chunks, dtype in (
                (self._hands, _HAND),
                (self._decisions, _DECISION),
                (self._ends, _END),
            ):
                ev = np.concatenate(chunks) if chunks else np.zeros(0, dtype)
                ev = ev[np.argsort(ev["game"], kind="stable")]
                bounds = np.searchsorted(ev["game"], np.arange(self.batch_size + 1))
                out.append((ev, bounds))
            self._cache = tuple(out)
        return self._cache

    def record(self, game: int = 0) -> dict[str, Any]:
        """The JSON-ready ``murlan-record/1`` dict of one game, as far as it has been played."""
        (hands_ev, hb), (dec_ev, db), (end_ev, eb) = self._grouped()
        my_hands = hands_ev[hb[game] : hb[game + 1]]
        my_decisions = dec_ev[db[game] : db[game + 1]]
        my_ends = {int(e["hand"]): e for e in end_ev[eb[game] : eb[game + 1]]}
        state = self.state
        hands: list[dict[str, Any]] = []
        by_no: dict[int, dict[str, Any]] = {}
        for ev in my_hands:
            last, first, last_gives, first_gives = (int(x) for x in ev["ex"])
            exchange = None
            if last >= 0:
                exchange = {
                    "last": last,
                    "first": first,
                    "last_gives": CARD_NAMES[last_gives],
                    "first_gives": CARD_NAMES[first_gives] if first_gives >= 0 else None,
                }
            hand = {
                "dealer": int(ev["dealer"]),
                "deal": [format_cards(_ids(b)) for b in ev["deal"]],
                "exchange": exchange,
                "plays": [],
                "finish": [],
                "points": None,
            }
            hands.append(hand)
            by_no[int(ev["hand"])] = hand
        for ev in my_decisions:
            hand = by_no[int(ev["hand"])]
            cards = _ids(ev["cards"])
            if ev["exchange"]:
                hand["exchange"]["first_gives"] = CARD_NAMES[cards[0]]
            else:
                hand["plays"].append([int(ev["seat"]), play_text(cards, int(ev["action"]))])
        for no, end in my_ends.items():
            by_no[no]["finish"] = _finish_of(end["place"])
            by_no[no]["points"] = [int(p) for p in end["points"]]
        current = by_no.get(int(state.hand_no[game]))
        if current is not None:
            current["finish"] = _finish_of(state.place[game])
            if state.phase[game] >= Phase.HAND_OVER:
                current["points"] = [int(p) for p in state.points[game]]
        return {
            "format": FORMAT,
            "rules": self.rules.to_dict(),
            "hands": hands,
            "scores": [int(s) for s in state.scores[game]],
            "target": int(state.target[game]),
            "winners": [int(s) for s in np.flatnonzero(state.winners[game])],
        }

    def records(self) -> list[dict[str, Any]]:
        """The records of every game in the batch."""
        return [self.record(g) for g in range(self.batch_size)]


def selfplay(
    rng: np.random.Generator,
    n_games: int = 1,
    rules: Rules | None = None,
    bots: Sequence[Any] | None = None,
    max_hands: int | None = None,
) -> Recorder:
    """Play ``n_games`` whole matches as one batch and return their Recorder.

    ``bots`` gives one ``Bot`` per seat (default: uniformly random legal actions). Games stop
    when the match is over, or after ``max_hands`` hands (then the last hand is finished but the
    match is not). All randomness (deals, dealers, bots) comes from ``rng``.
    """
    state = engine.init(rng, n_games, rules)
    rec = Recorder(state)
    while True:
        over = state.phase == Phase.HAND_OVER
        if max_hands is not None:
            over &= state.hand_no + 1 < max_hands
        if over.any():
            state = _next(state, over, rng)
            rec.update(state)
            continue
        waiting = state.phase <= Phase.EXCHANGE
        if not waiting.any():
            return rec
        mask = engine.legal_action_mask(state)
        if bots is None:
            actions = engine.random_legal_actions(mask, rng)
        else:
            actions = np.zeros(state.batch_size, np.int16)
            obs = engine.observe(state)
            for seat, bot in enumerate(bots):
                g = np.flatnonzero(waiting & (state.to_act == seat))
                if len(g):
                    actions[g] = bot.act(obs[g], mask[g], rng)
        state = engine.step(state, actions)
        rec.update(state)


def _next(state: State, moving: np.ndarray, rng: np.random.Generator) -> State:
    """next_hand for the ``moving`` games only (others keep their HAND_OVER phase)."""
    if moving.all() or (moving == (state.phase == Phase.HAND_OVER)).all():
        return engine.next_hand(state, rng=rng)
    # Hold back the games that reached max_hands by masking their phase for the call.
    held = (state.phase == Phase.HAND_OVER) & ~moving
    phase = state.phase.copy()
    phase[held] = Phase.MATCH_OVER
    out = engine.next_hand(state.replace(phase=phase), rng=rng)
    phase = out.phase.copy()
    phase[held] = Phase.HAND_OVER
    return out.replace(phase=phase)


# --------------------------------------------------------------------------- reading/writing


def loads(text: str | bytes) -> dict[str, Any]:
    """Parse a record's JSON text; malformed JSON or a non-object raises RecordError("json")."""
    try:
        obj = json.loads(text)
    except (ValueError, RecursionError) as exc:  # JSONDecodeError and bad UTF-8 are ValueErrors
        raise RecordError("json", f"not valid JSON: {exc}") from None
    if not isinstance(obj, dict):
        raise RecordError("json", f"a record is a JSON object, got a JSON {type(obj).__name__}")
    return obj


def load(path: str | os.PathLike) -> dict[str, Any]:
    """Read a record file (OSError for a missing file; RecordError for bad JSON)."""
    with open(path, "rb") as f:
        return loads(f.read())


def dumps(record: Mapping[str, Any]) -> str:
    """JSON text of a record, one play per line and short lists on one line."""

    def scalar(x):
        return not isinstance(x, (dict, list, tuple))

    def write(x, indent):
        if scalar(x):
            return json.dumps(x)
        items = list(x.values()) if isinstance(x, dict) else list(x)
        if all(scalar(v) for v in items):
            return json.dumps(x, separators=(", ", ": "))
        pad, inner = " " * indent, " " * (indent + 2)
        if isinstance(x, dict):
            body = [f"{inner}{json.dumps(k)}: {write(v, indent + 2)}" for k, v in x.items()]
            return "{\n" + ",\n".join(body) + f"\n{pad}}}"
        body = [f"{inner}{write(v, indent + 2)}" for v in x]
        return "[\n" + ",\n".join(body) + f"\n{pad}]"

    return write(record, 0) + "\n"


def save(record: Mapping[str, Any], path: str | os.PathLike) -> None:
    """Write a record file (see ``dumps``)."""
    with open(path, "w", encoding="utf-8") as f:
        f.write(dumps(record))


# --------------------------------------------------------------------------- validation


def validate(record: Mapping[str, Any] | str | bytes) -> Result:
    """Check a record (a dict, or its JSON text) against the format and the rules.

    Returns ``Result(valid=True)`` or the first fault in reading order with its reason.
    """
    try:
        _Replayer(record).run(keep_states=False)
    except RecordError as exc:
        return Result(False, exc.fault, exc.reason)
    return Result(True)


def replay(record: Mapping[str, Any] | str | bytes) -> list[State]:
    """Engine states (batch of one) a valid record passes through: each hand's start (after
    the automatic exchange moves) and the state after every decision. Raises RecordError."""
    return _Replayer(record).run(keep_states=True)


def _show(x: Any, limit: int = 80) -> str:
    """A value as JSON for messages, shortened; never raises on odd Python objects."""
    try:
        text = json.dumps(x)
    except (TypeError, ValueError, RecursionError):
        text = repr(x)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _required(record: Mapping[str, Any], key: str) -> Any:
    """A top-level value; a missing key is a fault at that key, found in reading order."""
    if key not in record:
        raise RecordError(key, f"the record has no {key!r} key")
    return record[key]


def _is_int(x: Any) -> bool:
    return type(x) is int  # JSON integers only: not bools, not 3.0


def _seat(x: Any, where: str, what: str) -> int:
    if not _is_int(x) or not 0 <= x < N_SEATS:
        raise RecordError(where, f"{what} must be a seat, an integer 0-3, got {_show(x)}")
    return x


def _one_card(x: Any, where: str, what: str) -> int:
    if not isinstance(x, str):
        raise RecordError(where, f'{what} must be one card such as "7D", got {_show(x)}')
    try:
        ids = parse_cards(x)
    except CardError as exc:
        raise RecordError(where, f"{what}: {exc}") from None
    if len(ids) != 1:
        raise RecordError(where, f"{what} must be exactly one card, got {x!r}")
    return ids[0]


def _int_list(x: Any, where: str, what: str, length: int | None = None) -> list[int]:
    if not isinstance(x, list) or not all(_is_int(v) for v in x):
        raise RecordError(where, f"{what} must be a list of integers, got {_show(x)}")
    if length is not None and len(x) != length:
        raise RecordError(where, f"{what} must list {length} integers, got {len(x)}")
    return x


class _Replayer:
    """Replays one record through the engine, raising RecordError at the first fault."""

    def __init__(self, record: Mapping[str, Any] | str | bytes) -> None:
        if isinstance(record, (str, bytes, bytearray)):
            record = loads(record)
        if not isinstance(record, Mapping):
            raise RecordError("json", f"a record is a JSON object, got {type(record).__name__}")
        self.record = record
        self.states: list[State] = []
        self.keep = False

    def _keep(self, state: State) -> None:
        if self.keep:
            self.states.append(state)

    def run(self, keep_states: bool) -> list[State]:
        self.keep = keep_states
        rec = self.record
        if rec.get("format") != FORMAT:
            got = _show(rec["format"]) if "format" in rec else "nothing"
            raise RecordError("format", f'the format must be "{FORMAT}", got {got}')
        flags = _required(rec, "rules")
        if not isinstance(flags, dict):
            raise RecordError("rules", f"rules must be an object of flags, got {_show(flags)}")
        try:
            self.rules = Rules.from_dict(flags)
        except (RulesError, TypeError) as exc:
            raise RecordError("rules", str(exc)) from None
        hands = _required(rec, "hands")
        if not isinstance(hands, list):
            raise RecordError("hands", f"hands must be a list of hands, got {_show(hands)}")
        state = None
        for h, hand in enumerate(hands):
            state = self._hand(h, hand, state)
        self._totals(state)
        return self.states

    # ------------------------------------------------------------------ one hand

    def _hand(self, h: int, hand: Any, prev: State | None) -> State:
        where = f"hand {h}"
        if prev is not None:
            if prev.phase[0] == Phase.MATCH_OVER:
                won = [int(s) for s in np.flatnonzero(prev.winners[0])]
                raise RecordError(where, f"the match is over after hand {h - 1} (winners {won})")
            if prev.phase[0] != Phase.HAND_OVER:
                raise RecordError(where, f"hand {h - 1} is unfinished, so no hand can follow it")
        if not isinstance(hand, dict):
            raise RecordError(where, f"a hand must be an object, got {_show(hand)}")
        for key in HAND_KEYS:
            if key not in hand:
                raise RecordError(where, f"the hand has no {key!r} key")
        if not isinstance(hand["plays"], list):
            raise RecordError(where, f"plays must be a list, got {_show(hand['plays'])}")
        state = self._deal(h, hand, prev)
        state, pending = self._exchange(h, hand["exchange"], state)
        if pending and hand["plays"]:
            raise RecordError(
                f"hand {h} exchange",
                f"first_gives is null, but seat {int(state.to_act[0])} must give a card back "
                "before the plays",
            )
        self._keep(state)
        for p, entry in enumerate(hand["plays"]):
            state = self._play(h, p, entry, state)
        self._result(h, hand, state)
        return state

    def _deal(self, h: int, hand: dict, prev: State | None) -> State:
        where = f"hand {h} deal"
        dealer = hand["dealer"]
        if not _is_int(dealer) or not 0 <= dealer < N_SEATS:
            raise RecordError(where, f"the dealer must be a seat 0-3, got {_show(dealer)}")
        if prev is not None:
            expected = (int(prev.dealer[0]) + 1) % N_SEATS
            if dealer != expected:
                raise RecordError(
                    where,
                    f"the dealer moves one seat each hand: expected {expected}, got {dealer}",
                )
        deal = hand["deal"]
        if not isinstance(deal, list) or len(deal) != N_SEATS:
            raise RecordError(
                where, f"the deal must be a list of 4 card strings, got {_show(deal)}"
            )
        masks = np.zeros((N_SEATS, 54), bool)
        for seat, text in enumerate(deal):
            if not isinstance(text, str):
                raise RecordError(where, f"seat {seat}'s cards must be a string, got {_show(text)}")
            try:
                ids = parse_cards(text)
            except CardError as exc:
                raise RecordError(where, f"seat {seat}: {exc}") from None
            for c in ids:
                if masks[:, c].any():
                    other = int(np.argmax(masks[:, c]))
                    raise RecordError(
                        where, f"{CARD_NAMES[c]} is dealt to seats {other} and {seat}"
                    )
            masks[seat, ids] = True
        missing = np.flatnonzero(~masks.any(0))
        if len(missing):
            raise RecordError(
                where, f"the deal lacks {format_cards(missing)}: it must hold all 54 cards"
            )
        sizes = masks.sum(1).tolist()
        expected_sizes = engine.deal_sizes(dealer)
        if sizes != expected_sizes:
            raise RecordError(
                where,
                f"dealer {dealer} deals {expected_sizes} cards to seats 0-3, the deal has {sizes}",
            )
        if prev is None:
            return engine.deal_from(masks[None], dealer, self.rules)
        return engine.next_hand(prev, hands=masks[None])

    def _exchange(self, h: int, ex: Any, state: State) -> tuple[State, bool]:
        """Check the record's exchange against the one due; returns (state, give-back pending)."""
        where = f"hand {h} exchange"
        last, first = int(state.ex_last[0]), int(state.ex_first[0])
        if last < 0:
            if ex is not None:
                if h == 0:
                    why = "the first hand of a match has none"
                elif self.rules.no_exchange:
                    why = "the no_exchange rule is on"
                else:
                    prev_last = int(np.argmax(state.deal[0, :, 52:].all(1)))
                    why = f"seat {prev_last}, last in hand {h - 1}, was dealt both jokers"
                raise RecordError(where, f"there is no exchange in this hand ({why}): write null")
            return state, False
        if ex is None:
            raise RecordError(
                where,
                f"an exchange is due: seat {last} (last in hand {h - 1}) and seat {first} (1st)",
            )
        if not isinstance(ex, dict):
            raise RecordError(where, f"the exchange must be an object or null, got {_show(ex)}")
        for key in EXCHANGE_KEYS:
            if key not in ex:
                raise RecordError(where, f"the exchange has no {key!r} key")
        if _seat(ex["last"], where, "last") != last:
            raise RecordError(where, f"seat {last} was last in hand {h - 1}, not seat {ex['last']}")
        if _seat(ex["first"], where, "first") != first:
            raise RecordError(
                where, f"seat {first} was 1st in hand {h - 1}, not seat {ex['first']}"
            )

        # The last player's card: any card of their highest rank (the engine took one suit).
        gave = _one_card(ex["last_gives"], where, "last_gives")
        auto_gave = int(state.ex_last_gives[0])
        if not state.deal[0, last, gave]:
            raise RecordError(where, f"seat {last} was not dealt {CARD_NAMES[gave]}")
        if CARD_RANK[gave] != CARD_RANK[auto_gave]:
            raise RecordError(
                where,
                f"seat {last} must give a card of their highest rank, "
                f"{RANKS[CARD_RANK[auto_gave]]}, not {CARD_NAMES[gave]}",
            )
        state = _substitute(state, holder=last, taker=first, engine_card=auto_gave, card=gave)
        state = state.replace(ex_last_gives=np.array([gave], np.int8))

        back = ex["first_gives"]
        auto_back = int(state.ex_first_gives[0])
        if state.phase[0] == Phase.EXCHANGE:  # the 1st player's choice
            if back is None:
                return state, True
            card = _one_card(back, where, "first_gives")
            if not state.cards[0, first, card]:
                raise RecordError(where, f"seat {first} does not hold {CARD_NAMES[card]}")
            if card == gave:
                raise RecordError(
                    where,
                    f"seat {first} cannot give back the card just received, {CARD_NAMES[card]}",
                )
            action = 1 + int(CARD_RANK[card])
            if not engine.legal_action_mask(state)[0, action]:
                raise RecordError(
                    where, f"the give-back must be ranked 3 to 10, {CARD_NAMES[card]} is not"
                )
            cards = np.zeros((1, 54), bool)
            cards[0, card] = True
            self._keep(state)
            return engine.step(state, np.array([action]), cards=cards), False
        # Automatic give-back: the 1st player's lowest card other than the one received.
        if back is None:
            raise RecordError(
                where,
                f"seat {first} holds no card ranked 3 to 10, so their lowest card goes back "
                f"automatically ({CARD_NAMES[auto_back]}): first_gives cannot be null",
            )
        card = _one_card(back, where, "first_gives")
        if not state.deal[0, first, card]:
            raise RecordError(where, f"seat {first} does not hold {CARD_NAMES[card]}")
        if CARD_RANK[card] != CARD_RANK[auto_back]:
            raise RecordError(
                where,
                f"seat {first} holds no card ranked 3 to 10 besides the one received, so they give "
                f"back their lowest card, a {RANKS[CARD_RANK[auto_back]]}, not {CARD_NAMES[card]}",
            )
        state = _substitute(state, holder=first, taker=last, engine_card=auto_back, card=card)
        return state.replace(ex_first_gives=np.array([card], np.int8)), False

    def _play(self, h: int, p: int, entry: Any, state: State) -> State:
        where = f"hand {h} play {p}"
        if state.phase[0] != Phase.PLAY:
            raise RecordError(where, f"the hand is over after play {p - 1}: no more plays")
        if not isinstance(entry, (list, tuple)) or len(entry) != 2:
            raise RecordError(where, f'a play is [seat, "cards"], got {_show(entry)}')
        seat, text = entry
        seat = _seat(seat, where, "the seat")
        to_act = int(state.to_act[0])
        if seat != to_act:
            raise RecordError(where, f"it is seat {to_act}'s turn, not seat {seat}'s")
        if not isinstance(text, str):
            raise RecordError(
                where, f'the cards must be a string ("" for a pass), got {_show(text)}'
            )
        try:
            ids = parse_cards(text)
        except CardError as exc:
            raise RecordError(where, str(exc)) from None
        hand = state.cards[0, seat]
        lacking = [c for c in ids if not hand[c]]
        if lacking:
            raise RecordError(where, f"seat {seat} does not hold {format_cards(lacking)}")
        cards = np.zeros(54, bool)
        cards[ids] = True
        action = action_of_counts(np.bincount(CARD_RANK[ids], minlength=15))
        if action is None:
            raise RecordError(where, f"{text!r} is not a combination")
        if not engine.legal_action_mask(state)[0, action]:
            raise RecordError(where, self._illegal(state, action))
        start = self.rules.start_card_id
        if state.start_duty[0] and action != PASS and not cards[start]:
            raise RecordError(
                where, f"the first play of the match must contain {CARD_NAMES[start]}"
            )
        state = engine.step(state, np.array([action]), cards=cards[None])
        self._keep(state)
        return state

    def _illegal(self, state: State, action: int) -> str:
        """Why a combination the seat holds is not legal here."""
        table = int(state.table[0])
        start = self.rules.start_card_id
        if action == PASS:
            return "the leader cannot pass"
        if action == JOKER_PAIR and not self.rules.joker_pair:
            return "BJ RJ is not a combination unless the joker_pair rule is on"
        if state.start_duty[0]:
            return f"the first play of the match must contain {CARD_NAMES[start]}"
        why = f"{describe(action)} does not beat {describe(table)}"
        if self.rules.straight_plus_one and KIND[table] == KIND[action] == Kind.STRAIGHT:
            why += " (straight_plus_one: only the straight one step higher does)"
        return why

    def _result(self, h: int, hand: dict, state: State) -> None:
        over = state.phase[0] >= Phase.HAND_OVER
        finish = _finish_of(state.place[0])
        given = _int_list(hand["finish"], f"hand {h} finish", "finish")
        if given != finish:
            what = "finish" if over else "finish so far (the hand is unfinished)"
            raise RecordError(f"hand {h} finish", f"the plays give {what} {finish}, not {given}")
        where = f"hand {h} points"
        if not over:
            if hand["points"] is not None:
                raise RecordError(where, "the hand is unfinished, so points must be null")
            return
        points = [int(p) for p in state.points[0]]
        if hand["points"] is None:
            raise RecordError(where, f"the hand is finished: points must be {points}")
        if _int_list(hand["points"], where, "points", 4) != points:
            raise RecordError(
                where, f"the finish {finish} gives points {points}, not {hand['points']}"
            )

    def _totals(self, state: State | None) -> None:
        rec = self.record
        for key in ("scores", "target", "winners"):
            _required(rec, key)
        scores = [0] * N_SEATS if state is None else [int(s) for s in state.scores[0]]
        target = engine.TARGETS[0] if state is None else int(state.target[0])
        winners = [] if state is None else [int(s) for s in np.flatnonzero(state.winners[0])]
        if _int_list(rec["scores"], "scores", "scores", N_SEATS) != scores:
            raise RecordError(
                "scores", f"the finished hands give scores {scores}, not {rec['scores']}"
            )
        if not _is_int(rec["target"]):
            raise RecordError(
                "target", f"the target must be an integer, got {_show(rec['target'])}"
            )
        if rec["target"] != target:
            raise RecordError(
                "target", f"the finished hands give target {target}, not {rec['target']}"
            )
        given = _int_list(rec["winners"], "winners", "winners")
        if sorted(given) != winners or len(set(given)) != len(given):
            if winners:
                why = f"the match is won by {winners}"
            else:
                why = "the match goes on, so winners must be []"
            raise RecordError("winners", f"{why}, not {given}")


def _substitute(state: State, holder: int, taker: int, engine_card: int, card: int) -> State:
    """Make ``card`` the exchanged card instead of ``engine_card`` (same rank, other suit).

    The engine's automatic exchange moves moved ``engine_card`` from ``holder`` to ``taker``;
    RULES.md lets any card of that rank go, so swap the two back to follow the record. Counts
    per rank are unchanged.
    """
    if card == engine_card:
        return state
    cards = state.cards.copy()
    cards[0, taker, engine_card], cards[0, holder, engine_card] = False, True
    cards[0, holder, card], cards[0, taker, card] = False, True
    return state.replace(cards=cards)
