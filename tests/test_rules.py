"""Rule tests: one table row or scripted game per sentence of RULES.md sections 1-7.

Legality rows are (hand, table, expected legal set) and run against both the engine and the
scalar reference (tests/reference.py), so a row that is wrong in either fails. Scripted games
start from explicit hands (``deal_from`` or the ``position`` helper) and state the expected
seats, places and scores in the test.
"""

from __future__ import annotations

import numpy as np
import pytest

from murlan_env.game import engine
from murlan_env.game.cards import CARD_NAMES, CARD_RANK, parse_card, parse_cards
from murlan_env.game.combos import KEY, LENGTH
from murlan_env.game.engine import Phase
from murlan_env.game.rules import Rules
from tests import reference
from tests.conftest import action, full_deal, legal, mask_ranks, play, position, ranks

DEFAULT = Rules()
JOKER_PAIR = Rules(joker_pair=True)
PLUS_ONE = Rules(straight_plus_one=True)
STICKY = Rules(sticky_pass=True)

# ---------------------------------------------------------------------------- legality

# (rule, hand, table, rules, expected legal set as rank strings)
LEGALITY = [
    # RULES.md 1: rank order 3 .. 2 BJ RJ; suits never break ties.
    ("suits never break ties", "9S 9H", "9D", DEFAULT, {"pass"}),
    ("2 is above A", "AS 2H", "AD", DEFAULT, {"pass", "2"}),
    ("BJ is above 2", "BJ", "2S", DEFAULT, {"pass", "BJ"}),
    ("RJ is above BJ", "RJ 3S", "BJ", DEFAULT, {"pass", "RJ"}),
    ("nothing single beats RJ", "BJ 2S 2H", "RJ", DEFAULT, {"pass"}),
    # RULES.md 2: the kinds, led from an empty table.
    (
        "leader plays singles pairs triples quads",
        "3S 3H 3D 3C 9S",
        "",
        DEFAULT,
        {"3", "9", "3 3", "3 3 3", "3 3 3 3"},
    ),
    ("jokers never pair", "BJ RJ", "", DEFAULT, {"BJ", "RJ"}),
    ("joker pair only with the variant", "BJ RJ", "", JOKER_PAIR, {"BJ", "RJ", "BJ RJ"}),
    (
        "A-low straight",
        "AS 2H 3D 4C 5S 6H",
        "",
        DEFAULT,
        {"A", "2", "3", "4", "5", "6", "A 2 3 4 5", "2 3 4 5 6", "A 2 3 4 5 6"},
    ),
    ("A-high straight", "TS JH QD KC AS", "", DEFAULT, {"T", "J", "Q", "K", "A", "T J Q K A"}),
    ("no K-A-2 wrap", "KS AH 2D 3C 4S", "", DEFAULT, {"K", "A", "2", "3", "4"}),
    ("2 is low only", "JS QH KD AC 2S", "", DEFAULT, {"J", "Q", "K", "A", "2"}),
    ("jokers never join straights", "JS QH KD AC BJ", "", DEFAULT, {"J", "Q", "K", "A", "BJ"}),
    ("straights need 5 cards", "3S 4H 5D 6C", "", DEFAULT, {"3", "4", "5", "6"}),
    ("no rank twice in a straight", "3S 4H 5D 6C 6S", "", DEFAULT, {"3", "4", "5", "6", "6 6"}),
    # RULES.md 3: beating a play.
    ("single beats lower single", "5S 9H KD", "9D", DEFAULT, {"pass", "K"}),
    ("pair beats lower pair only", "5S 5H 9H 9D KD", "7S 7H", DEFAULT, {"pass", "9 9"}),
    ("triple beats lower triple", "8S 8H 8D 4S 4H 4D", "6S 6H 6D", DEFAULT, {"pass", "8 8 8"}),
    ("a pair does not beat a single", "4S 4H", "3S", DEFAULT, {"pass", "4"}),
    ("a triple does not beat a pair", "4S 4H 4D", "3S 3H", DEFAULT, {"pass", "4 4"}),
    (
        "straight beats same length higher top",
        "4S 5H 6D 7C 8H 9S",
        "3S 4H 5D 6C 7S",
        DEFAULT,
        {"pass", "4 5 6 7 8", "5 6 7 8 9"},
    ),
    ("straight needs the same length", "4S 5H 6D 7C 8H", "3S 4H 5D 6C 7S 8D", DEFAULT, {"pass"}),
    (
        "A-low straight is the lowest",
        "2S 3H 4D 5C 6S",
        "AS 2H 3D 4C 5S",
        DEFAULT,
        {"pass", "2 3 4 5 6"},
    ),
    ("nothing beats T-J-Q-K-A but a quad", "9S TH JD QC KS", "TS JH QD KC AS", DEFAULT, {"pass"}),
    ("pass allowed when able to beat", "KS", "3S", DEFAULT, {"pass", "K"}),
    ("quad beats a single RJ", "4S 4H 4D 4C 5S", "RJ", DEFAULT, {"pass", "4 4 4 4"}),
    ("quad beats a pair of 2s", "4S 4H 4D 4C", "2S 2H", DEFAULT, {"pass", "4 4 4 4"}),
    ("quad beats a triple", "4S 4H 4D 4C", "2S 2H 2D", DEFAULT, {"pass", "4 4 4 4"}),
    ("quad beats a straight", "4S 4H 4D 4C", "TS JH QD KC AS", DEFAULT, {"pass", "4 4 4 4"}),
    (
        "quad beats the 13-card straight",
        "4S 4H 4D 4C",
        "2S 3H 4D 5C 6S 7H 8D 9C TS JH QD KC AS",
        DEFAULT,
        {"pass", "4 4 4 4"},
    ),
    (
        "quad beaten only by a higher quad",
        "5S 5H 5D 5C 9S 9H 9D 9C 2S",
        "6S 6H 6D 6C",
        DEFAULT,
        {"pass", "9 9 9 9"},
    ),
    ("only quads beat a quad", "RJ 2S 2H 2D", "3S 3H 3D 3C", DEFAULT, {"pass"}),
    # RULES.md 7: joker_pair.
    ("joker pair beats a pair of 2s", "BJ RJ", "2S 2H", JOKER_PAIR, {"pass", "BJ RJ"}),
    ("no joker pair without the variant", "BJ RJ", "2S 2H", DEFAULT, {"pass"}),
    ("quad beats the joker pair", "3S 3H 3D 3C 2D 2C", "BJ RJ", JOKER_PAIR, {"pass", "3 3 3 3"}),
    ("the joker pair is not a bomb", "BJ RJ", "3S 3H 3D 3C", JOKER_PAIR, {"pass"}),
    # RULES.md 7: straight_plus_one.
    (
        "plus one: only one ladder step higher",
        "4S 5H 6D 7C 8H 9S",
        "3S 4H 5D 6C 7S",
        PLUS_ONE,
        {"pass", "4 5 6 7 8"},
    ),
    (
        "plus one: A-low to 2-6",
        "2S 3H 4D 5C 6S 7H",
        "AS 2H 3D 4C 5S",
        PLUS_ONE,
        {"pass", "2 3 4 5 6"},
    ),
    ("plus one: quads still beat", "4S 4H 4D 4C", "TS JH QD KC AS", PLUS_ONE, {"pass", "4 4 4 4"}),
    ("plus one: other kinds unchanged", "5S 9H KD", "4D", PLUS_ONE, {"pass", "5", "9", "K"}),
]


