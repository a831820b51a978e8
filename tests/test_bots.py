"""Rule-based bots: decisions at positions built through the engine, legality, determinism and
strength."""

from __future__ import annotations

import numpy as np
import pytest

from murlan_env.bots.baseline import GreedyBot, RandomBot
from murlan_env.bots.protocol import Bot
from murlan_env.bots.rule import RuleBot, plans
from murlan_env.eval.duplicate import one_against_three, play_duplicate
from murlan_env.game import engine
from murlan_env.game.cards import CARD_NAMES, CARD_RANK, RANK, RANKS, parse_card
from murlan_env.game.combos import COST, JOKER_PAIR, PASS, action_of_counts
from murlan_env.game.rules import Rules
from murlan_env.game.state import Phase
from tests import rule_moves
from tests.conftest import full_deal, position


def counts_of(ranks: str) -> np.ndarray:
    """Cards per rank of a rank string such as ``"3 3 7 RJ"``."""
    counts = np.zeros(15, np.int8)
    for r in ranks.split():
        counts[RANK[r]] += 1
    return counts


def act_of(ranks: str) -> int:
    """Action id of a play written as ranks, e.g. ``"7 7"``."""
    return int(action_of_counts(counts_of(ranks)))


def cards_of(ranks: str, taken: set[int]) -> list[int]:
    """Card ids for a rank string, the lowest free suit of each rank first; marks them taken."""
    out = []
    for r in ranks.split():
        card = min(c for c in range(54) if CARD_RANK[c] == RANK[r] and c not in taken)
        taken.add(card)
        out.append(card)
    return out


def names(cards) -> str:
    return " ".join(CARD_NAMES[c] for c in sorted(cards))


def decision(
    hand: str,
    table: str = "",
    left=(13, 13, 13),
    seen: str = "",
    rules: Rules | None = None,
) -> engine.State:
    """A game in the middle of a hand, seat 0 to act, built through the engine: seat 0 holds
    ``hand`` (ranks), the seat before it has just played ``table``, the next seats hold
    ``left`` cards each, and ``seen`` (ranks) has been played. The others hold the highest of
    the remaining cards, dealt round; the lowest ones count as played."""
    taken: set[int] = set()
    mine = cards_of(hand, taken)
    cards_of(f"{seen} {table}", taken)
    pool = [c for c in range(53, -1, -1) if c not in taken]
    others = [[], [], []]
    while any(len(h) < n for h, n in zip(others, left, strict=True)):
        for h, n in zip(others, left, strict=True):
            if len(h) < n:
                h.append(pool.pop(0))
    return position([names(mine), *map(names, others)], 0, rules, table=table)


def exchange(first: str, last: str, rules: Rules | None = None) -> engine.State:
    """Hand 2 of a match, in its exchange: seat 0 (the previous 1st, dealt the cards
    ``first``) has received the highest card of seat 3 (the previous last, dealt ``last``) and
    is to give one back; seats 1 and 2 hold the rest, one joker each."""
    deal = full_deal(0, s0=first, s1="BJ", s2="RJ", s3=last)
    state = engine.deal_from(deal, 0, rules, hand_no=1, previous=(0, 3))
    assert int(state.phase[0]) == Phase.EXCHANGE and int(state.to_act[0]) == 0
    return state


def decide(bot: Bot, state: engine.State) -> int:
    """The bot's move for seat to act in the one game of ``state``, checked legal."""
    obs, mask = engine.observe(state), engine.legal_action_mask(state)
    action = int(bot.act(obs, mask, np.random.default_rng(0))[0])
    assert mask[0, action]
    return action


# --------------------------------------------------------------------------- greedy


def test_greedy_follows_with_the_cheapest_play():
    assert decide(GreedyBot(), decision(hand="4 6 6 9 K", table="5")) == act_of("6")
    assert decide(GreedyBot(), decision(hand="4 6 6 9 9 K", table="5 5")) == act_of("6 6")


