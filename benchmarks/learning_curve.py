"""A run's learning curve from its TensorBoard logs: points per hand against each evaluation
bot over training decisions, with the 95% confidence intervals the trainer logged.

    python -m benchmarks.learning_curve runs/strong --out docs/learning_curve.png
    python -m benchmarks.learning_curve runs/hard-strong runs/hard   # a staged preset

(after ``python train.py --config strong --seed 1 name=strong`` and ``python train.py --config
hard --seed 1 name=hard``: without ``name=`` a run is ``runs/<preset>-s<seed>-<date>-<time>``)

Reads ``eval/<bot>/points_per_hand`` and ``eval/<bot>/ci95`` (written by
``agents.training.Run.evaluate`` at every evaluation) and draws one line per bot with its
interval shaded, and the par line (1.5 points per hand). Several run directories are the
stages of a staged preset, in order: each continues the decisions of the one before, and a
dotted line marks where each later stage starts. ``--json`` also writes the points.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

PAR = 1.5


def read_curves(run_dir: str | Path) -> dict[str, dict[str, list[float]]]:
    """{bot: {"step": [...], "points": [...], "ci95": [...], "wall_time": [...]}} from a run's
    event files (``wall_time``: when each evaluation was logged, in seconds since the epoch)."""
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    run_dir = Path(run_dir)
    if not any(run_dir.glob("events.out.tfevents.*")):
        raise FileNotFoundError(f"no TensorBoard event files in {run_dir}")
    acc = EventAccumulator(str(run_dir), size_guidance={"scalars": 0})
    acc.Reload()
    curves: dict[str, dict[str, list[float]]] = {}
    for tag in acc.Tags()["scalars"]:
        parts = tag.split("/")
        if len(parts) != 3 or parts[0] != "eval" or parts[2] != "points_per_hand":
            continue
        bot = parts[1]
        points = {e.step: e.value for e in acc.Scalars(tag)}
        wall = {e.step: e.wall_time for e in acc.Scalars(tag)}
        ci_tag = f"eval/{bot}/ci95"
        ci = (
            {e.step: e.value for e in acc.Scalars(ci_tag)}
            if ci_tag in acc.Tags()["scalars"]
            else {}
        )
        steps = sorted(points)
        curves[bot] = {
            "step": steps,
            "points": [points[s] for s in steps],
            "ci95": [ci.get(s, 0.0) for s in steps],
            "wall_time": [wall[s] for s in steps],
        }
    if not curves:
        raise ValueError(f"{run_dir} has no eval/<bot>/points_per_hand scalars")
    return curves


def read_stages(run_dirs: list[str | Path]) -> tuple[dict[str, dict[str, list[float]]], list[int]]:
    """The curves of runs trained one after another (a staged preset's stages, in order) on
    one axis: each run's decisions continue from the last evaluation of the one before. Also
    returns the decision at which each later stage starts."""
    merged: dict[str, dict[str, list[float]]] = {}
    starts: list[int] = []
    offset = 0
    for i, run in enumerate(run_dirs):
        if i:
            starts.append(offset)
        curves = read_curves(run)
        for bot, c in curves.items():
            into = merged.setdefault(bot, {"step": [], "points": [], "ci95": []})
            into["step"] += [offset + s for s in c["step"]]
            into["points"] += c["points"]
            into["ci95"] += c["ci95"]
        offset += max(c["step"][-1] for c in curves.values())
    return merged, starts


def plot(curves: dict, path: str | Path, title: str, starts: list[int] = ()) -> Path:
    """Draw the curves into a PNG (a bare Figure: no pyplot state)."""
    import numpy as np
    from matplotlib.figure import Figure

    fig = Figure(figsize=(7, 4.2))
    ax = fig.subplots()
    for bot, c in sorted(curves.items()):
        x = np.array(c["step"]) / 1e6
        y, ci = np.array(c["points"]), np.array(c["ci95"])
        ax.plot(x, y, marker="o", ms=3, label=f"vs 3 x {bot}")
        ax.fill_between(x, y - ci, y + ci, alpha=0.2)
    ax.axhline(PAR, color="grey", lw=1, ls="--", label="par 1.5")
    for i, start in enumerate(starts):
        ax.axvline(start / 1e6, color="black", lw=1, ls=":", label=None if i else "next stage")
    ax.set(xlabel="training decisions (millions)", ylabel="points per hand", title=title)
    ax.grid(alpha=0.3)
    ax.legend(loc="lower right")
    fig.tight_layout()
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)
    return path


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0].replace("\n", " ")
        + " Takes seconds: it reads the run's logs.",
        epilog="example: python -m benchmarks.learning_curve runs/strong --out curve.png",
    )
    parser.add_argument(
        "run",
        nargs="+",
        help="run directory (runs/<name>) holding TensorBoard logs; several: the stages of a "
        "staged preset, in order",
    )
    parser.add_argument("--out", default="learning_curve.png", help="PNG to write")
    parser.add_argument("--title", default=None, help="chart title (default: the run's name)")
    parser.add_argument("--json", default=None, metavar="FILE", help="also write the points")
    args = parser.parse_args(argv)
    try:
        curves, starts = read_stages(args.run)
    except (FileNotFoundError, ValueError) as e:
        print(f"learning_curve.py: error: {e}", file=sys.stderr)
        return 2
    out = plot(curves, args.out, args.title or Path(args.run[-1]).name, starts)
    if args.json:
        Path(args.json).write_text(json.dumps(curves, indent=1))
    for bot, c in sorted(curves.items()):
        print(f"vs {bot}: {c['points'][-1]:.3f} ± {c['ci95'][-1]:.3f} at {c['step'][-1]:,}")
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
