"""agents.evaluation: a policy against three bots, on the duplicate runner."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch
from torch import nn

from agents.evaluation import EvalResult, evaluate
from murlan_env.eval.duplicate import Z95
from murlan_env.game.combos import N_ACTIONS, PASS
from tests.duplicate_fixtures import PASSER_POINTS, Beater, block_deals


class PassFirst(nn.Module):
    """A policy that passes whenever it may and otherwise plays its lowest action id: the
    fixtures' Passer, as scores."""

    def forward(self, obs: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        preference = -torch.arange(N_ACTIONS, dtype=torch.float32)
        preference[PASS] = 1.0
        return torch.where(mask, preference, torch.finfo(torch.float32).min)


def test_evaluate_matches_the_hand_traced_duplicate_result():
    result = evaluate(PassFirst(), Beater(), n_deals=2, n_hands=1, deals=block_deals)
    boards = np.array([PASSER_POINTS[0], PASSER_POINTS[1]])  # 0.75 and 0.25, traced by hand
    assert result.bot == "beater"
    assert result.points_per_hand == pytest.approx(boards.mean())  # 0.5
    assert result.ci95 == pytest.approx(Z95 * boards.std(ddof=1) / math.sqrt(2))  # 0.49
    assert result.win_rate == 0.0  # never 1st in any of its 8 hands
    assert result.hands == 8  # 2 boards x 4 seats x 1 hand
    assert result.matches == 0 and result.match_win_rate is None
    assert "0.500 ± 0.490 points/hand" in result.line()


def test_whole_matches_give_a_match_win_rate():
    result = evaluate(PassFirst(), "random", n_deals=1, n_hands=None, seed=3)
    assert result.matches == 4  # one match in each of the four seats
    # The mean over the four matches of the win share (1, or 1/2 or 1/3 in a draw, else 0):
    # a whole number of 24ths, measured because every match finished.
    assert result.match_win_rate is not None
    assert result.match_win_rate * 24 == pytest.approx(round(result.match_win_rate * 24))
    assert "matches" in result.line()
    assert result.hands >= 4 * 7  # a match needs at least 7 hands to reach 21 points


def test_same_seed_same_evaluation():
    def run(seed: int) -> EvalResult:
        return evaluate(PassFirst(), "random", n_deals=3, n_hands=2, seed=seed)

    assert run(5) == run(5)
    assert run(5) != run(6)
