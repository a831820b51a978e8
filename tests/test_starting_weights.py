"""Where a run starts (``init_from``): a history network grown from a history-free checkpoint
or from a shipped bundle's policy plays exactly as its source, and ``critic_warmup`` trains
the critic alone. Slow: five tiny training runs and the shipped bundle's 512-wide network
(about 10 s), where the fast suite has no seconds to spare (docs/develop.md)."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import murlan_cli
from agents import ppo
from agents.checkpoint import CheckpointError
from agents.networks import build_network, load_policy, make_arch, random_histories
from agents.starting_weights import load_weights
from murlan_env.bundle.files import read_golden
from murlan_env.bundle.golden import golden_inputs
from murlan_env.bundle.manifest import BundleManifest
from murlan_env.bundle.shipped import levels, policies_dir
from murlan_env.game import engine

pytestmark = pytest.mark.slow

TINY = [
    "num_envs=8", "rollout_steps=48", "workers=local", "bot_share=0", "eval_every=0",
    "final_eval_deals=2", "eval_hands=1", "eval_bots=[random]", "progress=false",
    "hidden=[16]", "minibatch_size=64", "total_decisions=768", "precision=fp32",
]  # fmt: skip


def _train(runs, name, *over) -> None:
    argv = ["--config", "quick", *TINY, f"runs_dir={runs}", f"name={name}", *over]
    assert murlan_cli.main(["train", *argv]) == 0


@pytest.fixture(scope="module")
def base(tmp_path_factory):
    """A tiny history-free run: the checkpoint the other runs start from."""
    runs = tmp_path_factory.mktemp("runs")
    _train(runs, "base")
    return runs


def _positions(n: int = 24, seed: int = 3):
    state = engine.init(np.random.default_rng(seed), n)
    obs = torch.from_numpy(engine.observe(state))
    mask = torch.from_numpy(engine.legal_action_mask(state))
    return obs, mask


def test_a_grown_run_starts_as_its_history_free_checkpoint(base):
    """With a zero learning rate the grown run keeps its start: whatever the history, it
    scores every position as the base checkpoint does; the run's log says how it started."""
    _train(base, "grown", "history=attention", "learning_rate=0", f"init_from={base / 'base'}")
    before, after = load_policy(base / "base"), load_policy(base / "grown")
    assert after.arch["history"] == "attention"
    obs, mask = _positions()
    for seed in (0, 1):
        history = torch.from_numpy(random_histories(len(obs), seed=seed))
        torch.testing.assert_close(after(obs, mask, history), before(obs, mask))
    assert "grown by a history encoder" in (base / "grown" / "train.log").read_text()


def test_critic_warmup_moves_the_value_head_alone(base):
    _train(base, "warm", "critic_warmup=768", f"init_from={base / 'base'}")
    before, after = load_policy(base / "base").state_dict(), load_policy(base / "warm").state_dict()
    moved = {k for k in before if not torch.equal(before[k], after[k])}
    assert moved == {"value_head.weight", "value_head.bias"}
    _train(base, "unwarmed", f"init_from={base / 'base'}")  # without it, the policy learns
    after = load_policy(base / "unwarmed").state_dict()
    assert not torch.equal(after["policy_head.weight"], before["policy_head.weight"])


def test_a_history_network_starts_from_the_hard_levels_bundle():
    """The shipped ``hard`` policy grown by an attention encoder scores its own golden
    positions as its float32 model does, for any history; the value head keeps its start."""
    bundle = policies_dir() / levels()["hard"]["policy"]
    manifest = BundleManifest.load(bundle)
    net = build_network(make_arch("ppo", manifest.policy["hidden"], history="attention"))
    value_head = net.value_head.weight.detach().clone()
    assert "value head fresh" in load_weights(net, bundle)
    torch.testing.assert_close(net.value_head.weight, value_head)
    positions = read_golden(bundle, manifest)["positions"][:40]
    obs, mask = (torch.from_numpy(a) for a in golden_inputs(positions))
    history = torch.from_numpy(random_histories(len(positions), seed=4))
    with torch.no_grad():
        got = net(obs, mask, history)
    for row, p in enumerate(positions):  # the golden scores: the bundle's float32 model's
        np.testing.assert_allclose(got[row, p["legal"]], p["scores"], rtol=1e-4, atol=1e-4)


def test_starting_weights_of_another_network_are_refused_in_one_line(base, capsys):
    bundle = policies_dir() / levels()["hard"]["policy"]
    net = build_network(make_arch("ppo", [32], history="attention"))
    with pytest.raises(CheckpointError, match="holds the policy .* set the config's hidden"):
        load_weights(net, bundle)
    with pytest.raises(CheckpointError, match="set the config's hidden"):
        load_weights(net, base / "base")
    argv = ["--config", "quick", *TINY, f"runs_dir={base}", "name=bad", "hidden=[24]"]
    assert murlan_cli.main(["train", *argv, f"init_from={base / 'base'}"]) == 2
    assert "holds the network" in capsys.readouterr().err
    with pytest.raises(ValueError, match="critic_warmup"):
        ppo.PPOConfig(critic_warmup=-1)
