"""Python's `expert` in int8 or float32 arithmetic, paired with a saved float32 run's boards.

    python benchmarks/js_levels.py --levels expert --boards 80 --chunk 10 --seed 300 \
        --baseline hard --save expert-300.npz
    python benchmarks/arithmetic_pairing.py expert-300.npz --jobs 2 --save int8-300.npz
    python benchmarks/arithmetic_pairing.py expert-300.npz --arithmetic float32 --draws 1 \
        --jobs 2 --save float32-300.npz

Each FILE is a run saved by ``js_levels.py --save`` with ``--baseline hard``: the seed, chunk
and hands of its duplicate boards, and the points per board of Python's `expert` as it then
played, in float32 (``expert_py``), and of `hard` (``expert_base``). Here `expert` with its
belief and rollouts in ``--arithmetic`` (``belief.expert_in``: the level's ``arithmetic``
field; its own move stays float32) plays the same boards the same way: one seat against
three rule bots, every seat in turn, chunk by chunk with the same seeds. With ``--draws 0``
(the default) the bots' generator is the saved run's too, so int8 and float32 part only
where the arithmetic changes a draw or a move; ``--draws K`` takes another generator (the
chunk's seed plus K times 1,000,000) on the same deals: float32 played again that way
measures how far two float32 runs of these boards lie apart.

It prints the points per hand of the side played here, of the saved float32 run and of
`hard`, and the differences paired board by board with 95% confidence intervals, after each
chunk, and the CPU seconds a board of the side played here (its own process; the three rule
bots' share is small beside a search's). ``--save`` keeps its points per board; ``--pool``
plays nothing and pairs several such files at once: each side against the saved run, against
`hard`, and, with float32 played again, against the mean of the float32 runs:

    python benchmarks/arithmetic_pairing.py expert-300.npz --pool int8-300.npz float32-300.npz
"""

from __future__ import annotations

import argparse
import multiprocessing
import sys
import time
from concurrent.futures import ProcessPoolExecutor

import numpy as np
from belief import ci_text, expert_in  # this folder is on the path
from js_levels import board_points

from murlan_env.eval.duplicate import mean_ci

META = ("seed", "chunk", "max_hands")
DRAWS_STRIDE = 1_000_000  # --draws K: the bots' generator of seed + K * DRAWS_STRIDE


def played_points(
    arithmetic: str, boards: int, seed: int, max_hands: int, draws: int
) -> tuple[np.ndarray, float]:
    """`expert`'s points per board in ``arithmetic`` (``board_points``) and their CPU seconds."""
    start = time.process_time()
    bot = expert_in(arithmetic)
    got = board_points(bot, boards, seed, max_hands, seed + draws * DRAWS_STRIDE)
    return got, time.process_time() - start


def load_run(path: str) -> dict:
    """A js_levels.py run's boards (``META``) and float32 `expert`'s and `hard`'s points."""
    with np.load(path) as saved:
        found = {k: saved[k] for k in saved.files}
    missing = [k for k in (*META, "expert_py", "expert_base") if k not in found]
    if missing:
        raise SystemExit(
            f"{path} holds no {', '.join(missing)}: save it with "
            "js_levels.py --levels expert --baseline hard --save"
        )
    return found


def paired(played: np.ndarray, runs: list[dict]) -> dict[str, np.ndarray]:
    """The points played here on the runs' first boards (in the runs' order) beside the saved
    float32 run's and hard's points on the same boards."""
    float32 = np.concatenate([r["expert_py"] for r in runs])[: len(played)]
    hard = np.concatenate([r["expert_base"] for r in runs])[: len(played)]
    return {"played": played, "float32": float32, "hard": hard}


def print_table(have: dict[str, np.ndarray], label: str) -> None:
    """The three sides' points per hand and the played side's paired differences."""
    text = [ci_text(mean_ci(have[k])) for k in ("played", "float32", "hard")]
    text += [ci_text(mean_ci(have["played"] - have[k]), "+") for k in ("float32", "hard")]
    print(f"| boards | {label} | saved float32 | hard | {label} - saved | {label} - hard |")
    print("|---|---|---|---|---|---|")
    print(f"| {len(have['played'])} | {' | '.join(text)} |", flush=True)


