"""What cheaper labels cost in quality: smaller searches against two searches that agree.

A distillation learns only from the search's overrides of the policy, and only the overrides
a search makes again are worth learning (``label_noise.py``). This script takes a labelled
round that ``label_noise.py`` has labelled twice (``RUN/round-K``: the run's labels and
``relabels-seed{S}.npz``) and sorts its positions into three groups: *reproducible
overrides* (both searches played the same move, not the policy's), *one-off overrides*
(the first search overrode, the second did not repeat it) and *keeps* (the first search
played the policy's move; a sample of ``--keeps`` of them). It labels every position of the
three groups again with the run's search at each ``--budgets`` (``R`` rollouts, or
``R:C`` also with ``C`` belief candidates: uniform worlds the hand's history weighs) and
prints, per budget: CPU seconds a position (this process, one thread, after a warm-up that
compiles the engine; run budgets in separate processes to use more cores), the share of
reproducible overrides it finds (the same move), how often it overrides in the other groups,
and over all the round's positions (each group weighed by its share) how many overrides it
makes and what share of them are reproducible ones.

    python benchmarks/label_quality.py runs/r1000 --budgets 200 200:256 50:256 --keeps 600
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np
import torch
from tqdm import tqdm

from agents import presets
from agents.config import ConfigError
from agents.distill import bundle_dir, expert_search, labelled_round, policy_from_bundle
from agents.labelling import label_positions


def groups(first, second_rows, second, played, keeps: int, rng) -> dict[str, np.ndarray]:
    """Rows of the three groups (module docstring); every keep when ``keeps`` exceeds them."""
    repeat = second == first[second_rows]
    kept = np.flatnonzero(first == played)
    return {
        "reproducible overrides": second_rows[repeat],
        "one-off overrides": second_rows[~repeat],
        "keeps": np.sort(rng.permutation(kept)[: min(keeps, kept.size)]),
    }


def budget(text: str) -> tuple[int, int | None]:
    """``R`` or ``R:C`` as (rollouts, candidates or None: the run's)."""
    rollouts, _, candidates = text.partition(":")
    try:
        return int(rollouts), int(candidates) if candidates else None
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected R or R:C (integers), got {text!r}") from None


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("run", type=Path, help="a run of train.py --config distill")
    parser.add_argument("--round", type=int, default=1, help="the labelled round to read")
    parser.add_argument(
        "--relabels", type=int, default=7, help="seed of label_noise.py's second labels"
    )
    parser.add_argument(
        "--budgets",
        type=budget,
        nargs="+",
        default=[(200, None), (200, 256), (50, 256)],
        help="searches to label with: R rollouts or R:C with C belief candidates",
    )
    parser.add_argument("--keeps", type=int, default=600, help="keeps sampled (module doc)")
    parser.add_argument("--seed", type=int, default=11, help="seed of the searches and sample")
    args = parser.parse_args(argv)

    config = json.loads((args.run / "config.json").read_text())
    if args.seed in (config["seed"], args.relabels):
        parser.error("--seed must differ from the run's and the relabels' seeds")
    relabels = args.run / f"round-{args.round}" / f"relabels-seed{args.relabels}.npz"
    if not relabels.is_file():
        parser.error(f"{relabels} is missing: run benchmarks/label_noise.py on the run first")
    config.update(seed=args.seed, label_workers=1, progress=False)
    positions, first, _, _ = labelled_round(args.run, args.round)
    played = positions.action.astype(np.int64)
    with np.load(relabels) as saved:
        second_rows, second = saved["rows"], saved["action"].astype(np.int64)
    rng = np.random.default_rng(args.seed)
    rows = groups(first, second_rows, second, played, args.keeps, rng)
    n_kept = int((first == played).sum())
    # Each group's share of the round: what its rows stand for over all positions.
    weight = {
        "reproducible overrides": rows["reproducible overrides"].size / len(positions),
        "one-off overrides": rows["one-off overrides"].size / len(positions),
        "keeps": n_kept / len(positions),
    }
    every = np.concatenate(list(rows.values()))
    picked = positions.take(every)
    torch.set_num_threads(1)
    net = policy_from_bundle(bundle_dir(config["start"]))
    net.eval()
    print(
        f"{args.run} round {args.round} (labelled twice with {config['search_rollouts']} "
        f"rollouts over {config['belief_candidates']} worlds): {len(positions)} positions; "
        + ", ".join(f"{k} {v.size} ({weight[k]:.1%})" for k, v in rows.items())
        + f" (keeps: {rows['keeps'].size} sampled of {n_kept})\n"
    )
    print(
        "| rollouts | belief candidates | CPU s/position | finds the reproducible overrides "
        "| overrides one-off / keeps | overrides, share of all positions | of them reproducible |"
    )
    print("|---|---|---|---|---|---|---|")
    for rollouts, candidates in args.budgets:
        settings = dict(config, search_rollouts=rollouts)  # the run's, but for the budget
        if candidates is not None:
            settings["belief_candidates"] = candidates
        try:
            _, cfg = presets.build_config(settings)
        except ConfigError as e:
            parser.error(str(e))
        search = expert_search(net, cfg)
        gen = np.random.default_rng([args.seed, rollouts, cfg.belief_candidates])
        warm = picked.take(np.arange(min(cfg.label_batch, len(picked))))
        label_positions(search, warm, gen)  # compiles the engine's kernels, untimed
        t0 = time.process_time()
        desc = f"{rollouts}:{cfg.belief_candidates}"
        with tqdm(total=len(picked), desc=desc, leave=False) as bar:
            chosen, _ = label_positions(search, picked, gen, cfg.label_batch, bar.update)
        seconds = (time.process_time() - t0) / len(picked)
        chosen = chosen.astype(np.int64)
        overrides = chosen != played[every]
        start = 0
        rate, same = {}, {}
        for name, r in rows.items():
            part = slice(start, start + r.size)
            start += r.size
            rate[name] = float(overrides[part].mean()) if r.size else float("nan")
            same[name] = float((chosen[part] == first[r]).mean()) if r.size else float("nan")
        total = sum(weight[k] * rate[k] for k in rows)
        true = weight["reproducible overrides"] * same["reproducible overrides"]
        print(
            f"| {rollouts} | {cfg.belief_candidates} | {seconds:.3f} "
            f"| {same['reproducible overrides']:.1%} "
            f"| {rate['one-off overrides']:.1%} / {rate['keeps']:.1%} | {total:.1%} "
            f"| {true / total if total else float('nan'):.0%} |",
            flush=True,
        )


if __name__ == "__main__":
    main()