def _ref_legal(hand: str, table: str, rules: Rules, duty_rank=None):
    table_ranks = ranks(table) if table else None
    return reference.legal_plays(set(parse_cards(hand)), table_ranks, rules, duty_rank)


@pytest.mark.parametrize(
    "hand, table, rules, expected", [row[1:] for row in LEGALITY], ids=[row[0] for row in LEGALITY]
)
def test_legal_set(hand, table, rules, expected):
    """RULES.md 1-3 and 7: the legal set of ``hand`` on ``table`` (engine and reference)."""
    want = {ranks(e) for e in expected}
    # The other seats hold one card each (any cards not in the hand).
    spare = [c for c in CARD_NAMES if c not in hand.split()]
    state = position([hand, spare[0], spare[1], spare[2]], 0, rules, table=table)
    assert legal(state) == want
    assert _ref_legal(hand, table, rules) == want


def test_leader_cannot_pass():
    """RULES.md 3: "the leader cannot pass" (also with nothing but a bomb in hand)."""
    state = position(["4S 4H 4D 4C", "5S", "6S", "7S"], 0)
    assert () not in legal(state)
    assert legal(state) == {ranks("4"), ranks("4 4"), ranks("4 4 4"), ranks("4 4 4 4")}


def test_quad_may_be_led():
    """RULES.md 3: "A quad may also be led."."""
    state = position(["9S 9H 9D 9C", "5S", "6S", "7S"], 0)
    assert ranks("9 9 9 9") in legal(state)


