"""Murlan-v1 (one learner against bots) and MurlanVectorEnv (B games, auto-reset)."""

from __future__ import annotations

import warnings

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import murlan_env.envs.aec as aec
from murlan_env import records
from murlan_env.bots.baseline import RandomBot
from murlan_env.envs.gym_env import ENV_ID, MurlanGymEnv, MurlanVectorEnv
from murlan_env.game import engine, observation
from murlan_env.game.cards import format_cards
from murlan_env.game.combos import N_ACTIONS, PASS, SINGLE_OF_RANK
from murlan_env.game.version import GYM_SELFPLAY_ID
from tests.conftest import match_rewards

SUIT_DEAL = [format_cards([c for c in range(54) if c % 4 == seat]) for seat in range(4)]
SUIT_DEALER = 3  # seat 0 holds 3S and leads


def play_episode(env, rng: np.random.Generator):
    """Random legal actions to the end; returns (total reward, number of steps, last info)."""
    obs, info = env.reset(seed=int(rng.integers(1 << 30)))
    total, steps = 0.0, 0
    while True:
        assert obs["action_mask"].any(), "the learner is asked only when it has a decision"
        obs, reward, terminated, truncated, info = env.step(
            int(rng.choice(np.flatnonzero(obs["action_mask"])))
        )
        total += reward
        steps += 1
        assert not truncated
        if terminated:
            assert not obs["action_mask"].any()
            return total, steps, info


class SeatSpy:
    """A bot that notes the seat it is asked to play for, then plays randomly."""

    def __init__(self, env: MurlanGymEnv, name: str) -> None:
        self.env, self.name, self.seats = env, name, set()

    def act(self, obs, mask, rng):
        self.seats.add(int(self.env.state.to_act[0]))
        return RandomBot().act(obs, mask, rng)


# --------------------------------------------------------------------------- MurlanGymEnv


@pytest.mark.parametrize(
    "kwargs", [{}, {"seat": 2, "reward": "match", "sticky_pass": True, "tie_rule": "leader"}]
)
def test_gymnasium_check_env(kwargs):
    check_env(MurlanGymEnv(**kwargs), skip_render_check=True)
    # Made through the registry, the checker also renders in every render mode.
    check_env(gymnasium.make(ENV_ID, render_mode="ansi", **kwargs).unwrapped)


def test_registered_and_made_by_id():
    assert ENV_ID in gymnasium.registry
    env = gymnasium.make("murlan_env.envs.gym_env:Murlan-v1", seat=1, render_mode="ansi")
    obs, info = env.reset(seed=0)
    assert info["seat"] == 1 and env.observation_space.contains(obs)
    assert "learner: player_1" in env.render()


def test_full_match_returns_match_the_scores_and_record_is_valid():
    env = MurlanGymEnv(seat=None)
    total, steps, info = play_episode(env, np.random.default_rng(1))
    record = env.record()
    assert records.validate(record).valid
    top = max(record["scores"])  # the winners are the top scorers: one, or several on a draw
    assert record["winners"] == [s for s, v in enumerate(record["scores"]) if v == top]
    n_hands = len(record["hands"])
    assert total == pytest.approx(record["scores"][info["seat"]] - 1.5 * n_hands)
    learner_plays = sum(s == info["seat"] for h in record["hands"] for s, _ in h["plays"])
    exchanges = sum(
        h["exchange"] is not None and h["exchange"]["first"] == info["seat"]
        for h in record["hands"]
    )
    assert learner_plays <= steps <= learner_plays + exchanges


def test_match_reward_and_hand_episode():
    env = MurlanGymEnv(seat=3, reward="match")
    total, _, _ = play_episode(env, np.random.default_rng(2))
    winners = env.record()["winners"]  # one, or several on a draw
    assert total == pytest.approx(match_rewards([s in winners for s in range(4)])[3])

    env = MurlanGymEnv(seat=0, episode="hand")
    total, _, _ = play_episode(env, np.random.default_rng(3))
    record = env.record()
    assert len(record["hands"]) == 1 and record["winners"] == []
    assert total == record["hands"][0]["points"][0] - 1.5


