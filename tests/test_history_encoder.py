"""The history encoder: the hand-so-far codec, the networks that read it, and how it flows
through rollouts, PPO, checkpoints, the ``ckpt:`` bot, the arena and export."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import murlan_cli
from agents import dmc, ppo
from agents.checkpoint import load as load_checkpoint
from agents.config import ConfigError
from agents.networks import (
    ActorCritic,
    build_network,
    load_policy,
    make_arch,
    random_histories,
)
from agents.policy_bot import from_spec, int8_policy_bot
from agents.rollout import SelfPlay
from murlan_env.bots.history import HandLogs
from murlan_env.eval import arena
from murlan_env.game import engine, hand_history, observation
from murlan_env.game.combos import COST, PASS
from murlan_env.game.engine import Phase

ENCODERS = ["gru", "attention"]


def test_encode_lays_out_the_latest_events_right_aligned_from_the_acting_seat():
    # Two hands: seats 2, 3, 0 played 5, passed, played 9; the other hand has no event yet.
    seats = np.array([[2, 3, 0, 1], [0, 0, 0, 0]])
    actions = np.array([[5, PASS, 9, 77], [1, 2, 3, 4]])  # entries past the length are unused
    out = hand_history.encode(seats, actions, np.array([3, 0]), to_act=np.array([1, 0]))
    assert out.shape == (2, hand_history.LENGTH, 2) and out.dtype == np.int16
    pad = [hand_history.PAD, hand_history.PAD]
    expected = np.array([pad] * (hand_history.LENGTH - 3) + [[1, 5], [2, PASS], [3, 9]])
    np.testing.assert_array_equal(out[0], expected)
    np.testing.assert_array_equal(out[1], hand_history.empty(1)[0])


def test_a_long_hand_keeps_its_latest_events():
    n = hand_history.LENGTH + 5
    actions = np.arange(n)[None] % 100
    out = hand_history.encode(np.zeros((1, n)), actions, np.array([n]), np.array([3]))
    np.testing.assert_array_equal(out[0, :, 1], actions[0, 5:])
    assert (out[0, :, 0] == 1).all()  # seat 0 is slot 1 for seat 3


def _logged_positions(seed: int = 3, n_games: int = 8):
    """Random play with ``HandLogs``: (state, logs) before every decision of two hands."""
    rng = np.random.default_rng(seed)
    state = engine.init(rng, n_games)
    logs = HandLogs(n_games)
    for _ in range(2):
        while (state.phase <= Phase.EXCHANGE).any():
            yield state, logs
            actions = engine.random_legal_actions(engine.legal_action_mask(state), rng)
            logs.record(state, actions)
            state = engine.step(state, actions)
        state = engine.next_hand(state, rng)
        logs.clear(np.arange(n_games))


def test_rollouts_and_bots_get_one_encoding_of_the_same_logs():
    for state, logs in _logged_positions():
        games = np.arange(len(state.phase))
        np.testing.assert_array_equal(
            logs.encoded(games, state.to_act),
            hand_history.from_rows(logs.turned(games, state.to_act)),
        )


@pytest.mark.parametrize("encoder", ENCODERS)
def test_padding_changes_nothing(encoder):
    torch.manual_seed(0)
    net = ActorCritic(make_arch("ppo", [16], history=encoder, history_hidden=8)).eval()
    history = torch.from_numpy(random_histories(32, seed=1)).long()
    obs = torch.rand(32, observation.SIZE)
    mask = torch.ones(32, 109, dtype=torch.bool)
    pad = history[..., 1] < 0
    assert pad.any() and (~pad).any()
    scrambled = history.clone()
    scrambled[pad] = torch.stack(  # any slot, any negative action: still padding
        [torch.randint(-5, 10, (int(pad.sum()),)), -torch.randint(1, 9, (int(pad.sum()),))], 1
    )
    assert (scrambled[pad] != history[pad]).any()
    torch.testing.assert_close(net(obs, mask, scrambled), net(obs, mask, history))
    # The summary of a hand's events is the same without the padding in front of them.
    row = int((~pad).sum(1).argmin())
    events = history[row : row + 1, ~pad[row]]
    assert 0 < events.shape[1] < hand_history.LENGTH
    enc = net.history_encoder
    torch.testing.assert_close(enc(events), enc(history[row : row + 1]))


@pytest.mark.parametrize("encoder", ENCODERS)
def test_the_history_changes_the_policy(encoder):
    torch.manual_seed(0)
    net = ActorCritic(make_arch("ppo", [16], history=encoder, history_hidden=8)).eval()
    obs = torch.rand(4, observation.SIZE).expand(2, -1, -1).reshape(8, -1)
    mask = torch.ones(8, 109, dtype=torch.bool)
    history = torch.from_numpy(random_histories(8, seed=2))
    logits = net(obs, mask, history)
    assert not torch.allclose(logits[:4], logits[4:])
    with pytest.raises(ValueError, match="reads the hand so far"):
        net(obs, mask)


def test_the_default_network_is_the_one_without_history():
    arch = make_arch("ppo", [32])
    assert arch == {
        "algorithm": "ppo",
        "hidden": [32],
        "obs_size": observation.SIZE,
        "n_actions": 109,
    }
    plain = build_network(arch)
    assert plain.history_encoder is None and plain.trunk.net[0].in_features == observation.SIZE
    assert not any(k.startswith("history") for k in plain.state_dict())
    hist = build_network(make_arch("ppo", [32], history="attention", history_hidden=16))
    assert hist.trunk.net[0].in_features == observation.SIZE + 16


def test_rollout_histories_show_the_plays_the_observation_counts():
    cfg = ppo.PPOConfig(num_envs=8, rollout_steps=64, hidden=[16], history="attention")
    learner = ppo.PPOLearner(cfg)
    batch = SelfPlay(learner.settings(), 0).collect(learner.net.state_dict())
    assert batch.history.shape == (len(batch), hand_history.LENGTH, 2)
    facts = observation.decode(batch.obs)
    checked = 0
    for i, h in enumerate(batch.history):
        real = h[h[:, 1] >= 0].astype(np.int64)
        if len(real) == hand_history.LENGTH:
            continue  # the window may have dropped the hand's first events
        played = np.zeros_like(facts.played[i])
        np.add.at(played, real[:, 0], COST[real[:, 1]])
        np.testing.assert_array_equal(played, facts.played[i])
        checked += len(real) > 0
    assert checked > len(batch) // 2


def test_configs_refuse_history_where_it_is_not_carried():
    with pytest.raises(ConfigError, match="PPO-only"):
        dmc.DMCConfig(history="gru")
    with pytest.raises(ConfigError, match="imitate"):
        ppo.PPOConfig(history="gru", imitate="rule")
    with pytest.raises(ConfigError, match="history must be one of"):
        ppo.PPOConfig(history="lstm")


TINY = [
    "num_envs=8", "rollout_steps=48", "workers=local", "bot_share=0.5", "bots=[greedy]",
    "eval_every=1", "eval_deals=2", "final_eval_deals=2", "eval_hands=2",
    "eval_bots=[random]", "progress=false", "hidden=[16]", "minibatch_size=64",
    "total_decisions=768",
]  # fmt: skip


@pytest.fixture(scope="module")
def history_run(tmp_path_factory):
    """A tiny PPO run of the quick preset with an attention history encoder."""
    runs = tmp_path_factory.mktemp("runs")
    argv = ["--config", "quick", *TINY, "history=attention", f"runs_dir={runs}", "name=h"]
    assert murlan_cli.main(["train", *argv]) == 0
    return runs / "h"


def test_a_history_run_trains_and_its_checkpoint_round_trips(history_run):
    ckpt = load_checkpoint(history_run)
    assert ckpt.counters["gradient_steps"] > 0
    assert ckpt.arch["history"] == "attention"
    assert ckpt.arch["history_length"] == hand_history.LENGTH
    policy = load_policy(history_run)
    state = engine.init(np.random.default_rng(5), 16)
    obs = torch.from_numpy(engine.observe(state))
    mask = torch.from_numpy(engine.legal_action_mask(state))
    history = torch.from_numpy(random_histories(16, seed=3))
    scores = policy(obs, mask, history)
    assert mask[torch.arange(16), scores.argmax(-1)].all()
    fresh = build_network(ckpt.arch)
    assert not torch.allclose(fresh(obs, mask, history), scores)  # the weights were loaded
    for k, v in ckpt.model.items():
        torch.testing.assert_close(policy.state_dict()[k], v)


def test_a_history_checkpoint_plays_in_the_arena_with_its_logs(history_run):
    bot = from_spec(str(history_run))
    assert bot.uses_history
    report = arena.run_arena([bot, "random"], boards=2, seed=1, max_hands=2)
    assert sum(row["hands"] for row in report["bots"]) > 0
    state = engine.init(np.random.default_rng(1), 2)
    with pytest.raises(ValueError, match="keeps no hand logs"):
        bot.act(engine.observe(state), engine.legal_action_mask(state), np.random.default_rng())


def test_export_takes_the_history_input_and_bundles_refuse_it(history_run, tmp_path):
    onnxruntime = pytest.importorskip("onnxruntime")
    from agents.export import export_bundle, export_onnx

    policy = load_policy(history_run)
    export_onnx(policy, tmp_path / "h.onnx")
    session = onnxruntime.InferenceSession(str(tmp_path / "h.onnx"))
    assert [i.name for i in session.get_inputs()] == ["obs", "mask", "history"]
    state = engine.init(np.random.default_rng(2), 3)
    obs, mask = engine.observe(state), engine.legal_action_mask(state)
    history = random_histories(3, seed=4).astype(np.int64)
    got = session.run(None, {"obs": obs, "mask": mask, "history": history})[0]
    want = policy(torch.from_numpy(obs), torch.from_numpy(mask), torch.from_numpy(history))
    np.testing.assert_allclose(got[mask], want.detach().numpy()[mask], rtol=1e-4, atol=1e-5)
    with pytest.raises(ValueError, match="bundle contract"):
        export_bundle(policy, tmp_path / "bundle")
    assert murlan_cli.main(["export", str(history_run), "--out", str(tmp_path / "b")]) == 2
    assert not (tmp_path / "b").exists()
    with pytest.raises(ValueError, match="bundle contract"):
        int8_policy_bot(policy, "h")
