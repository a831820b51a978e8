"""History curve: does reading the hand so far pay? A preset trained with and without a
history encoder, its evaluations side by side against the decisions trained.

    python -m benchmarks.history_curve                          # quick: history none vs gru
    python -m benchmarks.history_curve --histories none attention --steps 2e6
    python -m benchmarks.history_curve --seed 2 eval_every=25   # key=value as train.py

Each history setting (the config key ``history``: "none", "gru" or "attention") trains the
preset as ``python train.py`` does (``benchmarks.selfplay.run_loop``), from the same seed: the
same deals, opponents and random streams, the same evaluation deals. The networks differ only
where the encoder is (its summary widens the trunk's first layer, so that layer's initial
weights differ too). The preset's own evaluations (points a hand on duplicate deals against
the ``--bots``, with their 95% intervals over boards) are read back from each run's TensorBoard
events and printed against the decisions trained, then the final evaluation
(``final_eval_deals`` boards: the interval to trust) and each run's cost: wall time, decisions
per second and the update's share of the time.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

from benchmarks.common import cpu_name, markdown_table
from benchmarks.learning_curve import read_curves
from benchmarks.selfplay import run_loop


def one_run(preset: str, history: str, seed: int, steps: int | None, overrides: list[str]):
    """One training run of ``preset`` with ``history``: its evaluation curves, final
    evaluation and cost."""
    with tempfile.TemporaryDirectory() as runs:
        start = time.time()
        r = run_loop(preset, steps, [*overrides, f"seed={seed}", f"history={history}"], runs)
        wall = time.time() - start
        curves = read_curves(Path(runs) / "bench")
    split = r["split"]
    return {
        "history": history,
        "curves": curves,
        "final": r["results"],
        "decisions": r["decisions"],
        "wall": wall,
        "rate": r["decisions"] / split["total"],
        "update_share": split["update"] / split["total"],
    }


def _cell(points: float, ci95: float) -> str:
    return f"{points:.3f} ± {ci95:.3f}"


def curve_rows(runs: list[dict], bots: list[str]) -> list[list[str]]:
    """One row per evaluation step any run logged: the decisions, then each bot's points of
    each run ("-" where a run has no evaluation at that step)."""
    for bot in bots:
        for run in runs:
            if bot not in run["curves"]:
                raise ValueError(f"the run evaluates no {bot}: add it to eval_bots")
    steps = sorted({s for run in runs for bot in bots for s in run["curves"][bot]["step"]})
    rows = []
    for step in steps:
        row = [f"{step:,}"]
        for bot in bots:
            for run in runs:
                curve = run["curves"][bot]
                if step in curve["step"]:
                    at = curve["step"].index(step)
                    row.append(_cell(curve["points"][at], curve["ci95"][at]))
                else:
                    row.append("-")
        rows.append(row)
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0].replace("\n", " "),
        epilog="example: python -m benchmarks.history_curve --histories none gru --steps 2e6",
    )
    parser.add_argument("--preset", default="quick", help="preset to train (default quick)")
    parser.add_argument("--seed", type=int, default=1, help="the seed of every run (default 1)")
    parser.add_argument(
        "--histories",
        nargs="+",
        default=["none", "gru"],
        help='history settings to train, one run each (default "none gru")',
    )
    parser.add_argument(
        "--bots", nargs="+", default=["greedy", "rule"], help="evaluation bots to show"
    )
    parser.add_argument(
        "--steps", type=float, default=None, help="decisions to train for (default: the preset's)"
    )
    parser.add_argument(
        "overrides",
        nargs="*",
        help="key=value config overrides, as train.py (before --histories, whose list would "
        "take them)",
    )
    args = parser.parse_args(argv)
    steps = None if args.steps is None else int(args.steps)
    runs = []
    for history in args.histories:
        runs.append(one_run(args.preset, history, args.seed, steps, args.overrides))
        print(f"history={history}: done in {runs[-1]['wall']:.0f} s", flush=True)
    header = ["decisions"]
    header += [f"{r['history']} vs {bot}" for bot in args.bots for r in runs]
    rows = curve_rows(runs, args.bots)
    end = ["end (final evaluation)"]
    for bot in args.bots:
        for r in runs:
            res = r["final"].get(bot)
            end.append("-" if res is None else _cell(res.points_per_hand, res.ci95))
    print(markdown_table(header, [*rows, end]))
    print()
    cost = [
        [
            r["history"],
            f"{r['decisions']:,}",
            f"{r['wall']:.1f} s",
            f"{r['rate']:,.0f}",
            f"{r['update_share']:.0%}",
        ]
        for r in runs
    ]
    print(
        markdown_table(["history", "decisions", "whole run", "decisions/s", "update share"], cost)
    )
    print(f"{args.preset}, seed {args.seed}; CPU: {cpu_name()}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
