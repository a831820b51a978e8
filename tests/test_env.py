"""The murlan_v1 PettingZoo AEC env: conformance, explicit deals, rewards, episodes, records."""

from __future__ import annotations

import textwrap

import numpy as np
import pytest
from pettingzoo.test import api_test, seed_test

import murlan_env
import murlan_env.envs.aec as env_module
from murlan_env import records
from murlan_env.envs.aec import AGENTS, raw_env
from murlan_env.game import engine, episode, observation, observation_layout
from murlan_env.game.cards import CARD_NAMES, format_cards
from murlan_env.game.combos import COST, PASS, SINGLE_OF_RANK
from murlan_env.game.engine import Phase
from murlan_env.game.observation import SLICES
from murlan_env.game.rules import Rules, RulesError
from tests.conftest import match_rewards

# Dealer 3 deals card c to seat c % 4: seat 0 gets every spade and BJ (14 cards, 3S among
# them), seat 1 every heart and RJ (14), seat 2 the diamonds (13), seat 3 the clubs (13).
SUIT_DEAL = [format_cards([c for c in range(54) if c % 4 == seat]) for seat in range(4)]
SUIT_DEALER = 3


def play_out(env, rng: np.random.Generator, on_step=None) -> int:
    """Play random legal actions until every agent is done; returns the number of decisions."""
    decisions = 0
    for _agent in env.agent_iter():
        obs, _, terminated, truncated, _ = env.last()
        if terminated or truncated:
            env.step(None)
            continue
        legal = np.flatnonzero(obs["action_mask"])
        env.step(int(rng.choice(legal)))
        decisions += 1
        if on_step is not None:
            on_step(env)
    return decisions


# --------------------------------------------------------------------------- conformance


@pytest.mark.parametrize(
    "kwargs",
    [{}, {"sticky_pass": True, "joker_pair": True, "tie_rule": "leader", "reward": "match"}],
)
def test_pettingzoo_api_test(kwargs):
    api_test(murlan_env.env(**kwargs), num_cycles=200)


@pytest.mark.parametrize("kwargs", [{}, {"episode": "hand", "no_exchange": True}])
def test_pettingzoo_seed_test(kwargs):
    seed_test(lambda: murlan_env.env(**kwargs), num_cycles=200)


def test_metadata_spaces_and_agents():
    env = raw_env()
    assert env.metadata["name"] == "murlan_v1"
    assert env.metadata["is_parallelizable"] is False
    assert set(env.metadata["render_modes"]) == {"ansi", "human"}
    assert env.possible_agents == ["player_0", "player_1", "player_2", "player_3"]
    space = env.observation_space("player_2")
    assert space["observation"].shape == (engine.OBS_SIZE,)
    assert space["observation"].dtype == np.float32
    assert space["action_mask"].shape == (109,) and space["action_mask"].dtype == np.int8
    assert env.action_space("player_1").n == 109


def test_docstring_carries_the_generated_observation_table():
    assert textwrap.indent(observation_layout.table(), "    ") in env_module.__doc__
    for piece in observation.PIECES:
        assert f"\n    {piece.name} " in env_module.__doc__
        assert SLICES[piece.name].stop - SLICES[piece.name].start == piece.size


def test_package_factories_survive_importing_the_env_module():
    # The env module (murlan_env.envs.aec, imported above) no longer shadows murlan_env.env.
    for factory in (murlan_env.env, murlan_env.raw_env, env_module.env):
        env = factory(sticky_pass=True)
        env.reset(seed=0)
        assert env.unwrapped.rules == Rules(sticky_pass=True)
    assert type(murlan_env.env(sticky_pass=True)) is env_module.OrderEnforcing
    assert type(murlan_env.raw_env()) is env_module.MurlanAECEnv


def test_bad_arguments_are_rejected():
    with pytest.raises(RulesError):
        murlan_env.env(tie_rule="never")
    with pytest.raises(TypeError, match="colour"):
        raw_env(colour="red")
    with pytest.raises(ValueError, match="needs episode"):
        raw_env(reward="match", episode="hand")
    with pytest.raises(ValueError, match="reward"):
        raw_env(reward="points")


