r"""The JavaScript client's levels against Python's, through the bot protocol.

Each level plays one seat against three rule bots twice on the same seeded duplicate boards
(the first ``--max-hands`` hands, every board four times with the seats rotated): once as
``clients/js``'s ``murlan-bot BUNDLE --level NAME``, a separate Node.js process answering
murlan-bot/1 requests (``proc:``), once as Python's level of that name. It prints both points
per hand with 95% confidence intervals over boards and their difference paired board by board.
The levels without a search draw from the same generator keyed by each request's seed
(docs/bundle.md, "Levels move for move"), so ``easy``, ``medium`` and ``hard`` make Python's
moves and the difference is 0 (but for a rare draw within the scores' tolerance of a boundary).

    nice -n 10 python -m benchmarks.js_levels --levels easy,medium,hard --boards 150

``expert`` is a search in both (clients/js/src/bots/search.js, murlan_env/bots/search.py) at the
settings levels.json states; its draws differ, so the pairing compares the two searches'
strength. ``--js-args`` passes murlan-bot options (e.g. ``--budget-ms 300``, a time budget per
move) to measure what a budget costs against Python's full search:

    python -m benchmarks.js_levels --levels expert --boards 160 --chunk 10 --jobs 2 \
        --seed 300 --baseline hard --save expert.npz
    python -m benchmarks.js_levels --levels expert --boards 160 --chunk 10 --jobs 2 \
        --seed 300 --reuse expert.npz --js-args "--budget-ms 300"

Boards are played in chunks (``--chunk``: seeds ``seed``, ``seed + 1``, ...), ``--jobs`` of
them at once (each a Node.js process beside a Python process), and the table is printed after
each chunk, so a long run can be stopped with what it has. ``--baseline`` plays a third bot
(Python's level) on the same boards; ``--save`` keeps every side's points per board, and
``--reuse`` takes Python's (and the baseline's) from such a file instead of playing them
again: Python's play is a function of the seed, so a budget is paired against the same run.
``--pool A.npz B.npz`` plays nothing and prints the table over several saved runs' boards.

``--against-js ARGS`` pairs two JavaScript settings instead: a second murlan-bot of the level
with ARGS (``""``: as the bundle states it) plays in Python's place on the same boards, each job
playing its chunk with one setting and then the other (two Node.js processes at once with
``--jobs 2``, so a time budget gets about a core). It measures what a budget costs against the
level's own unbudgeted search (the "Python" column is then that second murlan-bot's):

    nice -n 19 python -m benchmarks.js_levels --levels expert --boards 160 --chunk 10 \
        --jobs 2 --seed 500 --js-args "--budget-ms 1000" --against-js "" --save budget.npz

Needs Node.js 20+ (``node`` on the PATH, or ``--node``); the client needs no npm packages.
"""

from __future__ import annotations

import argparse
import multiprocessing
import shlex
import time
from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor
from pathlib import Path

import numpy as np

from benchmarks.common import board_points, ci_text, markdown_table, mean_ci
from murlan_env.bots import registry
from murlan_env.bots.process import ProcessBot

ROOT = Path(__file__).resolve().parents[1]
BOT = ROOT / "clients" / "js" / "bin" / "bot.js"


def js_points(command: str, timeout: float, boards: int, seed: int, max_hands: int):
    """The murlan-bot process's points per board (``board_points``) and its faults."""
    bot = ProcessBot(command, timeout=timeout)
    try:
        return board_points(bot, boards, seed, max_hands), len(bot.faults)
    finally:
        bot.close()


def js_pair(command: str, versus: str, timeout: float, boards: int, seed: int, max_hands: int):
    """Two murlan-bot settings' points on the same boards, one after the other (``--against-js``).

    Returns ``((points, faults), [points])``: the first as ``js_points`` does, the second as
    ``python_points`` does, so the table pairs them as it pairs JavaScript with Python.
    """
    first = js_points(command, timeout, boards, seed, max_hands)
    second, faults = js_points(versus, timeout, boards, seed, max_hands)
    return (first[0], first[1] + faults), [second]


class _FirstOf:
    """One part of a ``js_pair`` future's result, read as the other futures are (``result()``)."""

    def __init__(self, future, index: int = 0):
        self.future, self.index = future, index

    def result(self):
        return self.future.result()[self.index]


