"""Trainers: per-seat bookkeeping against a scalar reference, smoke runs with tiny budgets,
resume, determinism, config checking and the load_policy contract."""

from __future__ import annotations

import contextlib
import dataclasses
import json
import re
from pathlib import Path

import numpy as np
import pytest
import torch

import murlan_cli
from agents import dmc, ppo, presets
from agents.config import ConfigError
from agents.networks import build_network, checkpoint_path, load_policy, make_arch
from agents.returns import gae_advantages, mc_returns
from agents.rollout import RolloutSettings, SelfPlay
from agents.workers import ProcessWorker
from murlan_env.game import engine, observation
from murlan_env.game.engine import N_SEATS, OBS_SIZE


@contextlib.contextmanager
def _one_torch_thread():
    """Tiny batches: a second intra-op thread only adds contention on shared cores."""
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        yield
    finally:
        torch.set_num_threads(before)


@pytest.fixture(autouse=True)
def one_torch_thread():
    with _one_torch_thread():
        yield


TINY = dict(
    total_decisions=2 * 16 * 24,
    num_envs=16,
    rollout_steps=24,
    hidden=[32],
    eval_every=1,
    eval_deals=4,
    eval_hands=1,
    eval_bots=["random"],
    checkpoint_every=0,
    progress=False,
    # fp32, not "auto": auto times both precisions and takes the faster, so on a machine with
    # bf16 two runs that compare their weights bit for bit could differ by the clock alone.
    precision="fp32",
)


def _random_trajectories(rng, steps=40, b=6):
    seat = rng.integers(0, N_SEATS, (steps, b)).astype(np.int8)
    learner = rng.random((steps, b)) < 0.7
    value = rng.normal(size=(steps, b)).astype(np.float32)
    ended = rng.random((steps, b)) < 0.08
    reward = rng.normal(size=(steps, b, N_SEATS)).astype(np.float32) * ended[..., None]
    bootstrap = rng.normal(size=(b, N_SEATS)).astype(np.float32)
    return seat, learner, value, ended, reward, bootstrap


def _gae_reference(seat, learner, value, ended, reward, bootstrap, gamma, lam):
    """Slow and obvious: split each (game, seat) into episodes, then textbook GAE."""
    steps, b = seat.shape
    adv = np.full((steps, b), np.nan)
    for g in range(b):
        for s in range(N_SEATS):
            episode = []  # (t, reward received after this decision)
            for t in range(steps):
                if learner[t, g] and seat[t, g] == s:
                    episode.append([t, 0.0])
                if ended[t, g]:
                    if episode:
                        episode[-1][1] += reward[t, g, s]
                    _finish(episode, value, adv, g, 0.0, gamma, lam)
                    episode = []
            _finish(episode, value, adv, g, bootstrap[g, s], gamma, lam)
    return adv


def _finish(episode, value, adv, g, last_value, gamma, lam):
    running, next_v = 0.0, last_value
    for t, r in reversed(episode):
        delta = r + gamma * next_v - value[t, g]
        running = delta + gamma * lam * running
        adv[t, g] = running
        next_v = value[t, g]


def test_gae_matches_scalar_reference_per_seat():
    rng = np.random.default_rng(0)
    for _ in range(5):
        data = _random_trajectories(rng)
        got = gae_advantages(*data, gamma=0.97, lam=0.9)
        want = _gae_reference(*data, gamma=0.97, lam=0.9)
        learner = data[1]
        np.testing.assert_allclose(got[learner], want[learner], rtol=1e-5, atol=1e-5)


def test_mc_returns_are_each_seats_episode_reward():
    rng = np.random.default_rng(1)
    seat, _, _, ended, reward, _ = _random_trajectories(rng)
    ret, has = mc_returns(seat, ended, reward)
    steps, b = seat.shape
    for g in range(b):
        for t in range(steps):
            later = np.flatnonzero(ended[t:, g])
            assert has[t, g] == (len(later) > 0)
            if len(later):
                assert ret[t, g] == pytest.approx(reward[t + later[0], g, seat[t, g]])