# --------------------------------------------------------------------------- explicit deals


def test_reset_with_explicit_deal_starts_from_it():
    env = murlan_env.env()
    env.reset(seed=0, options={"deal": SUIT_DEAL, "dealer": SUIT_DEALER})
    state = env.unwrapped.state
    assert [format_cards(state.cards[0, s]) for s in range(4)] == SUIT_DEAL
    assert int(state.dealer[0]) == SUIT_DEALER
    # Hand 1: the holder of 3S (seat 0) leads and must play it.
    assert env.agent_selection == "player_0"
    obs, reward, terminated, truncated, info = env.last()
    my_hand = obs["observation"][SLICES["my_hand"]].reshape(15, 4)
    np.testing.assert_array_equal(my_hand[:, 0], [1] * 14 + [0])  # one card of 3..2 and BJ
    assert not my_hand[:, 1:].any()
    legal = np.flatnonzero(obs["action_mask"])
    assert len(legal) > 1 and (COST[legal, 0] > 0).all() and PASS not in legal
    assert (reward, terminated, truncated, info) == (0.0, False, False, {})
    # Everyone else sees an all-zero mask.
    assert not env.observe("player_1")["action_mask"].any()

    env.step(int(SINGLE_OF_RANK[0]))  # single 3
    assert env.agent_selection == "player_1"
    assert env.unwrapped.record()["hands"][0]["plays"] == [[0, "3S"]]
    assert env.unwrapped.record()["hands"][0]["deal"] == SUIT_DEAL


def test_reset_into_a_later_hand_makes_the_exchange_a_turn():
    env = murlan_env.env()
    options = {
        "deal": SUIT_DEAL,
        "dealer": SUIT_DEALER,
        "hand_no": 1,
        "previous": (1, 0),  # seat 1 was 1st, seat 0 last
        "scores": [0, 3, 2, 1],
    }
    env.reset(seed=0, options=options)
    state = env.unwrapped.state
    assert int(state.phase[0]) == Phase.EXCHANGE
    # Seat 0 gave its highest card (BJ) automatically; seat 1 now chooses a 3..10 to give back.
    assert CARD_NAMES[int(state.ex_last_gives[0])] == "BJ"
    assert env.agent_selection == "player_1"
    obs = env.observe("player_1")
    np.testing.assert_array_equal(np.flatnonzero(obs["action_mask"]), np.arange(1, 9))
    env.step(int(SINGLE_OF_RANK[2]))  # give back a 5
    exchange = env.unwrapped.record()["hands"][0]["exchange"]
    assert exchange == {"last": 0, "first": 1, "last_gives": "BJ", "first_gives": "5H"}
    assert env.agent_selection == "player_0"  # the previous last player leads
    assert env.unwrapped.state.scores[0].tolist() == [0, 3, 2, 1]


def test_illegal_action_raises_naming_the_legal_ones_and_changes_nothing():
    env = murlan_env.env()
    env.reset(seed=0, options={"deal": SUIT_DEAL, "dealer": SUIT_DEALER})
    before = env.unwrapped.state
    with pytest.raises(ValueError, match=r"legal actions: 1 \(single 3\)"):
        env.step(PASS)  # the leader may not pass
    with pytest.raises(ValueError, match="not legal"):
        env.step(2)  # single 4: the opening play must contain 3S
    assert env.unwrapped.state is before
    assert env.agent_selection == "player_0"


@pytest.mark.parametrize("action", [-1, 109, 10**6, 1.5, "3S"])
def test_actions_outside_the_space_raise_value_error(action):
    env = murlan_env.env()
    env.reset(seed=0)
    before = env.unwrapped.state
    with pytest.raises((ValueError, TypeError)):
        env.step(action)
    assert env.unwrapped.state is before


def test_order_is_enforced_before_reset():
    env = murlan_env.env()
    assert isinstance(env, env_module.OrderEnforcing)
    for call in (env.last, lambda: env.step(0), lambda: env.observe("player_0")):
        with pytest.raises(AssertionError, match="reset"):
            call()
    with pytest.raises(AttributeError, match="before reset"):
        _ = env.agent_selection
    env.reset(seed=1)
    obs, reward, terminated, truncated, info = env.last()
    assert obs["action_mask"].any() and reward == 0.0 and not terminated


