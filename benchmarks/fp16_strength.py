"""The float16 model against the float32 one, paired board by board.

Each shipped policy plays one seat against three rule bots on the same seeded duplicate
boards (the first ``--max-hands`` hands, every board four times with the seats rotated),
once with ``model.onnx`` and once with ``model.fp16.onnx``. It prints both points per hand
and the per-board difference (float16 - float32) with its 95% confidence interval, and how
many of the decisions differ: the small model loses nothing when the interval holds 0 or lies
above it.

    nice -n 10 python benchmarks/fp16_strength.py --boards 512
"""

from __future__ import annotations

import argparse

import numpy as np

from murlan_env.bots import registry
from murlan_env.bots.policy import BundleBot
from murlan_env.eval.duplicate import one_against_three, play_duplicate


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--boards", type=int, default=512)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--max-hands", type=int, default=2)
    parser.add_argument("--policies", default=",".join(registry.shipped_policies()))
    args = parser.parse_args(argv)
    print(f"{args.boards} boards x 4 seats x {args.max_hands} hands, seed {args.seed}, vs 3 rule")
    print(f"{'policy':<14}{'float32':>9}{'float16':>9}{'fp16 - fp32':>13}{'95% CI':>20}")
    for name in args.policies.split(","):
        folder = registry.policies_dir() / name
        per_board = []
        for precision in ("float32", "float16"):
            bot = BundleBot(folder, precision=precision, name=f"{name}-{precision}")
            result = play_duplicate(
                [bot, registry.make_bot("rule")],
                args.boards,
                lineups=one_against_three(),
                seed=args.seed,
                max_hands=args.max_hands,
            )
            per_board.append(result.board_points()[:, 0])
        diff = per_board[1] - per_board[0]
        half = 1.96 * diff.std(ddof=1) / np.sqrt(len(diff))
        print(
            f"{name:<14}{per_board[0].mean():>9.3f}{per_board[1].mean():>9.3f}"
            f"{diff.mean():>13.4f}{f'[{diff.mean() - half:.4f}, {diff.mean() + half:.4f}]':>20}"
            f"  boards that differ: {int((diff != 0).sum())}"
        )


if __name__ == "__main__":
    main()
