"""The learning side pinned down: PPO's loss (masking, clipping), PPO and DMC updates on tiny
fixed batches, the DMC replay's order and eviction, and the imitation warm start."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from agents.dmc import DMCConfig, DMCLearner, Replay
from agents.imitation import demonstrations, pretrain
from agents.networks import ActorCritic, make_arch
from agents.ppo import PPOConfig, PPOLearner, ppo_loss
from agents.rollout import Batch
from murlan_env.game import engine, observation
from murlan_env.game.combos import N_ACTIONS
from murlan_env.game.observation import SIZE


def _tiny_batch(n: int = 64, seed: int = 0) -> dict:
    """n real decisions (observations and masks from random play) with made-up returns."""
    rng = np.random.default_rng(seed)
    state = engine.init(rng, n)
    for _ in range(int(rng.integers(5, 15))):
        state = engine.step(
            state, engine.random_legal_actions(engine.legal_action_mask(state), rng)
        )
        state = engine.next_hand(state, rng)
    mask = engine.legal_action_mask(state).copy()
    action = engine.random_legal_actions(mask, rng).astype(np.int64)
    return {
        "obs": engine.observe(state),
        "mask": mask,
        "action": action,
        "hidden_hands": observation.encode_hidden(state),
        "return": rng.normal(0.0, 1.0, n).astype(np.float32),
    }


def test_masked_actions_get_no_probability_and_no_gradient():
    torch.manual_seed(0)
    b = _tiny_batch(32)
    logits = torch.randn(32, N_ACTIONS, requires_grad=True)
    mask = torch.from_numpy(b["mask"])
    act = torch.from_numpy(b["action"])
    loss, parts = ppo_loss(
        logits, torch.zeros(32), mask, act, torch.zeros(32), torch.ones(32), torch.zeros(32),
        clip=0.2, ent_coef=0.01, vf_coef=0.5,
    )  # fmt: skip
    loss.backward()
    assert (logits.grad[~mask] == 0).all() and (logits.grad[mask] != 0).any()
    probs = torch.softmax(torch.where(mask, logits, torch.finfo(torch.float32).min), -1)
    assert (probs[~mask] == 0).all()
    assert parts["entropy"] > 0


def test_clipping_stops_the_push_past_the_trust_region():
    """A sample whose ratio already left [1 - clip, 1 + clip] in its advantage's direction
    contributes no policy gradient; one inside the region does."""
    torch.manual_seed(1)
    mask = torch.ones(2, N_ACTIONS, dtype=torch.bool)
    logits = torch.randn(2, N_ACTIONS, requires_grad=True)
    act = torch.tensor([3, 3])
    logp = torch.log_softmax(logits.detach(), -1)[:, 3]
    old_logp = torch.stack([logp[0] - np.log(1.5), logp[1]])  # ratios 1.5 and 1.0
    adv = torch.tensor([1.0, 1.0])
    loss, parts = ppo_loss(
        logits, torch.zeros(2), mask, act, old_logp, adv, torch.zeros(2),
        clip=0.2, ent_coef=0.0, vf_coef=0.0,
    )  # fmt: skip
    loss.backward()
    assert torch.allclose(logits.grad[0], torch.zeros(N_ACTIONS))
    assert logits.grad[1].abs().sum() > 0
    assert parts["clipfrac"] == 0.5


@pytest.mark.parametrize("critic", ["shared", "privileged"])
def test_ppo_updates_on_a_fixed_batch_lower_the_loss(critic):
    torch.manual_seed(0)
    cfg = PPOConfig(hidden=[32], critic=critic, critic_hidden=[32], minibatch_size=32,
                    update_epochs=4, learning_rate=3e-3, anneal_lr=False, device="cpu",
                    precision="fp32", ent_coef=0.0)  # fmt: skip
    learner = PPOLearner(cfg)
    b = _tiny_batch(64)
    with torch.no_grad():
        hidden = torch.from_numpy(b["hidden_hands"]) if critic == "privileged" else None
        logits, value = learner.net.logits_and_value(torch.from_numpy(b["obs"]), hidden)
        logp = torch.log_softmax(
            torch.where(torch.from_numpy(b["mask"]), logits, -1e30), -1
        ).gather(1, torch.from_numpy(b["action"])[:, None])[:, 0]
    batch = Batch(
        obs=b["obs"],
        mask=b["mask"],
        action=b["action"],
        returns=b["return"],
        hidden_hands=b["hidden_hands"] if critic == "privileged" else None,
        logp=logp.numpy(),
        value=value.numpy(),
        advantage=(b["return"] - value.numpy()).astype(np.float32),
        stats={"decisions": 64},
    )
    first = learner.update(batch, 64)
    for _ in range(20):
        last = learner.update(batch, 64)
    assert last["value"] < first["value"] * 0.5
    assert last["approx_kl"] > 0
    # CleanRL's diagnostics, finite: the KL estimates and clip fraction of the minibatches,
    # and the explained variance of the batch's returns by its rollout values.
    for key in ("approx_kl", "old_approx_kl", "clipfrac", "explained_variance"):
        assert np.isfinite(last[key]), key
    assert 0 <= last["clipfrac"] <= 1
    residual = np.var(batch.returns - batch.value) / np.var(batch.returns)
    assert last["explained_variance"] == pytest.approx(1 - residual)


def test_the_diagnostics_draw_no_random_numbers():
    """The statistics update() reports are read off the update, not drawn beside it: the
    learner's generator moves by the minibatch permutations alone, torch's not at all."""
    b = _tiny_batch(64)
    batch = Batch(
        obs=b["obs"], mask=b["mask"], action=b["action"], returns=b["return"],
        logp=np.full(64, -2.0, np.float32), value=np.zeros(64, np.float32),
        advantage=b["return"], stats={"decisions": 64},
    )  # fmt: skip
    cfg = PPOConfig(hidden=[16], minibatch_size=16, device="cpu", precision="fp32")
    learner = PPOLearner(cfg)
    expected = np.random.default_rng()
    expected.bit_generator.state = learner.rng.bit_generator.state
    for _ in range(cfg.update_epochs):  # what agents.minibatches.shuffled draws
        expected.permutation(64)
    torch_state = torch.get_rng_state()
    out = learner.update(batch, 64)
    assert learner.rng.bit_generator.state == expected.bit_generator.state
    assert torch.equal(torch.get_rng_state(), torch_state)
    assert {"approx_kl", "old_approx_kl", "clipfrac", "explained_variance"} <= set(out)


def test_the_learning_rate_anneals_as_its_docstring_and_the_config_reference_say():
    """anneal_lr: linear towards 0 at total_decisions, floored at LR_FLOOR (5%) of the start;
    the key's docstring, which docs/config.md publishes, says so."""
    import importlib.util
    from pathlib import Path

    from agents import ppo

    cfg = PPOConfig(learning_rate=1e-3, total_decisions=1000)
    assert ppo.annealed_lr(cfg, 0) == 1e-3
    assert ppo.annealed_lr(cfg, 500) == pytest.approx(0.5e-3)
    assert ppo.annealed_lr(cfg, 950) == pytest.approx(ppo.LR_FLOOR * 1e-3)
    assert ppo.annealed_lr(cfg, 2000) == pytest.approx(ppo.LR_FLOOR * 1e-3)
    b = _tiny_batch(16)
    batch = Batch(
        obs=b["obs"], mask=b["mask"], action=b["action"], returns=b["return"],
        logp=np.full(16, -2.0, np.float32), value=np.zeros(16, np.float32),
        advantage=b["return"], stats={"decisions": 16},
    )  # fmt: skip
    cfg = PPOConfig(hidden=[16], learning_rate=1e-3, total_decisions=1000, minibatch_size=16,
                    update_epochs=1, device="cpu", precision="fp32")  # fmt: skip
    learner = PPOLearner(cfg)
    for step in (100, 990):
        assert learner.update(batch, step)["learning_rate"] == ppo.annealed_lr(cfg, step)
    cfg.anneal_lr = False
    assert learner.update(batch, 2000)["learning_rate"] == ppo.annealed_lr(cfg, 990)  # kept
    root = Path(__file__).resolve().parents[1]
    spec = importlib.util.spec_from_file_location("docs_hooks", root / "docs" / "hooks.py")
    hooks = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(hooks)
    floor = f"{ppo.LR_FLOOR:.0%} of learning_rate"
    assert floor == "5% of learning_rate"
    assert floor in hooks.field_docs(PPOConfig)["anneal_lr"]
    row = next(
        line
        for line in hooks.config_markdown(root).splitlines()
        if line.startswith("| `anneal_lr`")
    )
    assert floor in row and "to 0" in row  # the published reference: the line and its floor


