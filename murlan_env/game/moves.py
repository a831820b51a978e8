"""Concrete cards chosen by a person or a record, read as an engine action, and why not.

People and records name cards ("7S 7H"); the engine takes rank-level action ids. This module
is the one place that turns the one into the other for the seat to act, and the one place
that explains, in words a player understands, why a move is not allowed. The terminal game
(``murlan play``), the record validator (``murlan_env.records``) and apps all call it.

Whether a move is legal is decided by the engine alone: ``combos.action_of_counts`` says
which combination the cards form, ``engine.legal_action_mask`` whether the seat may make it,
and the state's ``start_duty`` whether the concrete cards must include the start card. Only
when the engine says no does this module look at the position to say why (not held, not a
combination, the leader cannot pass, does not beat the table, ...).

``state`` is always a batch of one (``engine.State``)::

    ids = parse_cards("7S 7H")
    action = read_move(state, ids)  # raises IllegalMove with the reason
    state = engine.step(state, [action], cards=cards_to_mask(ids)[None])

Messages name the seat to act ("seat 2 does not hold 7H"), so they read the same in a
record's fault and in a game's prompt.
"""

from __future__ import annotations

import numpy as np

from murlan_env.game import engine
from murlan_env.game.cards import CARD_NAMES, CARD_RANK, N_CARDS, RANKS, format_cards
from murlan_env.game.combos import (
    JOKER_PAIR,
    KIND,
    LENGTH,
    PASS,
    SINGLE_OF_RANK,
    Kind,
    action_of_counts,
    describe,
)
from murlan_env.game.state import N_SEATS, Phase, State

# The exchange give-back in words (the engine's exchange mask decides which cards qualify).
GIVE_BACK = "ranked 3 to 10"


class IllegalMove(ValueError):
    """A move the seat to act may not make here; str(err) is the reason in plain words."""


def read_play(state: State, cards) -> int:
    """The action id of a play of ``cards`` (card ids; empty is a pass) by the seat to act.

    Raises IllegalMove when the game is not waiting for a play or the play is not legal.
    """
    phase = int(state.phase[0])
    if phase == Phase.EXCHANGE:
        seat = int(state.to_act[0])
        raise IllegalMove(f"seat {seat} must first give back a card (the exchange)")
    _check_waiting(phase)
    ids = _card_ids(cards)
    seat = int(state.to_act[0])
    _check_held(state, seat, ids)
    action = action_of_counts(np.bincount(CARD_RANK[ids], minlength=len(RANKS)))
    if action is None:
        raise IllegalMove(
            f"{format_cards(ids)} is not a combination: play a single, a pair, a triple, "
            "a quad or a straight of 5 or more consecutive ranks"
        )
    duty_met = action == PASS or not state.start_duty[0] or state.rules.start_card_id in ids
    if engine.legal_action_mask(state)[0, action] and duty_met:
        return action
    raise IllegalMove(_why_not(state, action))


def read_give_back(state: State, card: int) -> int:
    """The action id of the exchange give-back of ``card`` by the previous 1st player.

    Raises IllegalMove when no give-back is due or this card may not go back.
    """
    phase = int(state.phase[0])
    if phase == Phase.PLAY:
        raise IllegalMove("no card is to be given back now: it is a play")
    _check_waiting(phase)
    (card,) = _card_ids([card])
    seat = int(state.to_act[0])
    _check_held(state, seat, [card])
    action = int(SINGLE_OF_RANK[CARD_RANK[card]])
    legal = bool(engine.legal_action_mask(state)[0, action])
    if card == int(state.ex_last_gives[0]):
        another = f" (another {RANKS[CARD_RANK[card]]} may go back)" if legal else ""
        raise IllegalMove(
            f"seat {seat} cannot give back the card just received, {CARD_NAMES[card]}" + another
        )
    if legal:
        return action
    raise IllegalMove(f"the card given back must be {GIVE_BACK}, {CARD_NAMES[card]} is not")


def read_move(state: State, cards) -> int:
    """The action id of the seat to act's move: a play (``cards`` empty: a pass) or, in the
    exchange, the one card given back. Raises IllegalMove with the reason."""
    phase = int(state.phase[0])
    if phase != Phase.EXCHANGE:
        return read_play(state, cards)
    ids = _card_ids(cards)
    if len(ids) != 1:
        seat = int(state.to_act[0])
        got = "passing" if not ids else f"{len(ids)} cards"
        raise IllegalMove(f"seat {seat} must give back exactly one card, {GIVE_BACK} (not {got})")
    return read_give_back(state, ids[0])


# --------------------------------------------------------------------------- explanations


def _check_waiting(phase: int) -> None:
    if phase == Phase.HAND_OVER:
        raise IllegalMove("the hand is over: no move is due")
    if phase == Phase.MATCH_OVER:
        raise IllegalMove("the match is over: no move is due")


def _card_ids(cards) -> list[int]:
    """Card ids as ints; IllegalMove for something that is not a card id or a card twice."""
    if isinstance(cards, (str, bytes)):
        raise IllegalMove(f"cards are given as card ids, got the text {cards!r}")
    ids: list[int] = []
    for c in cards:
        if isinstance(c, (bool, np.bool_)) or not isinstance(c, (int, np.integer)):
            raise IllegalMove(f"{c!r} is not a card id")
        if not 0 <= c < N_CARDS:
            raise IllegalMove(f"{c} is not a card id 0-{N_CARDS - 1}")
        if c in ids:
            raise IllegalMove(f"{CARD_NAMES[c]} is named twice")
        ids.append(int(c))
    return ids


def _check_held(state: State, seat: int, ids: list[int]) -> None:
    if not 0 <= seat < N_SEATS:  # not a real game position; never a legal move
        raise IllegalMove(f"no seat is to act (seat {seat})")
    lacking = [c for c in ids if not state.cards[0, seat, c]]
    if lacking:
        raise IllegalMove(f"seat {seat} does not hold {format_cards(lacking)}")


def _why_not(state: State, action: int) -> str:
    """Why the engine refuses ``action``, a combination the seat to act holds."""
    table = int(state.table[0])
    if state.start_duty[0] and action != PASS:  # the table is empty: the duty is the reason
        start = CARD_NAMES[state.rules.start_card_id]
        return f"the first play of the match must contain {start}"
    if action == PASS:
        return "the leader cannot pass: play any combination"
    if action == JOKER_PAIR and not state.rules.joker_pair:
        return "the jokers do not pair under these rules (the joker_pair rule is off)"
    played = describe(action)
    if table == PASS:
        return f"{played} cannot be led"
    beaten = describe(table)
    if KIND[table] == Kind.QUAD:
        return f"{played} does not beat {beaten}: only a higher quad does"
    shape = _shape(table)
    if state.rules.straight_plus_one and KIND[table] == KIND[action] == Kind.STRAIGHT:
        return (
            f"{played} does not beat {beaten}: with straight_plus_one only the {shape} "
            "one step higher does, or a quad"
        )
    return f"{played} does not beat {beaten}: only a higher {shape} or a quad does"


def _shape(action: int) -> str:
    """The kind of a play as a player says it: "pair", "5-card straight"."""
    kind = Kind(int(KIND[action]))
    if kind == Kind.STRAIGHT:
        return f"{int(LENGTH[action])}-card straight"
    return kind.name.lower()


__all__ = ["IllegalMove", "read_give_back", "read_move", "read_play"]