def test_thirteen_card_straight_is_one_play_read_high():
    """RULES.md 2: "one 13-card straight, not two", read high (top card A)."""
    hand = "AS 2S 3S 4S 5S 6S 7S 8S 9S TS JS QS KS"
    mask = engine.legal_action_mask(position([hand, "3H", "3D", "3C"], 0))[0]
    longest = [a for a in np.flatnonzero(mask) if LENGTH[a] == 13]
    assert len(longest) == 1
    assert KEY[longest[0]] == 13  # ladder position of the high ace
    # 13 singles and every straight of the ladder: 52 of lengths 5-12 and the one of 13.
    assert mask.sum() == 13 + 53
    assert len(_ref_legal(hand, "", DEFAULT)) == 13 + 53
    # Nothing but a quad beats it; 12-card straights do not.
    state = position(["3H 4H 5H 6H 7H 8H 9H TH JH QH KH AH", "3D", "3C", "4D"], 0, table=hand)
    assert legal(state) == {()}


@pytest.mark.parametrize("rules", [DEFAULT, Rules(start_card="3C")], ids=["3S", "3C"])
def test_first_play_of_a_match_contains_the_start_card(rules):
    """RULES.md 5: "the holder of the 3 of spades leads, and the first play must contain the
    3 of spades (alone, or in a pair, triple, quad or straight)"; 3C with the variant."""
    start = rules.start_card
    holder_cards = f"{start} 3D 4C 5S 6H 7D 9C"
    deal = full_deal(1, s2=holder_cards)
    state = engine.deal_from(deal, 1, rules)
    assert int(state.to_act[0]) == 2
    assert bool(state.start_duty[0])
    want = {ranks("3"), ranks("3 3"), ranks("3 4 5 6 7")}
    got = legal(state)
    # The hand may hold more 3s from the filler; every legal play holds a 3 and the listed ones do.
    assert want <= got and all(0 in p for p in got)
    assert ranks("9") not in got and ranks("4 5 6 7 8") not in got
    # The concrete cards played include the start card even though another 3 is held.
    after = engine.step(state, np.array([action("3")]))
    assert np.flatnonzero(after.last_cards[0]).tolist() == [parse_card(start)]
    assert not after.start_duty[0]


def test_three_of_clubs_variant_ignores_three_of_spades():
    """RULES.md 7 start_card: "the 3 of clubs opens hand 1 instead of the 3 of spades"."""
    deal = full_deal(0, s3="3S", s1="3C")
    assert int(engine.deal_from(deal, 0, DEFAULT).to_act[0]) == 3
    assert int(engine.deal_from(deal, 0, Rules(start_card="3C")).to_act[0]) == 1


# ---------------------------------------------------------------------------- tricks


def test_trick_ends_when_all_others_pass_and_last_player_leads():
    """RULES.md 4: "The trick ends when, after the last play, every other player who still
    holds cards has passed in a row. The player who made that last play then leads"."""
    state = position(["5S 8S", "6S 9S", "7S TS", "4S JS"], 0)
    state = play(state, "5", "6", "pass", "pass", "pass")
    assert int(state.to_act[0]) == 1 and int(state.table[0]) == 0
    assert legal(state) == {ranks("9")}  # a new trick: seat 1 leads and cannot pass


