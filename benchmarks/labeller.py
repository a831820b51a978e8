"""Positions labelled per second by the ``expert`` search, one position per call and batched.

Expert iteration labels positions with the search (``agents.labelling.label_positions``). The
positions are drawn at random from `hard`'s decisions with a choice in one seat against three
rule bots (first two hands of ``--boards`` seeded boards), as a distillation round's are. (The
first decisions recorded are the boards' opening moves, whose short history costs the belief
almost nothing: until 2026-12 this script timed those and reported a third of a real
position's cost.) Each run labels the same positions once per batch size, with a fresh
``expert`` (so no run profits from what the one before remembered), in turn, so the machine's
load falls alike on every row. Times are the process's CPU seconds (one core: the search
runs in one thread), which a shared machine's load inflates far less than wall time; the
table gives the median over the runs, and how often each
batch size chose the same move as one position per call (the random streams differ, so
this is the search's own noise, not a bug: two seeds of one batch size agree as often).

    python benchmarks/labeller.py                     # 48 positions, batch 1 and 32, 3 runs
    python benchmarks/labeller.py --positions 96 --batch 1 8 32 64 --runs 5
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from agents.labelling import label_positions, play_positions
from murlan_env.bots import registry


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--positions", type=int, default=48, help="positions labelled per run")
    parser.add_argument("--batch", type=int, nargs="+", default=[1, 32], help="batch sizes")
    parser.add_argument("--runs", type=int, default=3, help="runs (the median is reported)")
    parser.add_argument("--boards", type=int, default=32, help="boards played for positions")
    parser.add_argument("--seed", type=int, default=11, help="seed of the boards and sample")
    args = parser.parse_args()

    positions = play_positions(
        registry.make_bot("hard"), registry.make_bot("rule"), args.boards, seed=args.seed
    )
    sample = np.random.default_rng(args.seed).permutation(len(positions))[: args.positions]
    positions = positions.take(np.sort(sample))
    seconds = {b: [] for b in args.batch}
    moves = {}
    for run in range(args.runs):
        for b in args.batch:
            expert = registry.make_bot("expert")
            t0 = time.process_time()
            actions, _ = label_positions(expert, positions, np.random.default_rng(run), b)
            seconds[b].append(time.process_time() - t0)
            moves.setdefault(b, []).append(actions)
    base = args.batch[0]
    print(
        f"{len(positions)} positions of `hard` against 3 rule bots (hand so far: "
        f"{positions.log_length.mean():.1f} moves on average), {args.runs} runs, CPU time\n"
    )
    print(
        "| batch | positions/CPU s (median) | CPU s/position | runs (CPU s) "
        f"| same move as batch {base} (run 1) | same move, run 1 vs run 2 |"
    )
    print("|---|---|---|---|---|---|")
    for b in args.batch:
        median = float(np.median(seconds[b]))
        same = float((moves[b][0] == moves[base][0]).mean())
        again = float((moves[b][0] == moves[b][1]).mean()) if args.runs > 1 else float("nan")
        runs = " ".join(f"{s:.1f}" for s in seconds[b])
        print(
            f"| {b} | {len(positions) / median:.2f} | {median / len(positions):.3f} | {runs} "
            f"| {same:.0%} | {again:.0%} |"
        )


if __name__ == "__main__":
    main()