def pool(paths: list[str], runs: list[dict]) -> None:
    """Every saved side's points per hand, each paired with the saved float32 run and `hard`,
    and int8 with each float32 run played here and with the mean of all float32 runs."""
    boards = sum(len(r["expert_py"]) for r in runs)
    sides = {"saved float32": np.concatenate([r["expert_py"] for r in runs])}
    hard = np.concatenate([r["expert_base"] for r in runs])
    for path in paths:
        with np.load(path) as saved:
            points, label = saved["points"], str(saved["label"])
        if len(points) != boards:
            raise SystemExit(f"{path} holds {len(points)} boards, the FILEs {boards}")
        sides[label if label not in sides else f"{label}, {path}"] = points
    float32 = [v for k, v in sides.items() if "float32" in k]
    print(f"| side, {boards} boards | points a hand |\n|---|---|")
    for label, points in [*sides.items(), ("hard", hard)]:
        print(f"| {label} | {ci_text(mean_ci(points))} |")
    rows = []
    for label, points in list(sides.items())[1:]:
        rows += [(f"{label} - saved float32", points - sides["saved float32"])]
        if len(float32) > 1 and "float32" not in label:
            others = [k for k in list(sides)[1:] if "float32" in k]
            rows += [(f"{label} - {k}", points - sides[k]) for k in others]
            rows += [(f"{label} - the float32 runs' mean", points - np.mean(float32, axis=0))]
        rows += [(f"{label} - hard", points - hard)]
    print("\n| paired, board by board | 95% CI |\n|---|---|")
    for label, diff in rows:
        print(f"| {label} | {ci_text(mean_ci(diff), '+')} |", flush=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0],
        epilog="FILE: a run saved by js_levels.py --levels expert --baseline hard --save",
    )
    parser.add_argument("runs", nargs="+", metavar="FILE", help="saved js_levels.py runs")
    parser.add_argument(
        "--arithmetic",
        choices=("int8", "float32"),
        default="int8",
        help="the belief and rollouts' arithmetic of the expert played here (default int8)",
    )
    parser.add_argument(
        "--draws",
        type=int,
        default=0,
        help="0: the saved run's bot generator; K > 0: another one, on the same deals",
    )
    parser.add_argument("--jobs", type=int, default=1, help="chunks played at once (processes)")
    parser.add_argument("--save", default=None, help="write the points per board here (.npz)")
    parser.add_argument(
        "--pool",
        nargs="+",
        metavar="SAVED",
        help="play nothing: pair the points of files saved with --save (each over the FILEs, "
        "in the same order) with the runs' points and with each other",
    )
    args = parser.parse_args(argv)
    if args.jobs < 1 or args.draws < 0:
        parser.error("--jobs must be at least 1 and --draws at least 0")
    runs = [load_run(path) for path in args.runs]
    if args.pool:
        pool(args.pool, runs)
        return 0
    label = args.arithmetic + (f" (draws {args.draws})" if args.draws else "")
    chunks = []  # (run index, boards, seed)
    for i, run in enumerate(runs):
        boards, chunk, seed = len(run["expert_py"]), int(run["chunk"]), int(run["seed"])
        chunks += [
            (i, min(chunk, boards - d), seed + k) for k, d in enumerate(range(0, boards, chunk))
        ]
    print(
        f"expert, belief and rollouts in {label}, against the saved float32 points of "
        f"{', '.join(args.runs)}: {sum(c[1] for c in chunks)} boards, {args.jobs} chunk(s) at once"
    )
    got: list[np.ndarray] = []  # each chunk's points, in the runs' order of boards
    cpu, start = 0.0, time.perf_counter()
    spawn = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(args.jobs, mp_context=spawn) as procs:
        futures = [
            procs.submit(
                played_points, args.arithmetic, n, seed, int(runs[i]["max_hands"]), args.draws
            )
            for i, n, seed in chunks
        ]
        for future in futures:
            points, seconds = future.result()
            got.append(points)
            cpu += seconds
            played = np.concatenate(got)
            if args.save:
                np.savez(args.save, points=played, label=label)
            took = time.perf_counter() - start
            print(f"\n{len(played)} boards, {took:.0f} s, {cpu / len(played):.1f} CPU s a board")
            print_table(paired(played, runs), label)
    return 0


if __name__ == "__main__":
    sys.exit(main())