def test_record_matches_one_written_from_the_batched_engine():
    """The env's single-game stepping and direct logging give the Recorder's record."""
    env = murlan_env.env(sticky_pass=True)
    env.reset(seed=4)
    rng = np.random.default_rng(4)
    state = env.unwrapped.state
    rec = records.Recorder(state)
    for _agent in env.agent_iter():
        obs, _, terminated, _, _ = env.last()
        if terminated:
            env.step(None)
            continue
        action = int(rng.choice(np.flatnonzero(obs["action_mask"])))
        hand_no = int(state.hand_no[0])
        env.step(action)
        state = engine.step(state, [action])
        rec.update(state)
        if int(env.unwrapped.state.hand_no[0]) != hand_no:  # the env dealt the next hand
            state = env.unwrapped.state
            rec.update(state)
        assert env.unwrapped.state.card_bits.tolist() == state.card_bits.tolist()
    assert env.unwrapped.record() == rec.record(0)
    assert records.validate(rec.record(0)).valid


# --------------------------------------------------------------------------- whole games


def test_random_match_ends_with_a_valid_record_and_zero_sum_hand_rewards():
    env = murlan_env.env()
    env.reset(seed=11)
    space = env.observation_space("player_0")
    returns = dict.fromkeys(AGENTS, 0.0)
    hand_ends = []

    def check(e):
        assert sum(e.rewards.values()) == pytest.approx(0.0, abs=1e-9)
        for agent, r in e.rewards.items():
            returns[agent] += r
        if any(e.rewards.values()):
            hand_ends.append([e.rewards[a] + 1.5 for a in AGENTS])
        if e.agents:
            assert space.contains(e.observe(e.agent_selection))

    decisions = play_out(env, np.random.default_rng(0), check)
    state = env.unwrapped.state
    # The winners are the top scorers: one, or several on a draw (RULES.md section 6).
    scores = state.scores[0]
    assert env.agents == [] and state.done[0]
    np.testing.assert_array_equal(state.winners[0], scores == scores.max())
    record = env.unwrapped.record()
    assert records.validate(record).valid
    # Every decision is in the record: a play or pass, or an exchange give-back.
    plays = sum(len(h["plays"]) for h in record["hands"])
    exchanges = sum(h["exchange"] is not None for h in record["hands"])
    assert plays <= decisions <= plays + exchanges
    n_hands = len(record["hands"])
    assert record["scores"] == state.scores[0].tolist()
    # Each hand end paid points - 1.5: returns are the scores minus 1.5 per hand.
    assert len(hand_ends) == n_hands
    assert sorted(hand_ends[0]) == [0.0, 1.0, 2.0, 3.0]
    for seat, agent in enumerate(AGENTS):
        assert returns[agent] == pytest.approx(record["scores"][seat] - 1.5 * n_hands)


def test_match_reward_pays_only_at_the_end():
    env = murlan_env.env(reward="match", sticky_pass=True)
    env.reset(seed=5)
    paid = []

    def check(e):
        if any(e.rewards.values()):
            paid.append(dict(e.rewards))

    play_out(env, np.random.default_rng(5), check)
    expected = match_rewards(env.unwrapped.state.winners[0])  # a draw is shared
    assert len(paid) == 1 or (not paid and not expected.any())  # a four-way draw pays 0
    for rewards in paid:
        assert rewards == {a: pytest.approx(expected[s]) for s, a in enumerate(AGENTS)}
    assert records.validate(env.unwrapped.record()).valid


def test_hand_episode_ends_after_one_hand():
    env = murlan_env.env(episode="hand", no_exchange=True)
    env.reset(seed=3)
    finals = []
    play_out(env, np.random.default_rng(3), lambda e: finals.append(dict(e.rewards)))
    state = env.unwrapped.state
    assert int(state.phase[0]) == Phase.HAND_OVER and int(state.hand_no[0]) == 0
    record = env.unwrapped.record()
    assert len(record["hands"]) == 1 and records.validate(record).valid
    points = record["hands"][0]["points"]
    assert sorted(points) == [0, 1, 2, 3]
    last_paid = next(r for r in reversed(finals) if any(r.values()))
    assert [last_paid[a] for a in AGENTS] == [p - 1.5 for p in points]