# DMC needs finished hands (about 100 decisions) before it has a target to learn from.
DMC_TINY = dict(num_envs=8, rollout_steps=160, total_decisions=2 * 8 * 160, batch_size=64)


def _tiny(trainer) -> dict:
    return TINY if trainer is ppo else {**TINY, **DMC_TINY}


def _small_rollouts(algorithm: str, epsilon: float = 0.01, **over) -> RolloutSettings:
    """Rollout settings of a [32]-wide network of ``algorithm`` with the given overrides."""
    acting = ppo.PPOActing() if algorithm == "ppo" else dmc.DMCActing(epsilon=epsilon)
    return RolloutSettings(acting=acting, arch=make_arch(algorithm, [32]), **over)


@pytest.mark.parametrize("algorithm", ["ppo", "dmc"])
def test_rollout_against_snapshots_and_bots(algorithm):
    """Half the games vs a snapshot, a quarter vs greedy: only learner decisions come back."""
    settings = _small_rollouts(
        algorithm,
        num_envs=8,
        rollout_steps=150,
        snapshot_share=0.5,
        bot_share=0.25,
        bots=("greedy",),
    )
    arch = settings.arch
    selfplay = SelfPlay(settings, seed=3)
    torch.manual_seed(0)
    weights = build_network(arch).state_dict()
    out = selfplay.collect(weights, [build_network(arch).state_dict()])
    st = out.stats
    assert st["decisions"] == 8 * 150
    # self-play games give all their decisions, opponent games about a quarter of theirs
    assert 0.3 * st["decisions"] < st["learner_decisions"] < 0.8 * st["decisions"]
    # Hands of both kinds of game ended (a kind with none reports NaN); at this size the
    # values themselves, means of 3/2/1/0 between untrained networks, say nothing more.
    assert np.isfinite(st["points_vs_snapshot"]) and np.isfinite(st["points_vs_bots"])
    if algorithm == "ppo":
        assert len(out.action) == st["learner_decisions"]
        assert np.isfinite(out.advantage).all()
    assert out.obs.shape[1] == OBS_SIZE


@pytest.mark.parametrize("algorithm", ["ppo", "dmc"])
def test_rollouts_with_bots_that_draw_replay_from_a_seed(algorithm):
    """The bots act in a thread beside the networks; with a bot that draws from the generator
    (random) as well as rule bots, a seed still gives the same rollouts, call after call."""
    settings = _small_rollouts(
        algorithm,
        num_envs=16,
        rollout_steps=40,
        snapshot_share=0.25,
        bot_share=0.5,
        bots=("random", "rule"),
        epsilon=0.3,
    )
    arch = settings.arch
    torch.manual_seed(0)
    weights, snapshot = build_network(arch).state_dict(), build_network(arch).state_dict()
    runs = []
    for _ in range(2):
        selfplay = SelfPlay(settings, seed=11)
        runs.append([selfplay.collect(weights, [snapshot]) for _ in range(3)])
    for first, second in zip(*runs, strict=True):
        assert first.stats["hands"] == second.stats["hands"]
        for key in ("obs", "action"):
            np.testing.assert_array_equal(getattr(first, key), getattr(second, key))
    actions = np.concatenate([out.action for out in runs[0]])
    assert len(np.unique(actions)) > 5  # the games went on: not one action over and over


def _run(tmp_path, trainer, name, **over):
    cfg = trainer.PPOConfig if trainer is ppo else trainer.DMCConfig
    cfg = cfg(**{**_tiny(trainer), "runs_dir": str(tmp_path), "name": name, **over})
    return trainer.train(cfg)


@pytest.fixture(scope="module")
def ppo_process_run(tmp_path_factory) -> tuple[dict, Path]:
    """A tiny PPO run with a process worker, and its folder: three tests compare a run of
    their own with it, and starting a worker process is most of a run's cost. Its learning
    rate is not annealed, so that a run split in two (and resumed) can match it."""
    runs = tmp_path_factory.mktemp("ppo-process")
    with _one_torch_thread():  # as for the runs compared with it
        return _run(runs, ppo, "straight", workers="process", anneal_lr=False), runs / "straight"


