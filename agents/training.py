"""What every trainer shares: the run directory and the loop (the configs' shared
parts are in ``agents.config``, the checkpoint format in ``agents.checkpoint``).

A run directory holds the resolved config (``config.json``), the run's log (``train.log``:
what it chose and why, e.g. its precision), TensorBoard logs (``charts/``, ``losses/``,
``eval/``), the resumable checkpoint and the final evaluation; ``TrainLoop`` (``train_loop``)
drives a trainer's learner through rollouts, updates, periodic evaluation
(``agents.evaluation``) and checkpoints, with a progress bar.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import logging
import time
from pathlib import Path
from typing import Protocol

import numpy as np
import torch
from torch import nn

from agents.checkpoint import CHECKPOINT_NAME, Checkpoint
from agents.checkpoint import load as load_checkpoint
from agents.config import ConfigError, RunConfig, SelfPlayConfig, run_name
from agents.evaluation import EvalResult, evaluate
from agents.rollout import Batch, RolloutSettings
from murlan_env.game.rules import Rules

# ---------------------------------------------------------------------- run bookkeeping
# The pieces every trainer shares: the run directory with TensorBoard logs,
# checkpoints and the progress bar, and the evaluation hook (the config: agents.config).


def resolve_device(device: str) -> torch.device:
    """ "auto" -> cuda when available, else cpu; ConfigError for a CUDA device this torch
    cannot reach (a CPU build, or no GPU)."""
    if device == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    out = torch.device(device)
    if out.type == "cuda" and not torch.cuda.is_available():
        build = "a CPU build of torch" if torch.version.cuda is None else "no CUDA device found"
        raise ConfigError(
            f"device {device!r}: {build} (torch {torch.__version__}); use device=cpu or "
            "device=auto, or install a CUDA build of torch"
        )
    if out.type == "cuda" and (out.index or 0) >= torch.cuda.device_count():
        raise ConfigError(
            f"device {device!r}: this machine has {torch.cuda.device_count()} CUDA device(s); "
            "use device=cuda, cuda:0, ... or device=cpu"
        )
    return out


log = logging.getLogger("agents")


def start_run(cfg: RunConfig, algorithm: str, resuming: bool) -> Path:
    """Name the run if it has no name, make its directory and save the resolved config there.

    A directory that holds a run already is refused unless ``resuming`` (ConfigError saying
    how to resume it or pick another name): a run is never overwritten.
    """
    if not cfg.name:
        cfg.name = run_name(algorithm, cfg.seed)
    path = cfg.run_dir()
    if not resuming:
        refuse_existing_run(cfg)
    path.mkdir(parents=True, exist_ok=True)
    resolved = {"algorithm": algorithm, **dataclasses.asdict(cfg)}
    (path / "config.json").write_text(json.dumps(resolved, indent=2) + "\n")
    return path


def refuse_existing_run(cfg: RunConfig) -> None:
    """ConfigError, saying how to resume it or pick another name, when the config's run
    directory holds a run already (a checkpoint: what a run leaves to resume from)."""
    path = cfg.run_dir()
    if cfg.name and (path / CHECKPOINT_NAME).exists():
        raise ConfigError(
            f"{path} holds a run already: resume it (python train.py --resume {path}) or "
            "pick another name=NAME"
        )


@contextlib.contextmanager
def run_log(path: Path):
    """Within the block, the ``agents`` loggers' INFO records are also written to
    ``<path>/train.log`` (what the run chose and why)."""
    handler = logging.FileHandler(path / "train.log")
    handler.setFormatter(logging.Formatter("%(asctime)s %(message)s"))
    level = log.level
    log.addHandler(handler)
    log.setLevel(logging.INFO)
    try:
        yield
    finally:
        log.removeHandler(handler)
        log.setLevel(level)
        handler.close()


class Run:
    """A run directory: resolved config, TensorBoard logs, checkpoints, progress, evaluation;
    every trainer's (the self-play loop's ``TrainLoop`` and distillation's rounds)."""

    def __init__(self, cfg: RunConfig, algorithm: str, resumed_step: int | None = None):
        """``resumed_step``: the step of the checkpoint a resumed run continues from (None:
        a new run, refused where its directory holds one). A self-play run shows a progress
        bar of its decisions (distillation shows one per phase)."""
        from torch.utils.tensorboard import SummaryWriter

        self.cfg, self.algorithm = cfg, algorithm
        self.dir = start_run(cfg, algorithm, resuming=resumed_step is not None)
        self._log = run_log(self.dir)
        self._log.__enter__()
        self.writer = SummaryWriter(str(self.dir))
        self.latest_eval: dict[str, EvalResult] = {}
        self.bar = None
        if cfg.progress and isinstance(cfg, SelfPlayConfig):
            from agents.progress import ProgressBar

            self.bar = ProgressBar(
                total=cfg.total_decisions,
                initial=resumed_step or 0,
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
        cpu_policy = build_network(policy.arch)
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

    def save(self, net: nn.Module, counters: dict, trainer: dict | None = None) -> None:
        """Write the run's checkpoint (``agents.checkpoint``): ``net``'s weights and arch, the
        resolved config, ``counters`` and what the trainer needs to resume (``trainer``)."""
        Checkpoint(
            arch=net.arch,
            model=cpu_weights(net),
            config={"algorithm": self.algorithm, **dataclasses.asdict(self.cfg)},
            counters=dict(counters),
            trainer=trainer or {},
        ).save(self.dir / CHECKPOINT_NAME)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()
        self.writer.close()
        self._log.__exit__(None, None, None)


def cpu_weights(net: nn.Module) -> dict:
    """A CPU copy of the module's weights (workers never alias the learner's tensors)."""
    return {k: v.detach().to("cpu", copy=True) for k, v in net.state_dict().items()}


class Stopwatch:
    """Seconds spent in each phase of the loop: summed over the run (``total``) and for the
    latest time through each phase (``last``)."""

    PHASES = ("wait", "transfer", "update", "evaluation", "checkpoint")

    def __init__(self) -> None:
        self.total = dict.fromkeys(self.PHASES, 0.0)
        self.last = dict.fromkeys(self.PHASES, 0.0)

    @contextlib.contextmanager
    def phase(self, name: str):
        start = time.perf_counter()
        try:
            yield
        finally:
            seconds = time.perf_counter() - start
            self.total[name] += seconds
            self.last[name] = seconds


class Learner(Protocol):
    """What ``TrainLoop`` drives: a network, the rollouts it wants, and its update."""

    net: nn.Module  # the policy (PPO's actor-critic, DMC's Q-network) on the learner device
    precision: str  # "fp32" or "bf16": the arithmetic of its forward and backward passes
    precision_why: str  # why (agents.networks.resolve_precision), for the run's log

    def settings(self) -> RolloutSettings:
        """What the rollout workers play: sizes, opponents, and the algorithm's ``Acting``."""
        ...

    def update(self, batch: Batch, step: int) -> dict[str, float]:
        """Train on one rollout's batch; ``step`` is the run's decision count with it.
        Returns the losses to log (and ``gradient_steps``, the optimiser steps taken)."""
        ...

    def state_dict(self) -> dict:
        """What a resumed run needs besides the weights: optimiser, generators, replay."""
        ...

    def load_state_dict(self, st: dict) -> None: ...


class TrainLoop:
    """The loop both trainers share: collect, update, log, snapshot, evaluate, checkpoint.

    The step count is ``counters["step"]``, decisions rolled out (all seats, all games),
    kept here only; the learner is handed it with each batch.

    Checkpoints are consistent at any kill: worker states are read right after a rollout
    returns, before the next one starts (with asynchronous workers the learner otherwise
    never sees them idle), and saved with the learner state after it trained on that
    rollout, so a resumed run continues from there with nothing lost. Asynchronous workers
    roll out with the weights from before the update they overlap, so the checkpoint also
    keeps those weights and that snapshot pool (``next_rollout``), and a resumed run starts
    with them: it goes on bit for bit as if it had not stopped.
    """

    def __init__(
        self,
        cfg: SelfPlayConfig,
        algorithm: str,
        learner: Learner,
        resume: str | Path | Checkpoint | None = None,
    ):
        from agents.starting_weights import load_weights
        from agents.workers import make_workers

        self.cfg, self.algorithm, self.learner = cfg, algorithm, learner
        self.counters = {"step": 0, "iteration": 0}
        self.snapshots: list[dict] = []  # the opponent pool of frozen past weights
        checkpoint = self._restore(load_checkpoint(resume)) if resume else None
        start = load_weights(learner.net, cfg.init_from) if cfg.init_from and not resume else ""
        self.run = Run(cfg, algorithm, self.counters["step"] if resume else None)
        if start:
            log.info(f"starting from {start}")
        why = getattr(learner, "precision_why", "")
        log.info(f"precision: {getattr(learner, 'precision', 'fp32')} ({why})")
        self.server = self._inference_server() if cfg.inference == "server" else None
        settings = dataclasses.replace(learner.settings(), inference=cfg.inference)
        self.workers = make_workers(
            settings,
            cfg.workers,
            cfg.num_workers,
            cfg.seed,
            cfg.ray_address or None,
            self.server,
        )
        if checkpoint is not None:
            for worker, st in zip(self.workers, checkpoint.trainer["rng"]["workers"], strict=True):
                worker.set_state(st)
        # Asynchronous workers roll out while the learner updates on the previous batch.
        self.async_rollout = cfg.workers != "local"
        # The job the next rollout gets (or would get, had the run not ended): async only.
        self.next_rollout = None
        self.worker_states: list[dict] | None = None  # read for the next checkpoint
        self.results: dict[str, EvalResult] = {}
        self.clock = Stopwatch()
        self.rollout_seconds = 0.0  # the workers' own time, summed over the batches
        self.iteration_end = 0.0  # when the previous iteration ended (for decisions/s)
        resumed_job = (
            checkpoint.trainer.get("next_rollout") if checkpoint and self.async_rollout else None
        )
        self._submit(resumed_job or self._current_job())

    def _restore(self, ckpt: Checkpoint) -> Checkpoint:
        """Load a checkpoint's weights, learner state, counters, pool and torch generator."""
        self.learner.net.load_state_dict(ckpt.model)
        self.learner.load_state_dict(ckpt.trainer["learner"])
        self.counters = dict(ckpt.counters)
        self.snapshots = ckpt.trainer["snapshots"]
        torch.set_rng_state(ckpt.trainer["rng"]["torch"])
        return ckpt

    def _inference_server(self):
        from agents.inference import InferenceServer

        net = self.learner.net
        return InferenceServer(
            net.arch,
            self.cfg.num_workers,
            self.cfg.num_envs,
            next(net.parameters()).device,
            getattr(self.learner, "precision", "fp32"),
        )

    # ------------------------------------------------------------------ the loop

    def train(self) -> dict:
        """Train to ``total_decisions``, evaluate, save; returns the final evaluation results,
        counters, run directory, the time split of the iterations and the precision."""
        start = time.perf_counter()
        self.iteration_end = start
        try:
            while self.counters["step"] < self.cfg.total_decisions:
                self._iteration()
            self._finish()
        finally:
            self._close()
        split = dict(self.clock.total)
        split["total"] = time.perf_counter() - start
        split["rollout"] = self.rollout_seconds
        return {
            "results": self.results,
            "counters": self.counters,
            "run_dir": str(self.run.dir),
            "split": split,
            "precision": getattr(self.learner, "precision", "fp32"),
        }

    def _iteration(self) -> None:
        """One batch: wait for the rollouts, start the next ones, update, evaluate, save."""
        cfg, clock = self.cfg, self.clock
        with clock.phase("wait"):
            batches = [worker.result() for worker in self.workers]
        with clock.phase("transfer"):
            batch = Batch.concat(batches)
            stats = batch.stats
            iteration = self.counters["iteration"] + 1
            step = self.counters["step"] + stats["decisions"]
            last = step >= cfg.total_decisions
            checkpointing = last or bool(
                cfg.checkpoint_every and iteration % cfg.checkpoint_every == 0
            )
            self.worker_states = [w.get_state() for w in self.workers] if checkpointing else None
            if self.async_rollout:  # the next rollout runs while this batch trains
                self.next_rollout = self._current_job()
                if not last:
                    self._submit(self.next_rollout)
        with clock.phase("update"):
            losses = self.learner.update(batch, step)
        with clock.phase("transfer"):
            if cfg.snapshot_share > 0 and iteration % cfg.snapshot_every == 0:
                pool = self.snapshots + [cpu_weights(self.learner.net)]
                self.snapshots = pool[-cfg.snapshot_pool :]
            if not self.async_rollout and not last:
                self._submit(self._current_job())
            self.counters["step"], self.counters["iteration"] = step, iteration
            self.counters["gradient_steps"] = self.counters.get("gradient_steps", 0) + losses.get(
                "gradient_steps", 0
            )
            self.rollout_seconds += stats["seconds"]
        with clock.phase("evaluation"):
            if cfg.eval_every and iteration % cfg.eval_every == 0 and not last:
                self.results = self.run.evaluate(self.learner.net, step)
        with clock.phase("checkpoint"):
            if checkpointing and not last:
                self._save()
        self._log(batch, losses, step)

    def _finish(self) -> None:
        """The final evaluation (with ``final_eval_deals``) and checkpoint."""
        with self.clock.phase("evaluation"):
            step, deals = self.counters["step"], self.cfg.final_eval_deals or None
            self.results = self.run.evaluate(self.learner.net, step, deals)
        with self.clock.phase("checkpoint"):
            if self.worker_states is not None:  # else no iteration ran: the checkpoint stands
                self._save()

    def _log(self, batch: Batch, losses: dict, step: int) -> None:
        """TensorBoard scalars of an iteration (charts/, losses/) and the progress bar."""
        stats = batch.stats
        now = time.perf_counter()
        rate = stats["decisions"] / max(now - self.iteration_end, 1e-9)
        self.iteration_end = now
        rollout_seconds = max(stats["seconds"], 1e-9)
        returns = batch.returns
        self.run.scalars(
            "charts",
            {
                "decisions_per_s": rate,
                "rollout_decisions_per_s": stats["decisions"] / rollout_seconds,
                "engine_share": stats["engine_seconds"] / rollout_seconds,
                "update_seconds": self.clock.last["update"],
                "wait_seconds": self.clock.last["wait"],
                "hand_length": stats["hand_length"],
                "points_vs_snapshot": stats["points_vs_snapshot"],
                "points_vs_bots": stats["points_vs_bots"],
                "samples": len(batch),
                "return_mean": float(np.mean(returns)) if len(returns) else None,
            },
            step,
        )
        self.run.scalars("losses", losses, step)
        self.run.progress(stats["decisions"], rate)

    # ------------------------------------------------------------------ workers, checkpoints

    def _current_job(self) -> dict:
        """What a rollout started now gets: the learner's weights and the snapshot pool."""
        return {"weights": cpu_weights(self.learner.net), "snapshots": self.snapshots}

    def _submit(self, job: dict) -> None:
        if self.server is not None:  # the workers are idle: no request is in flight
            self.server.load_weights(job["weights"])
        for worker in self.workers:
            worker.submit(job["weights"], job["snapshots"])

    def _save(self) -> None:
        trainer = {
            "learner": self.learner.state_dict(),
            "snapshots": self.snapshots,
            "rng": {"torch": torch.get_rng_state(), "workers": self.worker_states},
            "next_rollout": self.next_rollout,
        }
        self.run.save(self.learner.net, self.counters, trainer)

    def _close(self) -> None:
        for worker in self.workers:
            worker.close()
        if self.server is not None:
            self.server.close()
        self.run.close()


def train_loop(
    cfg: SelfPlayConfig,
    algorithm: str,
    learner: Learner,
    resume: str | Path | Checkpoint | None = None,
) -> dict:
    """Train ``learner`` under ``cfg`` (see ``TrainLoop``); returns the final evaluation
    results, counters, run directory and the time split of the iterations."""
    return TrainLoop(cfg, algorithm, learner, resume).train()