def test_opponents_play_the_seats_after_the_learner_in_turn_order():
    env = MurlanGymEnv(seat=1)
    spies = [SeatSpy(env, f"spy{k}") for k in range(3)]
    env.opponents = spies
    play_episode(env, np.random.default_rng(4))
    assert [spy.seats for spy in spies] == [{2}, {3}, {0}]

    one = MurlanGymEnv(seat=0)
    spy = SeatSpy(one, "spy")
    one.opponents = [spy] * 3
    one.reset(seed=0)
    one.step(int(np.flatnonzero(one._observation()["action_mask"])[0]))
    assert spy.seats and 0 not in spy.seats


def test_opponents_argument_and_bad_bots():
    assert len(MurlanGymEnv(opponents=RandomBot()).opponents) == 3
    with pytest.raises(ValueError, match="three"):
        MurlanGymEnv(opponents=[RandomBot(), RandomBot()])

    class Cheat:
        name = "cheat"

        def act(self, obs, mask, rng):
            return np.full(len(mask), N_ACTIONS - 1)  # the joker pair, off by default

    env = MurlanGymEnv(seat=1, opponents=Cheat())
    with pytest.raises(ValueError, match="bot 'cheat' at seat 0"):
        env.reset(seed=0, options={"deal": SUIT_DEAL, "dealer": SUIT_DEALER})


def test_reset_with_deal_and_seat_bots_act_first():
    env = MurlanGymEnv(seat=0)
    obs, info = env.reset(seed=5, options={"deal": SUIT_DEAL, "dealer": SUIT_DEALER, "seat": 2})
    assert info["seat"] == 2 and env.seat == 2
    plays = env.record()["hands"][0]["plays"]
    assert plays[0][0] == 0 and "3S" in plays[0][1].split()  # seat 0 opened with 3S
    assert [seat for seat, _ in plays] == [0, 1]
    assert int(env.state.to_act[0]) == 2
    mine = obs["observation"][observation.SLICES["my_hand"]].reshape(15, 4)
    np.testing.assert_array_equal(mine[:, 0], [1] * 13 + [0, 0])  # the 13 diamonds


def test_illegal_actions_terminate_or_raise():
    env = MurlanGymEnv(seat=0)
    options = {"deal": SUIT_DEAL, "dealer": SUIT_DEALER}
    env.reset(seed=0, options=options)
    before = env.state
    obs, reward, terminated, truncated, info = env.step(PASS)  # the leader cannot pass
    assert (reward, terminated, truncated, info["illegal_action"]) == (-1.0, True, False, PASS)
    assert env.state is before and not obs["action_mask"].any()
    with pytest.raises(RuntimeError, match="reset"):
        env.step(int(SINGLE_OF_RANK[0]))

    strict = MurlanGymEnv(seat=0, illegal="raise")
    strict.reset(seed=0, options=options)
    with pytest.raises(ValueError, match=r"legal actions: 1 \(single 3\)"):
        strict.step(PASS)


def test_random_seat_and_determinism_for_a_seed():
    env = MurlanGymEnv()
    seats = {env.reset(seed=s)[1]["seat"] for s in range(12)}
    assert len(seats) > 1

    def trajectory(seed):
        env = MurlanGymEnv(episode="hand")
        obs, _ = env.reset(seed=seed)
        out = [obs["observation"]]
        rng = np.random.default_rng(0)
        terminated = False
        while not terminated:
            obs, reward, terminated, _, _ = env.step(
                int(rng.choice(np.flatnonzero(obs["action_mask"])))
            )
            out += [obs["observation"], reward]
        return out, env.record()

    a, b = trajectory(9), trajectory(9)
    assert a[1] == b[1] and all(np.array_equal(x, y) for x, y in zip(a[0], b[0], strict=True))
    assert trajectory(10)[1] != a[1]


# --------------------------------------------------------------------------- MurlanVectorEnv