def test_pass_lasts_one_turn_by_default():
    """RULES.md 4: "a player who passed may play again when the turn comes back round, if
    someone has played since"."""
    state = position(["5S 8S", "6S 9S", "7S TS", "4S JS"], 0)
    state = play(state, "5", "pass", "7", "pass", "pass")
    assert int(state.to_act[0]) == 1  # seat 1 passed before, is asked again
    assert legal(state) == {(), ranks("9")}
    state = play(state, "9", "T", "J")
    assert int(state.to_act[0]) == 0


def test_sticky_pass_skips_players_who_passed():
    """RULES.md 7 sticky_pass: "a player who passes is out of the trick until it ends: not
    asked again"."""
    state = position(["5S 8S", "6S 9S", "7S TS", "4S JS"], 0, STICKY)
    state = play(state, "5", "pass", "7", "pass", "pass")
    # Seats 1, 3, 0 are out of the trick: it ends and seat 2 leads.
    assert int(state.to_act[0]) == 2 and int(state.table[0]) == 0
    state = position(["5S 8S", "6S 9S", "7S TS", "4S JS"], 0, STICKY)
    state = play(state, "5", "pass", "7", "J")
    assert int(state.to_act[0]) == 0  # seat 1 is skipped ... and seat 0 is asked
    state = play(state, "pass")
    assert int(state.to_act[0]) == 2  # seat 1 still skipped: seat 2 is asked, not seat 1


def test_sticky_pass_can_end_a_trick_right_after_a_play():
    """RULES.md 7 sticky_pass: "this can end it right after a play (once someone is out),
    and that player leads again"."""
    hands = ["5S", "6S 9S", "7S TS", "4S JS"]
    state = play(position(hands, 0, STICKY), "5", "pass", "pass", "J")
    assert int(state.place[0, 0]) == 0
    assert int(state.to_act[0]) == 3 and int(state.table[0]) == 0
    # By default seat 1 is asked again instead.
    state = play(position(hands, 0), "5", "pass", "pass", "J")
    assert int(state.to_act[0]) == 1 and int(state.table[0]) == action("J")


def test_going_out_takes_the_next_place_and_others_may_still_beat():
    """RULES.md 4: "When a player plays their last card they are out, and their place is the
    next free one ... The others may still beat that last play"."""
    state = position(["", "KS", "AS 3H", "4S 5H"], 1, place={0: 0})
    state = play(state, "K")
    assert state.place[0].tolist() == [0, 1, -1, -1]
    assert int(state.to_act[0]) == 2 and legal(state) == {(), ranks("A")}


def test_lead_after_going_out_passes_to_next_holder():
    """RULES.md 4: "if that player has no cards left, the next player after them (in seat
    order) who holds cards leads"."""
    state = play(position(["KS", "", "3S 4S", "5S 6S"], 0, place={1: 0}), "K", "pass", "pass")
    assert int(state.to_act[0]) == 2  # seat 1 is out too: seat 2 leads
    assert int(state.table[0]) == 0
    state = play(position(["KS", "3D 4D", "3S 4S", "5S 6S"], 0), "K", "pass", "pass", "pass")
    assert int(state.to_act[0]) == 1


def test_hand_ends_when_one_player_holds_cards_last_place_and_points():
    """RULES.md 4: "The hand ends as soon as only one player holds cards: that player is last
    (4th) and does not play on." RULES.md 5: "Points for the hand: 1st 3, 2nd 2, 3rd 1, last 0"."""
    state = position(["5S", "", "", "9S JS"], 0, place={2: 0, 1: 1}, scores=[4, 5, 6, 7])
    state = play(state, "5")
    assert int(state.phase[0]) == Phase.HAND_OVER
    assert state.place[0].tolist() == [2, 1, 0, 3]
    assert state.points[0].tolist() == [1, 2, 3, 0]
    assert state.scores[0].tolist() == [5, 7, 9, 7]
    assert not engine.legal_action_mask(state).any()


