"""Time to strength: how long a preset trains until its policy is as strong as asked.

    python -m benchmarks.time_to_strength            # quick, 3 seeds: 1.95 vs greedy, 1.25 vs rule
    python -m benchmarks.time_to_strength --preset ppo --seeds 1 2 3 --greedy 2.3 --rule 1.5
    python -m benchmarks.time_to_strength --steps 3e6 eval_every=25    # key=value as train.py

Each seed trains the preset as ``python train.py`` does (``benchmarks.selfplay.run_loop``: its
workers, updates, evaluations and checkpoints), in a temporary folder. The preset's own
evaluation, points a hand on duplicate deals against three greedy and against three rule bots
(``eval_deals`` boards every ``eval_every`` iterations, ``final_eval_deals`` at the end), is read
back from the run's TensorBoard events with the time each was logged. The time to strength is
the wall time from the run's start to the first evaluation that scores at least ``--greedy``
against greedy and ``--rule`` against rule: everything the run did until then counts. A seed
that never gets there reads "not reached".

Beside it: the decisions trained by then, the final evaluation (its interval is the one to
trust: a periodic evaluation plays few boards, so "first reached" is read off a noisy curve),
decisions per second end to end, and the update's and the rollout's shares of the wall time
(they overlap when the rollouts run in another process). The summary gives the median over the
seeds that got there. Takes about two and a half minutes a seed for the quick preset.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

from benchmarks.common import cpu_name, markdown_table
from benchmarks.learning_curve import read_curves
from benchmarks.selfplay import run_loop


def first_reached(curves: dict, targets: dict[str, float]) -> int | None:
    """Index of the first evaluation at which every bot of ``targets`` is held to at least
    its target (the curves' evaluations share their steps), or None."""
    missing = [bot for bot in targets if bot not in curves]
    if missing:
        raise ValueError(f"the run evaluates no {', '.join(missing)}: add it to eval_bots")
    steps = curves[next(iter(targets))]["step"]
    for i in range(len(steps)):
        if all(curves[bot]["points"][i] >= target for bot, target in targets.items()):
            return i
    return None


def one_seed(preset: str, seed: int, steps: int | None, overrides: list[str], targets) -> dict:
    """One training run of ``preset`` with ``seed``: when it first reached ``targets``, its
    final evaluation, its rate and its split."""
    with tempfile.TemporaryDirectory() as runs:
        start = time.time()
        r = run_loop(preset, steps, [*overrides, f"seed={seed}"], runs_dir=runs)
        wall = time.time() - start
        curves = read_curves(Path(runs) / "bench")
    first = first_reached(curves, targets)
    bot = next(iter(targets))
    split, total = r["split"], r["split"]["total"]
    return {
        "seed": seed,
        "seconds": None if first is None else curves[bot]["wall_time"][first] - start,
        "decisions": None if first is None else curves[bot]["step"][first],
        "final": {name: r["results"][name] for name in targets},
        "rate": r["decisions"] / total,
        "update_share": split["update"] / total,
        "rollout_share": split["rollout"] / total,
        "wall": wall,  # from the same start as "seconds": the run's set-up included
    }


def row(run: dict) -> list[str]:
    reached = run["seconds"] is not None
    final = [f"{res.points_per_hand:.3f} ± {res.ci95:.3f}" for res in run["final"].values()]
    return [
        str(run["seed"]),
        f"{run['seconds']:.1f} s" if reached else "not reached",
        f"{run['decisions']:,}" if reached else "-",
        f"{run['wall']:.1f} s",
        *final,
        f"{run['rate']:,.0f}",
        f"{run['update_share']:.0%}",
        f"{run['rollout_share']:.0%}",
    ]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0].replace("\n", " ")
        + " About two and a half minutes a seed for the quick preset.",
        epilog="example: python -m benchmarks.time_to_strength --preset quick --seeds 1 2 3",
    )
    parser.add_argument("--preset", default="quick", help="preset to train (default quick)")
    parser.add_argument("--seeds", type=int, nargs="+", default=[1, 2, 3], help="one run each")
    parser.add_argument(
        "--greedy", type=float, default=1.95, help="points a hand to reach against greedy bots"
    )
    parser.add_argument(
        "--rule", type=float, default=1.25, help="points a hand to reach against rule bots"
    )
    parser.add_argument(
        "--steps", type=float, default=None, help="decisions to train for (default: the preset's)"
    )
    parser.add_argument("overrides", nargs="*", help="key=value config overrides, as train.py")
    args = parser.parse_args(argv)
    targets = {"greedy": args.greedy, "rule": args.rule}
    steps = None if args.steps is None else int(args.steps)
    runs = []
    for seed in args.seeds:
        runs.append(one_seed(args.preset, seed, steps, args.overrides, targets))
        print(f"seed {seed}: done in {runs[-1]['wall']:.0f} s", flush=True)
    goal = f">= {args.greedy:g} vs greedy and >= {args.rule:g} vs rule"
    header = ["seed", f"first at {goal}", "decisions then", "whole run"]
    header += ["end vs greedy", "end vs rule", "decisions/s", "update share", "rollout share"]
    print(markdown_table(header, [row(r) for r in runs]))
    reached = [r["seconds"] for r in runs if r["seconds"] is not None]
    median = f"median {statistics.median(reached):.1f} s" if reached else "no median"
    print(f"{args.preset}: {goal} reached by {len(reached)} of {len(runs)} seeds, {median}")
    print(f"CPU: {cpu_name()}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