OPPONENT_POOL = dict(snapshot_share=0.25, snapshot_every=1, bot_share=0.25, bots=["greedy"])


@pytest.mark.parametrize(
    "trainer, extra",
    [(ppo, {}), (dmc, {}), (ppo, {"reward": "match", **OPPONENT_POOL}), (dmc, OPPONENT_POOL)],
    ids=["ppo", "dmc", "ppo-match-pool", "dmc-pool"],
)
def test_smoke_run_writes_checkpoint_logs_and_evaluates(tmp_path, trainer, extra):
    out = _run(tmp_path, trainer, "smoke", **extra)
    run_dir = tmp_path / "smoke"
    assert out["counters"]["step"] >= _tiny(trainer)["total_decisions"]
    assert out["counters"]["iteration"] == 2
    assert (run_dir / "config.json").is_file()
    assert list(run_dir.glob("events.out.tfevents.*"))
    r = out["results"]["random"]
    assert r.hands == 4 * TINY["eval_deals"]
    # A mean of whole points (3/2/1/0) over those hands.
    assert r.points_per_hand * r.hands == pytest.approx(round(r.points_per_hand * r.hands))
    ckpt = torch.load(checkpoint_path(run_dir), weights_only=False)
    assert ckpt["counters"] == out["counters"]
    assert ckpt["config"]["algorithm"] == ckpt["spec"]["algorithm"]
    assert len(ckpt["snapshots"]) == (2 if extra else 0)
    if trainer is ppo:  # CleanRL's diagnostics, logged with finite values at each update
        from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

        events = EventAccumulator(str(run_dir)).Reload()
        for key in ("approx_kl", "old_approx_kl", "clipfrac", "explained_variance"):
            logged = events.Scalars(f"losses/{key}")
            assert len(logged) == 2 and all(np.isfinite(e.value) for e in logged), key


@pytest.mark.parametrize(
    "trainer, workers",
    [
        (ppo, "local"),
        (dmc, "local"),
        # slow: a worker process each run; the fast suite's process tests cover the pipeline
        pytest.param(ppo, "process", marks=pytest.mark.slow),
        pytest.param(dmc, "process", marks=pytest.mark.slow),
    ],
    ids=["ppo", "dmc", "ppo-process", "dmc-process"],
)
def test_resume_continues_where_it_stopped(tmp_path, trainer, workers, request):
    """Two iterations in one go == one iteration, then a resume for the second, weight for
    weight (the checkpoint holds the optimiser, the generators, the games in progress and,
    for DMC, the replay and the carried decisions; with a process worker, whose rollouts
    overlap the updates, also the weights the second rollout is due to use).

    (PPO's learning-rate annealing follows total_decisions, which differs between the runs here.)
    """
    extra = {"anneal_lr": False} if trainer is ppo else {}
    extra["workers"] = workers
    if trainer is ppo and workers == "process":
        straight, straight_dir = request.getfixturevalue("ppo_process_run")
    else:
        straight, straight_dir = _run(tmp_path, trainer, "straight", **extra), tmp_path / "straight"
    half = _tiny(trainer)["total_decisions"] // 2
    _run(tmp_path, trainer, "split", total_decisions=half, **extra)
    first = torch.load(checkpoint_path(tmp_path / "split"), weights_only=False)
    assert (first["counters"]["step"], first["counters"]["iteration"]) == (half, 1)
    cfg_cls = trainer.PPOConfig if trainer is ppo else trainer.DMCConfig
    cfg = cfg_cls(**{**_tiny(trainer), "runs_dir": str(tmp_path), "name": "split", **extra})
    resumed = trainer.train(cfg, resume=str(tmp_path / "split"))
    assert resumed["counters"] == straight["counters"]
    a = load_policy(straight_dir).state_dict()
    b = load_policy(tmp_path / "split").state_dict()
    for k in a:
        assert torch.equal(a[k], b[k]), k  # bit for bit
    assert any(not torch.equal(b[k], first["model"][k]) for k in a)


