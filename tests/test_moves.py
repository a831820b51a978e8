"""murlan_env.game.moves: concrete cards read as engine actions, and the reasons a move is refused.

Table rows (position, cards, expected action or reason), one per reason a player can meet;
then a sweep over positions of random games checking that ``read_play`` accepts exactly what
the engine's legal mask (and the start-card duty) accepts.
"""

from __future__ import annotations

import numpy as np
import pytest
from conftest import action, full_deal, position

from murlan_env import records
from murlan_env.game import engine
from murlan_env.game.cards import CARD_NAMES, parse_cards
from murlan_env.game.combos import COST, N_ACTIONS
from murlan_env.game.engine import Phase
from murlan_env.game.moves import IllegalMove, read_give_back, read_move, read_play
from murlan_env.game.rules import Rules

HANDS = ["3S 3H 7S 7H 8D 9C TS JH QD KC", "5S", "BJ RJ 2S 2H 2D 2C", "4S 5H 6D 7D 8S"]


def _opening(rules: Rules | None = None) -> engine.State:
    """Hand 1 of a match, dealer 0: seat 0 holds 3S and 3H and must open with the 3S."""
    return engine.deal_from(full_deal(0, s0="3S 3H 4S", s3="3C"), 0, rules)


def _refusal(state, cards) -> str:
    with pytest.raises(IllegalMove) as err:
        read_move(state, parse_cards(cards) if isinstance(cards, str) else cards)
    return str(err.value)


@pytest.mark.parametrize(
    ("seat", "table", "cards", "expected"),
    [
        (0, "", "3S 3H", "3 3"),
        (0, "", "TS JH QD KC 9C", "9 T J Q K"),  # a straight, its cards in any order
        (0, "7 7", "", "pass"),
        (0, "6", "7S", "7"),
        (2, "A", "2S 2H 2D 2C", "2 2 2 2"),  # a quad beats any play that is not a quad
        (2, "", "RJ", "RJ"),
    ],
)
def test_legal_moves_give_the_engine_action(seat, table, cards, expected):
    state = position(HANDS, seat, table=table)
    assert read_play(state, parse_cards(cards)) == action(expected)
    assert read_move(state, parse_cards(cards)) == action(expected)


@pytest.mark.parametrize(
    ("table", "cards", "reason"),
    [
        ("", "5S", "seat 0 does not hold 5S"),
        ("", "7S 8S 9S", "seat 0 does not hold 8S 9S"),
        ("", [parse_cards("7S")[0]] * 2, "7S is named twice"),
        ("", [54], "54 is not a card id 0-53"),
        ("", [True], "True is not a card id"),
        ("", "3S 7S", "3S 7S is not a combination"),
        ("", "7S 8D 9C TS", "is not a combination"),  # a straight needs 5 cards
        ("", "", "the leader cannot pass"),
        ("6 6", "8D", "single 8 does not beat pair 6 6: only a higher pair or a quad does"),
        ("8 8", "7S 7H", "pair 7 7 does not beat pair 8 8: only a higher pair or a quad does"),
        ("7 7", "7S 7H", "pair 7 7 does not beat pair 7 7"),
        ("2", "KC", "single K does not beat single 2: only a higher single or a quad does"),
        (
            "T J Q K A",
            "9C TS JH QD KC",
            "does not beat straight T J Q K A: only a higher 5-card straight or a quad does",
        ),
        ("5 5 5 5", "3S 3H", "pair 3 3 does not beat quad 5 5 5 5: only a higher quad does"),
    ],
)
def test_refused_plays_are_explained(table, cards, reason):
    assert reason in _refusal(position(HANDS, 0, table=table), cards)


def test_the_opening_play_must_contain_the_start_card_itself():
    state = _opening()
    assert read_play(state, parse_cards("3S")) == action("3")
    assert read_play(state, parse_cards("3S 3H")) == action("3 3")
    # The engine's mask allows a 3 (its action names ranks); the concrete 3H is refused.
    assert engine.legal_action_mask(state)[0, action("3")]
    assert _refusal(state, "3H") == "the first play of the match must contain 3S"
    assert _refusal(state, "4S") == "the first play of the match must contain 3S"
    assert _refusal(state, "") == "the leader cannot pass: play any combination"
    state = _opening(Rules(start_card="3C"))  # seat 3 holds the 3 of clubs and leads
    assert int(state.to_act[0]) == 3
    other = next(int(c) for c in np.flatnonzero(state.cards[0, 3]) if CARD_NAMES[c] != "3C")
    assert _refusal(state, [other]) == "the first play of the match must contain 3C"
    assert read_play(state, parse_cards("3C")) == action("3")


