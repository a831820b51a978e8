"""Export bundles: files and manifest, strict loading, ONNX/PyTorch parity, golden replay, the bot.

The bundle is the session's (``tests/conftest.py``): ``murlan export`` of a saved checkpoint
(the slow part: torch.onnx.export and a golden set of 200 positions, which the command
replays), made once; the tests then load, tamper with and play it.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import shutil
import subprocess
import sys

import numpy as np
import onnxruntime as ort
import pytest
import torch

import murlan_cli as cli
import murlan_env
from agents.export import export_bundle, export_coreml
from agents.networks import load_policy
from murlan_env import records
from murlan_env.bots import draws
from murlan_env.bots.baseline import GreedyBot, RandomBot
from murlan_env.bots.policy import BundleBot
from murlan_env.bots.protocol import pick_from_scores
from murlan_env.bundle import contract as bundle_contract
from murlan_env.bundle.files import verify_golden
from murlan_env.bundle.golden import dense_obs
from murlan_env.bundle.manifest import BUNDLE_FORMAT, BundleError, BundleManifest
from murlan_env.bundle.shipped import policies_dir
from murlan_env.envs.aec import MurlanAECEnv
from murlan_env.game import engine, observation
from murlan_env.game.combos import N_ACTIONS, PASS, action_catalogue
from tests.conftest import BUNDLE_POSITIONS, BUNDLE_RULES, tiny_policy

RULES = BUNDLE_RULES  # a variant, so the rules travel from checkpoint to bundle
N_POSITIONS = BUNDLE_POSITIONS
F32_MIN = np.finfo(np.float32).min


@pytest.fixture(scope="module")
def policy(checkpoint):
    return load_policy(checkpoint)


@pytest.fixture(scope="module")
def check(bundle_report):
    """The bundle's golden set replayed through this engine and both models: ``verify_golden``'s
    report, which ``murlan export`` made on the bundle and printed in its JSON report."""
    return bundle_report["golden"]


@pytest.fixture(scope="module")
def golden(bundle):
    data = json.loads((bundle / "golden.json").read_text())
    obs = np.stack([dense_obs(p) for p in data["positions"]])
    mask = np.zeros((len(obs), N_ACTIONS), bool)
    for i, p in enumerate(data["positions"]):
        mask[i, p["legal"]] = True
    return data, obs, mask


def _torch_scores(policy, obs, mask) -> np.ndarray:
    with torch.no_grad():
        return policy(torch.from_numpy(obs), torch.from_numpy(mask)).numpy()


# --------------------------------------------------------------------------- the files


def test_bundle_files(bundle):
    names = sorted(p.name for p in bundle.iterdir())
    # --no-coreml: no mlpackage; the plain weights of both models for the runtime-free client
    assert names == [
        "bot.json",
        "golden.json",
        "model.fp16.onnx",
        "model.onnx",
        "weights.bin",
        "weights.fp16.bin",
        "weights.fp16.json",
        "weights.json",
    ]


def test_bot_json_describes_the_installed_package(bundle, checkpoint):
    manifest = json.loads((bundle / "bot.json").read_text())
    assert manifest["format"] == BUNDLE_FORMAT
    written = sorted(p.name for p in bundle.iterdir() if p.is_file() and p.name != "bot.json")
    assert sorted(manifest["files"]) == written  # every file of the bundle, with its sha256
    assert manifest["env_version"] == MurlanAECEnv.metadata["name"] == "murlan_v1"
    assert manifest["rules"] == murlan_env.Rules(joker_pair=True).to_dict(all_flags=True)
    assert manifest["supported_rules"]["joker_pair"] == [True]
    assert manifest["policy"]["source"] == f"{checkpoint.parent.name}/checkpoint.pt"  # no path
    assert str(checkpoint.parent) not in json.dumps(manifest)
    assert manifest["policy"]["algorithm"] == "ppo"
    terms = manifest["contract"]
    assert [row["id"] for row in terms["actions"]["table"]] == list(range(109))
    assert terms["exchange"]["ids"] == list(range(1, 9))

    pieces = terms["observation"]["pieces"]
    assert [p["name"] for p in pieces] == [piece.name for piece in observation.PIECES]
    assert all(p["order"] and p["value"] for p in pieces)
    offsets = np.cumsum([0] + [p["size"] for p in pieces])
    assert [p["offset"] for p in pieces] == offsets[:-1].tolist()
    assert offsets[-1] == terms["observation"]["size"] == observation.SIZE == 544

    # The hashes as bot.json documents them, so an app can recompute them.
    def sha(value):
        return hashlib.sha256(json.dumps(value, sort_keys=True, separators=(",", ":")).encode())

    layout = [[p["name"], p["offset"], p["size"]] for p in pieces]
    assert terms["observation"]["sha256"] == sha(layout).hexdigest()
    assert json.dumps(layout, separators=(",", ":")) in terms["observation"]["hash_of"]
    rows = [{k: r[k] for k in ("id", "kind", "ranks")} for r in terms["actions"]["table"]]
    assert (
        terms["actions"]["sha256"] == sha(rows).hexdigest() == sha(action_catalogue()).hexdigest()
    )
    for model in manifest["models"]:
        model_bytes = (bundle / model["file"]).read_bytes()
        assert model["sha256"] == hashlib.sha256(model_bytes).hexdigest()
        assert model["bytes"] == len(model_bytes)
    assert [m["precision"] for m in manifest["models"]] == ["float32", "float16"]
    golden_bytes = (bundle / "golden.json").read_bytes()
    assert manifest["golden"]["sha256"] == hashlib.sha256(golden_bytes).hexdigest()
    assert manifest["golden"]["positions"] == N_POSITIONS

    # Input/output names, types and shapes are those the runtime sees, batch axis dynamic.
    declared = terms["decision"]["inputs"] + terms["decision"]["outputs"]
    types = {"float32": "tensor(float)", "bool": "tensor(bool)"}
    for model in manifest["models"]:
        session = ort.InferenceSession(str(bundle / model["file"]))
        seen = [(i.name, i.type, i.shape) for i in session.get_inputs() + session.get_outputs()]
        assert seen == [(d["name"], types[d["dtype"]], d["shape"]) for d in declared]
    assert [d["shape"] for d in declared] == [["batch", 544], ["batch", 109], ["batch", 109]]


def test_the_float16_model_is_half_the_size_and_within_its_tolerance(bundle, golden, check):
    manifest = BundleManifest.load(bundle)
    half = manifest.model("float16")
    assert half.bytes < 0.6 * manifest.model("float32").bytes
    assert 0 < half.tolerance <= 0.1
    assert check["models"]["model.fp16.onnx"]["scores_max_diff"] <= half.tolerance
    data, obs, mask = golden
    scores = BundleBot(bundle, precision="float16").scores(obs, mask)
    assert (scores[~mask] == F32_MIN).all()  # float32 arithmetic: illegal actions stay finite


# --------------------------------------------------------------------------- parity and golden


def test_onnx_runtime_matches_pytorch_on_golden_states(bundle, policy, golden):
    data, obs, mask = golden
    expected = _torch_scores(policy, obs, mask)
    assert expected[mask].std() > 0.3  # scores spread, so the tolerance below means something
    got = BundleBot(bundle).scores(obs, mask)
    assert np.abs(got - expected)[mask].max() <= 1e-5
    assert (got[~mask] == F32_MIN).all() and (expected[~mask] == F32_MIN).all()
    for i, p in enumerate(data["positions"]):  # golden scores: onnxruntime's, exactly
        assert (got[i, p["legal"]] == np.asarray(p["scores"], np.float32)).all()
    actions = np.array([p["action"] for p in data["positions"]])
    assert (np.argmax(got, 1) == actions).all() and mask[np.arange(len(obs)), actions].all()


def test_batch_axis_is_dynamic(bundle, golden):
    _, obs, mask = golden
    bot = BundleBot(bundle)
    whole = bot.scores(obs, mask)
    one_by_one = np.concatenate([bot.scores(obs[i : i + 1], mask[i : i + 1]) for i in range(7)])
    assert np.abs(whole[:7] - one_by_one).max() <= 1e-5


def test_golden_positions_replay_exactly(golden, check):
    data, _, _ = golden
    assert data["format"] == "murlan-golden/2" and len(data["positions"]) == N_POSITIONS
    for record in data["matches"]:
        assert records.validate(record).valid, records.validate(record)
        assert record["rules"] == RULES
    tags = data["coverage"]["tags"]
    for tag in ("exchange", "start_duty", "target_31", "legal_triple", "bomb_on_straight"):
        assert tags[tag] >= 1, tag
    assert data["coverage"]["unvaried_entries"] == []
    assert check["positions"] == N_POSITIONS and check["ok"], check
    assert not any(check["obs"].values()) and check["legal"] == check["cards"] == 0
    assert check["models"]["model.onnx"] == {"scores_max_diff": 0.0, "action_mismatches": 0}


def test_golden_catches_an_encoder_that_drifted(bundle, golden, monkeypatch):
    """Same layout, different meaning (cards_left scaled by 14/13): the hashes cannot see it,
    the golden replay does, and names the piece. The positions of one match show it."""
    data, _, _ = golden
    one_match = {
        **data,
        "matches": data["matches"][:1],
        "positions": [p for p in data["positions"] if p["match"] == 0],
    }
    observe = engine.observe

    def drifted(state, seats=None):
        out = observe(state, seats)
        out[:, observation.SLICES["cards_left"]] *= 14 / 13
        return out

    monkeypatch.setattr(engine, "observe", drifted)
    report = verify_golden(bundle, one_match)
    n = len(one_match["positions"])
    assert n >= 1 and report["positions"] == n
    assert report["obs"]["cards_left"] == n and report["obs"]["my_hand"] == 0
    assert not report["ok"]


# --------------------------------------------------------------------------- strict loading


def _tamper_manifest(key_path, value):
    def tamper(d):
        manifest = json.loads((d / "bot.json").read_text())
        node = manifest
        for k in key_path[:-1]:
            node = node[k]
        node[key_path[-1]] = value
        (d / "bot.json").write_text(json.dumps(manifest))

    return tamper


def _append_to_model(d):
    with open(d / "model.onnx", "ab") as f:
        f.write(b"\0")


@pytest.mark.parametrize(
    "tamper, message",
    [
        (_tamper_manifest(["format"], "murlan-bundle/2"), "re-export.*murlan golden"),
        (_tamper_manifest(["format"], "something"), "format is 'something'"),
        (_tamper_manifest(["env_version"], "murlan_v0"), "env_version is 'murlan_v0'"),
        (_tamper_manifest(["contract", "observation", "sha256"], "0" * 64), "layout differs"),
        (_tamper_manifest(["contract", "actions", "sha256"], "0" * 64), "action catalogue differs"),
        (_tamper_manifest(["rules"], {"no_such_flag": True}), "bad rules"),
        (_append_to_model, "sha256 does not match"),
        (lambda d: (d / "model.onnx").unlink(), "model file model.onnx is missing"),
        (lambda d: (d / "bot.json").unlink(), "not a bundle"),
        (lambda d: (d / "bot.json").write_text("{"), "not valid JSON"),
    ],
)
def test_loading_is_strict(bundle, tmp_path, tamper, message):
    copy = tmp_path / "b"
    shutil.copytree(bundle, copy)
    tamper(copy)
    with pytest.raises(BundleError, match=message):
        BundleBot(copy)


def test_golden_file_is_checked_against_bot_json(bundle, tmp_path):
    copy = tmp_path / "b"
    shutil.copytree(bundle, copy)
    golden = json.loads((copy / "golden.json").read_text())
    golden["positions"] = golden["positions"][:-1]
    (copy / "golden.json").write_text(json.dumps(golden))
    with pytest.raises(BundleError, match="golden.json: sha256 does not match"):
        verify_golden(copy)


def test_an_old_bundle_gets_one_line_naming_the_fix(bundle, tmp_path):
    copy = tmp_path / "b"
    shutil.copytree(bundle, copy)
    _tamper_manifest(["format"], "murlan-bundle/2")(copy)
    with pytest.raises(BundleError) as err:
        BundleBot(copy)
    assert "\n" not in str(err.value) and "murlan export" in str(err.value)


def test_the_bot_refuses_games_under_other_rules(bundle):
    state = engine.init(np.random.default_rng(0), 2, murlan_env.Rules())  # no joker_pair
    obs, mask = engine.observe(state), engine.legal_action_mask(state)
    with pytest.raises(ValueError, match="does not play joker_pair=false"):
        BundleBot(bundle).act(obs, mask, None)
    actions = BundleBot(bundle, strict_rules=False).act(obs, mask, None)
    assert mask[[0, 1], actions].all()


def test_a_changed_observation_layout_in_the_package_is_refused(bundle, monkeypatch):
    pieces = observation.PIECES[1:] + observation.PIECES[:1]  # my_hand moved to the end
    slices, offset = {}, 0
    for piece in pieces:
        slices[piece.name] = slice(offset, offset + piece.size)
        offset += piece.size
    monkeypatch.setattr(observation, "PIECES", pieces)
    monkeypatch.setattr(observation, "SLICES", slices)
    with pytest.raises(BundleError, match=r"my_hand: bundle \(0, 60\), installed \(484, 60\)"):
        BundleManifest.load(bundle)


def test_a_changed_action_catalogue_in_the_package_is_refused(bundle, monkeypatch):
    catalogue = action_catalogue()
    catalogue[1], catalogue[2] = catalogue[2], catalogue[1]
    monkeypatch.setattr(bundle_contract, "action_catalogue", lambda: catalogue)
    with pytest.raises(BundleError, match="action catalogue differs"):
        BundleManifest.load(bundle)


# --------------------------------------------------------------------------- the bot


def test_greedy_bot_plays_the_policy_argmax(bundle, policy, golden):
    _, obs, mask = golden
    actions = BundleBot(bundle).act(obs, mask, np.random.default_rng(0))
    expected = np.argmax(_torch_scores(policy, obs, mask), 1)
    assert actions.shape == (len(obs),) and (actions == expected).all()


def test_rows_without_a_legal_action_pass(bundle, golden):
    _, obs, mask = golden
    mask = mask[:4].copy()
    mask[1] = False
    for bot in (BundleBot(bundle), BundleBot(bundle, temperature=1.0, mix=(RandomBot(), 0.5))):
        actions = bot.act(obs[:4], mask, np.random.default_rng(0))
        assert actions[1] == 0 and mask[[0, 2, 3], actions[[0, 2, 3]]].all()


def test_temperature_samples_the_softmax_of_the_scores(bundle, golden):
    _, obs, mask = golden
    i = int(np.argmax(mask.sum(1)))  # the position with the most legal actions
    n, temperature = 6000, 2.0
    bot = BundleBot(bundle, temperature=temperature, seed=3)
    scores = bot.scores(obs[i : i + 1], mask[i : i + 1])[0]
    legal = np.flatnonzero(mask[i])
    z = scores[legal] / temperature
    probs = np.exp(z - z.max()) / np.exp(z - z.max()).sum()
    assert probs.max() < 0.9  # a spread distribution, so sampling is visible
    actions = bot.act(np.repeat(obs[i : i + 1], n, 0), np.repeat(mask[i : i + 1], n, 0), None)
    assert np.isin(actions, legal).all()
    freq = np.array([(actions == a).mean() for a in legal])
    assert np.abs(freq - probs).max() < 4 * np.sqrt(probs * (1 - probs) / n).max() + 0.005
    cold = BundleBot(bundle, temperature=1e-6, seed=3)
    assert (cold.act(obs, mask, None) == BundleBot(bundle).act(obs, mask, None)).all()


def test_seed_gives_the_bot_its_own_stream(bundle, golden):
    _, obs, mask = golden
    a = BundleBot(bundle, temperature=1.0, seed=9).act(obs, mask, np.random.default_rng(1))
    b = BundleBot(bundle, temperature=1.0, seed=9).act(obs, mask, np.random.default_rng(2))
    assert (a == b).all()
    c = BundleBot(bundle, temperature=1.0).act(obs, mask, np.random.default_rng(1))
    d = BundleBot(bundle, temperature=1.0).act(obs, mask, np.random.default_rng(1))
    e = BundleBot(bundle, temperature=1.0).act(obs, mask, np.random.default_rng(2))
    assert (c == d).all() and (c != e).any()


def test_a_sampled_bundle_samples_as_the_bundle_at_that_temperature(bundle, golden):
    """Search samples its guiding policy through SampledBot (one uniform draw a row from its
    generator), a level with its decision seed's play draw: the same sampling of the same
    scores, each from its own draws."""
    from murlan_env.bots.protocol import SampledBot, ScoringBot

    _, obs, mask = golden
    mask = mask.copy()
    mask[1] = False
    argmax = BundleBot(bundle)
    assert isinstance(argmax, ScoringBot)
    scores = argmax.scores(obs, mask)
    seeds = np.arange(len(mask)) + 2**31
    for temperature in (0.0, 0.5, 1.0):
        sampled = SampledBot(argmax, temperature).act(obs, mask, np.random.default_rng(4))
        draw = None if temperature == 0 else np.random.default_rng(4).random(len(mask))
        assert (
            sampled
            == np.where(mask.any(1), pick_from_scores(scores, mask, temperature, draw), PASS)
        ).all()
        own = BundleBot(bundle, temperature=temperature).act_for_seeds(obs, mask, seeds)
        play = draws.uniforms(seeds, draws.PLAY_DRAW) if temperature else None
        assert sampled.dtype == own.dtype
        assert (
            own == np.where(mask.any(1), pick_from_scores(scores, mask, temperature, play), PASS)
        ).all()
    assert sampled[1] == PASS and mask[0, sampled[0]]
    with pytest.raises(ValueError, match="temperature"):
        SampledBot(argmax, -1.0)


class _HighestLegal:
    """A stand-in weaker bot: always the highest legal action id."""

    name = "highest"

    def act(self, obs, mask, rng):
        return (mask.shape[1] - 1 - np.argmax(mask[:, ::-1], 1)).astype(np.int16)


def test_mix_hands_a_share_of_decisions_to_the_weaker_bot(bundle, golden):
    _, obs, mask = golden
    greedy = BundleBot(bundle).act(obs, mask, None)
    weak = _HighestLegal().act(obs, mask, None)
    rows = np.flatnonzero(greedy != weak)
    assert len(rows) > 10
    obs, mask = np.repeat(obs[rows], 40, 0), np.repeat(mask[rows], 40, 0)
    greedy, weak = np.repeat(greedy[rows], 40), np.repeat(weak[rows], 40)
    for p in (0.0, 0.3, 1.0):
        bot = BundleBot(bundle, mix=(_HighestLegal(), p), seed=4)
        actions = bot.act(obs, mask, None)
        assert ((actions == weak) | (actions == greedy)).all()
        assert abs((actions == weak).mean() - p) < 0.04
    assert BundleBot(bundle, mix=(GreedyBot(), 0.5)).weak.name == "greedy"
    with pytest.raises(TypeError, match="registry.make_bot"):
        BundleBot(bundle, mix=("greedy", 0.5))
    with pytest.raises(ValueError, match="mix probability"):
        BundleBot(bundle, mix=(RandomBot(), 1.5))
    with pytest.raises(ValueError, match="temperature"):
        BundleBot(bundle, temperature=-1.0)


def test_the_levels_generator_is_splitmix64_keyed_by_the_decision_seed():
    """Draw i of a decision seed is SplitMix64's output i when seeded with it (the published
    outputs for seeds 0 and 1234567), its uniform the top 53 bits times 2^-53."""
    outputs = [0xE220A8397B1DCDAF, 0x6E789E6AA1B965F4, 0x06C45D188009454F, 0xF88BB8A8724C81EC]
    assert [int(draws.draw_bits(np.array([0]), i)[0]) for i in range(4)] == outputs
    assert [int(draws.draw_bits(np.array([1234567]), i)[0]) for i in range(3)] == [
        6457827717110365317,
        3203168211198807973,
        9817491932198370423,
    ]
    seeds = np.array([0, 1, 2**31, 2**32 - 1])
    bits = draws.draw_bits(seeds, 1)
    uniform = draws.uniforms(seeds, 1)
    assert [float(u) for u in uniform] == [(int(b) >> 11) / 2**53 for b in bits]
    assert ((uniform >= 0) & (uniform < 1)).all()


@pytest.mark.parametrize(("draw", "action"), [(0.0, 1), (0.2499, 1), (0.2501, 3), (0.9999999, 3)])
def test_a_sample_is_the_first_action_whose_cumulative_weight_exceeds_the_draw(draw, action):
    """softmax over the legal actions 1 and 3 (weights 1 and 3; 0 and 2 illegal): the draw
    times the total against the cumulative weights in action id order."""
    scores = np.full((1, N_ACTIONS), np.finfo(np.float32).min, np.float32)
    mask = np.zeros((1, N_ACTIONS), bool)
    scores[0, [1, 3]] = [0.0, np.log(3.0)]
    mask[0, [1, 3]] = True
    assert pick_from_scores(scores, mask, 1.0, np.array([draw]))[0] == action
    assert pick_from_scores(scores, mask, 0.0, None)[0] == 3


def test_a_level_makes_the_mix_draw_then_the_play_draw_of_whoever_plays(bundle, golden):
    """BundleBot.act_for_seeds: draw 0 below the share hands the decision to the weaker bot,
    which plays with draw 1 (the random bot) or none (greedy); else the policy samples with
    draw 1. ``act`` draws one decision seed per decision from the generator, as a bot in
    another process is sent one."""
    _, obs, mask = golden
    seeds = np.arange(len(mask)) * 7919 + 11
    play = draws.uniforms(seeds, draws.PLAY_DRAW)
    mixed = draws.uniforms(seeds, draws.MIX_DRAW) < 0.3
    assert 0 < mixed.sum() < len(mixed)
    for weak in (GreedyBot(), RandomBot()):
        bot = BundleBot(bundle, temperature=0.5, mix=(weak, 0.3))
        actions = bot.act_for_seeds(obs, mask, seeds)
        sampled = pick_from_scores(bot.scores(obs, mask), mask, 0.5, play)
        assert (actions[~mixed] == sampled[~mixed]).all()
        assert (actions[mixed] == weak.act_with_draws(obs[mixed], mask[mixed], play[mixed])).all()
    bot = BundleBot(bundle, temperature=1.0, mix=(RandomBot(), 0.3))
    rng, twin = np.random.default_rng(3), np.random.default_rng(3)
    by_seeds = bot.act_for_seeds(obs, mask, draws.decision_seeds(twin, len(mask)))
    assert (bot.act(obs, mask, rng) == by_seeds).all()
    assert rng.bit_generator.state == twin.bit_generator.state
    with pytest.raises(ValueError, match="needs a generator"):
        bot.act(obs, mask, None)
    # The argmax draws nothing: it takes no seed from the generator (as no deterministic bot).
    untouched = np.random.default_rng(3)
    BundleBot(bundle).act(obs, mask, untouched)
    assert untouched.bit_generator.state == np.random.default_rng(3).bit_generator.state


TEST_LEVELS = {
    "expert": {"policy": "tested", "temperature": 0.0, "mix": None, "search": 16},
    "hard": {"policy": "tested", "temperature": 0.0, "mix": None},
    "medium": {"policy": "tested", "temperature": 0.5, "mix": ["greedy", 0.3]},
    "easy": {"policy": "tested", "temperature": 1.0, "mix": ["random", 0.3]},
}


@pytest.fixture
def shipped(bundle, tmp_path, monkeypatch):
    """The test bundle shipped as policy "tested", with three difficulty levels."""
    from murlan_env.bots import registry
    from murlan_env.bundle import shipped as shipped_files

    root = tmp_path / "policies"
    shutil.copytree(bundle, root / "tested")
    (root / "levels.json").write_text(json.dumps(TEST_LEVELS))
    monkeypatch.setattr(shipped_files, "policies_dir", lambda: root)
    return registry


def test_shipped_policies_and_levels_resolve_by_name(shipped, bundle, golden):
    _, obs, mask = golden
    assert shipped.shipped_policies() == ["tested"]
    assert {"easy", "medium", "hard", "tested"} <= set(shipped.spec_forms())
    hard = shipped.make_bot("hard")
    assert hard.name == "hard" and hard.temperature == 0 and hard.weak is None
    assert (hard.act(obs, mask, None) == BundleBot(bundle).act(obs, mask, None)).all()
    assert (shipped.make_bot("tested").act(obs, mask, None) == hard.act(obs, mask, None)).all()
    for level in ("medium", "easy"):
        bot = shipped.make_bot(level)
        weak_name, p = TEST_LEVELS[level]["mix"]
        assert bot.temperature == TEST_LEVELS[level]["temperature"] > 0
        assert bot.weak.name == weak_name and bot.mix_p == p > 0
        actions = bot.act(obs, mask, np.random.default_rng(1))
        assert mask[np.arange(len(obs)), actions].all()
    expert = shipped.make_bot("expert")
    assert expert.rollouts == 16 and expert.margin == shipped.SEARCH_MARGIN
    # Its move stands unless the search finds better; the rollouts sample the same policy.
    assert expert.playout.bot is expert.prior
    assert expert.playout.temperature == shipped.PLAYOUT_TEMPERATURE > 0
    actions = expert.act(obs[:4], mask[:4], np.random.default_rng(0))
    assert mask[np.arange(4), actions].all()
    with pytest.raises(ValueError, match="unknown bot 'nightmare'"):
        shipped.make_bot("nightmare")


@pytest.mark.parametrize("seed", [0, 1])
def test_bundle_bots_play_whole_matches_through_the_aec_env(shipped, bundle, seed):
    bots = [shipped.make_bot(level) for level in TEST_LEVELS]
    bots.append(BundleBot(bundle))
    env = murlan_env.env(joker_pair=True, reward="match")
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    decisions = 0
    for agent in env.agent_iter():
        obs, _, terminated, truncated, _ = env.last()
        if terminated or truncated:
            env.step(None)
            continue
        mask = obs["action_mask"].astype(bool)
        action = int(bots[int(agent[-1])].act(obs["observation"][None], mask[None], rng)[0])
        assert mask[action]
        env.step(action)
        decisions += 1
    state = env.unwrapped.state
    assert state.phase[0] == engine.Phase.MATCH_OVER and state.winners[0].any()
    record = env.unwrapped.record()
    assert records.validate(record).valid and len(record["hands"]) >= 2
    plays = sum(len(h["plays"]) for h in record["hands"])
    give_backs = sum(h["exchange"] is not None for h in record["hands"])
    assert plays <= decisions <= plays + give_backs  # every decision was the bot's


def test_the_bot_runs_without_torch(bundle):
    code = f"""
