"""How fast the hand-written bots decide, alone and in the duplicate runner.

The rule bot decides for every seat a search models as rule-like (``expert``'s labels) and
for the three opponents of every strength table, so its speed sets how long those take.
Rows: decisions per CPU second of each bot on the same positions (a random player's against
three greedy bots, first three hands of seeded boards, standard rules), called in batches;
then whole duplicate boards of ``hard`` in one seat against three rule bots (hands per CPU
second, the policy's forward passes included). CPU seconds of this one process, medians of
``--runs`` runs in turn, so a shared machine's load counts as little as it can.

    python -m benchmarks.bot_speed
    python -m benchmarks.bot_speed --positions 8000 --boards 32 --runs 5
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from agents.labelling import play_positions
from murlan_env.bots import registry
from murlan_env.eval.duplicate import one_against_three, play_duplicate


def positions(n: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """``n`` (obs, mask) rows with a choice: a random player's, in one seat against three
    greedy bots on seeded boards, first three hands (exchanges included)."""
    found = play_positions(
        registry.make_bot("random"),
        registry.make_bot("greedy"),
        -(-n // 40),
        seed=seed,
        max_hands=3,
    )
    if len(found) < n:
        raise RuntimeError(f"{len(found)} positions from the boards, {n} asked for")
    return found.obs[:n], found.mask[:n]


def play_boards(boards: int, seed: int) -> None:
    """``hard`` in each seat against three fresh rule bots, first two hands of each board."""
    bots = [registry.make_bot("hard"), registry.make_bot("rule")]
    play_duplicate(bots, boards, lineups=one_against_three(), seed=seed, max_hands=2)


def decide_all(bot, obs, mask, batch: int, rng) -> None:
    """The bot's moves at every position, ``batch`` positions per call."""
    for i in range(0, len(obs), batch):
        bot.act(obs[i : i + batch], mask[i : i + batch], rng)


def cpu_seconds(fn, *args) -> float:
    """CPU seconds of this process spent in ``fn(*args)``."""
    t0 = time.process_time()
    fn(*args)
    return time.process_time() - t0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0].replace("\n", " ")
        + " Takes about a minute at the defaults."
    )
    parser.add_argument("--positions", type=int, default=4096, help="positions per bot row")
    parser.add_argument("--batch", type=int, default=256, help="positions per act call")
    parser.add_argument("--boards", type=int, default=16, help="duplicate boards (2 hands each)")
    parser.add_argument("--runs", type=int, default=3, help="runs (the median is reported)")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)

    names = ("random", "greedy", "rule")
    rng = np.random.default_rng(args.seed)
    # Compile and warm up outside the clock, on positions and boards no run plays again.
    obs, mask = positions(64, args.seed)
    for name in names:
        registry.make_bot(name).act(obs, mask, rng)
    play_boards(1, args.seed)
    hands = args.boards * 4 * 2  # every board in four lineups, two hands each
    times: dict[str, list[float]] = {name: [] for name in (*names, "boards")}
    for run in range(args.runs):
        # Each run: fresh bots on positions and boards of its own (a bot that remembers
        # positions gains nothing from an earlier run).
        obs, mask = positions(args.positions, args.seed + 1 + run)
        for name in names:
            bot = registry.make_bot(name)
            times[name].append(cpu_seconds(decide_all, bot, obs, mask, args.batch, rng))
        times["boards"].append(cpu_seconds(play_boards, args.boards, args.seed + 1 + run))

    print(f"{args.positions} positions in batches of {args.batch}; {args.runs} runs, CPU time\n")
    print("| what | rate (median) | runs (CPU s) |")
    print("|---|---|---|")
    for name in names:
        median = float(np.median(times[name]))
        runs = " ".join(f"{s:.2f}" for s in times[name])
        print(f"| `{name}` decides | {args.positions / median:,.0f} decisions/s | {runs} |")
    median = float(np.median(times["boards"]))
    runs = " ".join(f"{s:.2f}" for s in times["boards"])
    print(
        f"| `hard` vs three `rule`, {args.boards} boards x 4 lineups x 2 hands "
        f"| {hands / median:,.1f} hands/s | {runs} |"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
