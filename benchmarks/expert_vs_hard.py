"""`expert` against `hard`, paired on the same duplicate boards, by hand number.

    python benchmarks/expert_vs_hard.py --boards 24 --chunk 8 --seed 100 --save paired.npz

Each bot plays one seat against three rule bots, in each seat in turn, over the first two
hands of the same seeded duplicate boards (``play_duplicate``: both bots' lineups in one
run, so the deals are shared). Hand 1 has no exchange and a start-card duty; hand 2 has the
exchange. Per board, the bot's points per hand (par 1.5) over its four seats; the gain is
``expert`` minus ``hard`` board by board, with a 95% CI over boards. Boards are played in
chunks of ``--chunk`` (seeds ``seed``, ``seed + 1``, ...) and the table is printed after
each chunk, so a run can be stopped at any point with what it has; ``--save`` keeps the
points per board (``benchmarks/belief.py headroom`` pairs against ``expert``'s hand 1 there).
"""

from __future__ import annotations

import argparse
import sys
import time

import numpy as np

from murlan_env.bots import registry
from murlan_env.eval.duplicate import mean_ci, play_duplicate


def per_board_hand(result, bot: int, hand: int) -> np.ndarray:
    """(boards,) the bot's mean points over its seats on hand ``hand`` of each board."""
    seats = result.lineups[result.hand_lineup] == bot  # (H, 4)
    rows, cols = np.nonzero(seats & (result.hand_number == hand)[:, None])
    total = np.bincount(result.hand_board[rows], result.hand_points[rows, cols], result.boards)
    count = np.bincount(result.hand_board[rows], minlength=result.boards)
    return total / np.maximum(count, 1)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--boards", type=int, default=40)
    parser.add_argument("--chunk", type=int, default=8, help="boards per duplicate run")
    parser.add_argument("--seed", type=int, default=100)
    parser.add_argument("--bot", default="expert", help="the bot paired against --base")
    parser.add_argument("--base", default="hard")
    parser.add_argument(
        "--candidates",
        type=int,
        default=None,
        help="--bot's belief candidates (its rule-bot candidates scaled alike): 256 is a "
        "quarter of expert's worlds",
    )
    parser.add_argument(
        "--arithmetic",
        choices=("float32", "int8"),
        default=None,
        help="--bot's belief and rollouts in this arithmetic (a search level's field; "
        "default: the level's)",
    )
    parser.add_argument(
        "--save", default=None, help="write each bot's points per board and hand here (.npz)"
    )
    args = parser.parse_args(argv)
    if args.boards < 2 or args.chunk < 1:
        parser.error("--boards must be at least 2 and --chunk at least 1")
    if args.candidates is not None or args.arithmetic:
        level = dict(registry.levels().get(args.bot) or {})
        if not level.get("belief"):
            parser.error(
                f"--candidates and --arithmetic need a search level with a belief, not {args.bot!r}"
            )
        name = args.bot
        if args.candidates is not None:
            if args.candidates < 1:
                parser.error("--candidates must be positive")
            scale = args.candidates / level["candidates"]
            level["alternative_candidates"] = max(1, round(level["alternative_candidates"] * scale))
            level["candidates"] = args.candidates
            name += f"-{args.candidates}"
        if args.arithmetic:
            level["arithmetic"] = args.arithmetic
            name += f"-{args.arithmetic}"
        bot = registry.level_bot(name, level)  # the variant, built as the level itself is
    else:
        bot = registry.make_bot(args.bot)
    bots = [bot, registry.make_bot(args.base), registry.make_bot("rule")]
    lineups = np.array(
        [[b if s == k else 2 for s in range(4)] for b in (0, 1) for k in range(4)], np.int64
    )
    points = {(b, h): [] for b in (0, 1) for h in (0, 1)}
    done, start, seed = 0, time.perf_counter(), args.seed
    while done < args.boards:
        n = min(args.chunk, args.boards - done)
        result = play_duplicate(bots, n, lineups=lineups, seed=seed, max_hands=2)
        for b, h in points:
            points[b, h].append(per_board_hand(result, b, h))
        done, seed = done + n, seed + 1
        if args.save:
            np.savez(
                args.save,
                **{f"bot{b}_hand{h + 1}": np.concatenate(v) for (b, h), v in points.items()},
            )
        took = time.perf_counter() - start
        print(f"{done} boards (seeds {args.seed}-{seed - 1}), {took:.0f} s", flush=True)
        print(f"| hand | {bot.name} | {args.base} | gain (paired) |\n|---|---|---|---|")
        for h, label in ((0, "1 (start duty)"), (1, "2 (exchange)"), (None, "1 and 2")):
            hands = (0, 1) if h is None else (h,)
            mine = np.mean([np.concatenate(points[0, k]) for k in hands], axis=0)
            base = np.mean([np.concatenate(points[1, k]) for k in hands], axis=0)
            cells = [mean_ci(mine), mean_ci(base), mean_ci(mine - base)]
            text = [f"{m:.3f} [{lo:.3f}, {hi:.3f}]" for m, lo, hi in cells[:2]]
            m, lo, hi = cells[2]
            text.append(f"{m:+.3f} [{lo:+.3f}, {hi:+.3f}]")
            print(f"| {label} | {' | '.join(text)} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
