"""What every trainer shares: the common config, seeding, the run directory and the loop.

A run directory holds the resolved config, TensorBoard logs (``charts/``, ``losses/``,
``eval/``), resumable checkpoints and the final evaluation; ``train_loop`` drives a trainer's
learner through rollouts, updates, periodic evaluation (``agents.evaluation``) and checkpoints,
with a progress bar.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np
import torch
from torch import nn

from agents.evaluation import EvalResult, evaluate
from murlan_env.game.rules import Rules

# ---------------------------------------------------------------------- run bookkeeping
# The pieces every trainer shares: the common config fields, seeding, the run directory with
# TensorBoard logs, checkpoints and the progress bar, and the evaluation hook.


@dataclasses.dataclass
class CommonConfig:
    """Fields every trainer has; the trainers' config dataclasses extend it."""

    name: str = ""
    """Run name: the run directory is ``runs/<name>`` (default: ``<algorithm>-s<seed>-<time>``)."""
    seed: int = 1
    """Seeds Python, NumPy and torch, the rollouts and the learner."""
    runs_dir: str = "runs"
    """Parent directory of the run directories."""
    total_steps: int = 1_000_000
    """Training budget in engine decisions (all seats, all games)."""
    num_envs: int = 512
    """Matches stepped together by each rollout worker."""
    num_steps: int = 32
    """Engine steps per rollout (each worker returns num_envs * num_steps decisions)."""
    reward: str = "hand"
    """"hand": points of each hand minus 1.5 (dense, what the quick preset learns from);
    "match": the zero-sum match result (+1 for the winner, -1/3 for the others)."""
    rules: dict = dataclasses.field(default_factory=dict)
    """Variant flags of RULES.md section 7 (``Rules.from_dict``); empty: the standard game."""
    hidden: list = dataclasses.field(default_factory=lambda: [256, 256])
    """Widths of the observation trunk's layers."""
    learning_rate: float = 3e-4
    """Adam learning rate."""
    snapshot_share: float = 0.0
    """Share of rollout games against a frozen past snapshot of the learner."""
    bot_share: float = 0.0
    """Share of rollout games against rule-based bots (the learner takes one random seat)."""
    bots: list = dataclasses.field(default_factory=lambda: ["random", "greedy", "rule"])
    """Bots for the bot share, as murlan_env.bots.registry specs (repeat a spec to weight it)."""
    snapshot_every: int = 20
    """Iterations between snapshots added to the opponent pool."""
    snapshot_pool: int = 8
    """Most recent snapshots kept in the opponent pool."""
    workers: str = "local"
    """Where rollouts run: "local" (this process), "process" (child processes: rollouts
    overlap the update), or "ray" (Ray actors; set by --ray-address / RAY_ADDRESS)."""
    num_workers: int = 1
    """Rollout workers; each plays num_envs matches."""
    ray_address: str = ""
    """Ray cluster address for workers="ray" ("" starts a local Ray instance)."""
    torch_threads: int = 1
    """Intra-op threads of the learner (workers use one each)."""
    inference: str = "local"
    """Where the learner's forward passes in rollouts run: "local" (each worker on its own
    core) or "server" (one batched server on the learner's device for all process workers;
    agents.inference)."""
    device: str = "auto"
    """Learner device: "cpu", "cuda" or "auto" (cuda when present). Rollouts run on the CPU."""
    precision: str = "auto"
    """Matrix precision of forward and backward passes: "fp32", "bf16" (autocast: float32
    weights, bfloat16 products) or "auto" (bf16 where the device computes it natively)."""
    eval_every: int = 10
    """Iterations between evaluations (0: only at the end)."""
    eval_deals: int = 128
    """Fixed deals per evaluation; each is played with the learner in all four seats."""
    final_eval_deals: int = 0
    """Deals of the evaluation at the end of training (0: eval_deals); more deals, tighter CI."""
    eval_hands: int = 2
    """Hands played per evaluation deal (hand 2 includes the exchange); 0: whole matches,
    which also logs the match win rate."""
    eval_bots: list = dataclasses.field(default_factory=lambda: ["random", "greedy", "rule"])
    """Evaluation opponents, as murlan_env.bots.registry specs."""
    eval_seed: int = 1234
    """Seed of the evaluation deals: keep it fixed so curves compare across runs."""
    init_from: str = ""
    """Fine-tune: start from the weights of this checkpoint (file or run directory; its
    network must have this config's shape) with a fresh optimiser, learning-rate schedule and
    step count, instead of from random weights. Ignored when resuming."""
    checkpoint_every: int = 50
    """Iterations between resumable checkpoints (one is always written at the end)."""
    progress: bool = True
    """Show a progress bar."""


