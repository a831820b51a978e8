"""The duplicate runner: lineups, shared deals, exact counts, determinism, legality, statistics."""

from __future__ import annotations

import numpy as np
import pytest

from murlan_env.bots.baseline import GreedyBot, RandomBot
from murlan_env.bots.rule import RuleBot
from murlan_env.eval.duplicate import (
    Z95,
    IllegalActionError,
    mean_ci,
    one_against_three,
    play_duplicate,
    rate_ci,
    rotations,
    seeded_deals,
    wilson_interval,
)
from murlan_env.game import engine
from murlan_env.game.rules import Rules
from murlan_env.game.state import cards_to_bits
from tests.duplicate_fixtures import ORDERS, PASSER_POINTS, Beater, Passer, block_deals

# --------------------------------------------------------------------------- lineups


@pytest.mark.parametrize("n_bots, n_lineups", [(2, 2), (3, 4), (4, 4), (5, 20)])
def test_rotations_put_every_bot_in_every_seat_equally(n_bots, n_lineups):
    seats = rotations(n_bots)
    assert seats.shape == (n_lineups, 4)
    assert len({tuple(row) for row in seats}) == n_lineups
    for bot in range(n_bots):
        per_seat = (seats == bot).sum(0)
        assert (per_seat == per_seat[0]).all() and per_seat[0] > 0


def test_rotations_of_two_and_three_bots():
    assert rotations(2).tolist() == [[0, 1, 0, 1], [1, 0, 1, 0]]
    assert rotations(3).tolist() == [[0, 1, 2, 0], [0, 0, 1, 2], [2, 0, 0, 1], [1, 2, 0, 0]]
    with pytest.raises(ValueError, match="at least 2"):
        rotations(1)


def test_one_against_three_seats_bot_0_once_in_each_seat():
    seats = one_against_three()
    assert (seats == 0).sum(1).tolist() == [1, 1, 1, 1]
    assert np.argwhere(seats == 0)[:, 1].tolist() == [0, 1, 2, 3]
    assert set(seats.ravel()) == {0, 1}


# --------------------------------------------------------------------------- hand-traced


def test_results_match_the_hand_traced_boards():
    result = play_duplicate(
        [Passer(), Beater()], 2, lineups=one_against_three(), deals=block_deals, max_hands=1
    )
    # Lineup s has the Passer in seat s: each hand's points follow the traced order.
    assert result.hand_board.tolist() == [0, 0, 0, 0, 1, 1, 1, 1]
    for board, lineup, points in zip(
        result.hand_board, result.hand_lineup, result.hand_points, strict=True
    ):
        expected = np.zeros(4, np.int64)
        expected[ORDERS[board][lineup]] = [3, 2, 1, 0]
        assert points.tolist() == expected.tolist(), (board, lineup)
    np.testing.assert_allclose(result.board_points()[:, 0], [PASSER_POINTS[0], PASSER_POINTS[1]])
    passer, beater = result.bot_results()
    # Points per hand 0.5, its 95% CI over the two boards 0.5 +- 1.96 * std / sqrt(2).
    assert passer.points_per_hand == pytest.approx(0.5)
    assert passer.points_ci95 == pytest.approx((0.5 - Z95 * 0.25, 0.5 + Z95 * 0.25))
    assert (passer.hands, beater.hands, passer.first_rate) == (8, 24, 0.0)
    assert beater.points_per_hand == pytest.approx((6 - 0.5) / 3)
    assert passer.matches == 0 and np.isnan(passer.match_win_rate)
    assert result.unfinished == 8


# --------------------------------------------------------------------------- the runner


def test_every_lineup_gets_the_boards_deals():
    result = play_duplicate([RandomBot(), GreedyBot(), RuleBot(), RandomBot()], 3, seed=4)
    deals = seeded_deals(4)
    for board in range(3):
        for hand in range(result.hand_number[result.hand_board == board].max() + 1):
            rows = (result.hand_board == board) & (result.hand_number == hand)
            dealer, cards = deals(board, hand)
            expected = cards_to_bits(cards)
            # Every lineup whose match lasted this long was dealt exactly these cards.
            assert (result.hand_deal[rows] == expected).all()
            assert rows.sum() >= 1
        # Hand 1 is played by all four lineups.
        assert ((result.hand_board == board) & (result.hand_number == 0)).sum() == 4
    first_deals = result.hand_deal[result.hand_number == 0].reshape(3, 4, 4)
    assert len({row.tobytes() for row in first_deals[:, 0]}) == 3  # boards differ


def test_whole_matches_are_counted_exactly():
    bots = [RuleBot(), RandomBot(), GreedyBot()]
    result = play_duplicate(bots, 2, seed=1)
    assert result.games == 2 * 4 and len(result.match_board) == 8 and result.unfinished == 0
    rows = zip(
        result.match_board,
        result.match_lineup,
        result.match_hands,
        result.match_winners,
        strict=True,
    )
    for board, lineup, n_hands, winners in rows:
        mine = (result.hand_board == board) & (result.hand_lineup == lineup)
        assert mine.sum() == n_hands and result.hand_number[mine].tolist() == list(range(n_hands))
        # The winners are those RULES.md 6 gives for the logged points, hand after hand.
        scores, target = np.zeros((1, 4), np.int16), np.array([21], np.int16)
        for points in result.hand_points[mine]:
            scores = scores + points
            target, decided = engine.match_result(scores, target, Rules())
        assert decided[0].tolist() == winners.tolist()
    per_bot = result.bot_results()
    # Bot 0 holds two seats of every lineup (A B C A), the others one.
    n_hands = len(result.hand_board)
    assert [r.hands for r in per_bot] == [2 * n_hands, n_hands, n_hands]
    assert [r.matches for r in per_bot] == [16, 8, 8]
    assert sum(2 * r.points_per_hand if i == 0 else r.points_per_hand for i, r in
               enumerate(per_bot)) == pytest.approx(6.0)  # fmt: skip


