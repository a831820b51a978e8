"""Expert iteration: the search's moves distilled into the policy, round after round.

Reading order: the config, the start (a shipped bundle's weights read back into the torch
network), the round's phases (play, label, fit, evaluate), ``train``.

Each round:

1. **play**: the current policy plays seeded boards in one seat against three rule bots
   (``opponent``) and against itself (``self_play_share`` of the positions), and every
   decision it made with a choice is kept (``agents.labelling.play_positions``);
2. **label**: the search on top of the current policy (the ``expert`` level's search:
   ``search_rollouts`` rollouts, worlds weighed by the hand's history, each other seat
   modelled by the policy or ``search_models``) chooses a move at each position and values
   every legal move, many positions per call (``agents.labelling.label_positions``);
3. **fit**: the policy is fitted to the labels of this round and, with ``aggregate``, every
   earlier one (DAgger): cross-entropy of its masked logits to the search's move (``targets:
   hard``) or to a softmax of the search's values (``soft``), plus ``kl_coef`` times the KL
   divergence from the policy the round started with, which keeps its play where the labels
   say nothing; ``holdout`` of each round's positions are kept out of the fit to measure
   how well the search's choices generalise (agreement on positions never fitted);
4. **evaluate**: the duplicate runner, the policy in each seat against three copies of each
   ``eval_bots`` bot on ``eval_deals`` boards (``eval_hands`` hands each), paired board by
   board with the start policy on the same boards.

The run directory keeps every phase's result on disk (``round-K/positions.npz``,
``labels.npz``, ``eval.json``; the weights after each fit in ``checkpoint.pt``), and labels
are saved every ``label_chunk`` positions, so ``python train.py --resume runs/NAME`` after a
kill continues with the first phase not done, and within labelling at the first chunk not
saved; each chunk draws from its own seeded generator, so a resumed run labels as an
uninterrupted one would. TensorBoard, one point per round: ``charts/`` (positions, seconds
per phase, positions labelled per second), ``losses/`` (cross-entropy, KL), ``eval/``
(agreement with the search before and after the fit, on fitted and held-out positions;
points per hand against each bot and over the start policy, with 95% intervals).
"""

from __future__ import annotations

import dataclasses
import json
import shutil
import time
from pathlib import Path

import numpy as np
import torch
from torch import nn

from agents import seeds
from agents.checkpoint import Checkpoint
from agents.checkpoint import load as load_checkpoint
from agents.config import (
    ConfigError,
    EvalConfig,
    NetworkConfig,
    RulesConfig,
    RunConfig,
    check_at_least,
    check_bots,
    check_choice,
    check_no_history,
)
from agents.evaluation import EvalResult, evaluate
from agents.labelling import Positions, label_positions, play_positions, save_arrays
from agents.minibatches import gradient_steps, shuffled
from agents.networks import ActorCritic, make_arch, masked_logits
from agents.policy_bot import TorchPolicyBot, int8_policy_bot
from agents.progress import ProgressBar
from agents.training import Run, cpu_weights
from murlan_env.bots import registry
from murlan_env.bots.search import SearchBot
from murlan_env.eval.duplicate import mean_ci
from murlan_env.game.rules import Rules

TARGETS = ("hard", "soft")
LABEL_PRECISIONS = ("float32", "int8")