def test_greedy_leads_all_copies_of_its_lowest_rank():
    assert decide(GreedyBot(), decision(hand="4 4 6 7 8 9 T K")) == act_of("4 4")
    assert decide(GreedyBot(), decision(hand="3 3 3 3 5 9")) == act_of(
        "5"
    )  # the bomb of 3s is kept


def test_greedy_keeps_bombs_and_passes_when_only_a_bomb_beats():
    assert decide(GreedyBot(), decision(hand="4 K K K K", table="2")) == PASS
    assert (
        decide(GreedyBot(), decision(hand="4 K K K K", table="9")) == PASS
    )  # no K split off the bomb
    assert decide(GreedyBot(), decision(hand="K K K K", table="2")) == act_of("K K K K")  # goes out
    assert decide(GreedyBot(), decision(hand="3 3 3 3 9 9 9 9")) == act_of("3 3 3 3")


def test_greedy_gives_back_its_lowest_card():
    state = exchange("5S 6S 7S 8S 9S TS JS QS KS AS 2S 2H 2D", "3S 3H 4S 4H 8H")
    assert decide(GreedyBot(), state) == act_of("5")


def test_greedy_never_gives_back_the_card_it_just_received():
    """RULES.md 5: the card given back is "not the card just received": here the 6 the last
    player gave is seat 0's lowest card, so its lowest card it may give is the 7."""
    low = "3S 3H 3D 3C 4S 4H 4D 4C 5S 5H 5D 5C 6S"
    state = exchange("7S 7H 8S 9S TS JS QS KS AS 2S 2H 2D 2C", low)
    assert state.cards[0, 0, parse_card("6S")]
    assert decide(GreedyBot(), state) == act_of("7")


# --------------------------------------------------------------------------- rule bot


def test_plans_use_straights_and_keep_bombs():
    best = plans(tuple(counts_of("3 4 5 6 7 7 9 9 9 9 K")))[0]
    expected = [act_of("3 4 5 6 7"), act_of("7"), act_of("9 9 9 9"), act_of("K")]
    assert sorted(best) == sorted(expected)


@pytest.mark.parametrize("joker_pair", [False, True])
def test_every_plan_pays_exactly_the_hand_fewest_combinations_first(joker_pair):
    from murlan_env.bots.rule import MAX_PLANS, group_action
    from murlan_env.game.combos import LENGTH

    rng = np.random.default_rng(11)
    deck = np.repeat(np.arange(15), [4] * 13 + [1, 1])
    with_straights = 0
    for _ in range(400):
        hand = np.bincount(rng.choice(deck, rng.integers(1, 17), replace=False), minlength=15)
        found = plans(tuple(int(x) for x in hand), joker_pair)
        assert 1 <= len(found) <= MAX_PLANS
        keys = [(len(p), sum(int(LENGTH[a] == 1) for a in p)) for p in found]
        assert keys == sorted(keys)
        assert len({tuple(sorted(p)) for p in found}) == len(found)
        bombs = {group_action(r, 4) for r in np.flatnonzero(hand == 4)}
        for plan in found:
            np.testing.assert_array_equal(COST[list(plan)].sum(0), hand)
            assert bombs <= set(plan)
        with_straights += any(LENGTH[a] >= 5 for a in found[0])
    assert with_straights > 20  # the hands exercise the straight search


def test_hand_value_counts_beatable_combinations_and_credits_controls():
    from murlan_env.bots.rule import CONTROL_CREDIT, hand_value

    counts = tuple(counts_of("3 4 5 6 7 K"))
    straight, king = act_of("3 4 5 6 7"), act_of("K")
    beatable = np.ones(COST.shape[0], bool)
    assert hand_value(counts, beatable) == (2.0, (straight, king))
    beatable[king] = False  # the king is a control: nothing unseen beats it
    value, plan = hand_value(counts, beatable)
    assert value == 2.0 - CONTROL_CREDIT and plan == (straight, king)
    assert hand_value((0,) * 15, beatable) == (float("-inf"), ())