def test_same_seed_same_first_evaluation(tmp_path):
    one = _run(tmp_path, ppo, "a", total_decisions=16 * 24)
    two = _run(tmp_path, ppo, "b", total_decisions=16 * 24)
    other = _run(tmp_path, ppo, "c", total_decisions=16 * 24, seed=2)
    assert one["results"]["random"] == two["results"]["random"]
    assert one["results"]["random"] != other["results"]["random"]


def test_unknown_config_key_is_an_error(capsys):
    with pytest.raises(ConfigError, match=r"unknown ppo config key\(s\) \['num_env'\]"):
        presets.build_config({"algorithm": "ppo", "num_env": 8})
    assert train_command(["--config", "quick", "learning_rat=0.1"]) == 2
    assert "learning_rat" in capsys.readouterr().err
    with pytest.raises(ConfigError, match="algorithm"):
        presets.build_config({"num_envs": 8})
    with pytest.raises(ConfigError, match="integer"):
        presets.build_config({"algorithm": "dmc", "num_envs": 8.5})


def test_configs_built_in_python_check_themselves():
    # The same one-line messages murlan train prints, without the command.
    for kwargs, says in (
        ({"reward": "points"}, "reward must be one of ['hand', 'match'], got 'points'"),
        ({"num_envs": 8.5}, "config key 'num_envs' takes an integer, got 8.5"),
        ({"hidden": (64,)}, "config key 'hidden' takes a list, e.g. [256, 256], got (64,)"),
        ({"rules": {"sticky": True}}, "config key 'rules': unknown rule flag(s) ['sticky']"),
        ({"workers": "threads"}, "workers must be one of ['local', 'process', 'ray']"),
        ({"eval_bots": ["wizard"]}, "config key 'eval_bots': unknown bot 'wizard'"),
        ({"init_from": "runs/x", "imitate": "rule"}, "init_from and imitate both choose"),
    ):
        with pytest.raises(ConfigError) as error:
            ppo.PPOConfig(**kwargs)
        assert says in str(error.value) and "\n" not in str(error.value), kwargs
    assert ppo.PPOConfig(total_decisions=1e6).total_decisions == 1_000_000  # YAML's 1e6 style
    with pytest.raises(ConfigError, match="inference"):
        dmc.DMCConfig(inference="server", workers="local")
    cfg = dmc.DMCConfig()
    cfg.precision = "fp8"  # changed by hand: validate() checks it again
    with pytest.raises(ConfigError, match="precision must be one of"):
        cfg.validate()


def test_the_renamed_preset_points_to_its_new_name(capsys):
    assert train_command(["--config", "hard"]) == 2
    err = capsys.readouterr().err
    assert "the preset 'hard' is now 'hard-recipe'" in err and "--config hard-recipe" in err
    assert presets.load_preset("hard-recipe")["stages"][0]["config"] == "strong"


def test_renamed_config_keys_point_to_their_new_names(capsys):
    """An old key is refused in one line naming the new one, in a config file and an override
    alike; a checkpoint's saved config (written before the rename) reads under the new names."""
    assert presets.RENAMED_KEYS
    for old, new in presets.RENAMED_KEYS.items():
        assert train_command(["--config", "quick", f"{old}=64"]) == 2
        err = capsys.readouterr().err
        assert f"config key {old!r} is now {new!r}" in err and err.count("\n") == 1, err
        with pytest.raises(ConfigError, match=f"config key '{old}' is now '{new}'"):
            presets.build_config({"algorithm": "ppo", old: 64})
        _, cfg = presets.build_config({"algorithm": "ppo", **presets.upgrade_keys({old: 64})})
        assert getattr(cfg, new) == 64


def test_each_algorithm_names_its_trainer_and_ppo_declares_what_it_reads():
    """A plain mapping from the algorithm to its config class and train function; PPO's
    learning rate, its schedule and its rollout length are keys of PPOConfig itself."""
    assert presets.ALGORITHMS["ppo"] == (ppo.PPOConfig, ppo.train)
    assert presets.config_class("dmc") is dmc.DMCConfig and presets.trainer_of("dmc") is dmc.train
    with pytest.raises(ConfigError, match="unknown algorithm 'a2c'"):
        presets.config_class("a2c")
    own = ppo.PPOConfig.__annotations__
    assert {"learning_rate", "anneal_lr", "rollout_steps", "minibatch_size"} <= set(own)
    assert {"learning_rate", "rollout_steps"} <= set(dmc.DMCConfig.__annotations__)