def test_the_joker_pair_needs_its_variant():
    hands = ["BJ RJ 3S", "4S", "5S", "6S"]
    with_rule = position(hands, 0, Rules(joker_pair=True))
    assert read_play(with_rule, parse_cards("BJ RJ")) == action("BJ RJ")
    reason = _refusal(position(hands, 0), "BJ RJ")
    assert reason == "the jokers do not pair under these rules (the joker_pair rule is off)"


def test_straight_plus_one_is_named():
    state = position(HANDS, 0, Rules(straight_plus_one=True), table="5 6 7 8 9")
    reason = _refusal(state, "9C TS JH QD KC")
    assert "with straight_plus_one only the 5-card straight one step higher" in reason
    assert read_play(position(HANDS, 0, table="5 6 7 8 9"), parse_cards("9C TS JH QD KC"))


def test_the_give_back_is_read_and_explained():
    # Hand 2 after a hand won by seat 1 and lost by seat 3: seat 3 gives its highest card,
    # 9S, to seat 1, who holds 9H too and chooses a card to give back.
    low = "3S 3H 3D 4S 4H 4D 5S 5H 5D 6S 6H 6D 9S"
    deal = full_deal(0, s3=low, s1="9H JS", s0="BJ")
    state = engine.deal_from(deal, 0, hand_no=1, previous=(1, 3))
    assert int(state.phase[0]) == Phase.EXCHANGE and int(state.to_act[0]) == 1
    assert read_give_back(state, parse_cards("9H")[0]) == action("9")
    assert read_move(state, parse_cards("9H")) == action("9")
    for card in np.flatnonzero(state.cards[0, 1]):  # any other card ranked 3 to 10 may go
        name = CARD_NAMES[card]
        if name[0] in "345678T" or name == "9H":
            assert read_give_back(state, int(card)) == action(name)
    assert _refusal(state, "9S") == (
        "seat 1 cannot give back the card just received, 9S (another 9 may go back)"
    )
    assert _refusal(state, "JS") == "the card given back must be ranked 3 to 10, JS is not"
    assert _refusal(state, "3S") == "seat 1 does not hold 3S"
    assert _refusal(state, "") == (
        "seat 1 must give back exactly one card, ranked 3 to 10 (not passing)"
    )
    assert "(not 2 cards)" in _refusal(state, "9H JS")
    with pytest.raises(IllegalMove, match="seat 1 must first give back a card"):
        read_play(state, parse_cards("9H"))
    after = engine.step(state, [action("9")])
    with pytest.raises(IllegalMove, match="no card is to be given back now"):
        read_give_back(after, parse_cards("4S")[0])


def test_the_only_card_of_its_rank_just_received_cannot_go_back():
    low = "3S 3H 3D 4S 4H 4D 5S 5H 5D 6S 6H 6D 9S"
    deal = full_deal(0, s3=low, s1="JS TS", s2="9H 9D 9C", s0="BJ")
    state = engine.deal_from(deal, 0, hand_no=1, previous=(1, 3))
    assert _refusal(state, "9S") == "seat 1 cannot give back the card just received, 9S"


def test_no_move_once_the_hand_or_match_is_over():
    rec = records.selfplay(np.random.default_rng(1), 1, max_hands=1)
    over = rec.state
    assert int(over.phase[0]) == Phase.HAND_OVER
    with pytest.raises(IllegalMove, match="the hand is over"):
        read_move(over, [])
    done = over.replace(phase=np.array([Phase.MATCH_OVER], np.int8))
    with pytest.raises(IllegalMove, match="the match is over"):
        read_give_back(done, 0)


def test_read_play_accepts_exactly_what_the_engine_allows():
    """In positions of random games (every variant flag on in turn), each play the seat can
    pay for is accepted by read_play exactly when the engine's mask allows it, with the
    engine's own concrete cards; what is refused always comes with a reason."""
    for seed, rules in enumerate(
        [Rules(), Rules(joker_pair=True), Rules(straight_plus_one=True), Rules(sticky_pass=True)]
    ):
        rng = np.random.default_rng(seed)
        state = engine.init(rng, 1, rules)
        for _ in range(60):
            if int(state.phase[0]) != Phase.PLAY:
                break
            mask = engine.legal_action_mask(state)[0]
            counts = state.counts[0, int(state.to_act[0])]
            payable = np.flatnonzero((counts[None, :] >= COST).all(1)[:N_ACTIONS])
            chosen = engine.choose_cards(
                state.index(np.zeros(len(payable), np.int64)), payable.astype(np.int16)
            )
            for a, cards in zip(payable, chosen, strict=True):
                ids = [int(c) for c in np.flatnonzero(cards)]
                if mask[a]:
                    assert read_play(state, ids) == a
                else:
                    with pytest.raises(IllegalMove) as err:
                        read_play(state, ids)
                    assert str(err.value)
            state = engine.step(state, engine.random_legal_actions(mask[None], rng))