@dataclasses.dataclass
class DistillConfig(RunConfig, RulesConfig, NetworkConfig, EvalConfig):
    """Expert iteration's settings (the shared parts' fields are documented in
    agents.config: the run, the rules, the network and the evaluation)."""

    start: str = "ppo-finetune"
    """The policy of round 1: a shipped policy's name (murlan_env/bots/policies) or a bundle
    directory; its model.onnx weights are read back into the torch network (``hidden`` must
    be its widths)."""
    rounds: int = 1
    """Rounds of play, label, fit and evaluate."""
    positions: int = 2000
    """Positions labelled per round."""
    self_play_share: float = 0.25
    """Share of a round's positions from self-play; the rest from games against three
    ``opponent`` bots."""
    opponent: str = "rule"
    """The bots the policy plays against for the other positions (a registry spec)."""
    play_hands: int = 2
    """Hands played per board when collecting positions (hand 1 has the opening duty,
    hand 2 the exchange)."""
    search_rollouts: int = 200
    """Rollouts per position of the labelling search (the expert level's 200)."""
    belief_candidates: int = 1024
    """Uniform worlds the search's belief weighs per position (the expert level's 1024)."""
    search_models: list = dataclasses.field(default_factory=lambda: ["rule"])
    """Other bots the search may model a seat by (the expert level's ["rule"])."""
    label_precision: str = "float32"
    """The policy's arithmetic in the search's belief and rollouts: "float32" (torch), or
    "int8" (the round's policy exported and quantised, ``murlan_env.bundle.quantize.to_int8``: a
    third of the CPU time a row). The search keeps the policy's own float32 move either way."""
    label_batch: int = 8
    """Positions the search labels together (one call; larger batches cost less each)."""
    label_chunk: int = 256
    """Positions labelled between saves of the labels (what a kill can lose)."""
    label_workers: int = 1
    """Processes that label chunks side by side, a core each (1: this process). Each chunk
    draws from a generator seeded by its place, so any number of workers gives the same
    labels."""
    targets: str = "hard"
    """"hard": fit the search's move; "soft": fit softmax(values / soft_temperature) of the
    search's mean hand points per legal move."""
    soft_temperature: float = 0.05
    """Temperature of the soft targets, in hand points."""
    kl_coef: float = 1.0
    """Weight of KL(start-of-round policy || policy) over the legal moves."""
    epochs: int = 4
    """Passes over the labelled positions per fit."""
    minibatch_size: int = 256
    """Positions per gradient step."""
    learning_rate: float = 3e-4
    """Adam's learning rate of each fit (constant; each fit has a fresh optimiser)."""
    holdout: float = 0.2
    """Share of each round's positions kept out of the fit, to measure generalisation."""
    aggregate: bool = True
    """Fit every round's labels so far (DAgger), not only this round's."""
    labels_from: str = ""
    """Another run's directory: each round takes that run's positions and labels of the same
    round where it has them, instead of playing and labelling (ablations of the fit on the
    same labels: targets, kl_coef, epochs, learning_rate)."""

    def check_values(self) -> None:
        super().check_values()
        check_choice("targets", self.targets, TARGETS)
        check_no_history(self, "distill")
        check_choice("label_precision", self.label_precision, LABEL_PRECISIONS)
        check_at_least(
            self, 0, "search_rollouts", "belief_candidates", "soft_temperature", "kl_coef"
        )
        check_at_least(self, 0, "learning_rate")
        check_at_least(self, 1, "epochs", "minibatch_size", "play_hands")
        check_bots("opponent", [self.opponent])
        check_bots("search_models", self.search_models)
        if not 0 <= self.self_play_share <= 1 or not 0 <= self.holdout < 1:
            raise ConfigError("self_play_share must be in [0, 1] and holdout in [0, 1)")
        counts = (self.rounds, self.positions, self.label_batch, self.label_chunk)
        if min(*counts, self.label_workers) < 1:
            raise ConfigError(
                "rounds, positions, label_batch, label_chunk and label_workers must be positive"
            )


# --------------------------------------------------------------------------- the start


def bundle_dir(start: str) -> Path:
    """The bundle directory of ``start``: a shipped policy's name or a path."""
    shipped = registry.policies_dir() / start
    return shipped if (shipped / "bot.json").is_file() else Path(start)


def policy_from_bundle(path: str | Path) -> ActorCritic:
    """A PPO network with the policy weights of a bundle's model.onnx (the value head keeps
    its initial weights: play never reads it). The ONNX initialisers keep the torch
    parameter names ``agents/export.py`` exported them under, so they load by name; a
    bundle whose model does not hold exactly the trunk and policy head raises ValueError."""
    import onnx
    from onnx import numpy_helper

    from murlan_env.bundle.manifest import BundleManifest

    manifest = BundleManifest.load(path)
    net = ActorCritic(make_arch("ppo", manifest.policy["hidden"]))
    model = onnx.load(str(Path(path) / manifest.model("float32").file))
    weights = {
        t.name: torch.from_numpy(numpy_helper.to_array(t).copy())
        for t in model.graph.initializer
        if t.name in net.state_dict()
    }
    policy_keys = {k for k in net.state_dict() if not k.startswith("value_head.")}
    if set(weights) != policy_keys:
        raise ValueError(
            f"{path}: model.onnx holds {sorted(weights)}, expected the policy's "
            f"{sorted(policy_keys)}"
        )
    net.load_state_dict(weights, strict=False)
    return net


