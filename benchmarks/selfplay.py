"""Training throughput: the real training loop of a preset, and where its time goes.

    python benchmarks/selfplay.py                          # the quick preset, end to end
    python benchmarks/selfplay.py --preset ppo --steps 2e6 num_workers=2 device=cpu
    python benchmarks/selfplay.py --components             # per-part rates of each preset

The default mode runs ``agents.training.train_loop`` exactly as ``python train.py`` does
(rollout workers, learner updates, periodic and final evaluation, checkpoints), for
``--steps`` decisions, and prints decisions per second end to end with the split of the
wall time:

- rollout: seconds the workers spent collecting (in parallel with the learner when they run
  in processes, so it overlaps the rows below);
- wait: the learner idle, waiting for a rollout;
- transfer: the learner reading rollouts (shared memory, merging workers) and handing out
  weights;
- update, evaluation, checkpoint: the learner's own work.

"Outside rollout and update" is everything the learner does besides updating and waiting
for rollouts: per iteration, transfer and checkpoints as a share of the iterations' time (the
wall time less evaluation); with evaluation, as a share of the wall time. The final
evaluation's results close the report.

``--components`` measures the parts on their own instead (one collect call, one update,
the bare engine) and the end-to-end rates they imply.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import torch

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import train  # noqa: E402
from agents.rollout import SelfPlay  # noqa: E402
from agents.training import resolve_device  # noqa: E402
from murlan_env.game import engine  # noqa: E402


def run_loop(preset: str, steps: int | None, overrides: list[str]) -> dict:
    """One real training run of ``preset`` (for ``steps`` decisions, default the preset's
    budget, with ``key=value`` overrides) in a temporary run directory: its counters, split,
    resolved config and final evaluation."""
    raw = train.load_preset(preset)
    raw.update(train.parse_overrides(overrides))
    if steps is not None:
        raw["total_steps"] = steps
    with tempfile.TemporaryDirectory() as runs:
        raw.update(runs_dir=runs, name="bench", progress=False)
        algorithm, cfg = train.build_config(raw)
        _, train_fn = train.trainer_of(algorithm)
        out = train_fn(cfg)
    return {
        "preset": preset,
        "decisions": out["counters"]["step"],
        "counters": out["counters"],
        "split": out["split"],
        "config": cfg,
        "results": out["results"],
    }


def print_loop(r: dict) -> None:
    s, total = r["split"], r["split"]["total"]
    cfg = r["config"]
    print(
        f"{r['preset']}: {r['decisions']:,} decisions in {total:.1f} s = "
        f"{r['decisions'] / total:,.0f} decisions/s end to end "
        f"({cfg.workers} x{cfg.num_workers} workers, B={cfg.num_envs}, hidden={cfg.hidden})"
    )
    print(f"{'part':<12}{'seconds':>9}{'share':>8}")
    for name in ("rollout", "wait", "transfer", "update", "evaluation", "checkpoint"):
        print(f"{name:<12}{s[name]:>9.2f}{s[name] / total:>8.1%}")
    per_iteration = s["transfer"] + s["checkpoint"]
    iterations = total - s["evaluation"]
    print(
        f"per iteration, outside rollout and update: {per_iteration:.2f} s = "
        f"{per_iteration / iterations:.1%} of the iterations' {iterations:.1f} s"
    )
    outside = per_iteration + s["evaluation"]
    print(f"with evaluation: {outside:.2f} s = {outside / total:.1%} of the wall time")
    for result in r.get("results", {}).values():
        print(result.line())


def engine_only(batch: int, steps: int, seed: int = 0) -> float:
    """Decisions/s of the bare engine with random legal actions and observations."""
    rng = np.random.default_rng(seed)
    state = engine.init(rng, batch)
    t = time.perf_counter()
    for _ in range(steps):
        mask = engine.legal_action_mask(state)
        engine.observe(state)
        state = engine.step(state, engine.random_legal_actions(mask, rng), rng=rng, donate=True)
        state = engine.new_matches(state, state.done, rng, donate=True)
    return batch * steps / (time.perf_counter() - t)


def components(preset: str, rollouts: int) -> dict:
    """Rates of one preset's parts on their own: collect, update and the bare engine."""
    algorithm, cfg = train.build_config(train.load_preset(preset))
    cfg.device = "cpu"
    torch.set_num_threads(1)
    if algorithm == "ppo":
        from agents.ppo import PPOLearner as Learner
    else:
        from agents.dmc import DMCLearner as Learner
    learner = Learner(cfg)
    selfplay = SelfPlay(learner.settings(), seed=0)
    weights = {k: v.clone() for k, v in learner.net.state_dict().items()}
    selfplay.collect(weights)  # warm-up
    t_roll = t_engine = 0.0
    decisions = 0
    for _ in range(rollouts):
        batch = selfplay.collect(weights)
        t_roll += batch["stats"]["seconds"]
        t_engine += batch["stats"]["engine_seconds"]
        decisions += batch["stats"]["decisions"]
    t = time.perf_counter()
    learner.update(batch)
    t_update = time.perf_counter() - t
    roll_rate = decisions / t_roll
    update_rate = batch["stats"]["decisions"] / t_update  # decisions one update consumes per s
    return {
        "preset": preset,
        "algorithm": algorithm,
        "device": str(resolve_device(cfg.device)),
        "num_envs": cfg.num_envs,
        "hidden": cfg.hidden,
        "rollout_dec_s": roll_rate,
        "engine_share": t_engine / t_roll,
        "engine_only_dec_s": engine_only(cfg.num_envs, cfg.num_steps),
        "update_samples_s": len(batch["action"]) / t_update,
        "serial_dec_s": 1.0 / (1.0 / roll_rate + 1.0 / update_rate),
        "overlapped_dec_s": min(roll_rate, update_rate),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0],
        epilog="example: python benchmarks/selfplay.py --preset quick --steps 3e6",
    )
    parser.add_argument("--preset", default="quick", help="preset to run end to end")
    parser.add_argument(
        "--steps", type=float, default=None, help="decisions to train for (default: the preset's)"
    )
    parser.add_argument("--components", action="store_true", help="per-part rates instead")
    parser.add_argument("--presets", nargs="+", default=["quick", "ppo", "dmc"])
    parser.add_argument("--rollouts", type=int, default=2, help="collect calls (components)")
    parser.add_argument("overrides", nargs="*", help="key=value config overrides")
    args = parser.parse_args(argv)
    if args.components:
        for preset in args.presets:
            r = components(preset, args.rollouts)
            print(
                f"{r['preset']:>6} ({r['algorithm']}, B={r['num_envs']}, hidden={r['hidden']}): "
                f"rollout {r['rollout_dec_s']:,.0f} dec/s (engine {r['engine_share']:.0%}; "
                f"engine alone {r['engine_only_dec_s']:,.0f}), update "
                f"{r['update_samples_s']:,.0f} samples/s -> serial {r['serial_dec_s']:,.0f}, "
                f"overlapped {r['overlapped_dec_s']:,.0f} dec/s",
                flush=True,
            )
        return 0
    steps = None if args.steps is None else int(args.steps)
    print_loop(run_loop(args.preset, steps, args.overrides))
    return 0


if __name__ == "__main__":
    sys.exit(main())
