"""Cards (RULES.md 1) and the action catalogue (RULES.md 2-3): notation, counts, who beats whom.

The beats table is checked cell by cell against the scalar reference's ``beats`` under every
combination of the flags that change it.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from murlan_env.game.cards import (
    CARD_NAMES,
    CARD_RANK,
    RANKS,
    CardError,
    format_cards,
    parse_card,
    parse_cards,
    parse_hand,
    rank_counts,
)
from murlan_env.game.combos import (
    COST,
    JOKER_PAIR,
    KEY,
    KIND,
    LENGTH,
    N_ACTIONS,
    PASS,
    RANKS_TEXT,
    Kind,
    action_catalogue,
    action_of_counts,
    beats_matrix,
    describe,
)
from murlan_env.game.rules import Rules, RulesError
from tests import reference
from tests.conftest import action, ranks

# ---------------------------------------------------------------------------- cards


def test_rank_order_low_to_high():
    """RULES.md 1: "Rank order, low to high: 3 4 5 6 7 8 9 T J Q K A 2 BJ RJ"."""
    assert RANKS == ("3", "4", "5", "6", "7", "8", "9", "T", "J", "Q", "K", "A", "2", "BJ", "RJ")


def test_pack_has_54_cards_with_two_jokers():
    """RULES.md 1: "54 cards: the 52-card pack plus a black joker (BJ) and a red joker (RJ)"."""
    assert len(CARD_NAMES) == 54 == len(set(CARD_NAMES))
    assert np.bincount(CARD_RANK, minlength=15).tolist() == [4] * 13 + [1, 1]
    assert [parse_card(n) for n in CARD_NAMES] == list(range(54))


@pytest.mark.parametrize(
    "text, canonical",
    [
        ("3S", "3S"),
        ("td", "TD"),
        ("10h", "TH"),
        ("10C", "TC"),
        ("ah", "AH"),
        ("bj", "BJ"),
        ("Rj", "RJ"),
        ("2c", "2C"),
    ],
)
def test_readers_accept_10_and_lower_case_writers_write_canonical(text, canonical):
    """RULES.md 1: "Readers ... also accept 10 for T and lower case; writers always write
    this canonical form"."""
    assert format_cards([parse_card(text)]) == canonical


@pytest.mark.parametrize("text", ["1S", "TX", "JJ", "3", "11H", "", "BJR"])
def test_unknown_cards_are_rejected(text):
    with pytest.raises(CardError):
        parse_card(text)


def test_parse_cards_round_trip_and_duplicates():
    ids = parse_cards("RJ 3s 10d AH")
    assert format_cards(ids) == "3S TD AH RJ"  # lowest first
    assert format_cards(parse_hand("RJ 3s 10d AH")) == "3S TD AH RJ"
    assert parse_cards("") == []
    with pytest.raises(CardError):
        parse_cards("3S 3s")
    counts = rank_counts(parse_hand("3S 3H TD BJ"))
    assert counts.tolist() == [2, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 1, 0]


# ---------------------------------------------------------------------------- action catalogue


def test_combination_counts():
    """RULES.md 2: "15 singles, 13 pairs, 13 triples, 13 quads and 53 straights (lengths
    5-13): 107 plays, plus pass" (and the joker pair of the variant)."""
    kinds = [Kind(int(k)) for k in KIND]
    assert kinds.count(Kind.SINGLE) == 15
    assert kinds.count(Kind.PAIR) == 13 + 1  # + the joker pair
    assert kinds.count(Kind.TRIPLE) == 13
    assert kinds.count(Kind.QUAD) == 13
    assert kinds.count(Kind.STRAIGHT) == 53
    assert N_ACTIONS == 1 + 107 + 1 and KIND[PASS] == Kind.PASS
    assert KIND[JOKER_PAIR] == Kind.PAIR and COST[JOKER_PAIR, 13:].tolist() == [1, 1]
    lengths = [int(LENGTH[a]) for a in range(N_ACTIONS) if KIND[a] == Kind.STRAIGHT]
    assert {n: lengths.count(n) for n in range(5, 14)} == {n: 15 - n for n in range(5, 13)} | {
        13: 1
    }
    # The reference, built from the rule text, counts the same.
    assert len(reference.all_rank_plays(Rules())) == 107
    assert len(reference.all_rank_plays(Rules(joker_pair=True))) == 108


