"""Writing ``murlan-record/1`` records from games the engine drives: ``Recorder``, ``play_text``.

Usage::

    state = engine.init(rng, B, rules)        # or engine.deal_from(...)
    rec = Recorder(state)
    state = engine.step(state, actions); rec.update(state)   # after every step ...
    state = engine.next_hand(state, rng); rec.update(state)  # ... and every next_hand
    rec.record(game=0)                          # a JSON-ready dict

Plays are written with their concrete cards in canonical order (``play_text``), so a record
says which suits were played even though the engine's action ids name ranks only.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Any

import numpy as np

from murlan_env.game.cards import CARD_NAMES, CARD_RANK, RANKS, format_cards
from murlan_env.game.combos import KIND, N_ACTIONS, RANKS_TEXT, Kind
from murlan_env.game.engine import Phase, State
from murlan_env.records.files import FORMAT, PLAYERS_KEY
from murlan_env.records.files import players as read_players

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


@functools.lru_cache(maxsize=1 << 16)
def _play_of_bits(bits: int, action: int) -> str:
    """``play_text`` of a play's card bit set (cached: records are written again and again
    for bots that read the match so far)."""
    return play_text(_ids(bits), action)


@functools.lru_cache(maxsize=1 << 14)
def _cards_of_bits(bits: int) -> str:
    """``format_cards`` of a card bit set (cached, as ``_play_of_bits``)."""
    return format_cards(_ids(bits))


def finish_order(place: np.ndarray) -> list[int]:
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

    ``players`` (4 labels, seat order: "you", a level, a bot spec) is written as the record's
    optional ``players`` key, which readers that do not know it ignore (RULES.md 8: other
    keys are ignored); a replay names the seats by it.
    """

    def __init__(self, state: State, players: Sequence[str] | None = None) -> None:
        self.players = None if players is None else read_players({PLAYERS_KEY: list(players)})
        if players is not None and self.players is None:
            raise ValueError(f"players names the 4 seats with non-empty strings, got {players!r}")
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
        driver logs every decision, hand end and hand start itself, and calls ``sync`` with
        the current state before ``record``.
        """
        self._decision_rows.append((game, hand, seat, action, exchange, cards))
        self._cache = None

    def add_hand_end(self, game: int, hand: int, place, points) -> None:
        """Log the end of a hand (finishing places and points), as ``add_decision``."""
        self._end_rows.append((game, hand, tuple(place), tuple(points)))
        self._cache = None

    def add_hand_start(self, state: State) -> None:
        """Log the start of a new hand in every game of ``state``, as ``add_decision``."""
        self._flush()
        self._hands.append(self._hand_events(state, np.ones(state.batch_size, bool)))
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
                "deal": [_cards_of_bits(int(b)) for b in ev["deal"]],
                "exchange": exchange,
                "plays": [],
                "finish": [],
                "points": None,
            }
            hands.append(hand)
            by_no[int(ev["hand"])] = hand
        for ev in my_decisions:
            hand = by_no[int(ev["hand"])]
            if ev["exchange"]:
                hand["exchange"]["first_gives"] = CARD_NAMES[_ids(ev["cards"])[0]]
            else:
                text = _play_of_bits(int(ev["cards"]), int(ev["action"]))
                hand["plays"].append([int(ev["seat"]), text])
        for no, end in my_ends.items():
            by_no[no]["finish"] = finish_order(end["place"])
            by_no[no]["points"] = [int(p) for p in end["points"]]
        current = by_no.get(int(state.hand_no[game]))
        if current is not None:
            current["finish"] = finish_order(state.place[game])
            if state.phase[game] >= Phase.HAND_OVER:
                current["points"] = [int(p) for p in state.points[game]]
        players = {} if self.players is None else {PLAYERS_KEY: list(self.players)}
        return {
            "format": FORMAT,
            "rules": self.rules.to_dict(),
            **players,
            "hands": hands,
            "scores": [int(s) for s in state.scores[game]],
            "target": int(state.target[game]),
            "winners": [int(s) for s in np.flatnonzero(state.winners[game])],
        }

    def records(self) -> list[dict[str, Any]]:
        """The records of every game in the batch."""
        return [self.record(g) for g in range(self.batch_size)]
