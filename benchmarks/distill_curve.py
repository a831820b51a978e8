"""Labelled positions against strength: the distillation's learning curve from one run's labels.

Expert iteration fits the policy to the search's moves (``agents/distill.py``). Whether that
can lift the bare policy depends on how the fit improves with more labels, so this script
takes one run's labelled round (``RUN/round-K``; with a run still labelling, the positions
labelled so far), keeps the round's held-out positions aside, and fits the run's start
policy afresh to growing nested subsets of the other positions (a seeded shuffle, so each
subset holds the one before it and mixes self-play and games against the rule bots alike).
For each size it prints the policy's agreement with the search on the fitted and on the
held-out positions and its points per hand against three rule bots on the run's evaluation
boards, paired board by board with the start policy; the row ``0`` is the start itself.
Fits use the run's config (targets, epochs, learning rate, KL weight) unless overridden.

    python -m benchmarks.distill_curve runs/curve --sizes 1000 3000 8000
    python -m benchmarks.distill_curve runs/curve targets=soft kl_coef=0.3 --sizes 6000
"""

from __future__ import annotations

import argparse
import copy
import json
import re
import sys
import time
from pathlib import Path

import numpy as np

from agents import presets
from agents.config import ConfigError
from agents.distill import (
    agreement,
    board_points,
    bundle_dir,
    fit,
    held_out,
    labelled_round,
    policy_from_bundle,
    targets_of,
)
from murlan_env.eval.duplicate import mean_ci

# A key=value fit setting on the command line.
OVERRIDE = re.compile(r"^[A-Za-z_]\w*=")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0].replace("\n", " ")
        + " Takes about 20-30 s a row (one fit and the run's evaluation boards).",
        epilog="key=value pairs anywhere after RUN override the run's fit settings (targets, "
        "epochs, learning_rate, kl_coef, ...).",
    )
    parser.add_argument("run", type=Path, help="a run of train.py --config distill")
    parser.add_argument("overrides", nargs="*", help="key=value fit settings")
    parser.add_argument("--round", type=int, default=1, help="the labelled round to read")
    parser.add_argument("--sizes", type=int, nargs="+", help="fitted positions per row")
    parser.add_argument("--boards", type=int, help="evaluation boards (default: the run's)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the subsets and the fits")
    parser.add_argument(
        "--consensus",
        type=Path,
        help="a second search's labels (labels.py noise's relabels-seed*.npz): fit the search's "
        "override of the policy's move only where the second search makes it too (hard targets)",
    )
    # key=value pairs may follow the options too, even --sizes' list, which would take them.
    argv = sys.argv[1:] if argv is None else list(argv)
    settings = [a for a in argv if OVERRIDE.match(a)]
    args = parser.parse_intermixed_args([a for a in argv if not OVERRIDE.match(a)])
    args.overrides += settings

    config = json.loads((args.run / "config.json").read_text())
    try:
        config.update(presets.parse_overrides(args.overrides))
        if args.boards:
            config["eval_deals"] = args.boards
        _, cfg = presets.build_config(config)
    except ConfigError as e:
        parser.error(str(e))
    positions, actions, values, total = labelled_round(args.run, args.round)
    held = held_out(total, cfg, args.round)[: len(positions)]
    fitted = np.random.default_rng(args.seed).permutation(np.flatnonzero(~held))
    sizes = sorted(s for s in (args.sizes or [len(fitted)]) if s <= len(fitted))
    start = policy_from_bundle(bundle_dir(cfg.start))
    start.eval()
    base, _ = board_points(start, "rule", cfg)
    fit_actions = actions.copy()
    if args.consensus:
        if cfg.targets != "hard":
            parser.error("--consensus fits hard targets: drop targets=soft")
        with np.load(args.consensus) as second:
            rows, again = second["rows"], second["action"].astype(np.int64)
        if rows.size and rows.max() >= len(positions):
            parser.error(f"{args.consensus} holds rows beyond the run's labelled positions")
        played = positions.action.astype(np.int64)
        overridden = np.flatnonzero(actions != played)
        if not np.isin(overridden, rows).all():
            parser.error(f"{args.consensus} lacks some of the search's overrides: relabel them")
        disputed = rows[again != actions[rows]]
        fit_actions[disputed] = played[disputed]
    targets = targets_of(fit_actions, values, positions.mask, cfg)

    print(
        f"{args.run} round {args.round}: {len(positions)} labelled positions, "
        f"{int(held.sum())} held out; fits: targets={cfg.targets}"
        f"{' (consensus of two searches)' if args.consensus else ''} epochs={cfg.epochs} "
        f"learning_rate={cfg.learning_rate} kl_coef={cfg.kl_coef}; "
        f"{cfg.eval_deals} boards x {cfg.eval_hands} hands against 3 rule bots"
    )
    head = ("fitted", "agree fitted", "agree held-out", "vs 3 rule", "over start, paired", "s")
    print("| " + " | ".join(head) + " |\n|" + "---|" * len(head))
    for size in [0, *sizes]:
        t0 = time.perf_counter()
        rows = np.sort(fitted[:size])
        net = copy.deepcopy(start)
        if size:
            data = {"obs": positions.obs[rows], "mask": positions.mask[rows]}
            data["target"] = targets[rows]
            net.train()
            fit(net, data, cfg, np.random.default_rng([args.seed, size]))
        net.eval()
        on_fitted = agreement(net, positions.obs[rows], positions.mask[rows], actions[rows])
        on_held = agreement(net, positions.obs[held], positions.mask[held], actions[held])
        points = base if size == 0 else board_points(net, "rule", cfg)[0]
        mean, lo, hi = mean_ci(points)
        d_mean, d_lo, d_hi = mean_ci(points - base)
        cells = (
            str(size),
            f"{on_fitted:.1%}" if size else "",
            f"{on_held:.1%}",
            f"{mean:.3f} ± {(hi - lo) / 2:.3f}",
            f"{d_mean:+.3f} ± {(d_hi - d_lo) / 2:.3f}" if size else "",
            f"{time.perf_counter() - t0:.0f}",
        )
        print("| " + " | ".join(cells) + " |", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