def python_points(names: list[str], boards: int, seed: int, max_hands: int) -> list:
    """Each Python level's points per board (``board_points``), in a process of its own."""
    return [board_points(registry.make_bot(name), boards, seed, max_hands) for name in names]


def reused_points(path: str, meta: dict, boards: int) -> dict:
    """A saved run's points per board, checked to be of the same boards (seed, chunks, hands)."""
    with np.load(path) as saved:
        found = {k: saved[k] for k in saved.files}
    for key, value in meta.items():
        if key not in found or int(found[key]) != value:
            raise SystemExit(f"{path} was not saved with --{key.replace('_', '-')} {value}")
    short = [k for k, v in found.items() if v.ndim and v.size < boards]
    if short:
        raise SystemExit(f"{path} holds fewer than {boards} boards of {', '.join(short)}")
    return found


def print_table(
    name: str, have: dict[str, np.ndarray], baseline: str | None, other: str = "Python"
) -> None:
    """The level's row: each side's points per hand and the paired differences, 95% CIs.

    ``other`` names the side paired with the JavaScript one: Python's level, or a second
    murlan-bot setting (``--against-js``).
    """
    base = [baseline] if baseline else []
    header = ["level", "boards", "JavaScript", other, *base, f"JS - {other}, 95% CI"]
    header += [f"{side} - {baseline}" for side in ("JS", other) if base]
    cells = [have["js"], have["py"], *([have["base"]] if base else [])]
    paired = [have["js"] - have["py"]]
    paired += [have["js"] - have["base"], have["py"] - have["base"]] if base else []
    text = [ci_text(mean_ci(c)) for c in cells] + [ci_text(mean_ci(d), "+") for d in paired]
    print(markdown_table(header, [[name, len(have["js"]), *text]]), flush=True)