# ---------------------------------------------------------------------------- a hand


@pytest.mark.parametrize("dealer", range(4))
def test_deal_sizes_and_dealing_order(dealer):
    """RULES.md 5: "starting with the player after the dealer, so the two players after the
    dealer hold 14 cards and the other two 13"."""
    sizes = [14 if (s - dealer) % 4 in (1, 2) else 13 for s in range(4)]
    assert engine.deal_sizes(dealer) == sizes
    dealt = engine.random_deal(np.random.default_rng(dealer), np.array([dealer] * 5))
    assert (dealt.sum(2) == sizes).all() and (dealt.sum(1) == 1).all()
    with pytest.raises(ValueError):
        engine.deal_from(full_deal((dealer + 1) % 4), dealer)


def test_dealer_is_random_then_rotates():
    """RULES.md 5: "The dealer of hand 1 is chosen at random; the dealer moves one seat on
    each hand"."""
    state = engine.init(np.random.default_rng(3), 200)
    assert set(state.dealer.tolist()) == {0, 1, 2, 3}
    rng = np.random.default_rng(4)
    state = position(["5S", "", "", "9S"], 0, place={1: 0, 2: 1})
    state = state.replace(dealer=np.array([2], np.int8))
    state = engine.next_hand(play(state, "5"), rng)
    assert int(state.dealer[0]) == 3 and int(state.hand_no[0]) == 2
    assert state.deal[0].sum(1).tolist() == [14, 14, 13, 13]


def _later_hand(rules=DEFAULT, dealer=0, first=1, last=3, **given):
    """Hand 2 of a match after a hand won by ``first`` and lost by ``last``.

    The black joker goes to seat 0 unless placed, so the filler never hands the last
    player both jokers by accident."""
    if not any("BJ" in cards for cards in given.values()):
        given["s0"] = given.get("s0", "") + " BJ"
    deal = full_deal(dealer, **given)
    return engine.deal_from(deal, dealer, rules, hand_no=1, previous=(first, last))


def test_exchange_last_gives_highest_card_and_first_chooses_back():
    """RULES.md 5: "the previous last player gives their highest card ... then the previous
    1st player gives back one card of their choice ranked 3 to 10 ... Then the previous last
    player leads"."""
    state = _later_hand(s3="RJ 9S", s1="4H 7D JS QS")
    assert int(state.ex_last_gives[0]) == parse_card("RJ")
    assert state.cards[0, 1, parse_card("RJ")] and not state.cards[0, 3, parse_card("RJ")]
    assert int(state.phase[0]) == Phase.EXCHANGE and int(state.to_act[0]) == 1
    held = {r for r in range(8) if state.counts[0, 1, r] > 0}
    assert mask_ranks(engine.legal_action_mask(state)[0]) == {(r,) for r in held}
    state = engine.step(state, np.array([action("7")]))
    back = int(state.ex_first_gives[0])
    assert CARD_RANK[back] == ranks("7")[0] and state.cards[0, 3, back]
    assert int(state.phase[0]) == Phase.PLAY and int(state.to_act[0]) == 3
    assert not state.start_duty[0]  # later leaders have no 3-of-spades duty
    # The 2nd and 3rd players exchange nothing.
    assert (state.cards[0, 0] == state.deal[0, 0]).all()
    assert (state.cards[0, 2] == state.deal[0, 2]).all()


def test_exchange_highest_of_several_gives_one_of_that_rank():
    """RULES.md 5: "with several cards of that rank, any of them"."""
    deal = full_deal(0, s3="2S 2D AS", s0="BJ RJ 2H 2C")
    state = engine.deal_from(deal, 0, hand_no=1, previous=(1, 3))
    given = int(state.ex_last_gives[0])
    assert given in (parse_card("2S"), parse_card("2D"))
    assert state.counts[0, 3, 12] == 1


