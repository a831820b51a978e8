"""Expert iteration: the batched labeller, the start from a bundle, and the resumable loop."""

from __future__ import annotations

import hashlib
import json

import numpy as np
import pytest
import torch

import murlan_cli
from agents import distill, presets
from agents.config import ConfigError
from agents.labelling import Positions, label_positions, play_positions
from agents.policy_bot import TorchPolicyBot, int8_policy_bot
from murlan_env.bots import registry
from murlan_env.bots.belief import log_likelihood, log_likelihoods, sample_hidden_hands
from murlan_env.bots.protocol import MoveScores, legal_log_probs
from murlan_env.bots.rule import RuleBot
from murlan_env.bots.search import SearchBot


def train_command(argv: list[str]) -> int:
    """``murlan train ARGV`` in this process (what ``python train.py ARGV`` runs)."""
    return murlan_cli.main(["train", *argv])


# A run small enough for a test: a few positions, a small search, two evaluation boards.
TINY = [
    "rounds=1",
    "positions=12",
    "label_batch=4",
    "label_chunk=4",
    "label_workers=1",
    "search_rollouts=8",
    "belief_candidates=16",
    "eval_deals=2",
    "epochs=1",
    "eval_bots=[rule]",
    "progress=false",
]


@pytest.fixture(scope="module")
def int8_once():
    """``int8_policy_bot``, made once per set of weights and name: its ONNX export takes
    seconds, and the tests here quantise the same shipped policy again and again (the
    labelling runs of the resume test start from it). A test that quantises through
    ``agents.distill`` gets it in place of the real one."""
    made = {}

    def quantised(net, name):
        weights = hashlib.sha256()
        for key, tensor in net.state_dict().items():
            weights.update(key.encode() + tensor.detach().cpu().numpy().tobytes())
        key = (weights.hexdigest(), name)
        if key not in made:
            made[key] = int8_policy_bot(net, name)
        return made[key]

    return quantised


@pytest.fixture(scope="module")
def positions() -> Positions:
    """`hard`'s decisions with a choice against three rule bots on one board."""
    return play_positions(registry.make_bot("hard"), RuleBot(), 1, seed=5)


def test_positions_are_choices_with_their_hand_so_far(positions):
    assert len(positions) > 20
    assert (positions.mask.sum(1) > 1).all()
    assert positions.mask[np.arange(len(positions)), positions.action].all()
    # The hand so far replays on the engine to each position (log_likelihood checks every
    # move against the observation and raises if one does not fit).
    model = registry.make_bot("hard")
    held = sample_hidden_hands(positions.obs, np.random.default_rng(0), 2)
    log_likelihoods(positions.obs, positions.history(np.arange(len(positions))), held, model)
    assert (positions.log_length > 0).mean() > 0.8