def test_vector_env_is_a_gymnasium_vector_env_with_batched_spaces():
    venv = MurlanVectorEnv(5, seed=0)
    assert isinstance(venv, gymnasium.vector.VectorEnv)
    assert venv.metadata["autoreset_mode"] is gymnasium.vector.AutoresetMode.SAME_STEP
    assert venv.single_observation_space == MurlanGymEnv().observation_space
    assert venv.single_action_space == gymnasium.spaces.Discrete(N_ACTIONS)
    assert venv.action_space == gymnasium.spaces.MultiDiscrete([N_ACTIONS] * 5)
    obs, infos = venv.reset()
    assert venv.observation_space.contains(obs)
    assert obs["observation"].shape == (5, engine.OBS_SIZE)
    assert obs["action_mask"].shape == (5, N_ACTIONS) and obs["action_mask"].any(1).all()
    np.testing.assert_array_equal(infos["seat"], venv.state.to_act)
    assert infos["_seat"].all() and not infos["scores"].any()
    np.testing.assert_array_equal(obs["observation"], engine.observe(venv.state))
    np.testing.assert_array_equal(obs["action_mask"], engine.legal_action_mask(venv.state))


def test_vector_env_made_by_make_vec_and_wrapped_by_gymnasium():
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # make_vec warns on a missing autoreset mode
        venv = gymnasium.make_vec(GYM_SELFPLAY_ID, num_envs=4, episode="hand")
    assert isinstance(venv.unwrapped, MurlanVectorEnv) and venv.num_envs == 4
    # Gymnasium's own episode statistics wrapper counts the episodes the env ends.
    venv = gymnasium.wrappers.vector.RecordEpisodeStatistics(venv)
    obs, _ = venv.reset(seed=3)
    rng, ended = np.random.default_rng(3), 0
    for _ in range(600):
        actions = engine.random_legal_actions(obs["action_mask"].astype(bool), rng)
        obs, reward, terminated, truncated, infos = venv.step(actions)
        assert venv.observation_space.contains(obs) and reward.shape == (4,)
        assert not truncated.any()
        if terminated.any():
            assert infos["_episode"].tolist() == terminated.tolist()
            ended += int(terminated.sum())
    assert ended >= 4
    # The learner-against-bots env vectorises through Gymnasium's own SyncVectorEnv.
    sync = gymnasium.make_vec(ENV_ID, num_envs=2, vectorization_mode="sync", seat=0)
    obs, infos = sync.reset(seed=0)
    assert sync.observation_space.contains(obs) and infos["seat"].tolist() == [0, 0]


def run_vector(venv, rng, steps, on_step):
    obs, _ = venv.reset()
    for _ in range(steps):
        acting = venv.state.to_act.copy()
        obs, reward, terminated, truncated, infos = venv.step(
            engine.random_legal_actions(obs["action_mask"].astype(bool), rng)
        )
        assert obs["action_mask"].any(1).all() and not truncated.any()
        np.testing.assert_array_equal(infos["seat"], venv.state.to_act)
        np.testing.assert_array_equal(infos["acted"], acting)
        np.testing.assert_allclose(infos["rewards"].sum(1), 0.0, atol=1e-6)
        np.testing.assert_array_equal(reward, infos["rewards"][np.arange(len(reward)), acting])
        if on_step(terminated, infos):
            return


def test_vector_env_hand_rewards_add_up_to_the_final_scores_and_games_reset():
    venv = MurlanVectorEnv(4, seed=1)
    returns = np.zeros((4, 4))
    hands = np.zeros(4, int)
    finished = np.zeros(4, bool)

    def check(done, infos):
        nonlocal returns
        returns += infos["rewards"]
        hands[:] += infos["hand_over"]
        for g in np.flatnonzero(done):
            scores = infos["scores"][g]
            np.testing.assert_allclose(returns[g], scores - 1.5 * hands[g], atol=1e-4)
            top = scores == scores.max()
            np.testing.assert_array_equal(infos["winners"][g], top)  # one winner, or a draw
            # The game has been reset to hand 1 of a new match.
            assert venv.state.hand_no[g] == 0 and not venv.state.scores[g].any()
            returns[g], hands[g], finished[g] = 0, 0, True
        assert not infos["winners"][~done].any()
        return finished.all()

    run_vector(venv, np.random.default_rng(1), 5000, check)
    assert finished.all()