import sys
import numpy as np
from murlan_env.game import engine
from murlan_env.bots.baseline import GreedyBot
from murlan_env.bots import draws
from murlan_env.bots.policy import BundleBot
from murlan_env.bots.protocol import pick_from_scores
bot = BundleBot({str(bundle)!r}, temperature=0.5, mix=(GreedyBot(), 0.2), seed=0)
state = engine.init(np.random.default_rng(0), 3, bot.rules)
actions = bot.act(engine.observe(state), engine.legal_action_mask(state), None)
assert engine.legal_action_mask(state)[np.arange(3), actions].all()
print(sorted(m for m in sys.modules if m == "torch" or m.startswith("torch.")))
"""
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120
    )
    assert out.stdout.strip() == "[]"


# --------------------------------------------------------------------------- exporting


def test_dmc_network_exports_with_parity(tmp_path, golden):
    """A DMC network (which scores each action through its own layers) exports to ONNX within
    1e-5 of PyTorch on the session's 200 golden positions. Its own golden set, made and
    replayed as the session's bundle's is, is the slow test below."""
    from murlan_env.bundle.files import onnx_session, session_scorer

    net = tiny_policy("dmc", seed=1)
    told = []
    manifest = export_bundle(
        net, tmp_path, n_positions=0, coreml=False, progress=lambda *step: told.append(step)
    )
    assert told == [("onnx", 0, 1), ("onnx", 1, 1), ("coreml", 0, 1), ("coreml", 1, 1)]
    assert manifest.policy["algorithm"] == "dmc" and manifest.rules.joker_pair is False
    assert [m.file for m in manifest.models] == ["model.onnx"]
    _, obs, mask = golden
    got = session_scorer(onnx_session(tmp_path / "model.onnx"))(obs, mask)
    assert np.abs(got - _torch_scores(net, obs, mask))[mask].max() <= 1e-5
    # DMC scores each action through its own layers: no plain dense chain to write.
    assert not list(tmp_path.glob("weights*"))


@pytest.mark.slow  # 15-25 s: a golden set of its own (the matches the session's bundle plays)
def test_a_dmc_bundle_with_its_own_golden_set(tmp_path):
    from agents.export import torch_parity

    net = tiny_policy("dmc", seed=1)
    told = []  # the progress murlan export shows as bars: each stage's start and end
    manifest = export_bundle(
        net,
        tmp_path,
        n_positions=200,
        seed=5,
        coreml=False,
        float16=False,
        progress=lambda *step: told.append(step),
    )
    assert [s for s in told if s[0] != "play"] == [
        ("onnx", 0, 1),
        ("onnx", 1, 1),
        ("coreml", 0, 1),
        ("coreml", 1, 1),
    ]
    assert told[-1][0] == "play" and told[-1][1] == told[-1][2]
    assert manifest.policy["algorithm"] == "dmc" and manifest.rules.joker_pair is False
    assert [m.file for m in manifest.models] == ["model.onnx"]
    check = verify_golden(tmp_path)
    assert check["positions"] == 200 and check["ok"], check
    assert torch_parity(net, tmp_path) <= 1e-5
    # DMC scores each action through its own layers: no plain dense chain to write.
    assert not list(tmp_path.glob("weights*"))


def test_export_refuses_too_few_positions_before_playing(tmp_path):
    """Each position shows one play to beat, so a set of the standard game needs at least
    one position per required ``table_action`` entry: 40 is refused before anything is
    exported or played (the folder is not even made)."""
    from murlan_env.bundle.golden import TooFewPositions

    out = tmp_path / "bundle"
    with pytest.raises(TooFewPositions, match=r"must show (\d+); ask for --positions \1 or more"):
        export_bundle(tiny_policy(), out, n_positions=40, coreml=False, float16=False)
    assert not out.exists()


def test_the_least_positions_are_one_per_required_play_to_beat():
    from murlan_env.bundle.golden import minimum_positions, required_entries

    manifest = BundleManifest.load(policies_dir() / "ppo-finetune")
    table = required_entries(manifest)[observation.SLICES["table_action"]]
    assert minimum_positions(manifest) == table.sum()
    assert 100 < minimum_positions(manifest) < BUNDLE_POSITIONS


def test_a_short_golden_cover_names_the_positions_it_needs():
    """When the matches need more positions than asked for, the error says how many: the
    step of the greedy cover that sets the last required entry (here one per candidate)."""
    from murlan_env.bundle.golden import TAGS, GoldenError, _choose, required_entries

    manifest = BundleManifest.load(policies_dir() / "ppo-finetune")
    need = np.flatnonzero(required_entries(manifest))
    groups = np.array_split(need, 130)  # 130 candidates, each the only one with its entries
    nz = np.zeros((len(groups), observation.SIZE), bool)
    for row, entries in enumerate(groups):
        nz[row, entries] = True
    tags = np.zeros((len(groups), len(TAGS)), bool)
    labels = [(row, 0, 0, False) for row in range(len(groups))]
    rng = np.random.default_rng(0)
    with pytest.raises(GoldenError, match=r"^120 positions leave \d+ observation entries unvaried.*"
                       r"need --positions 130 \(or another --seed\)$"):  # fmt: skip
        _choose(manifest, labels, nz, tags, 120, rng)
    assert len(_choose(manifest, labels, nz, tags, 130, np.random.default_rng(0))) == 130


def test_an_unvaried_golden_set_is_refused_in_one_short_line():
    """The refusal names a few of the entries that never vary and counts the rest."""
    from murlan_env.bundle.golden import GoldenError, check_coverage, required_entries

    manifest = BundleManifest.load(policies_dir() / "ppo-finetune")
    n = int(required_entries(manifest).sum())
    shown = rf"{n} observation entries never vary \(my_hand\[.*\] and {n - 5} more\)"
    with pytest.raises(GoldenError, match=shown) as err:
        check_coverage({"positions": [{"obs": []}, {"obs": []}]}, manifest)
    assert len(str(err.value)) < 300


def test_a_bundle_bot_is_named_apart_from_the_greedy_bot():
    """A bundle's bot says how it picks moves, "argmax" or "T=..", never "greedy", which in
    an arena table is the greedy bot's own row."""
    folder = policies_dir() / "ppo-finetune"
    assert BundleBot(folder).name == "bundle:ppo-finetune(argmax)"
    assert BundleBot(folder, temperature=0.5).name == "bundle:ppo-finetune(T=0.5)"
    mixed = BundleBot(folder, mix=(GreedyBot(), 0.25))
    assert mixed.name == "bundle:ppo-finetune(argmax,greedy@0.25)"