def seed_everything(seed: int) -> np.random.Generator:
    """Seed Python's, NumPy's and torch's generators; return the learner's numpy Generator."""
    import random

    random.seed(seed)
    np.random.seed(seed)  # noqa: NPY002  third-party code may use the global rng
    torch.manual_seed(seed)
    return np.random.default_rng(seed)


def resolve_device(device: str) -> torch.device:
    """ "auto" -> cuda when available, else cpu."""
    if device == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    return torch.device(device)


def run_dir(cfg: CommonConfig) -> Path:
    """The directory of a config's run: ``<runs_dir>/<name>``."""
    return Path(cfg.runs_dir) / cfg.name


class Run:
    """A run directory: resolved config, TensorBoard logs, checkpoints, progress, evaluation."""

    def __init__(self, cfg: CommonConfig, algorithm: str, resumed_step: int = 0) -> None:
        import json
        import time

        from torch.utils.tensorboard import SummaryWriter

        if not cfg.name:
            cfg.name = f"{algorithm}-s{cfg.seed}-{time.strftime('%Y%m%d-%H%M%S')}"
        self.cfg = cfg
        self.dir = run_dir(cfg)
        self.dir.mkdir(parents=True, exist_ok=True)
        resolved = {"algorithm": algorithm, **dataclasses.asdict(cfg)}
        (self.dir / "config.json").write_text(json.dumps(resolved, indent=2) + "\n")
        self.writer = SummaryWriter(str(self.dir))
        self.latest_eval: dict[str, EvalResult] = {}
        self.bar = None
        if cfg.progress:
            from tqdm import tqdm

            self.bar = tqdm(
                total=cfg.total_steps,
                initial=resumed_step,
                unit="dec",
                unit_scale=True,
                dynamic_ncols=True,
                desc=cfg.name,
            )

    def scalars(self, prefix: str, values: dict, step: int) -> None:
        for k, v in values.items():
            if v is not None and np.isfinite(v):
                self.writer.add_scalar(f"{prefix}/{k}", float(v), step)

    def progress(self, n: int, rate: float) -> None:
        if self.bar is None:
            return
        post = {"dec/s": f"{rate:,.0f}"}
        for name, r in self.latest_eval.items():
            post[name] = f"{r.points_per_hand:.2f}±{r.ci95:.2f}"
        self.bar.set_postfix(post, refresh=False)
        self.bar.update(n)

    def evaluate(
        self, policy: nn.Module, step: int, n_deals: int | None = None
    ) -> dict[str, EvalResult]:
        """Evaluate vs every available eval bot; log under eval/<bot>/..."""
        from agents.networks import build_network

        cfg = self.cfg
        # Evaluate a CPU copy: the learner may sit on a GPU, the engine's arrays do not.
        cpu_policy = build_network(policy.spec)
        cpu_policy.load_state_dict(cpu_weights(policy))
        cpu_policy.eval()
        results = {}
        for name in cfg.eval_bots:
            r = evaluate(
                cpu_policy,
                name,
                seed=cfg.eval_seed,
                n_deals=n_deals or cfg.eval_deals,
                n_hands=cfg.eval_hands or None,
                rules=Rules.from_dict(cfg.rules),
            )
            results[name] = r
            self.scalars(
                f"eval/{name}",
                {
                    "points_per_hand": r.points_per_hand,
                    "win_rate": r.win_rate,
                    "ci95": r.ci95,
                    "match_win_rate": r.match_win_rate,
                },
                step,
            )
        self.latest_eval = results
        self.writer.flush()
        return results

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()
        self.writer.close()