def test_max_hands_stops_every_game_after_that_many_hands():
    seen = []
    result = play_duplicate(
        [GreedyBot(), RandomBot()], 3, seed=2, max_hands=2, progress=lambda *c: seen.append(c)
    )
    assert len(result.hand_board) == 3 * 2 * 2  # boards x lineups x hands
    assert sorted(set(result.hand_number.tolist())) == [0, 1]
    assert len(result.match_board) == 0 and result.unfinished == 6
    assert [r.hands for r in result.bot_results()] == [24, 24]  # two seats each
    # The total is known from the start: 6 games x 2 hands.
    assert seen[0] == (0, 12) and seen[-1] == (12, 12) and {t for _, t in seen} == {12}
    assert "3 boards x 2 lineups = 6 games (at most 2 hands): 12 hands" in result.describe()


def test_progress_counts_hands_and_its_total_only_grows():
    calls = []
    bots = [GreedyBot(), RandomBot()]
    result = play_duplicate(bots, 2, seed=3, progress=lambda *call: calls.append(call))
    # Four matches of at least 7 hands each (21 points at 3 a hand) to begin with.
    assert calls[0] == (0, 4 * 7)
    assert calls[-1] == (len(result.hand_board), len(result.hand_board))
    done, total = np.array(calls).T
    assert (np.diff(done) >= 0).all() and (np.diff(total) >= 0).all() and (done <= total).all()


def test_same_seed_same_results():
    def run(seed):
        return play_duplicate([RandomBot(), GreedyBot()], 2, seed=seed)

    a, b, c = run(7), run(7), run(8)
    for name in ("hand_points", "hand_deal", "hand_lineup", "match_winners", "match_hands"):
        assert np.array_equal(getattr(a, name), getattr(b, name))
    assert a.bot_results() == b.bot_results()
    assert not np.array_equal(a.hand_deal, c.hand_deal)


def test_four_copies_of_a_deterministic_bot_share_the_points():
    greedy = GreedyBot()
    result = play_duplicate([greedy] * 4, 3, seed=2)
    np.testing.assert_allclose(result.board_points(), 1.5)


class Counting:
    name = "counting"

    def __init__(self) -> None:
        self.batches: list[int] = []

    def act(self, obs, mask, rng):
        self.batches.append(len(obs))
        return engine.random_legal_actions(mask, rng)


def test_one_bot_object_acts_once_per_step_for_all_its_seats():
    bot = Counting()
    play_duplicate([bot, bot], 3, seed=0, max_hands=1)
    # The first step: all 6 games wait for their start-card holder, one batched call.
    assert bot.batches[0] == 6


class Illegal:
    name = "leads-a-pass"

    def act(self, obs, mask, rng):
        return np.zeros(len(obs), np.int64)  # pass, never legal for a leader


class OutOfTable:
    name = "out-of-table"

    def act(self, obs, mask, rng):
        return np.full(len(obs), 999)


class WrongLength:
    name = "wrong-length"

    def act(self, obs, mask, rng):
        return np.zeros(len(obs) + 1, np.int64)


@pytest.mark.parametrize("bad", [Illegal(), OutOfTable(), WrongLength()], ids=lambda b: b.name)
def test_illegal_actions_are_caught_naming_the_bot(bad):
    with pytest.raises(IllegalActionError, match=bad.name):
        play_duplicate([bad, RandomBot()], 1, seed=0, max_hands=1)


def test_bad_setups_are_rejected():
    with pytest.raises(ValueError, match="boards"):
        play_duplicate([RandomBot(), RandomBot()], 0)
    with pytest.raises(ValueError, match="max_hands"):
        play_duplicate([RandomBot(), RandomBot()], 1, max_hands=0)
    with pytest.raises(ValueError, match="lineups"):
        play_duplicate([RandomBot(), RandomBot()], 1, lineups=np.array([[0, 1, 2, 0]]))


# --------------------------------------------------------------------------- statistics


def test_mean_ci_is_the_normal_interval_over_boards():
    mean, low, high = mean_ci([1.0, 2.0, np.nan, 3.0, 4.0])
    half = Z95 * np.std([1, 2, 3, 4], ddof=1) / 2
    assert (mean, low, high) == pytest.approx((2.5, 2.5 - half, 2.5 + half))
    assert np.isnan(mean_ci([1.0])[1])


def test_wilson_interval_matches_the_textbook_value():
    lo, hi = wilson_interval(0.5, 10)
    assert lo == pytest.approx(0.2366, abs=1e-4) and hi == pytest.approx(0.7634, abs=1e-4)
    assert wilson_interval(0.0, 0) == (0.0, 1.0)


def test_rate_ci_stays_in_range_and_does_not_collapse():
    rate, lo, hi = rate_ci([0.0, 0.0, 0.0, 0.0], trials=16)
    assert rate == 0.0 and lo == 0.0 and hi == pytest.approx(wilson_interval(0.0, 16)[1])
    assert hi > 0.1
    # Boards that disagree: as many effective trials as the spread between them implies.
    rate, lo, hi = rate_ci([0.0, 1.0, 0.5, 0.5], trials=16)
    n_eff = 0.25 / (np.var([0.0, 1.0, 0.5, 0.5], ddof=1) / 4)
    assert n_eff == pytest.approx(6.0)
    assert (rate, lo, hi) == pytest.approx((0.5, *wilson_interval(0.5, 6.0)))
    # Never more than the outcomes behind them.
    assert rate_ci([0.25, 0.75, 0.5, 0.5], trials=16)[1:] == pytest.approx(wilson_interval(0.5, 16))