def test_export_refuses_a_policy_for_another_observation(tmp_path):
    net = tiny_policy()
    net.arch = {**net.arch, "obs_size": 500}
    with pytest.raises(ValueError, match="obs_size=500"):
        export_bundle(net, tmp_path, coreml=False)


def test_missing_checkpoint_is_a_usage_error(tmp_path, capsys):
    assert cli.main(["export", str(tmp_path / "nope.pt"), "--out", str(tmp_path / "b")]) == 2
    assert "no checkpoint" in capsys.readouterr().err


def test_coreml_package_or_a_note_saying_why_not(tmp_path):
    path = tmp_path / "model.mlpackage"
    note = export_coreml(tiny_policy(), path)
    if importlib.util.find_spec("coremltools") is None:
        assert "coremltools is not installed" in note and not path.exists()
    else:
        assert note.startswith("model.mlpackage converted"), note
        assert (path / "Manifest.json").is_file()


def test_export_summary_reads_as_files_sizes_and_checks():
    """``murlan export`` prints what it wrote, with sizes people read, and both checks in
    words; the same report is ``--json``'s."""
    from murlan_cli.export import summary_lines

    report = {
        "bundle": "bundles/quick",
        "files": {"bot.json": 2_100, "golden.json": 1_234_567, "model.onnx": 171_800},
        "models": {"model.onnx": {"precision": "float32", "tolerance": 1e-4}},
        "golden": {
            "positions": 256,
            "ok": True,
            "models": {"model.onnx": {"action_mismatches": 0}},
        },
        "torch_parity": 4.8e-7,
        "coreml": "Core ML export not asked for",
        "ok": True,
    }
    assert summary_lines(report) == [
        "wrote bundles/quick: 3 files, 1.4 MB",
        "  bot.json        2.1 KB",
        "  golden.json     1.2 MB",
        "  model.onnx    171.8 KB  float32, tolerance 0.0001",
        "golden positions: 256, every one replays and every model picks its move",
        "PyTorch vs ONNX Runtime on them: largest score difference 4.8e-07 (within 1e-05)",
        "Core ML: Core ML export not asked for",
    ]
    report["golden"] = {
        "positions": 256,
        "ok": False,
        "obs": {"my_hand": 0, "played": 1},
        "state": 0,
        "legal": 0,
        "cards": 2,
        "models": {"model.onnx": {"action_mismatches": 3, "scores_max_diff": 0.5}},
    }
    assert summary_lines(report)[4] == (
        "golden positions: 256, FAILED: 1 with another observation; 2 with another cards; "
        "3 other move(s) from model.onnx (largest score difference 5.0e-01)"
    )