def test_vector_env_match_rewards_and_hand_episodes():
    venv = MurlanVectorEnv(3, seed=2, reward="match")
    ended = []

    def check(done, infos):
        assert not infos["rewards"][~done].any()
        for g in np.flatnonzero(done):
            expected = match_rewards(infos["winners"][g])  # one winner, or a draw
            np.testing.assert_allclose(infos["rewards"][g], expected, atol=1e-6)
            ended.append(g)
        return len(ended) >= 2

    run_vector(venv, np.random.default_rng(2), 5000, check)
    assert len(ended) >= 2

    venv = MurlanVectorEnv(3, seed=3, episode="hand")
    dones = []

    def check_hand(done, infos):
        np.testing.assert_array_equal(done, infos["hand_over"])
        assert (venv.state.hand_no == 0).all()  # every episode is hand 1 of a new match
        for g in np.flatnonzero(done):
            assert sorted(infos["rewards"][g] + 1.5) == [0, 1, 2, 3]
            dones.append(g)
        return len(dones) >= 6

    run_vector(venv, np.random.default_rng(3), 2000, check_hand)
    assert len(dones) >= 6


def test_vector_env_determinism_and_errors():
    def trace(seed):
        venv = MurlanVectorEnv(6, seed=seed, sticky_pass=True)
        rng = np.random.default_rng(0)
        obs, _ = venv.reset()
        out = [obs["observation"]]
        for _ in range(300):
            obs, *_ = venv.step(engine.random_legal_actions(obs["action_mask"] > 0, rng))
            out.append(obs["observation"])
        return np.stack(out)

    np.testing.assert_array_equal(trace(4), trace(4))
    assert not np.array_equal(trace(4), trace(5))

    venv = MurlanVectorEnv(2, seed=0)
    with pytest.raises(RuntimeError):
        venv.step(np.zeros(2, int))
    first = venv.reset(seed=7)[0]["observation"]
    np.testing.assert_array_equal(venv.reset(seed=7)[0]["observation"], first)
    with pytest.raises(ValueError, match="expected 2 actions"):
        venv.step(np.zeros(3, int))
    with pytest.raises(ValueError, match="game 0"):
        venv.step(np.array([PASS, PASS]))  # the leaders cannot pass
    with pytest.raises(ValueError, match="needs episode"):
        MurlanVectorEnv(2, reward="match", episode="hand")


def test_vector_env_of_one_game_agrees_with_the_aec_env():
    # Both adapters draw deals from one generator in the same order (init, then next_hand),
    # so with the same seed and the same actions they must show the same game.
    env = aec.env(sticky_pass=True)
    env.reset(seed=13)
    venv = MurlanVectorEnv(1, seed=13, sticky_pass=True)
    vobs, infos = venv.reset()
    rng = np.random.default_rng(13)
    for agent in env.agent_iter():
        obs, _, terminated, _, _ = env.last()
        if terminated:
            env.step(None)
            continue
        assert agent == f"player_{infos['seat'][0]}"
        np.testing.assert_array_equal(obs["observation"], vobs["observation"][0])
        np.testing.assert_array_equal(obs["action_mask"], vobs["action_mask"][0])
        action = int(rng.choice(np.flatnonzero(vobs["action_mask"][0])))
        env.step(action)
        vobs, _, done, _, infos = venv.step(np.array([action]))
        np.testing.assert_array_equal(
            [env.rewards[f"player_{s}"] for s in range(4)], infos["rewards"][0]
        )
    assert done[0]
    assert infos["scores"][0].tolist() == env.unwrapped.state.scores[0].tolist()


def test_importing_the_package_registers_the_ids():
    # A fresh interpreter: only `import murlan_env`, then the plain ids work.
    import subprocess
    import sys

    code = (
        "import sys, gymnasium, murlan_env\n"
        "assert 'murlan_env.envs.gym_env' not in sys.modules  # registration imports no env\n"
        "env = gymnasium.make('Murlan-v1', seat=2)\n"
        "obs, info = env.reset(seed=0)\n"
        "assert info['seat'] == 2 and env.observation_space.contains(obs)\n"
        "venv = gymnasium.make_vec('MurlanSelfPlay-v1', num_envs=3)\n"
        "obs, infos = venv.reset(seed=0)\n"
        "assert venv.observation_space.contains(obs)\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)