def expert_search(net: nn.Module, cfg: DistillConfig) -> SearchBot:
    """The labelling search on top of the policy ``net``: the expert level's search
    (``registry.guided_by`` with a belief and ``search_models``), with this config's budget;
    its belief and rollouts run the policy in ``label_precision``, its own move is float32's."""
    policy = TorchPolicyBot(net, "policy")
    fast = policy if cfg.label_precision == "float32" else int8_policy_bot(net, "policy-int8")
    models = [registry.make_bot(spec) for spec in cfg.search_models]
    guide = registry.guided_by(fast, belief=True, models=models) | {"prior": policy}
    budget = {"rollouts": cfg.search_rollouts, "belief_candidates": cfg.belief_candidates}
    return SearchBot(name="expert", **budget, **guide)


# --------------------------------------------------------------------------- play


def play_round(net: nn.Module, cfg: DistillConfig, round_no: int) -> Positions:
    """``cfg.positions`` positions where the policy chose: self-play and against the opponent,
    from boards no other round (nor the evaluation) plays."""
    policy = TorchPolicyBot(net, "policy")
    opponent = registry.make_bot(cfg.opponent)
    gen = seeds.generator(cfg.seed, "play", round_no)
    n_self = round(cfg.positions * cfg.self_play_share)
    parts = []
    for k, (wanted, against) in enumerate(((n_self, None), (cfg.positions - n_self, opponent))):
        found: list[Positions] = []
        calls = 0
        while wanted and sum(len(p) for p in found) < wanted:
            # Self-play keeps four seats' decisions per game, one seat's otherwise.
            boards = max(1, -(-wanted // (80 if against is None else 20)))
            seed = seeds.derive(cfg.seed, "boards", round_no, k, calls)
            found.append(
                play_positions(policy, against, boards, seed=seed, max_hands=cfg.play_hands)
            )
            calls += 1
        if found:
            got = Positions.concat(found)
            parts.append(got.take(np.sort(gen.permutation(len(got))[:wanted])))
    return Positions.concat(parts)


# --------------------------------------------------------------------------- label


def label_chunks(net: nn.Module, cfg: DistillConfig, round_no: int, positions, chunks, bar):
    """The search's (actions, values) for each chunk of rows of ``positions``, in order:
    in this process, or in ``cfg.label_workers`` processes, a chunk at a time each; chunk
    ``rows`` draws from the "label" stream of its round and first row wherever it runs."""
    if cfg.label_workers == 1 or len(chunks) <= 1:
        search = expert_search(net, cfg)
        for rows in chunks:
            rng = seeds.generator(cfg.seed, "label", round_no, int(rows[0]))
            yield label_positions(search, positions.take(rows), rng, cfg.label_batch, bar.update)
        return
    import multiprocessing as mp

    jobs = [(round_no, int(rows[0]), positions.take(rows)) for rows in chunks]
    state = (net.arch, cpu_weights(net), dataclasses.asdict(cfg))
    workers = min(cfg.label_workers, len(chunks))
    with mp.get_context("spawn").Pool(workers, _start_labeller, (state,)) as pool:
        for actions, values in pool.imap(_label_job, jobs):
            bar.update(len(actions))
            yield actions, values


_LABELLER: tuple[DistillConfig, SearchBot] | None = None  # one per labelling process


def _start_labeller(state) -> None:
    """A labelling process's set-up: the policy's weights and the search on top of it."""
    global _LABELLER
    arch, weights, config = state
    cfg = DistillConfig(**config)
    torch.set_num_threads(cfg.torch_threads)
    net = ActorCritic(arch)
    net.load_state_dict(weights)
    net.eval()
    _LABELLER = (cfg, expert_search(net, cfg))


def _label_job(job) -> tuple[np.ndarray, np.ndarray]:
    """One chunk, labelled in a labelling process."""
    round_no, first, positions = job
    cfg, search = _LABELLER
    rng = seeds.generator(cfg.seed, "label", round_no, first)
    return label_positions(search, positions, rng, cfg.label_batch)


# --------------------------------------------------------------------------- fit


def targets_of(actions: np.ndarray, values: np.ndarray, mask: np.ndarray, cfg) -> np.ndarray:
    """(N, A) float32 target distributions: one-hot on the search's move (hard) or
    softmax(values / soft_temperature) over the legal moves (soft)."""
    if cfg.targets == "hard":
        out = np.zeros(mask.shape, np.float32)
        out[np.arange(len(actions)), actions] = 1.0
        return out
    scaled = np.where(mask, values / cfg.soft_temperature, -np.inf)
    scaled = scaled - scaled.max(1, keepdims=True)
    weights = np.exp(scaled)
    return (weights / weights.sum(1, keepdims=True)).astype(np.float32)


def _log_probs(net: nn.Module, obs: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    return torch.log_softmax(masked_logits(net.logits(obs), mask), -1)


def agreement(net: nn.Module, obs: np.ndarray, mask: np.ndarray, actions: np.ndarray) -> float:
    """Share of positions where the policy's best move is ``actions`` (nan for none)."""
    if not len(obs):
        return float("nan")
    with torch.inference_mode():
        scores = net(torch.from_numpy(obs), torch.from_numpy(mask)).numpy()
    return float((scores.argmax(1) == actions).mean())


def fit(
    net: nn.Module, data: dict[str, np.ndarray], cfg: DistillConfig, gen: np.random.Generator
) -> dict[str, float]:
    """Fit ``net`` to ``data`` (obs, mask, target) for ``cfg.epochs`` epochs: cross-entropy to
    the targets plus ``kl_coef`` * KL(net as it was || net); returns the last epoch's mean
    losses."""
    obs, mask = torch.from_numpy(data["obs"]), torch.from_numpy(data["mask"])
    target = torch.from_numpy(data["target"])
    with torch.inference_mode():
        before = _log_probs(net, obs, mask)
    before = before.clone()
    opt = torch.optim.Adam(net.parameters(), lr=cfg.learning_rate)

    def loss(rows: np.ndarray) -> tuple[torch.Tensor, dict[str, float]]:
        idx = torch.from_numpy(rows)
        log_p = _log_probs(net, obs[idx], mask[idx])
        legal = mask[idx]
        ce = -torch.where(legal, target[idx] * log_p, 0.0).sum(-1).mean()
        old = before[idx]
        kl = torch.where(legal, old.exp() * (old - log_p), 0.0).sum(-1).mean()
        return ce + cfg.kl_coef * kl, {"cross_entropy": ce.item(), "kl": kl.item()}

    losses = {"cross_entropy": 0.0, "kl": 0.0}
    for _ in range(cfg.epochs):
        losses = gradient_steps(opt, shuffled(gen, len(obs), cfg.minibatch_size), loss)
        losses.pop("gradient_steps")
    return losses


# --------------------------------------------------------------------------- evaluate


def board_points(net: nn.Module, bot: str, cfg: DistillConfig) -> tuple[np.ndarray, float]:
    """(boards,) the policy's points per hand on each evaluation board against three ``bot``,
    and the share of its hands it finished first (``agents.evaluation.evaluate``)."""
    r = evaluate(
        net,
        bot,
        seed=cfg.eval_seed,
        n_deals=cfg.eval_deals,
        n_hands=cfg.eval_hands or None,
        rules=Rules.from_dict(cfg.rules),
    )
    return np.asarray(r.boards), r.win_rate


def evaluate_round(results: dict[str, EvalResult], start: dict[str, list]) -> dict:
    """The round's evaluation (``Run.evaluate``'s ``results``): points per hand against each
    eval bot, and over the start policy on the same boards (``start``: its board points per
    bot), each with the half-width of its 95% interval."""
    out = {}
    for bot, r in results.items():
        points = np.asarray(r.boards)
        d_mean, d_lo, d_hi = mean_ci(points - np.asarray(start[bot]))
        out[bot] = {
            "points_per_hand": r.points_per_hand,
            "ci95": r.ci95,
            "over_start": d_mean,
            "over_start_ci95": (d_hi - d_lo) / 2,
            "first_rate": r.win_rate,
            "boards": r.boards,
        }
    return out


# --------------------------------------------------------------------------- the loop


def train(cfg: DistillConfig, resume: str | Path | Checkpoint | None = None) -> dict:
    """Run (or resume) expert iteration; returns the last evaluation (``EvalResult`` per
    bot), counters and the run directory (as the training command's report reads them)."""
    seeds.seed_everything(cfg.seed)
    torch.set_num_threads(cfg.torch_threads)
    if resume:
        ckpt = load_checkpoint(resume)
        net = ActorCritic(ckpt.arch)
        net.load_state_dict(ckpt.model)
        counters = dict(ckpt.counters)
    else:
        net = policy_from_bundle(bundle_dir(cfg.start))
        counters = {"step": 0, "iteration": 0, "fitted": 0}
    if list(net.arch["hidden"]) != list(cfg.hidden):
        raise ConfigError(
            f"the start policy has widths {net.arch['hidden']}, the config's hidden is "
            f"{cfg.hidden}: set hidden to the start's"
        )
    run = Run(cfg, "distill", counters["step"] if resume else None)
    root = run.dir
    net.eval()

    def save() -> None:
        run.save(net, counters)

    last = {}
    try:
        if not resume:
            save()
        start_eval = _json(root / "round-0" / "eval.json")
        if start_eval is None:  # the start policy on the evaluation boards: the pairing's base
            start_eval = {bot: r.boards for bot, r in run.evaluate(net, 0).items()}
            _write_json(root / "round-0" / "eval.json", start_eval)
        for r in range(counters["iteration"] + 1, cfg.rounds + 1):
            last = _round(net, cfg, r, run, counters, start_eval, save)
    finally:
        run.close()
    if not last and counters["iteration"]:  # resumed a finished run: its last evaluation
        last = _json(root / f"round-{counters['iteration']}" / "eval.json") or {}
        last.pop("agreement", None)
    results = {
        bot: EvalResult(
            bot=bot,
            points_per_hand=v["points_per_hand"],
            ci95=v["ci95"],
            win_rate=v.get("first_rate", float("nan")),
            hands=len(v["boards"]) * 4 * (cfg.eval_hands or 1),
        )
        for bot, v in last.items()
    }
    return {"results": results, "counters": counters, "run_dir": str(root), "unit": "positions"}


def _round(net, cfg, r, run, counters, start_eval, save) -> dict:
    """One round's phases, each skipped when its result is on disk already."""
    root = run.dir
    folder = root / f"round-{r}"
    folder.mkdir(exist_ok=True)
    seconds = {}
    # 1. play
    t0 = time.perf_counter()
    pos_file = folder / "positions.npz"
    label_file = folder / "labels.npz"
    source = Path(cfg.labels_from) / f"round-{r}"
    if cfg.labels_from and not pos_file.exists() and (source / "labels.npz").exists():
        shutil.copyfile(source / "labels.npz", label_file)
        shutil.copyfile(source / "positions.npz", pos_file)
    if not pos_file.exists():
        play_round(net, cfg, r).save(pos_file)
    positions = Positions.load(pos_file)
    seconds["play"] = time.perf_counter() - t0
    # 2. label, a chunk at a time
    t0 = time.perf_counter()
    labels = {"action": np.zeros(len(positions), np.int16), "done": np.zeros(1, np.int64)}
    labels["values"] = np.full(positions.mask.shape, -np.inf, np.float32)
    if label_file.exists():
        with np.load(label_file) as saved:
            labels = {k: saved[k].copy() for k in saved.files}
    done = int(labels["done"][0])
    bar = ProgressBar(
        total=len(positions),
        initial=done,
        desc=f"round {r}: label",
        dynamic_ncols=True,
        disable=not cfg.progress,
    )
    labelled_now = 0
    chunks = [
        np.arange(start, min(len(positions), start + cfg.label_chunk))
        for start in range(done, len(positions), cfg.label_chunk)
    ]
    results = label_chunks(net, cfg, r, positions, chunks, bar)
    for rows, (actions, values) in zip(chunks, results, strict=True):
        labels["action"][rows], labels["values"][rows] = actions, values
        labels["done"][0] = rows[-1] + 1
        save_arrays(label_file, labels)
        labelled_now += rows.size
    bar.close()
    seconds["label"] = time.perf_counter() - t0
    # 3. fit (on this round's and, with aggregate, the earlier rounds' labels)
    t0 = time.perf_counter()
    held = held_out(len(positions), cfg, r)
    if counters["fitted"] < r:
        data = _fit_data(cfg, root, r)
        gen = seeds.generator(cfg.seed, "fit", r)
        net.train()
        losses = fit(net, data, cfg, gen)
        net.eval()
        counters["fitted"] = r
        counters["step"] += len(positions)
        save()
        _write_json(folder / "fit.json", losses)
    losses = _json(folder / "fit.json") or {}
    seconds["fit"] = time.perf_counter() - t0
    # 4. evaluate
    t0 = time.perf_counter()
    result = _json(folder / "eval.json")
    if result is None:
        result = evaluate_round(run.evaluate(net, r), start_eval)
        result["agreement"] = _agreements(net, cfg, root, r, positions, labels, held)
        _write_json(folder / "eval.json", result)
    seconds["evaluate"] = time.perf_counter() - t0
    counters["iteration"] = r
    save()
    agree = result.pop("agreement")
    charts = {f"{phase}_seconds": s for phase, s in seconds.items()}
    charts["positions"] = counters["step"]
    if labelled_now:
        charts["positions_labelled_per_s"] = labelled_now / seconds["label"]
    run.scalars("charts", charts, r)
    run.scalars("losses", losses, r)
    run.scalars("eval/agreement", agree, r)
    for bot, v in result.items():
        run.scalars(f"eval/{bot}", {k: v[k] for k in ("over_start", "over_start_ci95")}, r)
    run.writer.flush()
    return result


def held_out(n: int, cfg: DistillConfig, r: int) -> np.ndarray:
    """(n,) bool the round's held-out positions (a fixed draw per round)."""
    gen = seeds.generator(cfg.seed, "holdout", r)
    return gen.permutation(n) < round(n * cfg.holdout)


def labelled_round(root: Path, r: int) -> tuple[Positions, np.ndarray, np.ndarray, int]:
    """Round ``r`` of the run in ``root``: its positions labelled so far (all of them once
    the round's labelling is done), the search's moves (int64) and values there, and the
    round's number of positions."""
    positions = Positions.load(root / f"round-{r}" / "positions.npz")
    with np.load(root / f"round-{r}" / "labels.npz") as labels:
        done = int(labels["done"][0])
        actions, values = labels["action"][:done].astype(np.int64), labels["values"][:done]
    return positions.take(np.arange(done)), actions, values, len(positions)


def _fit_data(cfg: DistillConfig, root: Path, r: int) -> dict[str, np.ndarray]:
    """The fitted positions and their targets: this round's, and the earlier rounds' with
    ``aggregate``; held-out positions never."""
    parts = {"obs": [], "mask": [], "target": []}
    for k in range(1 if cfg.aggregate else r, r + 1):
        positions, actions, values, _ = labelled_round(root, k)
        keep = ~held_out(len(positions), cfg, k)
        parts["obs"].append(positions.obs[keep])
        parts["mask"].append(positions.mask[keep])
        parts["target"].append(targets_of(actions[keep], values[keep], positions.mask[keep], cfg))
    return {k: np.concatenate(v) for k, v in parts.items()}


def _agreements(net, cfg, root, r, positions, labels, held) -> dict[str, float]:
    """Agreement of the policy with the search's moves: the round's start policy (the moves
    it played) and the fitted one, on fitted and held-out positions."""
    actions = labels["action"].astype(np.int64)
    played = positions.action.astype(np.int64) == actions
    return {
        "before_fitted": float(played[~held].mean()) if (~held).any() else float("nan"),
        "before_heldout": float(played[held].mean()) if held.any() else float("nan"),
        "after_fitted": agreement(net, positions.obs[~held], positions.mask[~held], actions[~held]),
        "after_heldout": agreement(net, positions.obs[held], positions.mask[held], actions[held]),
    }


def _json(path: Path):
    return json.loads(path.read_text()) if path.exists() else None


def _write_json(path: Path, value) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(value, indent=1) + "\n")
    tmp.replace(path)


__all__ = [
    "DistillConfig",
    "agreement",
    "bundle_dir",
    "evaluate_round",
    "expert_search",
    "fit",
    "held_out",
    "label_chunks",
    "labelled_round",
    "play_round",
    "policy_from_bundle",
    "targets_of",
    "train",
]
