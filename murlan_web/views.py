"""Engine states as the JSON the browser draws: the board, and the decisions of a hand.

One game is a batch of one. Cards are written as RULES.md names ("7S", "TD", "BJ"), lowest
first; seats are 0-3 and places 1-4. ``board`` hides the hands a viewer may not see and
``hide_cards`` the card of an exchange give-back, so a page never receives what its player
could not know unless the hands are revealed on purpose.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

import numpy as np

from murlan_env.envs.person_match import PERSON
from murlan_env.game.cards import CARD_NAMES, CARD_RANK, RANKS
from murlan_env.game.combos import PASS, describe
from murlan_env.game.rules import RULE_CHOICES, Rules
from murlan_env.game.state import Phase, State

PHASE_NAMES = {
    Phase.PLAY: "play",
    Phase.EXCHANGE: "exchange",
    Phase.HAND_OVER: "hand over",
    Phase.MATCH_OVER: "match over",
}


# Each variant flag as a person reads it: a label, and what each value means (RULES.md 7).
RULE_WORDS: dict[str, tuple[str, dict[Any, str]]] = {
    "sticky_pass": (
        "Sticky pass",
        {
            False: "a player who passed may play again later in the trick",
            True: "a player who passes sits out the rest of the trick",
        },
    ),
    "joker_pair": (
        "Joker pair",
        {
            False: "the jokers are single cards only, never a pair",
            True: "the two jokers form a pair, the highest pair (not a bomb)",
        },
    ),
    "straight_plus_one": (
        "Straight plus one",
        {
            False: "a straight is beaten by any higher straight of the same length",
            True: "a straight is beaten only by the same length one step higher",
        },
    ),
    "tie_rule": (
        "Match end",
        {
            "raise": "the target rises 21, 31, 41, 51 while the top is shared; a tie at 51 draws",
            "leader": "a unique top score of 21 or more wins; a tie plays on",
        },
    ),
    "start_card": (
        "Start card",
        {"3S": "the 3 of spades opens the match", "3C": "the 3 of clubs opens the match"},
    ),
    "no_exchange": (
        "No exchange",
        {
            False: "the last and first players swap cards before each hand",
            True: "no card exchange; the previous last player leads",
        },
    ),
}


# What a set-up menu shows for each value of a flag that is not yes or no (a yes/no flag is a
# box to tick): a few words, where the value itself is a code ("leader", "3C"); what the
# value means is said under the menu once chosen (RULE_WORDS).
RULE_CHOICE_NAMES: dict[str, dict[Any, str]] = {
    "tie_rule": {"raise": "the target rises on a tie", "leader": "a unique top score wins"},
    "start_card": {"3S": "3 of spades", "3C": "3 of clubs"},
}


def _choice_names(flag: str, values: Sequence[Any]) -> list[str]:
    names = RULE_CHOICE_NAMES.get(flag, {})
    return [names.get(v, "on" if v is True else "off" if v is False else str(v)) for v in values]


def rule_options() -> dict[str, dict[str, Any]]:
    """Every variant flag for the set-up forms: choices, default, label, meanings and names
    (what a menu shows for each choice)."""
    out = {}
    for flag, values in RULE_CHOICES.items():
        label, meanings = RULE_WORDS.get(flag, (flag.replace("_", " ").capitalize(), {}))
        out[flag] = {
            "choices": list(values),
            "default": values[0],
            "label": label,
            "meanings": [meanings.get(v, str(v)) for v in values],
            "names": _choice_names(flag, values),
        }
    return out


def rule_words_module() -> str:
    """``RULE_WORDS`` as the JavaScript module clients/js/ui/rule_words.js, which both pages'
    table UI reads (the serverless page has no server to ask): each flag's label, the
    meaning of each of its values and the name a menu shows for it (``RULE_CHOICE_NAMES``),
    in ``RULE_CHOICES`` order. tests/test_js_ui.py holds the file to this."""
    words = {
        flag: [
            RULE_WORDS[flag][0],
            [RULE_WORDS[flag][1][v] for v in values],
            _choice_names(flag, values),
        ]
        for flag, values in RULE_CHOICES.items()
    }
    return (
        "// Generated from murlan_web/views.py's RULE_WORDS by rule_words_module(): do not edit.\n"
        "// Each variant flag as a person reads it: [label, [meaning of each value], [name a\n"
        "// menu shows for each value]], the values in the order of RULE_CHOICES.\n"
        f"export const RULE_WORDS = {json.dumps(words, indent=2, ensure_ascii=False)};\n"
    )


def rules_text(rules: Rules) -> list[str]:
    """The flags of ``rules`` that differ from the standard game, in words (empty: none)."""
    out = []
    for flag, value in rules.to_dict().items():
        label, meanings = RULE_WORDS.get(flag, (flag, {}))
        out.append(f"{label}: {meanings.get(value, value)}")
    return out


def seat_names(players: list[str] | None) -> list[str]:
    """What the page calls each seat: "You" for the person, "Seat N · NAME" for a bot (a
    record's ``players``, a live match's names), "Seat N" when nobody is named."""
    if players is None:
        return [f"Seat {s}" for s in range(4)]
    return ["You" if p == PERSON else f"Seat {s} · {p}" for s, p in enumerate(players)]


def card_names(cards: np.ndarray) -> list[str]:
    """Names of the cards of a (54,) bool mask, lowest first."""
    return [CARD_NAMES[int(c)] for c in np.flatnonzero(cards)]


def play_names(cards: np.ndarray, action: int) -> list[str]:
    """Names of a play's cards in the order ``describe`` lists its ranks, so a straight reads
    in ladder order ("AS 2H 3D 4C 5S")."""
    ladder = describe(action).split()[1:]
    ids = sorted(
        (int(c) for c in np.flatnonzero(cards)),
        key=lambda c: (
            ladder.index(RANKS[CARD_RANK[c]]) if RANKS[CARD_RANK[c]] in ladder else 99,
            c,
        ),
    )
    return [CARD_NAMES[c] for c in ids]


def board(
    state: State,
    names: Sequence[str],
    *,
    visible: Sequence[bool],
    table_cards: Sequence[str] = (),
    give_back_seen: bool = True,
) -> dict[str, Any]:
    """The table of one game: scores, every seat's cards (where ``visible``) and count,
    places and passes, the play to beat, this hand's exchange and, once the hand is over,
    its finish and points. ``table_cards``: the concrete cards of the play to beat (the
    engine keeps only its action; ``HandLog.table_cards`` remembers them)."""
    phase = Phase(int(state.phase[0]))
    cards = state.cards[0]
    n_left = state.n_left[0]
    seats = []
    for s in range(4):
        place = int(state.place[0, s])
        seats.append(
            {
                "seat": s,
                "name": names[s],
                "cards": card_names(cards[s]) if visible[s] else None,
                "count": int(n_left[s]),
                "place": place + 1 if place >= 0 else None,
                "passed": bool(state.passed[0, s]),
            }
        )
    table = None
    if int(state.table[0]) != PASS and int(state.table_seat[0]) >= 0:
        table = {
            "seat": int(state.table_seat[0]),
            "text": describe(int(state.table[0])),
            "cards": list(table_cards),
        }
    result = None
    if phase >= Phase.HAND_OVER:
        order = np.argsort(state.place[0], kind="stable")
        result = {
            "finish": [int(s) for s in order if state.place[0, s] >= 0],
            "points": state.points[0].tolist(),
        }
    return {
        "hand": int(state.hand_no[0]) + 1,
        "dealer": int(state.dealer[0]),
        "target": int(state.target[0]),
        "scores": state.scores[0].tolist(),
        "phase": PHASE_NAMES[phase],
        "to_act": int(state.to_act[0]) if phase <= Phase.EXCHANGE else None,
        "start_card": state.rules.start_card if bool(state.start_duty[0]) else None,
        "seats": seats,
        "table": table,
        "exchange": exchange(state, give_back_seen),
        "result": result,
        "winners": [int(s) for s in np.flatnonzero(state.winners[0])],
    }


def exchange(state: State, give_back_seen: bool = True) -> dict[str, Any] | None:
    """This hand's exchange (RULES.md 5), None without one. The previous last player's gift
    (the highest card) is public; the card given back is shown only if ``give_back_seen``."""
    last = int(state.ex_last[0])
    if last < 0:
        return None
    back = int(state.ex_first_gives[0])
    return {
        "last": last,
        "first": int(state.ex_first[0]),
        "last_gives": CARD_NAMES[int(state.ex_last_gives[0])],
        "first_gives": (CARD_NAMES[back] if give_back_seen else "hidden") if back >= 0 else None,
    }


class HandLog:
    """The decisions of the current hand, and the cards of the play to beat.

    Call ``start`` with each hand's first state and ``add`` with every (before, after) pair
    of states around a decision.
    """

    def __init__(self) -> None:
        self.events: list[dict[str, Any]] = []
        self.table_cards: list[str] = []
        self._trick = 0

    def start(self) -> None:
        self.events, self.table_cards, self._trick = [], [], 0

    def add(self, before: State, after: State) -> dict[str, Any]:
        """Log the decision that turned ``before`` into ``after`` (a give-back's card is
        logged too: ``hide_cards`` hides it from players the exchange did not involve)."""
        seat = int(after.last_seat[0])
        action = int(after.last_action[0])
        cards = after.last_cards[0]
        if int(before.phase[0]) == Phase.EXCHANGE:
            event = {"seat": seat, "kind": "give back", "trick": None}
            event["cards"] = card_names(cards)
            event["text"] = "gives back " + " ".join(event["cards"])
        elif action == PASS:
            event = {"seat": seat, "kind": "pass", "cards": [], "text": "pass"}
            event["trick"] = self._trick
        else:
            shown = play_names(cards, action)
            event = {"seat": seat, "kind": "play", "cards": shown, "text": describe(action)}
            event["trick"] = self._trick
            self.table_cards = shown
        place = int(after.place[0, seat])
        event["out"] = place + 1 if place >= 0 and int(before.place[0, seat]) < 0 else None
        event["trick_to"] = None
        cleared = int(before.table[0]) != PASS and int(after.table[0]) == PASS
        if cleared and int(after.phase[0]) == Phase.PLAY:
            event["trick_to"] = int(before.table_seat[0]) if action == PASS else seat
            self.table_cards = []
            self._trick += 1
        self.events.append(event)
        return event


def hide_cards(event: dict[str, Any]) -> dict[str, Any]:
    """A give-back event as players outside the exchange see it: a card, not which."""
    return {**event, "cards": [], "text": "gives back a card"}


__all__ = [
    "HandLog",
    "hide_cards",
    "PHASE_NAMES",
    "board",
    "card_names",
    "exchange",
    "play_names",
    "rule_options",
    "rule_words_module",
    "rules_text",
]