def test_configs_saved_before_the_keys_moved_still_build():
    """learning_rate and rollout_steps moved from the shared parts to each trainer's class, in
    the same flat config: configs saved with runs before the move (tests/data, the resolved
    config.json of a tiny quick and dmc run) build, every value kept, so old runs resume; keys
    added since (history) take their defaults."""
    saved = json.loads((Path(__file__).parent / "data" / "saved_configs.json").read_text())
    for algorithm, raw in saved.items():
        built, cfg = presets.build_config(presets.upgrade_keys(raw))
        as_built = {"algorithm": built, **dataclasses.asdict(cfg)}
        assert {k: as_built[k] for k in raw} == raw, algorithm
        defaults = dataclasses.asdict(type(cfg)())
        assert {k: as_built[k] for k in set(as_built) - set(raw)} == {
            k: defaults[k] for k in set(as_built) - set(raw)
        }
        assert {"history", "history_hidden"} <= set(as_built) - set(raw)


def test_presets_match_their_config_classes(tmp_path, monkeypatch):
    """Every shipped preset builds, from any folder, and building one reads no file: the
    finetune preset's init_from names a run that does not exist here."""
    monkeypatch.chdir(tmp_path)
    names = presets.preset_names()
    assert {"quick", "strong", "finetune", "hard-recipe", "ppo", "dmc", "distill"} <= set(names)
    for name in names:
        for _, algorithm, cfg in presets.run_configs(presets.load_preset(name), {}, name):
            assert cfg.name.startswith(name) and algorithm in presets.ALGORITHMS, name
    assert not (tmp_path / "runs").exists()


