"""Self-play throughput with the policy in the loop, per trainer preset.

    python benchmarks/selfplay.py                       # presets quick, ppo, dmc
    python benchmarks/selfplay.py --presets quick --threads 1 2 --rollouts 3

For each preset (its batch size, network and opponents) it reports:
- rollout decisions/s: ``SelfPlay.collect`` (engine + batched forward passes + bookkeeping),
  and the engine's share of that time;
- engine-only decisions/s at the same batch size (random legal actions, no network);
- learner samples/s: one ``update`` on the collected batch;
- the implied end-to-end rate, serial (one process: rollout then update) and overlapped (a
  process worker rolls out while the learner updates: the slower of the two sets the pace).
Numbers depend on the machine's load; run it on idle cores.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
import torch

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import train  # noqa: E402
from agents.rollout import SelfPlay  # noqa: E402
from murlan_env import engine  # noqa: E402


def engine_only(batch: int, steps: int, seed: int = 0) -> float:
    """Decisions/s of the bare engine with random legal actions."""
    rng = np.random.default_rng(seed)
    state = engine.init(rng, batch)
    t = time.perf_counter()
    for _ in range(steps):
        mask = engine.legal_action_mask(state)
        engine.observe(state)
        state = engine.step(state, engine.random_legal_actions(mask, rng))
        state = engine.next_hand(state, rng)
        if state.done.any():
            state = engine.init(rng, batch)
    return batch * steps / (time.perf_counter() - t)


def bench_preset(preset: str, threads: int, rollouts: int) -> dict:
    algorithm, cfg = train.build_config(train.load_preset(preset))
    cfg.device = "cpu"
    torch.set_num_threads(threads)
    _, _ = train.trainer_of(algorithm)
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
    batch = None
    for _ in range(rollouts):
        batch = selfplay.collect(weights)
        t_roll += batch["stats"]["seconds"]
        t_engine += batch["stats"]["engine_seconds"]
        decisions += batch["stats"]["decisions"]
    t = time.perf_counter()
    learner.update(batch)
    t_update = time.perf_counter() - t
    per_rollout = batch["stats"]["decisions"]
    roll_rate = decisions / t_roll
    update_rate = per_rollout / t_update  # decisions whose samples one update consumes per s
    return {
        "preset": preset,
        "algorithm": algorithm,
        "threads": threads,
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
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--presets", nargs="+", default=["quick", "ppo", "dmc"])
    parser.add_argument("--threads", nargs="+", type=int, default=[1])
    parser.add_argument("--rollouts", type=int, default=2)
    args = parser.parse_args(argv)
    for preset in args.presets:
        for threads in args.threads:
            r = bench_preset(preset, threads, args.rollouts)
            print(
                f"{r['preset']:>6} ({r['algorithm']}, B={r['num_envs']}, hidden={r['hidden']}, "
                f"threads={threads}): rollout {r['rollout_dec_s']:,.0f} dec/s "
                f"(engine {r['engine_share']:.0%}; engine alone {r['engine_only_dec_s']:,.0f}), "
                f"update {r['update_samples_s']:,.0f} samples/s -> "
                f"serial {r['serial_dec_s']:,.0f}, overlapped {r['overlapped_dec_s']:,.0f} dec/s",
                flush=True,
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
