"""The JavaScript client's levels against Python's, through the bot protocol.

Each level plays one seat against three rule bots twice on the same seeded duplicate boards
(the first ``--max-hands`` hands, every board four times with the seats rotated): once as
``clients/js``'s ``murlan-bot BUNDLE --level NAME``, a separate Node.js process answering
murlan-bot/1 requests (``proc:``), once as Python's level of that name. It prints both points
per hand with 95% confidence intervals over boards and their difference paired board by board.
The JavaScript level draws from its own generator (seeded per request from the arena's seed),
so a sampling level's moves differ from Python's; the two should be equally strong: the
difference's interval should hold 0. ``hard`` (the argmax) plays the same moves in both.

    nice -n 10 python benchmarks/js_levels.py --levels easy,medium,hard --boards 150

``expert`` is a search in both (clients/js/src/bots/search.js, murlan_env/bots/search.py) at the
settings levels.json states; its draws differ, so the pairing compares the two searches'
strength. ``--js-args`` passes murlan-bot options (e.g. ``--budget-ms 300``, a time budget per
move) to measure what a budget costs against Python's full search:

    nice -n 10 python benchmarks/js_levels.py --levels expert --js-args "--budget-ms 300"

Needs Node.js 20+ (``node`` on the PATH, or ``--node``); the client needs no npm packages.
"""

from __future__ import annotations

import argparse
import shlex
import time
from pathlib import Path

import numpy as np

from murlan_env.bots import registry
from murlan_env.eval.duplicate import mean_ci, one_against_three, play_duplicate

ROOT = Path(__file__).resolve().parents[1]
BOT = ROOT / "clients" / "js" / "bin" / "bot.js"


def board_points(bot, boards: int, seed: int, max_hands: int) -> np.ndarray:
    """(boards,) the bot's points per hand on each board against three rule bots."""
    result = play_duplicate(
        [bot, registry.make_bot("rule")],
        boards,
        lineups=one_against_three(),
        seed=seed,
        max_hands=max_hands,
    )
    return result.board_points()[:, 0]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--levels", default="easy,medium,hard")
    parser.add_argument("--boards", type=int, default=150)
    parser.add_argument("--max-hands", type=int, default=2)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--node", default="node", help="the Node.js program")
    parser.add_argument(
        "--js-args", default="", help="more murlan-bot options, e.g. '--budget-ms 300'"
    )
    args = parser.parse_args()
    print(
        f"JavaScript levels (murlan-bot through proc:) vs Python's, one seat against 3 rule "
        f"bots, {args.boards} boards x 4 seats, first {args.max_hands} hands, seed {args.seed}"
        f"{', murlan-bot ' + args.js_args if args.js_args else ''}"
    )
    print("| level | JavaScript | Python | JS - Python, 95% CI | faults | seconds JS / Py |")
    print("|---|---|---|---|---|---|")
    for name in [x.strip() for x in args.levels.split(",") if x.strip()]:
        level = registry.levels()[name]
        bundle = registry.policies_dir() / level["policy"]
        extra = shlex.split(args.js_args)
        command = shlex.join([args.node, str(BOT), str(bundle), "--level", name, *extra])
        js = registry.make_bot(f"proc:{command}")
        start = time.perf_counter()
        js_points = board_points(js, args.boards, args.seed, args.max_hands)
        js_seconds = time.perf_counter() - start
        js.close()
        start = time.perf_counter()
        py_points = board_points(registry.make_bot(name), args.boards, args.seed, args.max_hands)
        py_seconds = time.perf_counter() - start
        (jm, jl, jh), (pm, pl, ph) = mean_ci(js_points), mean_ci(py_points)
        dm, dl, dh = mean_ci(js_points - py_points)
        print(
            f"| {name} | {jm:.3f} [{jl:.3f}, {jh:.3f}] | {pm:.3f} [{pl:.3f}, {ph:.3f}] | "
            f"{dm:+.3f} [{dl:+.3f}, {dh:+.3f}] | {len(js.faults)} | "
            f"{js_seconds:.0f} / {py_seconds:.0f} |",
            flush=True,
        )


if __name__ == "__main__":
    main()