def test_rule_goes_out_when_one_play_empties_the_hand():
    assert decide(RuleBot(), decision(hand="8 8", table="5 5")) == act_of("8 8")
    assert decide(RuleBot(), decision(hand="Q Q Q Q", table="RJ")) == act_of("Q Q Q Q")


def test_rule_sheds_a_weak_card_and_keeps_its_control():
    # RJ cannot be beaten (bombs aside): it is kept; the cheap 6 is shed.
    assert decide(RuleBot(), decision(hand="3 6 9 J RJ", table="5")) == act_of("6")
    # Only RJ beats a 2 and nobody is close to going out: hold it.
    assert decide(RuleBot(), decision(hand="3 4 7 9 J RJ", table="2")) == PASS


def test_rule_spends_control_and_bomb_to_stop_an_opponent():
    assert decide(RuleBot(), decision(hand="3 4 7 9 J RJ", table="2", left=(13, 1, 13))) == act_of(
        "RJ"
    )
    assert decide(RuleBot(), decision(hand="3 5 8 K K K K", table="RJ")) == PASS
    blocked = decide(RuleBot(), decision(hand="3 5 8 K K K K", table="RJ", left=(13, 1, 13)))
    assert blocked == act_of("K K K K")


def test_rule_takes_the_lead_when_it_then_goes_out():
    # 2 is a control once both jokers are seen; after it, the pair of 5s goes out.
    assert decide(RuleBot(), decision(hand="5 5 2", table="K", seen="BJ RJ")) == act_of("2")


def test_rule_counts_cards_for_controls():
    # Once both jokers are seen the 2 is a control: lead it, then the 5 goes out.
    assert decide(RuleBot(), decision(hand="5 2", seen="BJ RJ")) == act_of("2")
    # With a joker unseen the 2 can be beaten: lead the low card first.
    assert decide(RuleBot(), decision(hand="5 2", seen="BJ")) == act_of("5")


def test_rule_leads_weak_first_and_controls_when_one_weak_is_left():
    assert decide(RuleBot(), decision(hand="4 7 7 9 T J Q K RJ")) == act_of("4")
    assert decide(RuleBot(), decision(hand="4 RJ")) == act_of("RJ")


def test_rule_avoids_leading_what_an_opponent_can_go_out_on():
    assert decide(RuleBot(), decision(hand="4 7 7 9", left=(13, 1, 13))) == act_of("7 7")
    assert decide(RuleBot(), decision(hand="4 6 9", left=(1, 13, 13))) == act_of("9")


def test_rule_gives_back_the_least_useful_card():
    # 3 is the lowest card but holds the straight together; the lone 9 goes.
    state = exchange("3S 4S 5S 6S 7S 9S KS KH QS QH QD AS AH", "3H 4H 5H 6H 7H")
    assert decide(RuleBot(), state) == act_of("9")


def test_rule_plays_the_joker_pair_variant():
    rules = Rules(joker_pair=True)
    assert decide(RuleBot(), decision(hand="BJ RJ", table="2 2", rules=rules)) == JOKER_PAIR


# --------------------------------------------------------------------------- games


def test_bots_satisfy_the_protocol():
    for bot in (RandomBot(), GreedyBot(), RuleBot()):
        assert isinstance(bot, Bot)


VARIANTS = [
    Rules(),
    Rules(sticky_pass=True),
    Rules(joker_pair=True),
    Rules(straight_plus_one=True),
    Rules(tie_rule="leader", start_card="3C"),
    Rules(no_exchange=True),
    Rules(sticky_pass=True, joker_pair=True, straight_plus_one=True, no_exchange=True),
]