def test_replay_keeps_the_newest_and_samples_only_what_it_holds():
    replay = Replay(5, SIZE)
    rng = np.random.default_rng(0)
    obs = observation.from_codes(rng.integers(0, 2, (7, SIZE)).astype(np.uint8))
    replay.add(obs[:3], np.arange(3), np.arange(3, dtype=np.float32))
    assert (replay.n, replay.pos) == (3, 3)
    for _ in range(20):
        _, act, _ = replay.sample(rng, 4)
        assert set(act.tolist()) <= {0, 1, 2}
    replay.add(obs[3:7], np.arange(3, 7), np.arange(3, 7, dtype=np.float32))
    assert (replay.n, replay.pos) == (5, 2)
    assert sorted(replay.action.tolist()) == [2, 3, 4, 5, 6]  # 0 and 1 evicted, oldest first
    assert replay.action[:2].tolist() == [5, 6]  # overwritten in ring order
    np.testing.assert_array_equal(observation.from_codes(replay.codes[0]), obs[5])
    again = Replay(5, SIZE)
    again.load_state_dict(replay.state_dict())
    assert (again.n, again.pos) == (5, 2)
    np.testing.assert_array_equal(again.codes, replay.codes)
    big = Replay(3, SIZE)
    big.add(obs, np.arange(7), np.arange(7, dtype=np.float32))
    assert sorted(big.action.tolist()) == [4, 5, 6]