def pool(paths: list[str], levels: list[str], baseline: str | None, other: str) -> None:
    """The table over the boards of several saved runs (each of other boards) together."""
    files = [np.load(path) for path in paths]
    sides = ["js", "py", *(["base"] if baseline else [])]
    print(f"Saved runs pooled: {', '.join(paths)}")
    for name in levels:
        keys = [f"{name}_{side}" for side in sides]
        missing = [p for p, f in zip(paths, files, strict=True) if set(keys) - set(f.files)]
        if missing:
            raise SystemExit(f"{', '.join(missing)}: no {name} points (or no baseline's)")
        have = {side: np.concatenate([f[f"{name}_{side}"] for f in files]) for side in sides}
        print_table(name, have, baseline, other)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0].replace("\n", " ")
        + " Takes seconds a board for easy, medium and hard, about a minute of CPU a board a "
        "side for expert (needs Node.js 20+)."
    )
    parser.add_argument("--levels", default="easy,medium,hard")
    parser.add_argument("--boards", type=int, default=150)
    parser.add_argument(
        "--chunk",
        type=int,
        default=None,
        help="boards per run (seeds seed, seed + 1, ...; "
        "the table is printed after each; default: all boards in one run of seed --seed)",
    )
    parser.add_argument("--max-hands", type=int, default=2)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--baseline",
        default=None,
        help="also play this Python level on the same boards "
        "and pair both sides against it (e.g. hard, for expert)",
    )
    parser.add_argument(
        "--save", default=None, help="write the points per board here (.npz), after each chunk"
    )
    parser.add_argument(
        "--reuse",
        default=None,
        help="take Python's points (and the baseline's) from a run "
        "saved with --save on the same boards instead of playing them again (Python's play "
        "is a function of the seed): to measure murlan-bot options against one Python run",
    )
    parser.add_argument(
        "--timeout",
        type=float,
        default=60.0,
        help="seconds murlan-bot may take a move before "
        "it is a fault (default 60: a loaded machine slows the search, which is not what this "
        "measures)",
    )
    parser.add_argument(
        "--jobs",
        type=int,
        default=1,
        help="chunks played at once (each a murlan-bot process and a Python process; default 1)",
    )
    parser.add_argument(
        "--pool",
        nargs="+",
        metavar="FILE",
        help="play nothing: print the table over the "
        "boards of runs saved with --save (each of other boards), as one run",
    )
    parser.add_argument("--node", default="node", help="the Node.js program")
    parser.add_argument(
        "--js-args", default="", help="more murlan-bot options, e.g. '--budget-ms 300'"
    )
    parser.add_argument(
        "--against-js",
        default=None,
        metavar="ARGS",
        help="pair with a second murlan-bot of the level with these options in Python's place "
        "('' for the level as the bundle states it), e.g. --js-args '--budget-ms 1000' "
        "--against-js '': what the budget costs",
    )
    args = parser.parse_args(argv)
    levels = [x.strip() for x in args.levels.split(",") if x.strip()]
    other = "Python" if args.against_js is None else f"JS {args.against_js or 'as shipped'}"
    if args.pool:
        pool(args.pool, levels, args.baseline, other)
        return 0
    chunk = args.chunk or args.boards
    if args.boards < 2 or chunk < 1 or args.jobs < 1:
        parser.error("--boards must be at least 2, --chunk and --jobs at least 1")
    if args.against_js is not None and (args.reuse or args.baseline):
        parser.error("--against-js plays both sides in murlan-bot: no --reuse or --baseline")
    print(
        f"JavaScript levels (murlan-bot through proc:) vs Python's, one seat against 3 rule "
        f"bots, {args.boards} boards x 4 seats, first {args.max_hands} hands, seed {args.seed}"
        f"{f' (chunks of {chunk}: seeds {args.seed}, {args.seed + 1}, ...)' if args.chunk else ''}"
        f"{', murlan-bot ' + args.js_args if args.js_args else ''}; "
        + (
            f"Python's points from {args.reuse}"
            if args.reuse
            else f"paired with murlan-bot {args.against_js or 'as the bundle states it'}, "
            "each chunk played by one and then the other"
            if args.against_js is not None
            else "Python plays in processes of its own at the same time"
        )
        + f", {args.jobs} chunk(s) at once"
    )
    base = [args.baseline] if args.baseline else []
    meta = {"seed": args.seed, "chunk": chunk, "max_hands": args.max_hands}
    reused = reused_points(args.reuse, meta, args.boards) if args.reuse else None
    saved = {}
    starts = range(0, args.boards, chunk)
    for name in levels:
        level = registry.levels()[name]
        bundle = registry.policies_dir() / level["policy"]
        extra = shlex.split(args.js_args)
        command = shlex.join([args.node, str(BOT), str(bundle), "--level", name, *extra])
        versus = None
        if args.against_js is not None:
            versus = shlex.join(
                [args.node, str(BOT), str(bundle), "--level", name, *shlex.split(args.against_js)]
            )
        points = {"js": [], "py": [], "base": []}
        sides = ["py", *(["base"] if base else [])]
        if reused is not None and any(f"{name}_{k}" not in reused for k in sides):
            raise SystemExit(f"{args.reuse} holds no {name} points (or no baseline's)")
        runs = [(d, min(chunk, args.boards - d), args.seed + k) for k, d in enumerate(starts)]
        start, faults = time.perf_counter(), 0
        # Python's processes are spawned, not forked from a process whose threads talk to Node.
        spawn = multiprocessing.get_context("spawn")
        with (
            ThreadPoolExecutor(args.jobs) as threads,
            ProcessPoolExecutor(args.jobs, mp_context=spawn) as procs,
        ):
            if versus is None:
                js_runs = [
                    threads.submit(js_points, command, args.timeout, n, seed, args.max_hands)
                    for _, n, seed in runs
                ]
                py_runs = [
                    None
                    if reused
                    else procs.submit(python_points, [name, *base], n, s, args.max_hands)
                    for _, n, s in runs
                ]
            else:
                both = [
                    threads.submit(js_pair, command, versus, args.timeout, n, s, args.max_hands)
                    for _, n, s in runs
                ]
                js_runs = [_FirstOf(run) for run in both]
                py_runs = [_FirstOf(run, 1) for run in both]
            for (done, n, _), js_run, py_run in zip(runs, js_runs, py_runs, strict=True):
                got, bad = js_run.result()
                points["js"].append(got)
                faults += bad
                if py_run is not None:
                    python_got = py_run.result()
                else:
                    python_got = [reused[f"{name}_{k}"][done : done + n] for k in sides]
                for key, got in zip(sides, python_got, strict=True):
                    points[key].append(got)
                have = {k: np.concatenate(v) for k, v in points.items() if v}
                saved.update({f"{name}_{k}": v for k, v in have.items()})
                if args.save:
                    np.savez(args.save, **saved, **meta)
                took = time.perf_counter() - start
                print(f"\n{done + n} boards, {faults} faults, {took:.0f} s")
                print_table(name, have, args.baseline, other)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