def test_every_play_is_distinct_and_found_by_its_counts():
    seen = {COST[a].tobytes() for a in range(N_ACTIONS)}
    assert len(seen) == N_ACTIONS
    for a in range(N_ACTIONS):
        assert action_of_counts(COST[a]) == a
    assert action_of_counts(np.bincount([0, 1], minlength=15)) is None  # 3 4 is no play
    assert action_of_counts(np.bincount([0, 1, 2, 3], minlength=15)) is None


def test_action_catalogue_ids_and_names():
    """combos.py docstring: the stable id ranges of the action catalogue."""
    rows = action_catalogue()
    assert [r["id"] for r in rows] == list(range(N_ACTIONS))
    assert rows[0]["kind"] == "pass" and rows[1]["ranks"] == "3" and rows[15]["ranks"] == "RJ"
    assert rows[16]["ranks"] == "3 3" and rows[29]["ranks"] == "3 3 3"
    assert rows[42]["ranks"] == "3 3 3 3" and rows[54]["ranks"] == "2 2 2 2"
    assert rows[55]["ranks"] == "A 2 3 4 5"  # the lowest 5-card straight
    assert rows[64]["ranks"] == "T J Q K A"  # the highest 5-card straight
    assert rows[107]["ranks"] == "2 3 4 5 6 7 8 9 T J Q K A"  # the one 13-card straight
    assert rows[108]["ranks"] == "BJ RJ"
    assert describe(0) == "pass" and describe(action("7 7")) == "pair 7 7"


def test_straight_keys_follow_the_ladder():
    """RULES.md 2: "A 2 3 4 5 is the lowest 5-card straight (top card 5) and T J Q K A the
    highest"; the 13-card straight is read high (top card A)."""
    assert KEY[action("A 2 3 4 5")] < KEY[action("2 3 4 5 6")] < KEY[action("T J Q K A")]
    assert KEY[action("2 3 4 5 6 7 8 9 T J Q K A")] == KEY[action("T J Q K A")]
    for a in range(N_ACTIONS):
        if KIND[a] == Kind.STRAIGHT:
            assert reference.straight_top(ranks(RANKS_TEXT[a])) == KEY[a]


FLAG_SETS = [
    Rules(joker_pair=jp, straight_plus_one=p1)
    for jp, p1 in itertools.product([False, True], repeat=2)
]


@pytest.mark.parametrize("rules", FLAG_SETS, ids=lambda r: str(r.to_dict()) or "default")
def test_beats_matrix_matches_reference(rules):
    """RULES.md 3 and 7: every cell of the beats matrix agrees with the scalar rules."""
    beats = beats_matrix(rules)
    shapes = reference.all_rank_plays(rules)
    for prev in range(N_ACTIONS):
        for new in range(N_ACTIONS):
            p, n = ranks(RANKS_TEXT[prev]) if prev else (), ranks(RANKS_TEXT[new]) if new else ()
            if prev == PASS:  # the empty table: the leader plays any combination, never pass
                want = new != PASS and n in shapes
            elif p not in shapes:  # a play that does not exist under these rules
                want = False
            elif new == PASS:
                want = True
            else:
                want = n in shapes and reference.beats(shapes[n], shapes[p], rules)
            assert bool(beats[prev, new]) == want, (RANKS_TEXT[prev], RANKS_TEXT[new])


@pytest.mark.parametrize(
    "flags",
    [{"sticky_pass": 1}, {"tie_rule": "other"}, {"start_card": "3H"}, {"unknown": True}],
)
def test_rules_reject_unknown_flags_and_values(flags):
    """RULES.md 8: "an unknown flag or value makes the record invalid"."""
    with pytest.raises(RulesError):
        Rules.from_dict(flags)


def test_rules_round_trip():
    rules = Rules(sticky_pass=True, tie_rule="leader", start_card="3C")
    assert Rules.from_dict(rules.to_dict()) == rules
    assert rules.to_dict() == {"sticky_pass": True, "tie_rule": "leader", "start_card": "3C"}
    assert Rules().to_dict() == {} and len(Rules().to_dict(all_flags=True)) == 6
    assert Rules(start_card="3C").start_card_id == parse_card("3C")