def cpu_weights(net: nn.Module) -> dict:
    """A CPU copy of the module's weights (workers never alias the learner's tensors)."""
    return {k: v.detach().to("cpu", copy=True) for k, v in net.state_dict().items()}


def save_checkpoint(path, payload: dict) -> None:
    """Write a checkpoint atomically (a crash never leaves a half-written file)."""
    path = Path(path)
    tmp = path.with_suffix(".tmp")
    torch.save(payload, tmp)
    tmp.replace(path)


def train_loop(cfg: CommonConfig, algorithm: str, learner, resume: str | None = None) -> dict:
    """The loop both trainers share: collect, update, log, snapshot, evaluate, checkpoint.

    ``learner`` provides ``net`` (the policy module, on the learner device), ``settings()``
    (RolloutSettings), ``update(batch) -> dict`` of losses, and ``state_dict()`` /
    ``load_state_dict()`` for what it needs to resume (optimiser, replay, ...).
    Returns the final evaluation results, counters and the time split of the iterations.

    Checkpoints are consistent at any kill: worker states are read right after a rollout
    returns, before the next one starts (with asynchronous workers the learner otherwise
    never sees them idle), and saved with the learner state after it trained on that
    rollout, so a resumed run continues from there with nothing lost. Asynchronous workers
    roll out with the weights from before the update they overlap, so the checkpoint also
    keeps those weights and that snapshot pool (``next_rollout``), and a resumed run starts
    with them: it goes on bit for bit as if it had not stopped.
    """
    import time

    from agents.networks import CHECKPOINT_NAME, checkpoint_path, load_weights
    from agents.workers import make_workers, merge_batches

    counters = {"step": 0, "iteration": 0}
    snapshots: list[dict] = []
    ckpt = None
    if cfg.init_from and not resume:
        load_weights(learner.net, cfg.init_from)
    if resume:
        ckpt = torch.load(checkpoint_path(resume), map_location="cpu", weights_only=False)
        learner.net.load_state_dict(ckpt["model"])
        learner.load_state_dict(ckpt["learner"])
        counters = ckpt["counters"]
        snapshots = ckpt["snapshots"]
        torch.set_rng_state(ckpt["rng"]["torch"])
    run = Run(cfg, algorithm, resumed_step=counters["step"])
    settings = dataclasses.replace(learner.settings(), inference=cfg.inference)
    ray_address = cfg.ray_address or None
    server = None
    if cfg.inference == "server":
        from agents.inference import InferenceServer

        server = InferenceServer(
            learner.net.spec,
            cfg.num_workers,
            cfg.num_envs,
            next(learner.net.parameters()).device,
            getattr(learner, "precision", "fp32"),
        )
    workers = make_workers(
        settings, cfg.workers, cfg.num_workers, cfg.seed * 1000, ray_address, server
    )
    if ckpt is not None:
        for w, st in zip(workers, ckpt["rng"]["workers"], strict=True):
            w.set_state(st)

    def save(worker_states: list[dict]) -> None:
        save_checkpoint(
            run.dir / CHECKPOINT_NAME,
            {
                "spec": learner.net.spec,
                "model": cpu_weights(learner.net),
                "learner": learner.state_dict(),
                "counters": dict(counters),
                "config": {"algorithm": algorithm, **dataclasses.asdict(cfg)},
                "snapshots": snapshots,
                "rng": {"torch": torch.get_rng_state(), "workers": worker_states},
                "next_rollout": next_rollout,
            },
        )

    async_rollout = cfg.workers != "local"
    split = {k: 0.0 for k in ("wait", "transfer", "update", "evaluation", "checkpoint")}

    def current_job() -> dict:
        """What a rollout started now gets: the learner's weights and the snapshot pool."""
        return {"weights": cpu_weights(learner.net), "snapshots": snapshots}

    def submit(job: dict) -> None:
        if server is not None:  # the workers are idle: no request is in flight
            server.load_weights(job["weights"])
        for w in workers:
            w.submit(job["weights"], job["snapshots"])

    # Asynchronous workers: the job the next rollout gets (or would get, once the run ends).
    next_rollout = None
    resumed_job = ckpt.get("next_rollout") if ckpt is not None and async_rollout else None
    submit(resumed_job or current_job())
    results: dict[str, EvalResult] = {}
    t_start = t_last = time.perf_counter()
    rollout_seconds = 0.0
    worker_states = None
    try:
        while counters["step"] < cfg.total_steps:
            t0 = time.perf_counter()
            batches = [w.result() for w in workers]
            t1 = time.perf_counter()
            batch = merge_batches(batches)
            it = counters["iteration"] + 1
            checkpointing = (cfg.checkpoint_every and it % cfg.checkpoint_every == 0) or counters[
                "step"
            ] + batch["stats"]["decisions"] >= cfg.total_steps
            worker_states = [w.get_state() for w in workers] if checkpointing else None
            more = counters["step"] + batch["stats"]["decisions"] < cfg.total_steps
            if async_rollout:  # the next rollout runs while this batch trains
                next_rollout = current_job()
                if more:
                    submit(next_rollout)
            t2 = time.perf_counter()
            losses = learner.update(batch)
            t3 = time.perf_counter()
            if cfg.snapshot_share > 0 and it % cfg.snapshot_every == 0:
                snapshots = (snapshots + [cpu_weights(learner.net)])[-cfg.snapshot_pool :]
            if not async_rollout and more:
                submit(current_job())
            st = batch["stats"]
            counters["step"] += st["decisions"]
            counters["iteration"] += 1
            step = counters["step"]
            rollout_seconds += st["seconds"]
            t4 = time.perf_counter()
            if cfg.eval_every and it % cfg.eval_every == 0 and step < cfg.total_steps:
                results = run.evaluate(learner.net, step)
            t5 = time.perf_counter()
            if checkpointing and step < cfg.total_steps:
                save(worker_states)
            t6 = time.perf_counter()
            split["wait"] += t1 - t0
            split["transfer"] += (t2 - t1) + (t4 - t3)
            split["update"] += t3 - t2
            split["evaluation"] += t5 - t4
            split["checkpoint"] += t6 - t5
            rate = st["decisions"] / max(t6 - t_last, 1e-9)
            t_last = t6
            run.scalars(
                "charts",
                {
                    "decisions_per_s": rate,
                    "rollout_decisions_per_s": st["decisions"] / max(st["seconds"], 1e-9),
                    "engine_share": st["engine_seconds"] / max(st["seconds"], 1e-9),
                    "update_seconds": t3 - t2,
                    "wait_seconds": t1 - t0,
                    "hand_length": st["hand_length"],
                    "points_vs_snapshot": st["points_vs_snapshot"],
                    "points_vs_bots": st["points_vs_bots"],
                    "samples": len(batch["action"]),
                    "return_mean": float(np.mean(batch["return"]))
                    if len(batch["return"])
                    else None,
                },
                step,
            )
            counters["gradient_steps"] = counters.get("gradient_steps", 0) + losses.get(
                "gradient_steps", 0
            )
            run.scalars("losses", losses, step)
            run.progress(st["decisions"], rate)
        t0 = time.perf_counter()
        results = run.evaluate(learner.net, counters["step"], cfg.final_eval_deals or None)
        t1 = time.perf_counter()
        if worker_states is not None:  # else the loop did not run: the checkpoint stands
            save(worker_states)
        split["evaluation"] += t1 - t0
        split["checkpoint"] += time.perf_counter() - t1
    finally:
        for w in workers:
            w.close()
        if server is not None:
            server.close()
        run.close()
    split["total"] = time.perf_counter() - t_start
    split["rollout"] = rollout_seconds
    return {"results": results, "counters": counters, "run_dir": str(run.dir), "split": split}
