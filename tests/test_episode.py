"""Rewards are defined once (murlan_env.game.episode): the environments and the trainers' rollouts
pay the same amounts on wins and on 2-, 3- and 4-way draws, under both reward modes."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from agents.dmc import DMCActing
from agents.networks import build_network, make_arch
from agents.ppo import PPOActing
from agents.rollout import RolloutSettings, SelfPlay
from murlan_env.envs.driver import GameDriver
from murlan_env.game import engine, episode
from murlan_env.game.cards import parse_hand
from murlan_env.game.rules import Rules
from murlan_env.game.state import Phase
from tests.conftest import position

# The last decision of a hand: seat 0 leads its last card; seats 2 and 3 are out (1st and
# 2nd), so seat 0 ends 3rd (+1) and seat 1 last (+0). The scores before the hand decide
# the match: (scores, target) -> winners after the hand.
OUTCOMES = {
    "win": ([0, 0, 20, 0], 21, [2]),
    "2-way draw": ([50, 0, 48, 0], 51, [0, 2]),
    "3-way draw": ([50, 0, 48, 49], 51, [0, 2, 3]),
    "4-way draw": ([50, 51, 48, 49], 51, [0, 1, 2, 3]),
}
EXPECTED_MATCH = {  # seat 0's match reward: winners share +1, the others share -1
    "win": -1 / 3,
    "2-way draw": 1 / 2,
    "3-way draw": 1 / 3,
    "4-way draw": 0.0,
}


def last_play(scores, target) -> engine.State:
    return position(
        ["9S", "3S 4H 5D", "", ""],
        0,
        place={2: 0, 3: 1},
        scores=scores,
        target=target,
    )


@pytest.mark.parametrize("outcome", list(OUTCOMES))
def test_the_env_pays_the_episode_rewards(outcome):
    scores, target, winners = OUTCOMES[outcome]
    rng = np.random.default_rng(0)
    state = last_play(scores, target)
    mask = engine.legal_action_mask(state)[0]
    (only,) = np.flatnonzero(mask)  # the leader's last card: forced
    ended = engine.step(state, np.array([only]))
    assert np.flatnonzero(ended.winners[0]).tolist() == winners
    assert ended.phase[0] == Phase.MATCH_OVER
    for mode in episode.REWARD_MODES:
        paid = GameDriver(state, rng, reward=mode).play(int(only))
        np.testing.assert_allclose(paid, episode.rewards(ended, mode)[0])
        assert abs(float(paid.sum())) < 1e-6  # zero-sum
    match = GameDriver(state, rng, reward="match").play(int(only))
    assert match[0] == pytest.approx(EXPECTED_MATCH[outcome])
    hand = GameDriver(state, rng, reward="hand").play(int(only))
    np.testing.assert_allclose(hand, [-0.5, -1.5, 1.5, 0.5])


@pytest.mark.parametrize("algorithm", ["ppo", "dmc"])
@pytest.mark.parametrize("outcome", list(OUTCOMES))
def test_trainer_rollouts_pay_what_the_env_pays(algorithm, outcome):
    """A rollout's return for the decision that ends the match equals the env's reward."""
    scores, target, _ = OUTCOMES[outcome]
    state = last_play(scores, target)
    (only,) = np.flatnonzero(engine.legal_action_mask(state)[0])
    modes = episode.REWARD_MODES if algorithm == "ppo" else (episode.HAND,)
    for mode in modes:
        env_paid = GameDriver(state, np.random.default_rng(0), reward=mode).play(int(only))
        torch.manual_seed(0)
        arch = make_arch(algorithm, [8])
        acting = PPOActing() if algorithm == "ppo" else DMCActing()
        settings = RolloutSettings(acting, arch, num_envs=1, rollout_steps=1, reward=mode)
        selfplay = SelfPlay(settings, seed=0)
        selfplay.state = state.copy()
        weights = build_network(arch).state_dict()
        batch = selfplay.collect(weights)
        assert batch.action.tolist() == [only]
        assert batch.returns[0] == pytest.approx(float(env_paid[0]), abs=1e-6)


def test_hand_rewards_are_points_less_par_and_match_rewards_wait_for_the_end():
    rules = Rules()
    state = engine.deal_from([s for s in _suit_deal()], 3, rules)
    assert not episode.rewards(state, "hand").any() and not episode.rewards(state, "match").any()
    with pytest.raises(ValueError, match="reward must be one of"):
        episode.rewards(state, "points")
    with pytest.raises(ValueError, match="needs episode"):
        episode.check_modes("match", "hand")


def _suit_deal() -> list[str]:
    from murlan_env.game.cards import format_cards

    return [format_cards([c for c in range(54) if c % 4 == seat]) for seat in range(4)]


def test_position_helper_builds_the_intended_endgame():
    state = last_play([0, 0, 0, 0], 21)
    assert state.cards[0, 0].tolist() == parse_hand("9S").tolist()
    assert state.n_left[0].tolist() == [1, 3, 0, 0]


@pytest.mark.parametrize("mode", [episode.MATCH, episode.HAND])
def test_advance_is_the_written_out_step_reward_and_deal(mode):
    """``advance`` against the loop it replaced, written out: step, pay, read the ends, then
    deal the next hands and new matches from the same generator in that order. Same states,
    same draws, and a transition that later (donated) steps do not overwrite."""
    rng, ref_rng = np.random.default_rng(5), np.random.default_rng(5)
    state = engine.init(rng, 16, Rules(sticky_pass=True))
    ref = engine.init(ref_rng, 16, Rules(sticky_pass=True))
    pick = np.random.default_rng(6)
    kept, ends, hands = [], 0, 0
    for _ in range(1500):
        mask = engine.legal_action_mask(state)
        actions = engine.random_legal_actions(mask, pick)
        state, step = episode.advance(state, actions, rng, reward=mode, episode=mode, donate=True)
        ref = engine.step(ref, actions)
        np.testing.assert_array_equal(step.rewards, episode.rewards(ref, mode))
        np.testing.assert_array_equal(step.ended, episode.ended(ref, mode))
        np.testing.assert_array_equal(episode.ended(step, mode), step.ended)
        np.testing.assert_array_equal(step.hand_over, ref.hand_over)
        np.testing.assert_array_equal(step.done, ref.done)
        np.testing.assert_array_equal(step.scores, ref.scores)
        np.testing.assert_array_equal(step.points[ref.hand_over], ref.points[ref.hand_over])
        np.testing.assert_array_equal(step.winners, ref.winners & ref.done[:, None])
        ends += int(step.ended.sum())
        hands += int(step.hand_over.sum())
        kept.append((step, ref.scores.copy()))
        if mode == episode.MATCH:
            ref = engine.next_hand(ref, ref_rng)
        ref = engine.new_matches(ref, episode.ended(ref, mode), ref_rng)
        np.testing.assert_array_equal(state.data, ref.data)
    assert ends >= 5 and hands >= 50  # both kinds of deal were exercised
    assert all(np.array_equal(step.scores, scores) for step, scores in kept)