@pytest.mark.parametrize("model", ["policy", "rule"])
def test_batched_log_likelihoods_are_each_games_own(positions, model):
    bot = registry.make_bot("hard") if model == "policy" else MoveScores(RuleBot())
    rows = np.arange(0, len(positions), max(1, len(positions) // 6))[:6]
    obs = positions.obs[rows]
    logs = positions.history(rows)
    held = sample_hidden_hands(obs, np.random.default_rng(3), 24)
    together = log_likelihoods(obs, logs, held, bot)
    assert together.shape == (len(rows), 24, 4)
    assert (together[:, :, 0] == 0).all()
    assert (together[:, :, 1:] < 0).any()  # the others' moves were scored
    for g in range(len(rows)):
        alone = log_likelihood(obs[g], logs[g], held[g], bot)
        np.testing.assert_allclose(together[g], alone, rtol=1e-5, atol=1e-5)


def test_batched_labeller_agrees_with_the_per_position_one(positions):
    """One call for many positions draws its random numbers in another order than one call
    per position, so the two are two samples of the same search: the batched labeller's
    values must differ from the per-position ones no more than two seeds of the per-position
    labeller differ from each other, with no bias, and its moves must agree with them about as
    often. (A small search, so noisy: the expert's own 200 rollouts agree far more often,
    benchmarks/labels.py speed.)"""
    hard = registry.make_bot("hard")
    search = SearchBot(
        rollouts=48,
        belief_candidates=128,
        name="small-expert",
        **registry.guided_by(hard, belief=True, models=[RuleBot()]),
    )
    some = positions.take(np.arange(min(16, len(positions))))
    single, single_values = label_positions(search, some, np.random.default_rng(0), batch=1)
    again, again_values = label_positions(search, some, np.random.default_rng(1), batch=1)
    batched, batched_values = label_positions(search, some, np.random.default_rng(0), batch=16)
    legal = some.mask
    assert legal[np.arange(len(some)), batched].all()
    assert np.isfinite(batched_values[legal]).all() and np.isneginf(batched_values[~legal]).all()
    seed_noise = np.abs(again_values[legal] - single_values[legal]).mean()
    batch_noise = np.abs(batched_values[legal] - single_values[legal]).mean()
    assert batch_noise <= 1.25 * seed_noise
    assert abs((batched_values[legal] - single_values[legal]).mean()) < 0.15
    assert (batched == single).mean() >= (again == single).mean() - 0.25


def test_policy_read_back_from_the_bundle_scores_as_onnx_does(positions):
    hard = registry.make_bot("hard")
    net = distill.policy_from_bundle(distill.bundle_dir("ppo-finetune"))
    torch_scores = TorchPolicyBot(net.eval(), "policy").scores(positions.obs, positions.mask)
    onnx_scores = hard.scores(positions.obs, positions.mask)
    legal = positions.mask
    np.testing.assert_allclose(torch_scores[legal], onnx_scores[legal], rtol=1e-4, atol=1e-4)
    assert (torch_scores.argmax(1) == positions.action).all()


def test_the_int8_policy_scores_near_the_float32_one(int8_once):
    """The labeller's int8 model (``label_precision: int8``) plays the float32 policy's move
    at nearly every position, and its legal moves' probabilities stay close; illegal moves
    stay masked."""
    net = distill.policy_from_bundle(distill.bundle_dir("ppo-finetune")).eval()
    positions = play_positions(registry.make_bot("hard"), RuleBot(), 6, seed=3)
    obs, mask = positions.obs, positions.mask
    exact = TorchPolicyBot(net, "policy").scores(obs, mask)
    quantised = int8_once(net, "policy-int8").scores(obs, mask)
    assert len(obs) > 300
    assert (quantised.argmax(1) == exact.argmax(1)).mean() >= 0.98
    assert (quantised[~mask] == np.finfo(np.float32).min).all()
    p, q = np.exp(legal_log_probs(exact, mask)), np.exp(legal_log_probs(quantised, mask))
    total_variation = 0.5 * np.where(mask, np.abs(p - q), 0).sum(1)
    assert np.median(total_variation) < 0.01 and total_variation.max() < 0.25
    assert not np.allclose(quantised[mask], exact[mask], atol=1e-3)  # it is another model


def test_an_int8_labeller_keeps_the_policys_own_move_where_it_searches_none(
    positions, int8_once, monkeypatch
):
    """With ``label_precision: int8`` the belief and rollouts run the int8 model, but the
    move the search keeps (its prior) is the float32 policy's: on positions where no
    candidate clears the margin, the label is exactly the policy's own move."""
    monkeypatch.setattr(distill, "int8_policy_bot", int8_once)
    net = distill.policy_from_bundle(distill.bundle_dir("ppo-finetune")).eval()
    cfg = distill.DistillConfig(search_rollouts=8, belief_candidates=16, label_precision="int8")
    search = distill.expert_search(net, cfg)
    assert search.belief.name == "policy-int8" and search.prior.name == "policy"
    search.margin = np.inf  # nothing overrides the prior
    some = positions.take(np.arange(min(8, len(positions))))  # a search each: a few suffice
    actions, values = label_positions(search, some, np.random.default_rng(0), 4)
    np.testing.assert_array_equal(actions, some.action)
    assert np.isfinite(values[some.mask]).mean() > 0.5


def test_soft_targets_follow_the_search_values():
    mask = np.array([[True, True, False, True]])
    values = np.array([[1.0, 1.1, -np.inf, 0.5]])
    cfg = distill.DistillConfig(targets="soft", soft_temperature=0.1)
    target = distill.targets_of(np.array([1]), values, mask, cfg)
    assert target[0, 2] == 0 and target.sum() == pytest.approx(1)
    assert target[0, 1] > target[0, 0] > target[0, 3]
    hard = distill.targets_of(np.array([1]), values, mask, distill.DistillConfig())
    np.testing.assert_array_equal(hard, [[0, 1, 0, 0]])


def test_a_killed_run_resumes_where_it_stopped(tmp_path, monkeypatch, int8_once):
    """A run killed during labelling keeps its positions and saved labels; resumed, it
    labels only the chunks not saved and ends with the labels of an uninterrupted run."""
    monkeypatch.setattr(distill, "int8_policy_bot", int8_once)  # the preset labels in int8
    whole = ["--config", "distill", "name=whole", f"runs_dir={tmp_path}", *TINY]
    assert train_command(whole) == 0

    calls = {"play": 0, "label": 0}
    real_play, real_label = distill.play_round, distill.label_positions

    def play(*args, **kwargs):
        calls["play"] += 1
        return real_play(*args, **kwargs)

    def label(search, chunk, *args, **kwargs):
        calls["label"] += 1
        if calls["label"] == 2:
            raise KeyboardInterrupt  # the kill, after the first chunk was saved
        return real_label(search, chunk, *args, **kwargs)

    monkeypatch.setattr(distill, "play_round", play)
    monkeypatch.setattr(distill, "label_positions", label)
    killed = ["--config", "distill", "name=killed", f"runs_dir={tmp_path}", *TINY]
    with pytest.raises(KeyboardInterrupt):
        train_command(killed)
    first = tmp_path / "killed" / "round-1"
    with np.load(first / "labels.npz") as saved:
        assert int(saved["done"][0]) == 4
    assert not (first / "eval.json").exists()

    calls.update(play=0, label=-10)  # no second kill
    assert train_command(["--resume", str(tmp_path / "killed")]) == 0
    assert calls["play"] == 0  # the positions on disk were kept
    assert calls["label"] == -10 + 2  # chunks 2 and 3 of 3

    for name in ("positions", "labels"):
        with np.load(tmp_path / "whole" / "round-1" / f"{name}.npz") as a:
            with np.load(first / f"{name}.npz") as b:
                for key in a.files:
                    np.testing.assert_array_equal(a[key], b[key], err_msg=f"{name}.{key}")
    result = json.loads((first / "eval.json").read_text())
    assert set(result["agreement"]) == {
        "before_fitted",
        "before_heldout",
        "after_fitted",
        "after_heldout",
    }
    # Resuming a finished run reports its last evaluation and does nothing more.
    calls.update(play=0, label=0)
    assert train_command(["--resume", str(tmp_path / "killed")]) == 0
    assert calls == {"play": 0, "label": 0}
    ckpt = torch.load(tmp_path / "killed" / "checkpoint.pt", weights_only=False)
    assert ckpt["counters"]["iteration"] == 1 and ckpt["counters"]["step"] == 12
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    events = EventAccumulator(str(tmp_path / "killed")).Reload()
    tags = events.Tags()["scalars"]
    for tag in ("charts/positions", "losses/cross_entropy", "eval/rule/points_per_hand"):
        assert tag in tags

    # An ablation of the fit takes another run's positions and labels: nothing is played
    # or labelled again.
    calls.update(play=0, label=0)
    soft = ["--config", "distill", "name=soft", f"runs_dir={tmp_path}", *TINY, "targets=soft"]
    assert train_command([*soft, f"labels_from={tmp_path / 'whole'}"]) == 0
    assert calls == {"play": 0, "label": 0}
    with np.load(tmp_path / "soft" / "round-1" / "labels.npz") as a:
        np.testing.assert_array_equal(a["values"], np.load(first / "labels.npz")["values"])


def test_labelling_processes_give_the_labels_of_one(positions):
    """Chunks labelled in two worker processes get the moves and values one process gives:
    each chunk's generator is seeded by its place, not by where it runs."""
    net = distill.policy_from_bundle(distill.bundle_dir("ppo-finetune"))
    net.eval()
    small = {"search_rollouts": 8, "belief_candidates": 16, "label_batch": 2}
    rows = np.arange(min(len(positions), 9))
    chunks = [rows[k : k + 4] for k in range(0, rows.size, 4)]  # sizes 4, 4, 1

    class Count:
        n = 0

        def update(self, k):
            self.n += k

    labels = {}
    for workers in (1, 2):
        cfg = distill.DistillConfig(label_workers=workers, **small)
        bar = Count()
        labels[workers] = list(distill.label_chunks(net, cfg, 1, positions, chunks, bar))
        assert bar.n == rows.size
    for (a1, v1), (a2, v2) in zip(labels[1], labels[2], strict=True):
        np.testing.assert_array_equal(a1, a2)
        np.testing.assert_array_equal(v1, v2)


def test_distill_config_checks_its_settings():
    with pytest.raises(ConfigError, match="targets"):
        presets.build_config({"algorithm": "distill", "targets": "fuzzy"})
    with pytest.raises(ConfigError, match="label_workers"):
        presets.build_config({"algorithm": "distill", "label_workers": 0})
    with pytest.raises(ConfigError, match="label_precision must be one of"):
        presets.build_config({"algorithm": "distill", "label_precision": "int4"})
