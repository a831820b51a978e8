"""Rule-based bots: decisions on hand-built observations, legality, determinism and strength."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from murlan_env.bots.basic import Bot, GreedyBot, RandomBot, RuleBot
from murlan_env.bots.strategy import plans
from murlan_env.eval.duplicate import one_against_three, play_duplicate
from murlan_env.game.cards import RANK, RANKS
from murlan_env.game.combos import COST, JOKER_PAIR, PASS, action_of_counts, beats_matrix
from murlan_env.game.observation import CARDS_LEFT_SCALE, SIZE, SLICES, rule_flags
from murlan_env.game.rules import Rules

FULL = np.array([4] * 13 + [1, 1], np.int8)


def counts_of(ranks: str) -> np.ndarray:
    """Cards per rank of a rank string such as ``"3 3 7 RJ"``."""
    counts = np.zeros(15, np.int8)
    for r in ranks.split():
        counts[RANK[r]] += 1
    return counts


def act_of(ranks: str) -> int:
    """Action id of a play written as ranks, e.g. ``"7 7"``."""
    return int(action_of_counts(counts_of(ranks)))


def position(
    hand: str,
    table: str = "",
    left=(13, 13, 13),
    seen: str = "",
    exchange: bool = False,
    rules: Rules | None = None,
    table_slot: int = 3,
):
    """(obs, mask) of one decision built by hand: my hand, the play to beat, others' sizes.

    ``seen`` lists cards already played (neither mine nor unseen); ``left`` gives the cards
    held by seat slots 1-3.
    """
    rules = rules or Rules()
    mine = counts_of(hand)
    unseen = FULL - mine - counts_of(seen)
    assert (unseen >= 0).all()
    obs = np.zeros((1, SIZE), np.float32)
    thermo = lambda c: (c[:, None] >= np.arange(1, 5)).reshape(-1)  # noqa: E731
    obs[0, SLICES["my_hand"]] = thermo(mine)
    obs[0, SLICES["unseen"]] = thermo(unseen)
    obs[0, SLICES["cards_left"]] = np.array([mine.sum(), *left]) / CARDS_LEFT_SCALE
    obs[0, SLICES["rules"]] = rule_flags(rules)
    obs[0, SLICES["phase"]] = [not exchange, exchange]
    mask = np.zeros((1, len(COST)), bool)
    can_pay = (mine[None, :] >= COST).all(1)
    if exchange:
        mask[0, 1:9] = mine[:8] > 0  # singles of ranks 3-10
    else:
        prev = act_of(table) if table else PASS
        if table:
            obs[0, SLICES["table_action"].start + prev] = 1.0
            obs[0, SLICES["table_seat"].start + table_slot] = 1.0
        mask[0] = can_pay & beats_matrix(rules)[prev]
    return obs, mask


def decide(bot: Bot, **kwargs) -> int:
    obs, mask = position(**kwargs)
    action = int(bot.act(obs, mask, np.random.default_rng(0))[0])
    assert mask[0, action]
    return action


# --------------------------------------------------------------------------- greedy


def test_greedy_follows_with_the_cheapest_play():
    assert decide(GreedyBot(), hand="4 6 6 9 K", table="5") == act_of("6")
    assert decide(GreedyBot(), hand="4 6 6 9 9 K", table="5 5") == act_of("6 6")


def test_greedy_leads_all_copies_of_its_lowest_rank():
    assert decide(GreedyBot(), hand="4 4 6 7 8 9 T K") == act_of("4 4")
    assert decide(GreedyBot(), hand="3 3 3 3 5 9") == act_of("5")  # the bomb of 3s is kept


def test_greedy_keeps_bombs_and_passes_when_only_a_bomb_beats():
    assert decide(GreedyBot(), hand="4 K K K K", table="2") == PASS
    assert decide(GreedyBot(), hand="4 K K K K", table="9") == PASS  # no K split off the bomb
    assert decide(GreedyBot(), hand="K K K K", table="2") == act_of("K K K K")  # goes out
    assert decide(GreedyBot(), hand="3 3 3 3 9 9 9 9") == act_of("3 3 3 3")


def test_greedy_gives_back_its_lowest_card():
    assert decide(GreedyBot(), hand="5 6 7 8 9 T 2", exchange=True) == act_of("5")


# --------------------------------------------------------------------------- rule bot


def test_plans_use_straights_and_keep_bombs():
    best = plans(tuple(counts_of("3 4 5 6 7 7 9 9 9 9 K")))[0]
    expected = [act_of("3 4 5 6 7"), act_of("7"), act_of("9 9 9 9"), act_of("K")]
    assert sorted(best) == sorted(expected)


@pytest.mark.parametrize("joker_pair", [False, True])
def test_every_plan_pays_exactly_the_hand_fewest_combinations_first(joker_pair):
    from murlan_env.bots.strategy import MAX_PLANS, group_action
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
    from murlan_env.bots.strategy import CONTROL_CREDIT, hand_value

    counts = tuple(counts_of("3 4 5 6 7 K"))
    straight, king = act_of("3 4 5 6 7"), act_of("K")
    beatable = np.ones(COST.shape[0], bool)
    assert hand_value(counts, beatable) == (2.0, (straight, king))
    beatable[king] = False  # the king is a control: nothing unseen beats it
    value, plan = hand_value(counts, beatable)
    assert value == 2.0 - CONTROL_CREDIT and plan == (straight, king)
    assert hand_value((0,) * 15, beatable) == (float("-inf"), ())


def test_rule_goes_out_when_one_play_empties_the_hand():
    assert decide(RuleBot(), hand="8 8", table="5 5") == act_of("8 8")
    assert decide(RuleBot(), hand="Q Q Q Q", table="RJ") == act_of("Q Q Q Q")


def test_rule_sheds_a_weak_card_and_keeps_its_control():
    # RJ cannot be beaten (bombs aside): it is kept; the cheap 6 is shed.
    assert decide(RuleBot(), hand="3 6 9 J RJ", table="5") == act_of("6")
    # Only RJ beats a 2 and nobody is close to going out: hold it.
    assert decide(RuleBot(), hand="3 4 7 9 J RJ", table="2") == PASS


def test_rule_spends_control_and_bomb_to_stop_an_opponent():
    assert decide(RuleBot(), hand="3 4 7 9 J RJ", table="2", left=(13, 1, 13)) == act_of("RJ")
    assert decide(RuleBot(), hand="3 5 8 K K K K", table="RJ") == PASS
    blocked = decide(RuleBot(), hand="3 5 8 K K K K", table="RJ", left=(13, 1, 13))
    assert blocked == act_of("K K K K")


def test_rule_takes_the_lead_when_it_then_goes_out():
    # 2 is a control once both jokers are seen; after it, the pair of 5s goes out.
    assert decide(RuleBot(), hand="5 5 2", table="K", seen="BJ RJ") == act_of("2")


def test_rule_counts_cards_for_controls():
    # Once both jokers are seen the 2 is a control: lead it, then the 5 goes out.
    assert decide(RuleBot(), hand="5 2", seen="BJ RJ") == act_of("2")
    # With a joker unseen the 2 can be beaten: lead the low card first.
    assert decide(RuleBot(), hand="5 2", seen="BJ") == act_of("5")


def test_rule_leads_weak_first_and_controls_when_one_weak_is_left():
    assert decide(RuleBot(), hand="4 7 7 9 T J Q K RJ") == act_of("4")
    assert decide(RuleBot(), hand="4 RJ") == act_of("RJ")


def test_rule_avoids_leading_what_an_opponent_can_go_out_on():
    assert decide(RuleBot(), hand="4 7 7 9", left=(13, 1, 13)) == act_of("7 7")
    assert decide(RuleBot(), hand="4 6 9", left=(1, 13, 13)) == act_of("9")


def test_rule_gives_back_the_least_useful_card():
    # 3 is the lowest card but holds the straight together; the lone 9 goes.
    assert decide(RuleBot(), hand="3 4 5 6 7 9 K K 2", exchange=True) == act_of("9")


def test_rule_plays_the_joker_pair_variant():
    rules = Rules(joker_pair=True)
    assert decide(RuleBot(), hand="BJ RJ", table="2 2", rules=rules) == JOKER_PAIR


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
    from murlan_env.game import engine

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


# The rule bot was pure Python until it was compiled (murlan_env.bots.strategy.rule_moves);
# tests/data/rule_moves.npz holds the Python bot's moves (commit 019ed51) at the positions
# below, for each variant and each set of knobs, so the compiled bot is held to every one.
_FIXTURE_VARIANTS = [
    {},
    {"joker_pair": True},
    {"straight_plus_one": True},
    {"sticky_pass": True, "start_card": "3C"},
    {"no_exchange": True},
]
_FIXTURE_KNOBS = [
    {},
    {"lead_long": True, "save_high": 11},
    {"danger": 2, "last_weak": 0, "finish": 2.5},
]


def _fixture_positions(rules, seed: int, n: int = 1600):
    """``n`` positions with a choice from 12 seeded matches played on by greedy and random
    moves (half each), several hands deep (exchanges included)."""
    from murlan_env.game import engine

    rng = np.random.default_rng(seed)
    state = engine.init(rng, 12, rules)
    greedy = GreedyBot()
    obs_parts, mask_parts, got = [], [], 0
    while got < n:
        mask = engine.legal_action_mask(state)
        obs = engine.observe(state)
        live = mask.any(1)
        choice = live & (mask.sum(1) > 1)
        obs_parts.append(obs[choice])
        mask_parts.append(mask[choice])
        got += int(choice.sum())
        actions = np.where(live, np.argmax(mask, 1), 0)
        g = np.flatnonzero(live)
        if g.size:
            by_greedy = greedy.act(obs[g], mask[g], rng)
            by_chance = engine.random_legal_actions(mask[g], rng)
            actions[g] = np.where(rng.random(g.size) < 0.5, by_greedy, by_chance)
        state = engine.step(state, actions, rng=rng)
    return np.concatenate(obs_parts)[:n], np.concatenate(mask_parts)[:n]


@pytest.mark.parametrize("variant", range(len(_FIXTURE_VARIANTS)))
def test_rule_makes_the_moves_the_python_rule_bot_made(variant):
    from murlan_env.game.observation import decode

    expected = np.load(Path(__file__).parent / "data" / "rule_moves.npz")
    obs, masks = _fixture_positions(Rules(**_FIXTURE_VARIANTS[variant]), 100 + variant)
    seen = decode(obs)
    assert seen.exchanging.any() or _FIXTURE_VARIANTS[variant].get("no_exchange")
    assert (seen.table == PASS).any() and (seen.table != PASS).any()
    for k, knobs in enumerate(_FIXTURE_KNOBS):
        moves = RuleBot(**knobs).act(obs, masks, np.random.default_rng(0))
        np.testing.assert_array_equal(moves, expected[f"variant{variant}_knobs{k}"])