@pytest.mark.filterwarnings("ignore::DeprecationWarning")  # torch.jit.trace: a cheap check
@pytest.mark.parametrize("trainer", [ppo, dmc])
def test_load_policy_round_trip(tmp_path, trainer):
    _run(tmp_path, trainer, "rt", total_decisions=_tiny(trainer)["total_decisions"] // 2)
    ckpt = torch.load(checkpoint_path(tmp_path / "rt"), weights_only=False)
    policy = load_policy(tmp_path / "rt")  # a run directory
    same = load_policy(tmp_path / "rt" / "checkpoint.pt")  # the file itself
    assert policy.arch["algorithm"] == trainer.__name__.split(".")[-1]
    assert policy.arch["obs_size"] == OBS_SIZE and policy.arch["n_actions"] == 109
    state = engine.init(np.random.default_rng(5), 32)
    obs = torch.from_numpy(engine.observe(state))
    mask = torch.from_numpy(engine.legal_action_mask(state))
    scores = policy(obs, mask)
    assert scores.shape == (32, 109) and scores.dtype == torch.float32
    torch.testing.assert_close(scores, same(obs, mask))
    assert mask[torch.arange(32), scores.argmax(-1)].all()
    assert (scores[~mask] == torch.finfo(torch.float32).min).all()
    for k, v in ckpt["model"].items():
        torch.testing.assert_close(policy.state_dict()[k], v)
    if hasattr(policy, "legal_scores"):  # DMC's sparse path used by rollouts and evaluation
        torch.testing.assert_close(policy.legal_scores(obs, mask), scores)
    traced = torch.jit.trace(policy, (obs, mask))  # no data-dependent control flow
    torch.testing.assert_close(traced(obs, mask), scores)


def test_process_worker_fails_loudly_instead_of_waiting_forever():
    settings = RolloutSettings(ppo.PPOActing(), make_arch("ppo", [16]), num_envs=4, rollout_steps=2)
    weights = build_network(settings.arch).state_dict()
    # An unknown command kills the child (it used to be dropped, the parent then waited).
    worker = ProcessWorker(settings, seed=0)
    try:
        worker.conn.send(("collect_everything", None))
        with pytest.raises(RuntimeError, match="rollout worker process died"):
            worker._recv()
        assert worker.proc.exitcode not in (None, 0)
    finally:
        worker.close()
    # A child killed while the parent waits for its batch: result() raises, it never hangs.
    worker = ProcessWorker(settings, seed=0)
    try:
        worker.submit(weights, [])
        worker.proc.kill()
        with pytest.raises(RuntimeError, match=r"died \(exit code -9\)"):
            worker.result()
    finally:
        worker.close()


@pytest.mark.slow
@pytest.mark.xdist_group("ray")  # test_ray_cluster.py's `ray stop --force` ends every Ray
def test_ray_workers_on_a_local_instance(tmp_path):
    ray = pytest.importorskip("ray", reason="needs the ray extra: pip install -e '.[ray]'")
    from agents.workers import ray_init_options

    # address="local": a new instance even while another test runs a cluster beside it.
    ray.init(address="local", num_cpus=2, **ray_init_options("local"))
    try:
        out = _run(tmp_path, ppo, "ray", workers="ray", num_workers=2)
        assert out["counters"]["step"] >= TINY["total_decisions"]
        assert load_policy(tmp_path / "ray").arch["algorithm"] == "ppo"
    finally:
        ray.shutdown()


def train_command(argv: list[str]) -> int:
    """``murlan train ARGV`` in this process (what ``python train.py ARGV`` runs)."""
    return murlan_cli.main(["train", *argv])


# Command-line overrides that shrink the quick preset to a run of a few seconds.
CLI_TINY = [
    "num_envs=16", "rollout_steps=24", "workers=local", "bot_share=0", "eval_every=0",
    "final_eval_deals=4", "eval_hands=1", "eval_bots=[random]", "progress=false",
]  # fmt: skip


def test_cli_runs_a_preset_with_overrides_then_resumes(tmp_path, capsys):
    tiny = [*CLI_TINY, "hidden=[32]", f"runs_dir={tmp_path}", "name=cli"]
    assert train_command(["--config", "quick", "--seed", "7", "total_decisions=384", *tiny]) == 0
    assert "vs random" in capsys.readouterr().out
    assert train_command(["--resume", str(tmp_path / "cli"), "total_decisions=768"]) == 0
    ckpt = torch.load(checkpoint_path(tmp_path / "cli"), weights_only=False)
    assert (ckpt["counters"]["step"], ckpt["counters"]["iteration"]) == (768, 2)
    assert ckpt["counters"]["gradient_steps"] > 0
    assert ckpt["config"]["seed"] == 7 and ckpt["config"]["total_decisions"] == 768


def test_a_run_name_in_use_is_refused_not_overwritten(tmp_path, capsys):
    """The same name twice: the second command says how to resume and leaves the run as it
    was; options and overrides may come in any order."""
    tiny = [*CLI_TINY, "hidden=[32]", f"runs_dir={tmp_path}"]
    assert (
        train_command(["name=one", "--rules", "sticky_pass=true", "total_decisions=384", *tiny])
        == 0
    )
    ckpt = tmp_path / "one" / "checkpoint.pt"
    before = ckpt.read_bytes()
    config = (tmp_path / "one" / "config.json").read_text()
    assert '"sticky_pass": true' in config
    capsys.readouterr()
    assert train_command(["--config", "quick", "name=one", "total_decisions=768", *tiny]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "holds a run already" in err and "--resume" in err
    assert ckpt.read_bytes() == before
    assert (tmp_path / "one" / "config.json").read_text() == config
    log = (tmp_path / "one" / "train.log").read_text()
    assert re.search(r"precision: (fp32|bf16) \(.+\)", log)  # auto chose, and says why


@pytest.mark.parametrize("trainer", [ppo, dmc])
def test_init_from_starts_a_fine_tune_from_the_checkpoint_weights(tmp_path, trainer):
    """init_from copies a checkpoint's weights and starts a fresh run from them: with a zero
    learning rate they come out unchanged; from scratch they would be new random weights."""
    half = _tiny(trainer)["total_decisions"] // 2
    _run(tmp_path, trainer, "base", total_decisions=half)
    base = load_policy(tmp_path / "base").state_dict()
    out = _run(
        tmp_path, trainer, "tune", total_decisions=half, learning_rate=0.0, seed=2,
        init_from=str(tmp_path / "base"),
    )  # fmt: skip
    assert out["counters"]["step"] == half  # a fresh step count, not the base run's
    tuned = load_policy(tmp_path / "tune").state_dict()
    for k in base:
        torch.testing.assert_close(tuned[k], base[k])
    _run(tmp_path, trainer, "fresh", total_decisions=half, learning_rate=0.0, seed=2)
    fresh = load_policy(tmp_path / "fresh").state_dict()
    assert any(not torch.equal(fresh[k], base[k]) for k in base)


def test_staged_preset_trains_each_stage_from_the_one_before(tmp_path, capsys):
    staged = tmp_path / "staged.yaml"
    staged.write_text("stages:\n  - config: quick\n  - config: quick\n    learning_rate: 0.0\n")
    run = ["--config", str(staged), "total_decisions=384", "hidden=[32]", *CLI_TINY]
    run += [f"runs_dir={tmp_path}", "name=st"]
    assert train_command(run) == 0
    assert capsys.readouterr().out.count("vs random") == 2
    first, last = tmp_path / "st-quick", tmp_path / "st"
    ckpt = torch.load(checkpoint_path(last), weights_only=False)
    assert ckpt["config"]["init_from"] == str(first) and ckpt["config"]["learning_rate"] == 0
    start = load_policy(first).state_dict()  # stage 2 learned nothing: stage 1's weights
    assert all(torch.equal(v, start[k]) for k, v in load_policy(last).state_dict().items())
    assert train_command(run) == 0  # the same command again: nothing left to train
    assert capsys.readouterr().out.count("is finished; skipped") == 2


def test_stages_on_the_command_line_replace_the_presets():
    two = presets.parse_overrides(["stages=[{config: quick}, {config: strong, seed: 4}]"])
    runs = presets.run_configs(
        presets.load_preset("hard-recipe"), {**two, "name": "x"}, "hard-recipe"
    )
    assert [(label, cfg.name, cfg.seed) for label, _, cfg in runs] == [
        ("quick", "x-quick", 1),
        ("strong", "x", 4),
    ]
    assert runs[1][2].init_from == str(Path("runs") / "x-quick")


def test_staged_preset_errors_stop_before_any_stage_runs(tmp_path, capsys):
    staged = tmp_path / "staged.yaml"
    run = ["--config", str(staged), f"runs_dir={tmp_path / 'runs'}", *CLI_TINY]
    for text, says in (
        ("stages: quick\n", "list of mappings"),
        ("stages:\n  - total_decisions: 5\n", "list of mappings"),
        ("stages:\n  - config: quick\n  - config: quick\n    num_env: 8\n", "num_env"),
        ("stages:\n  - config: nothing\n", "no config 'nothing'"),
    ):
        staged.write_text(text)
        assert train_command(run) == 2
        assert says in capsys.readouterr().err
    assert not (tmp_path / "runs").exists()


def test_init_from_errors_name_the_problem(tmp_path, capsys):
    _run(tmp_path, ppo, "base", total_decisions=TINY["total_decisions"] // 2)
    run = ["--config", "quick", "total_decisions=384", f"runs_dir={tmp_path}", *CLI_TINY]
    assert train_command([*run, f"init_from={tmp_path / 'nothing'}", "hidden=[32]"]) == 2
    assert "init_from" in capsys.readouterr().err
    assert (
        train_command([*run, f"init_from={tmp_path / 'base'}", "hidden=[32]", "imitate=rule"]) == 2
    )
    assert "set one" in capsys.readouterr().err
    assert train_command([*run, f"init_from={tmp_path / 'base'}", "hidden=[16]"]) == 2
    err = capsys.readouterr().err
    assert "'hidden': [32]" in err and "'hidden': [16]" in err and "set the config" in err
    assert [p.name for p in tmp_path.iterdir()] == ["base"]  # no run was started


def test_inference_server_answers_as_the_local_network():
    """A worker's forward passes through the server give the local network's outputs."""
    from agents.inference import InferenceServer, RemotePolicy

    torch.manual_seed(0)
    for spec in (
        make_arch("ppo", [16], critic="privileged", critic_hidden=[8]),
        make_arch("dmc", [16], 8),
    ):
        net = build_network(spec).eval()
        server = InferenceServer(spec, 1, 32, torch.device("cpu"))
        try:
            server.load_weights(net.state_dict())
            remote = RemotePolicy(server.handles[0], spec)
            state = engine.init(np.random.default_rng(0), 32)
            obs = torch.from_numpy(observation.encode(state))
            mask = torch.from_numpy(engine.legal_action_mask(state).copy())
            hidden = torch.from_numpy(observation.encode_hidden(state))
            with torch.inference_mode():
                want = net.rollout_scores(obs, mask, hidden)
                got = remote.rollout_scores(obs, mask, hidden)
            torch.testing.assert_close(got[0], want[0])
            if want[1] is not None:  # DMC's network has no value: the server answers zeros
                torch.testing.assert_close(got[1], want[1])
            assert server.served == 32
        finally:
            server.close()


def test_process_workers_train_through_the_inference_server(tmp_path, ppo_process_run):
    """Process workers whose network answers from the inference server train exactly as
    process workers holding the network themselves: the same seed, the same weights."""
    served = _run(tmp_path, ppo, "served", workers="process", inference="server", anneal_lr=False)
    own, own_dir = ppo_process_run
    assert served["counters"] == own["counters"] and served["counters"]["iteration"] == 2
    a, b = load_policy(tmp_path / "served").state_dict(), load_policy(own_dir).state_dict()
    assert all(torch.equal(a[k], b[k]) for k in a)


def test_a_seed_reproduces_a_run_with_process_workers(tmp_path, ppo_process_run):
    """Rollouts in another process overlap the update, yet the same seed gives the same
    weights: the pipeline's order is fixed, whatever the timing."""
    a, a_dir = ppo_process_run
    b = _run(tmp_path, ppo, "b", workers="process", anneal_lr=False)
    assert a["counters"] == b["counters"]
    wa, wb = load_policy(a_dir).state_dict(), load_policy(tmp_path / "b").state_dict()
    assert all(torch.equal(wa[k], wb[k]) for k in wa)


def test_auto_precision_is_never_the_slower_one(monkeypatch):
    """On a CPU, "auto" is fp32 unless the CPU has native bfloat16 instructions; with them, a
    measurement decides (here a stand-in clock: the probe says what each precision costs)."""
    from agents import networks

    cpu = torch.device("cpu")
    costs = {"fp32": 0.040, "bf16": 0.090}  # emulated bf16: slower
    monkeypatch.setattr(networks, "native_cpu_bf16", lambda: False)
    chosen, why = networks.resolve_precision("auto", cpu, costs.__getitem__)
    assert chosen == "fp32" and "no native bfloat16" in why
    monkeypatch.setattr(networks, "native_cpu_bf16", lambda: True)
    assert networks.resolve_precision("auto", cpu, costs.__getitem__)[0] == "fp32"
    costs["bf16"] = 0.015  # native bf16: faster
    chosen, why = networks.resolve_precision("auto", cpu, costs.__getitem__)
    assert chosen == "bf16" and "15.0 ms in bf16 and 40.0 ms in fp32" in why
    assert networks.resolve_precision("fp32", cpu, costs.__getitem__) == (
        "fp32",
        "set by the config",
    )


def test_time_learner_step_leaves_weights_and_generators_as_they_were():
    """The start-of-run measurement of ``auto`` must not change what a seed trains."""
    from agents.networks import time_learner_step

    torch.manual_seed(0)
    net = build_network(make_arch("ppo", [16]))
    before = {k: v.clone() for k, v in net.state_dict().items()}
    rng = torch.get_rng_state()
    assert time_learner_step(net, 8, "fp32", torch.device("cpu"), repeats=1) > 0
    assert torch.equal(torch.get_rng_state(), rng)
    assert all(torch.equal(v, before[k]) for k, v in net.state_dict().items())
    assert all(p.grad is None for p in net.parameters())
