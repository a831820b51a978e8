"""Positions labelled per CPU second by expert iteration's search, by precision and batch size.

Expert iteration labels positions with the search (``agents.labelling.label_positions``). The
positions are drawn at random from `hard`'s decisions with a choice in one seat against three
rule bots (first two hands of ``--boards`` seeded boards), as a distillation round's are. (The
first decisions recorded are the boards' opening moves, whose short history costs the belief
almost nothing: until 2026-12 this script timed those and reported a third of a real
position's cost.) The search is the one a round labels with (``agents.distill.expert_search``
on `hard`'s weights: the ``expert`` level's search at ``--rollouts`` over ``--candidates``
belief worlds, expert's own 200 and 1,024 by default), its belief and rollouts running the
policy in each ``--precision`` (``label_precision``: float32, or the int8 model of
``murlan_env.bundle.quantize.to_int8``). Each run labels the same positions once per row, with a
fresh search (so no run profits from what the one before remembered), in turn, so the machine's
load falls alike on every row. Times are the process's CPU seconds (one core: the search
runs in one thread), which a shared machine's load inflates far less than wall time; the
table gives the median over the runs, and how often each row chose the same move as the
first row (the random streams differ, so this is the search's own noise, not a bug: two
seeds of one row agree about as often).

With three runs or more it also scores each row's labels as ``label_quality.py`` does: the
*reproducible overrides* are the positions where the first row's runs 1 and 2 both override
the policy's own move with the same move (the overrides worth learning); each row's last run
(a seed neither of them used) is scored by the share of them it finds and by the share of its
own overrides that are among them. These need thousands of positions (about one in 25
carries a reproducible override).

    python benchmarks/labeller.py                     # 48 positions, batch 8, both precisions
    python benchmarks/labeller.py --rollouts 500 --candidates 256 --runs 5   # the preset's
    python benchmarks/labeller.py --precision float32 --batch 1 8 32 --positions 96
    python benchmarks/labeller.py --rollouts 500 --candidates 256 --positions 2400 --boards 64
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import torch

from agents.distill import DistillConfig, bundle_dir, expert_search, policy_from_bundle
from agents.labelling import label_positions, play_positions
from murlan_env.bots import registry


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--positions", type=int, default=48, help="positions labelled per run")
    parser.add_argument("--batch", type=int, nargs="+", default=[8], help="batch sizes")
    parser.add_argument(
        "--precision",
        nargs="+",
        default=["float32", "int8"],
        choices=["float32", "int8"],
        help="the policy's arithmetic in the search's belief and rollouts",
    )
    parser.add_argument("--rollouts", type=int, default=200, help="the search's rollouts")
    parser.add_argument("--candidates", type=int, default=1024, help="belief worlds weighed")
    parser.add_argument("--runs", type=int, default=3, help="runs (the median is reported)")
    parser.add_argument("--boards", type=int, default=32, help="boards played for positions")
    parser.add_argument("--seed", type=int, default=11, help="seed of the boards and sample")
    args = parser.parse_args()
    torch.set_num_threads(1)

    positions = play_positions(
        registry.make_bot("hard"), registry.make_bot("rule"), args.boards, seed=args.seed
    )
    sample = np.random.default_rng(args.seed).permutation(len(positions))[: args.positions]
    positions = positions.take(np.sort(sample))
    net = policy_from_bundle(bundle_dir("ppo-finetune")).eval()
    rows = [(p, b) for p in args.precision for b in args.batch]
    seconds = {row: [] for row in rows}
    moves = {row: [] for row in rows}
    for run in range(args.runs):
        for row in rows:
            precision, batch = row
            cfg = DistillConfig(
                search_rollouts=args.rollouts,
                belief_candidates=args.candidates,
                label_precision=precision,
            )
            search = expert_search(net, cfg)
            t0 = time.process_time()
            actions, _ = label_positions(search, positions, np.random.default_rng(run), batch)
            seconds[row].append(time.process_time() - t0)
            moves[row].append(actions)
    print(
        f"{len(positions)} positions of `hard` against 3 rule bots (hand so far: "
        f"{positions.log_length.mean():.1f} moves on average), {args.rollouts} rollouts over "
        f"{args.candidates} belief worlds, {args.runs} runs, CPU time\n"
    )
    first = "{} batch {}".format(*rows[0])
    played = positions.action.astype(np.int64)
    ref = moves[rows[0]]
    reproducible = (
        (ref[0] != played) & (ref[0] == ref[1]) if args.runs >= 3 else np.zeros(len(played), bool)
    )
    if args.runs >= 3:
        print(
            f"Reproducible overrides ({first}, runs 1 and 2): {reproducible.sum()} of "
            f"{len(played)} positions; each row's labels scored on its run {args.runs}\n"
        )
    print(
        "| precision | batch | positions/CPU s (median) | CPU s/position | runs (CPU s) "
        f"| same move as {first} (run 1) | same move, run 1 vs run 2 | overrides "
        "| finds the reproducible overrides | of its overrides reproducible |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|")
    for row in rows:
        median = float(np.median(seconds[row]))
        same = float((moves[row][0] == ref[0]).mean())
        again = float((moves[row][0] == moves[row][1]).mean()) if args.runs > 1 else float("nan")
        runs = " ".join(f"{s:.1f}" for s in seconds[row])
        last = moves[row][-1]
        overrides = last != played
        found = overrides & reproducible & (last == ref[0])
        finds = found.sum() / reproducible.sum() if reproducible.any() else float("nan")
        scored = overrides.any() and args.runs >= 3
        share = found.sum() / overrides.sum() if scored else float("nan")
        print(
            f"| {row[0]} | {row[1]} | {len(positions) / median:.2f} | "
            f"{median / len(positions):.3f} | {runs} | {same:.0%} | {again:.0%} | "
            f"{overrides.mean():.1%} | {finds:.1%} | {share:.1%} |"
        )


if __name__ == "__main__":
    main()
