"""How reproducible the search's labels are: its overrides of the policy, labelled again.

The labelling search (``expert``'s, on top of the policy being labelled) keeps the policy's
move unless its rollouts find one better by the search margin; those overrides are all a
distillation can learn from. This script takes one run's labelled round (``RUN/round-K``,
``train.py --config distill``), asks a second search with another seed for its move at every
position the first search overrode, and prints how often the second search makes the same
override, keeps the policy's move, or picks a third move, with the first search's value gap
(its best move's mean points over the policy's move's) of each group. It saves the second
labels beside the first (``relabels-seed{S}.npz``: rows, action, values), which
``distill_curve.py --consensus`` reads to fit only the overrides both searches make.

    python benchmarks/label_noise.py runs/curve --seed 7 --workers 2
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np
from tqdm import tqdm

from agents import presets
from agents.config import ConfigError
from agents.distill import (
    bundle_dir,
    label_chunks,
    labelled_round,
    policy_from_bundle,
)
from agents.labelling import save_arrays


def gap(values: np.ndarray, chosen: np.ndarray, played: np.ndarray) -> np.ndarray:
    """Mean points of the chosen move over the played one, per row."""
    rows = np.arange(len(chosen))
    return values[rows, chosen] - values[rows, played]


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("run", type=Path, help="a run of train.py --config distill")
    parser.add_argument("--round", type=int, default=1, help="the labelled round to read")
    parser.add_argument("--seed", type=int, default=7, help="seed of the second search")
    parser.add_argument("--workers", type=int, default=1, help="labelling processes")
    args = parser.parse_args(argv)

    config = json.loads((args.run / "config.json").read_text())
    run_seed = config["seed"]
    config.update(seed=args.seed, label_workers=args.workers, progress=False)
    try:
        _, cfg = presets.build_config(config)
    except ConfigError as e:
        parser.error(str(e))
    if cfg.seed == run_seed:
        parser.error("--seed must differ from the run's seed: the same seed labels alike")
    positions, first, first_values, _ = labelled_round(args.run, args.round)
    played = positions.action.astype(np.int64)
    rows = np.flatnonzero(first != played)
    out = args.run / f"round-{args.round}" / f"relabels-seed{args.seed}.npz"
    if out.exists():
        with np.load(out) as saved:
            second = saved["action"].astype(np.int64)
            rows = saved["rows"]
        seconds = float("nan")
    else:
        net = policy_from_bundle(bundle_dir(cfg.start))
        net.eval()
        t0 = time.perf_counter()
        picked = positions.take(rows)
        size = cfg.label_chunk
        chunks = [np.arange(k, min(rows.size, k + size)) for k in range(0, rows.size, size)]
        with tqdm(total=rows.size, desc="relabel") as bar:
            parts = list(label_chunks(net, cfg, args.round, picked, chunks, bar))
        second = np.concatenate([a for a, _ in parts]).astype(np.int64)
        values = np.concatenate([v for _, v in parts])
        seconds = time.perf_counter() - t0
        save_arrays(out, {"rows": rows, "action": second, "values": values})

    print(
        f"{args.run} round {args.round}: {len(positions)} labelled positions; the first "
        f"search overrode the policy's move at {rows.size} ({rows.size / len(positions):.1%}); "
        f"a second search (seed {args.seed}) labelled those again in {seconds:.0f} s"
    )
    gaps = gap(first_values[rows], first[rows], played[rows])
    groups = {
        "the same override": second == first[rows],
        "the policy's move": second == played[rows],
        "a third move": (second != first[rows]) & (second != played[rows]),
    }
    print("| the second search plays | positions | share | first search's gap, median |")
    print("|---|---|---|---|")
    for name, where in groups.items():
        median = f"{np.median(gaps[where]):.3f}" if where.any() else ""
        print(f"| {name} | {int(where.sum())} | {where.mean():.1%} | {median} |")


if __name__ == "__main__":
    main()