def test_give_back_not_the_card_just_received_but_same_rank_allowed():
    """RULES.md 5: "other than the very card just received (another card of the same rank may
    go back)"."""
    low = "3S 3H 3D 4S 4H 4D 5S 5H 5D 6S 6H 6D 9S"  # the last player's highest card: 9S
    state = _later_hand(s3=low, s1="9H JS")
    assert int(state.ex_last_gives[0]) == parse_card("9S")
    assert ranks("9") in legal(state)
    after = engine.step(state, np.array([action("9")]))
    assert int(after.ex_first_gives[0]) == parse_card("9H")
    state = _later_hand(s3=low, s1="JS", s2="9H 9D 9C")  # no other 9: it cannot go back
    assert int(state.phase[0]) == Phase.EXCHANGE
    assert ranks("9") not in legal(state) and ranks("T") in legal(state)


def test_give_back_automatic_lowest_when_no_card_ranked_3_to_10():
    """RULES.md 5: "if they hold no such card, they give their lowest card other than the one
    just received (automatic)"."""
    high = "JS JH JD JC QS QH QD QC KS KH KD KC AS AH"  # 14 cards for seat 1 (dealer 0)
    low = "3S 3H 3D 4S 4H 4D 5S 5H 5D 6S 6H 6D 9S"  # highest 9S: a 3-10 card, but received
    state = _later_hand(s3=low, s1=high)
    assert int(state.ex_last_gives[0]) == parse_card("9S")
    assert int(state.ex_first_gives[0]) in parse_cards("JS JH JD JC")
    assert int(state.phase[0]) == Phase.PLAY and int(state.to_act[0]) == 3
    # The same with a high card received: the lowest card (a J) goes back.
    state = _later_hand(s3="RJ", s1=high, s0="BJ")
    assert int(state.ex_last_gives[0]) == parse_card("RJ")
    assert int(state.ex_first_gives[0]) in parse_cards("JS JH JD JC")
    assert int(state.to_act[0]) == 3


def test_both_jokers_no_exchange_first_leads():
    """RULES.md 5: "if the previous last player has just been dealt both jokers, there is no
    exchange and the previous 1st player leads"."""
    state = _later_hand(s3="BJ RJ")
    assert int(state.ex_last[0]) == -1 and int(state.ex_last_gives[0]) == -1
    assert int(state.phase[0]) == Phase.PLAY and int(state.to_act[0]) == 1
    assert (state.cards[0] == state.deal[0]).all()


def test_both_jokers_looked_up_in_new_deal_only():
    """RULES.md 5: "The both-jokers test looks at the previous last player's new deal only":
    holding both jokers at the end of the previous hand does not matter."""
    state = position(["5S", "", "", "BJ RJ"], 0, place={1: 0, 2: 1})
    state = play(state, "5")
    assert state.place[0].tolist() == [2, 0, 1, 3]
    new = full_deal(1, s3="RJ 3S", s0="BJ")  # seat 3 now has only one joker
    state = engine.next_hand(state, hands=engine.parse_deal(new))
    assert int(state.ex_last[0]) == 3 and int(state.ex_first[0]) == 1
    assert int(state.ex_last_gives[0]) == parse_card("RJ")
    # One joker each way is not the exception either: seat 3 dealt BJ only.
    state = _later_hand(s3="BJ", s1="RJ")
    assert int(state.ex_last_gives[0]) == parse_card("BJ")


@pytest.mark.parametrize("jokers", [False, True])
def test_no_exchange_variant(jokers):
    """RULES.md 7 no_exchange: "no exchange in any hand ... and the previous last player
    leads, even when dealt both jokers"."""
    state = _later_hand(Rules(no_exchange=True), **({"s3": "BJ RJ"} if jokers else {}))
    assert int(state.ex_last[0]) == -1 and int(state.phase[0]) == Phase.PLAY
    assert int(state.to_act[0]) == 3
    assert (state.cards[0] == state.deal[0]).all()


# ---------------------------------------------------------------------------- a match