def test_same_seed_same_match_other_seed_other_match():
    def match(seed, **kwargs):
        env = murlan_env.env(tie_rule="leader", **kwargs)
        env.reset(seed=seed)
        play_out(env, np.random.default_rng(seed))
        return env.unwrapped.record()

    assert match(21) == match(21)
    assert match(21, episode="hand") != match(22, episode="hand")
    env = murlan_env.env()
    env.reset(seed=4)
    first = env.unwrapped.state.deal.copy()
    env.reset()
    assert not np.array_equal(env.unwrapped.state.deal, first)  # the generator runs on
    env.reset(seed=4)
    np.testing.assert_array_equal(env.unwrapped.state.deal, first)


# --------------------------------------------------------------------------- rewards


def _with_winners(winners) -> engine.State:
    state = engine.deal_from(SUIT_DEAL, SUIT_DEALER)
    w = np.asarray(winners, bool)[None]
    return state.replace(winners=w, phase=np.full(1, Phase.MATCH_OVER, np.int8))


@pytest.mark.parametrize(
    "winners, expected",
    [
        ([0, 0, 1, 0], [-1 / 3, -1 / 3, 1, -1 / 3]),
        ([1, 0, 1, 0], [0.5, -0.5, 0.5, -0.5]),
        ([1, 1, 0, 1], [1 / 3, 1 / 3, -1, 1 / 3]),
        ([1, 1, 1, 1], [0, 0, 0, 0]),
    ],
)
def test_match_rewards_share_the_win_and_sum_to_zero(winners, expected):
    state = _with_winners(winners)
    got = episode.rewards(state, "match")[0]
    np.testing.assert_allclose(got, expected, atol=1e-6)
    assert abs(got.sum()) < 1e-6
    going_on = state.replace(phase=np.full(1, Phase.PLAY, np.int8))
    assert not episode.rewards(going_on, "match").any()


def test_hand_rewards_are_points_minus_one_and_a_half():
    state = engine.deal_from(SUIT_DEAL, SUIT_DEALER).replace(
        points=np.array([[1, 3, 0, 2]], np.int16)
    )
    ended = state.replace(phase=np.full(1, Phase.HAND_OVER, np.int8))
    np.testing.assert_array_equal(episode.rewards(ended, "hand")[0], [-0.5, 1.5, -1.5, 0.5])
    assert not episode.rewards(state, "hand").any()


def test_observations_stay_in_the_unit_box_through_whole_matches():
    """Scores capped at 60 and cards_left / 15 keep every entry in [0, 1], leader rule too."""
    for rules in (Rules(), Rules(tie_rule="leader")):
        assert (observation_layout.observation_space()["observation"].high == 1).all()
        rng = np.random.default_rng(5)
        state = engine.init(rng, 32, rules)
        while not state.done.all():
            obs = engine.observe(state)
            assert obs.min() >= 0 and obs.max() <= 1
            state = engine.step(
                state, engine.random_legal_actions(engine.legal_action_mask(state), rng)
            )
            state = engine.next_hand(state, rng)


# --------------------------------------------------------------------------- rendering


def test_render_ansi_and_human(capsys):
    env = murlan_env.env(render_mode="ansi")
    env.reset(seed=0, options={"deal": SUIT_DEAL, "dealer": SUIT_DEALER})
    env.step(int(SINGLE_OF_RANK[0]))
    text = env.render()
    assert "hand 1, dealer player_3" in text
    assert "table: single 3 by player_0" in text
    assert "last: player_0 3S" in text
    assert "> player_1 (14) " + SUIT_DEAL[1] in text

    human = murlan_env.env(render_mode="human")
    human.reset(seed=0, options={"deal": SUIT_DEAL, "dealer": SUIT_DEALER})
    human.step(int(SINGLE_OF_RANK[0]))
    assert human.render() is None
    printed = capsys.readouterr().out
    assert printed.count("hand 1, dealer player_3") == 3  # reset, step, render
    assert text in printed