@pytest.mark.parametrize("rules", VARIANTS, ids=lambda r: str(r.to_dict()) or "default")
def test_bots_play_only_legal_actions_through_whole_matches(rules):
    # The duplicate runner checks every action against the mask (IllegalActionError).
    result = play_duplicate([RuleBot(), GreedyBot(), RandomBot()], 2, rules=rules, seed=3)
    assert len(result.match_board) == result.games == 8
    assert result.match_winners.any(1).all()
    assert len(result.hand_board) == result.match_hands.sum()


@pytest.mark.parametrize("bot", [RandomBot(), GreedyBot(), RuleBot()], ids=lambda b: b.name)
def test_play_is_deterministic_for_a_seed(bot):
    def points(seed):
        return play_duplicate([bot, RandomBot()], 6, seed=seed, max_hands=2).board_points()

    first = points(11)
    assert np.array_equal(first, points(11))
    assert not np.array_equal(first, points(12))
    # Two seats each: every hand hands out 3 + 2 + 1 + 0, so the two means add up to 3.
    assert np.allclose(first.sum(1), 3.0)


# --------------------------------------------------------------------------- strength


def strength(a: Bot, b: Bot, boards: int, seed: int) -> tuple[float, float, float]:
    """A's points per hand against three Bs and its 95% CI, over 2-hand duplicate boards."""
    result = play_duplicate([a, b], boards, lineups=one_against_three(), seed=seed, max_hands=2)
    row = result.bot_results()[0]
    return row.points_per_hand, *row.points_ci95


def test_greedy_beats_random():
    mean, low, _ = strength(GreedyBot(), RandomBot(), 40, seed=100)  # 320 hands
    assert low > 1.5, mean


def test_rule_beats_greedy():
    mean, low, _ = strength(RuleBot(), GreedyBot(), 40, seed=200)  # 320 hands
    assert low > 1.5, mean


def test_ranks_text_matches_actions():
    # Guard for the helpers above: the rank names round-trip through action ids.
    assert act_of("3 4 5 6 7") > 54 and RANKS[RANK["RJ"]] == "RJ"


def test_rule_moves_do_not_depend_on_the_batch():
    """The compiled decisions reuse scratch space from game to game: a batch, the same batch
    reversed and games one at a time get the same moves."""

    rng = np.random.default_rng(0)
    state = engine.init(rng, 64)
    obs, masks = [], []
    for _ in range(30):  # positions from 64 games played on by random moves
        mask = engine.legal_action_mask(state)
        obs.append(engine.observe(state))
        masks.append(mask)
        state = engine.step(state, engine.random_legal_actions(mask, rng))
    obs, masks = np.concatenate(obs), np.concatenate(masks)
    waiting = masks.any(1)
    obs, masks = obs[waiting], masks[waiting]
    together = RuleBot().act(obs, masks, rng)
    np.testing.assert_array_equal(RuleBot().act(obs[::-1], masks[::-1], rng), together[::-1])
    fresh = [RuleBot().act(obs[i : i + 1], masks[i : i + 1], rng)[0] for i in range(0, len(obs), 7)]
    np.testing.assert_array_equal(fresh, together[::7])


@pytest.mark.parametrize("variant", range(len(rule_moves.VARIANTS)))
def test_rule_makes_the_moves_the_python_rule_bot_made(variant):
    """The moves stored by ``tests/rule_moves.py`` (first made by the pure-Python rule bot)."""
    from murlan_env.game.observation import decode

    expected = np.load(rule_moves.DATA)
    obs, masks = rule_moves.positions(variant)
    seen = decode(obs)
    assert seen.exchanging.any() or rule_moves.VARIANTS[variant].get("no_exchange")
    assert (seen.table == PASS).any() and (seen.table != PASS).any()
    for k, knobs in enumerate(rule_moves.KNOBS):
        moves = RuleBot(**knobs).act(obs, masks, np.random.default_rng(0))
        np.testing.assert_array_equal(moves, expected[f"variant{variant}_knobs{k}"])
