"""Training throughput: the real training loop of a preset, and where its time goes.

    python -m benchmarks.selfplay                          # the quick preset, end to end
    python -m benchmarks.selfplay --preset ppo --steps 2e6 num_workers=2 device=cpu
    python -m benchmarks.selfplay --components             # per-part rates of each preset
    python -m benchmarks.selfplay --precision              # one update in fp32 and in bf16
    python -m benchmarks.selfplay --beside-openspiel 10    # the quick preset, OpenSpiel around it

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
the bare engine) and the end-to-end rates they imply. ``--precision`` times one learner update
of each preset on the same rollout batch in float32 and in bfloat16, on this machine's CPU,
and says which one ``precision: auto`` picks here and why. ``--beside-openspiel S`` measures
OpenSpiel's dou_dizhu (random play, decisions per second on one core; ``benchmarks/engine.py``'s
row) for S seconds just before and just after the run, so the training rate can be read against
a yardstick measured on the same machine under the same load.
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time

import numpy as np
import torch

from agents import presets
from agents.rollout import SelfPlay
from agents.training import resolve_device
from benchmarks.common import cpu_name
from murlan_env.game import engine


def run_loop(
    preset: str, steps: int | None, overrides: list[str], runs_dir: str | None = None
) -> dict:
    """One real training run of ``preset`` (for ``steps`` decisions, default the preset's
    budget, with ``key=value`` overrides) in ``runs_dir``/bench (default: a temporary folder,
    removed after): its counters, split, resolved config and final evaluation."""
    raw = presets.load_preset(preset)
    raw.update(presets.parse_overrides(overrides))
    if steps is not None:
        raw["total_decisions"] = steps
    with tempfile.TemporaryDirectory() as scratch:
        raw.update(runs_dir=runs_dir or scratch, name="bench", progress=False)
        algorithm, cfg = presets.build_config(raw)
        out = presets.trainer_of(algorithm)(cfg)
    return {
        "preset": preset,
        "decisions": out["counters"]["step"],
        "counters": out["counters"],
        "split": out["split"],
        "config": cfg,
        "results": out["results"],
        "precision": out.get("precision", cfg.precision),
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


def openspiel_rate(seconds: float) -> float:
    """OpenSpiel dou_dizhu's random-play decisions per wall second (``engine.py``'s row)."""
    from benchmarks.engine import measure, openspiel_decisions_runner

    return measure(openspiel_decisions_runner(0), seconds)[0]


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
    algorithm, cfg = presets.build_config(presets.load_preset(preset))
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
        t_roll += batch.stats["seconds"]
        t_engine += batch.stats["engine_seconds"]
        decisions += batch.stats["decisions"]
    t = time.perf_counter()
    learner.update(batch, batch.stats["decisions"])
    t_update = time.perf_counter() - t
    roll_rate = decisions / t_roll
    update_rate = batch.stats["decisions"] / t_update  # decisions one update consumes per s
    return {
        "preset": preset,
        "algorithm": algorithm,
        "device": str(resolve_device(cfg.device)),
        "num_envs": cfg.num_envs,
        "hidden": cfg.hidden,
        "rollout_dec_s": roll_rate,
        "engine_share": t_engine / t_roll,
        "engine_only_dec_s": engine_only(cfg.num_envs, cfg.rollout_steps),
        "update_samples_s": len(batch) / t_update,
        "serial_dec_s": 1.0 / (1.0 / roll_rate + 1.0 / update_rate),
        "overlapped_dec_s": min(roll_rate, update_rate),
    }


def precision_row(preset: str, repeats: int, overrides: tuple[str, ...] | list[str] = ()) -> dict:
    """Median seconds of one learner update of ``preset`` (with ``key=value`` overrides, e.g.
    ``history=attention``) in fp32 and in bf16 on the same rollout batch (each from the same
    fresh learner; the two precisions take turns, so a change in the machine's load reaches
    both), and what ``auto`` chooses here."""
    from agents.networks import resolve_precision

    raw = presets.load_preset(preset)
    raw.update(presets.parse_overrides(list(overrides)))
    algorithm, cfg = presets.build_config(raw)
    cfg.device = "cpu"
    torch.set_num_threads(cfg.torch_threads)
    if algorithm == "ppo":
        from agents.ppo import PPOLearner as Learner
    else:
        from agents.dmc import DMCLearner as Learner
    times: dict[str, list[float]] = {"fp32": [], "bf16": []}
    batch = None
    for _ in range(repeats + 1):  # the first round warms the kernels up
        for precision in times:
            cfg.precision = precision
            torch.manual_seed(cfg.seed)
            learner = Learner(cfg)
            if batch is None:
                selfplay = SelfPlay(learner.settings(), seed=0)
                weights = {k: v.clone() for k, v in learner.net.state_dict().items()}
                batch = selfplay.collect(weights)
            t = time.perf_counter()
            learner.update(batch, batch.stats["decisions"])
            times[precision].append(time.perf_counter() - t)
    seconds = {p: float(np.median(t[1:])) for p, t in times.items()}
    chosen, why = resolve_precision("auto", torch.device("cpu"), seconds.__getitem__)
    return {
        "preset": " ".join([preset, *overrides]),
        "samples": len(batch),
        "fp32_s": seconds["fp32"],
        "bf16_s": seconds["bf16"],
        "auto": chosen,
        "why": why,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0].replace("\n", " ")
        + " Takes about 100 s for the quick preset end to end; --precision and --components "
        "a few minutes.",
        epilog="example: python -m benchmarks.selfplay --preset quick --steps 3e6",
    )
    parser.add_argument("--preset", default="quick", help="preset to run end to end")
    parser.add_argument(
        "--steps", type=float, default=None, help="decisions to train for (default: the preset's)"
    )
    parser.add_argument("--components", action="store_true", help="per-part rates instead")
    parser.add_argument(
        "--precision", action="store_true", help="one update's time in fp32 and bf16 instead"
    )
    parser.add_argument("--repeats", type=int, default=3, help="updates timed (precision)")
    parser.add_argument(
        "--beside-openspiel",
        type=float,
        default=0.0,
        metavar="S",
        help="measure OpenSpiel dou_dizhu for S seconds before and after the run",
    )
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
    if args.precision:
        print(f"CPU: {cpu_name()}, {torch.get_num_threads()} torch threads available")
        print("| preset | samples | fp32 update | bf16 update | bf16 / fp32 | auto picks |")
        print("|---|---|---|---|---|---|")
        why = ""
        for preset in args.presets:
            r = precision_row(preset, args.repeats, args.overrides)
            print(
                f"| {r['preset']} | {r['samples']:,} | {r['fp32_s'] * 1e3:,.0f} ms | "
                f"{r['bf16_s'] * 1e3:,.0f} ms | {r['bf16_s'] / r['fp32_s']:.2f} | {r['auto']} |",
                flush=True,
            )
            why = r["why"]
        print(f"auto: {why}")
        return 0
    steps = None if args.steps is None else int(args.steps)
    yardstick = []
    if args.beside_openspiel:
        yardstick.append(openspiel_rate(args.beside_openspiel))
    r = run_loop(args.preset, steps, args.overrides)
    if args.beside_openspiel:
        yardstick.append(openspiel_rate(args.beside_openspiel))
    print_loop(r)
    print(f"CPU: {cpu_name()}, {os.cpu_count()} cores; learner precision {r['precision']}")
    if yardstick:
        ours = r["decisions"] / r["split"]["total"]
        print(
            f"OpenSpiel dou_dizhu, random play on one core: {yardstick[0]:,.0f} decisions/s "
            f"before, {yardstick[1]:,.0f} after; the run's end-to-end rate is "
            f"{ours / np.mean(yardstick):.2f}x their mean"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