# (rule, rules, scores before the hand, target before, scores after, target, winners).
# The scripted hand gives points [1, 3, 2, 0] to seats 0-3.
MATCH_END = [
    ("below target plays on", DEFAULT, [10, 10, 10, 10], 21, [11, 13, 12, 10], 21, []),
    ("exactly one at target wins", DEFAULT, [18, 17, 20, 20], 21, [19, 20, 22, 20], 21, [2]),
    ("two at target raise it", DEFAULT, [18, 19, 20, 20], 21, [19, 22, 22, 20], 31, []),
    ("raise 31 to 41", DEFAULT, [30, 29, 29, 0], 31, [31, 32, 31, 0], 41, []),
    ("raise 41 to 51", DEFAULT, [40, 39, 40, 0], 41, [41, 42, 42, 0], 51, []),
    ("one at 51 wins", DEFAULT, [49, 49, 48, 50], 51, [50, 52, 50, 50], 51, [1]),
    ("highest of several at 51 wins", DEFAULT, [50, 49, 49, 0], 51, [51, 52, 51, 0], 51, [1]),
    (
        "tie at the top at 51 is a draw",
        DEFAULT,
        [50, 48, 49, 0],
        51,
        [51, 51, 51, 0],
        51,
        [0, 1, 2],
    ),
    ("below 31 plays on", DEFAULT, [29, 20, 28, 30], 31, [30, 23, 30, 30], 31, []),
    ("the one above wins at 31", DEFAULT, [29, 28, 28, 30], 31, [30, 31, 30, 30], 31, [1]),
    (
        "leader: unique top at 21 wins",
        Rules(tie_rule="leader"),
        [20, 18, 20, 0],
        21,
        [21, 21, 22, 0],
        21,
        [2],
    ),
    (
        "leader: tie at top plays on",
        Rules(tie_rule="leader"),
        [20, 19, 20, 0],
        21,
        [21, 22, 22, 0],
        21,
        [],
    ),
    ("leader: no draw at 51", Rules(tie_rule="leader"), [50, 48, 0, 0], 21, [51, 51, 2, 0], 21, []),
    (
        "leader: no cap, above 51 wins",
        Rules(tie_rule="leader"),
        [60, 50, 0, 0],
        21,
        [61, 53, 2, 0],
        21,
        [0],
    ),
    (
        "leader: below 21 plays on",
        Rules(tie_rule="leader"),
        [10, 17, 0, 0],
        21,
        [11, 20, 2, 0],
        21,
        [],
    ),
]


@pytest.mark.parametrize(
    "rules, before, target, after, new_target, winners",
    [row[1:] for row in MATCH_END],
    ids=[row[0] for row in MATCH_END],
)
def test_match_targets_and_winners(rules, before, target, after, new_target, winners):
    """RULES.md 6 (targets 21/31/41/51, draws at 51) and RULES.md 7 tie_rule=leader."""
    state = position(
        ["5S", "", "", "9S"], 0, rules, place={1: 0, 2: 1}, scores=before, target=target
    )
    state = play(state, "5")
    assert state.scores[0].tolist() == after
    assert int(state.target[0]) == new_target
    assert np.flatnonzero(state.winners[0]).tolist() == winners
    assert int(state.phase[0]) == (Phase.MATCH_OVER if winners else Phase.HAND_OVER)
    # The reference agrees.
    ref = reference.Match(rules)
    ref.scores, ref.target = list(before), target
    ref.finish = [1, 2, 0]
    ref._end_hand(3)
    assert (ref.scores, ref.target, sorted(ref.winners)) == (after, new_target, winners)


def test_match_goes_on_to_next_hand_with_exchange():
    """RULES.md 5-6: a hand over without a winner continues with the next deal; the previous
    1st (seat 1) and last (seat 3) exchange, and scores carry over."""
    state = position(["5S", "", "", "9S"], 0, place={1: 0, 2: 1}, scores=[3, 3, 3, 3])
    new = engine.parse_deal(full_deal(1, s0="BJ"))
    state = engine.next_hand(play(state, "5"), hands=new)
    assert int(state.ex_first[0]) == 1 and int(state.ex_last[0]) == 3
    assert state.scores[0].tolist() == [4, 6, 5, 3]
    assert state.place[0].tolist() == [-1, -1, -1, -1]
    assert (state.cards[0].sum(0) == 1).all()
