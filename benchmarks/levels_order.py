"""The shipped levels against three greedy bots: the source of the bars in
``tests/test_shipped_policies.py``.

    python benchmarks/levels_order.py --seeds 11 0 1 2 3

Per seed, each level (easy, medium, hard) sits in one seat against three greedy bots on the
same 48 duplicate boards (each deal played from every seat; the first two hands of each
board), as the test plays them. It prints hard's points per hand with its 95% CI over boards,
and the paired board-by-board differences hard - medium and medium - easy with their 95% CIs
(``murlan_env.eval.duplicate.mean_ci``).
"""

from __future__ import annotations

import argparse

from murlan_env.bots import registry
from murlan_env.eval.duplicate import mean_ci, one_against_three, play_duplicate

LEVELS = ("easy", "medium", "hard")


def level_board_points(level: str, boards: int, seed: int, max_hands: int = 2):
    """(boards,) the level's points per hand on each board against three greedy bots."""
    result = play_duplicate(
        [registry.make_bot(level), registry.make_bot("greedy")],
        boards,
        lineups=one_against_three(),
        seed=seed,
        max_hands=max_hands,
    )
    return result.board_points()[:, 0]


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, nargs="+", default=[11])
    parser.add_argument("--boards", type=int, default=48)
    args = parser.parse_args(argv)
    for seed in args.seeds:
        points = {level: level_board_points(level, args.boards, seed) for level in LEVELS}
        line = "seed {}: hard {:.3f} [{:.3f}, {:.3f}]".format(seed, *mean_ci(points["hard"]))
        for better, worse in (("hard", "medium"), ("medium", "easy")):
            mean, lo, hi = mean_ci(points[better] - points[worse])
            line += f" | {better} - {worse} {mean:+.3f} [{lo:+.3f}, {hi:+.3f}]"
        print(line, flush=True)


if __name__ == "__main__":
    main()