def test_dmc_updates_on_a_fixed_replay_lower_the_loss():
    torch.manual_seed(0)
    cfg = DMCConfig(
        hidden=[32], pair_hidden=16, batch_size=64, updates_per_rollout=10, replay_size=1000,
        learning_rate=3e-3, device="cpu", precision="fp32",
    )  # fmt: skip
    learner = DMCLearner(cfg)
    b = _tiny_batch(64)
    batch = Batch(obs=b["obs"], action=b["action"], returns=b["return"])
    first = learner.update(batch, 64)
    empty = Batch(obs=b["obs"][:0], action=b["action"][:0], returns=b["return"][:0])
    for _ in range(10):
        last = learner.update(empty, 64)
    assert learner.replay.n == 64
    assert last["q_loss"] < first["q_loss"] * 0.5


def test_imitation_learns_the_demonstrated_bot():
    torch.manual_seed(0)
    demos = demonstrations("greedy", 4000, num_envs=64, seed=0)
    assert len(demos["action"]) == 4000
    assert demos["mask"][np.arange(4000), demos["action"]].all()
    assert set(np.unique(demos["return"])) <= {-1.5, -0.5, 0.5, 1.5}
    net = ActorCritic(make_arch("ppo", [64], critic="privileged", critic_hidden=[64]))
    before = pretrain(net, demos, epochs=1, minibatch_size=256, learning_rate=0.0)
    after = pretrain(net, demos, epochs=6, minibatch_size=256, learning_rate=3e-3)
    assert after["agreement"] > 0.85 > before["agreement"]
    assert after["imitation"] < before["imitation"]
