"""Seeded duplicate tournaments between bots, with confidence intervals and ratings.

``murlan arena random greedy rule search:200 ckpt:runs/x --hands 400 --seed 0``

Duplicate format: the tournament is a set of *lanes*, each a sequence of seeded deals. Every
lane is played once per *lineup*: the same deals with the bots rotated through the seats, so
each bot holds each seat's cards in turn and the luck of the deal cancels. Matches run hand
after hand (RULES.md 6); the deal of hand k of match m in a lane depends only on
(seed, lane, m, k), so every lineup gets the same cards as long as its matches last as long.
Each lane stops after its share of ``--hands`` deals, mid-match if need be (unfinished
matches count for points, not for wins). All games of all lanes and lineups step together on
the batched engine; each bot acts on the batch of games where it is to act.

Lineups: with 4 bots, the 4 rotations; with 2 or 3, the rotations of ``A B A B`` /
``A B C A`` (a bot may hold two seats); with more, the 4 rotations of every group of 4.

Per bot the report gives points per hand (3/2/1/0 for 1st-4th; 1.5 is par) with a 95% CI
over *boards* (a board is one deal; its value is the bot's mean over the lineups that played
it, which removes deal luck), the match win rate per seat (a draw shares the win; par is
25%; a bot holding two seats counts both) with a 95% Wilson interval, and an openskill
Plackett-Luce rating updated after every hand from the bots' places (a bot holding two seats
is ranked by their mean points). Same seed and bots, same report.

Bot specs are those of ``murlan_env.registry`` (``random``, ``greedy``, ``rule``,
``search:N``, ``search:0.5s``, ``bundle:DIR``, ``ckpt:PATH``, the shipped policies).
"""

from __future__ import annotations

import argparse
import dataclasses
import itertools
import json
import math
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from murlan_env import engine, registry
from murlan_env.bots import Bot
from murlan_env.engine import Phase, State
from murlan_env.rules import Rules

Z95 = 1.959963984540054
DEFAULT_HANDS_PER_LANE = 60


# --------------------------------------------------------------------------- bots


def _unique_names(bots: Sequence[Bot]) -> list[str]:
    names, seen = [], {}
    for bot in bots:
        seen[bot.name] = seen.get(bot.name, 0) + 1
        names.append(bot.name if seen[bot.name] == 1 else f"{bot.name}#{seen[bot.name]}")
    return names


# --------------------------------------------------------------------------- schedule


def lineups(n_bots: int) -> np.ndarray:
    """(L, 4) bot index at each seat for every lineup of a duplicate tournament."""
    if n_bots < 2:
        raise ValueError("an arena needs at least 2 bots")
    groups = [(0, 1, 0, 1)] if n_bots == 2 else [(0, 1, 2, 0)] if n_bots == 3 else []
    if n_bots >= 4:
        groups = list(itertools.combinations(range(n_bots), 4))
    out: list[tuple[int, ...]] = []
    for group in groups:
        for r in range(4):
            rotated = tuple(group[(s - r) % 4] for s in range(4))
            if rotated not in out:
                out.append(rotated)
    return np.array(out, dtype=np.int64)


def _deal(seed: int, lane: int, match: int, hand: int, dealer: int) -> np.ndarray:
    """(4, 54) bool: the seeded deal of one hand, the same for every lineup."""
    rng = np.random.default_rng([seed, lane, match, hand])
    return engine.random_deal(rng, np.array([dealer], np.int8))[0]


def _first_dealer(seed: int, lane: int, match: int) -> int:
    return int(np.random.default_rng([seed, lane, match, 1 << 20]).integers(0, 4))


# --------------------------------------------------------------------------- running


@dataclasses.dataclass
class ArenaLog:
    """Raw results: one row per finished hand and per finished match (seats, not bots)."""

    hand_board: list[tuple[int, int, int]]  # (lane, match, hand) deal of each finished hand
    hand_lineup: list[int]  # lineup index of each finished hand
    hand_points: list[np.ndarray]  # (4,) points per seat of each finished hand
    match_lineup: list[int]  # lineup index of each finished match
    match_winners: list[np.ndarray]  # (4,) bool winners per seat of each finished match


def play_tournament(
    bots: Sequence[Bot],
    hands: int,
    seed: int = 0,
    rules: Rules | None = None,
    lanes: int | None = None,
) -> tuple[np.ndarray, ArenaLog]:
    """Play the duplicate tournament; returns the lineups (L, 4) and the raw log.

    ``hands`` seeded deals in all, split over ``lanes`` (default: one lane per
    ``DEFAULT_HANDS_PER_LANE`` deals); each deal is played by every lineup.
    """
    rules = rules or Rules()
    if hands < 1:
        raise ValueError("hands must be positive")
    seats = lineups(len(bots))
    n_lanes = lanes or max(1, math.ceil(hands / DEFAULT_HANDS_PER_LANE))
    n_lanes = min(n_lanes, hands)
    budget_per_lane = [hands // n_lanes + (lane < hands % n_lanes) for lane in range(n_lanes)]
    lane_of = np.repeat(np.arange(n_lanes), len(seats))
    lineup_of = np.tile(np.arange(len(seats)), n_lanes)
    n_games = lane_of.size
    budget = np.array([budget_per_lane[lane] for lane in lane_of])
    match_no = np.zeros(n_games, np.int64)
    hand_in_match = np.zeros(n_games, np.int64)
    hands_done = np.zeros(n_games, np.int64)
    finished = np.zeros(n_games, bool)
    rng = np.random.default_rng([seed, 7])  # the bots' randomness, drawn in a fixed order
    log = ArenaLog([], [], [], [], [])

    def new_matches(games: np.ndarray) -> State:
        dealers = [_first_dealer(seed, lane_of[g], match_no[g]) for g in games]
        deals = np.stack(
            [
                _deal(seed, lane_of[g], match_no[g], 0, d)
                for g, d in zip(games, dealers, strict=True)
            ]
        )
        return engine.deal_from(deals, np.array(dealers, np.int8), rules)

    state = new_matches(np.arange(n_games))
    while not finished.all():
        mask = engine.legal_action_mask(state)
        waiting = mask.any(1) & ~finished
        bot_to_act = seats[lineup_of, state.to_act]
        actions = np.zeros(n_games, np.int64)
        for b, bot in enumerate(bots):
            games = np.flatnonzero(waiting & (bot_to_act == b))
            if games.size:
                sub = state.index(games)
                actions[games] = bot.act(engine.observe(sub), mask[games], rng)
        illegal = waiting & ~mask[np.arange(n_games), actions]
        if illegal.any():
            g = int(np.flatnonzero(illegal)[0])
            raise RuntimeError(f"bot {bots[bot_to_act[g]].name} played illegal action {actions[g]}")
        state = engine.step(state, actions)

        ended = np.flatnonzero(state.hand_over & ~finished)
        for g in ended:
            log.hand_board.append((int(lane_of[g]), int(match_no[g]), int(hand_in_match[g])))
            log.hand_lineup.append(int(lineup_of[g]))
            log.hand_points.append(state.points[g].copy())
            if state.phase[g] == Phase.MATCH_OVER:
                log.match_lineup.append(int(lineup_of[g]))
                log.match_winners.append(state.winners[g].copy())
        hands_done[ended] += 1
        finished[ended] |= hands_done[ended] >= budget[ended]
        go_on = ended[~finished[ended]]
        over = go_on[state.phase[go_on] == Phase.MATCH_OVER]
        next_in_match = go_on[state.phase[go_on] == Phase.HAND_OVER]
        if over.size:
            match_no[over] += 1
            hand_in_match[over] = 0
            state = engine.replace_games(state, over, new_matches(over))
        if next_in_match.size:
            hand_in_match[next_in_match] += 1
            sub = state.index(next_in_match)
            dealers = (sub.dealer.astype(np.int64) + 1) % 4
            deals = np.stack(
                [
                    _deal(seed, lane_of[g], match_no[g], hand_in_match[g], d)
                    for g, d in zip(next_in_match, dealers, strict=True)
                ]
            )
            state = engine.replace_games(state, next_in_match, engine.next_hand(sub, hands=deals))
    return seats, log


# --------------------------------------------------------------------------- statistics


def wilson_interval(successes: float, n: float, z: float = Z95) -> tuple[float, float]:
    """95% Wilson score interval of a proportion (fractional successes allowed)."""
    if n <= 0:
        return (0.0, 1.0)
    p = successes / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return (max(0.0, centre - half), min(1.0, centre + half))


def summarise(names: Sequence[str], seats: np.ndarray, log: ArenaLog) -> dict[str, Any]:
    """The report: per bot points per hand, match win rate and rating (JSON-ready)."""
    from openskill.models import PlackettLuce

    n_bots = len(names)
    model = PlackettLuce()
    ratings = [model.rating(name=name) for name in names]
    # Points per board: each board's value is the bot's mean over the seats that played it.
    board_sum: dict[tuple[int, int, int], np.ndarray] = {}
    board_n: dict[tuple[int, int, int], np.ndarray] = {}
    for board, lineup, points in zip(log.hand_board, log.hand_lineup, log.hand_points, strict=True):
        seat_bots = seats[lineup]
        sums = board_sum.setdefault(board, np.zeros(n_bots))
        counts = board_n.setdefault(board, np.zeros(n_bots))
        np.add.at(sums, seat_bots, points)
        np.add.at(counts, seat_bots, 1)
        present = np.unique(seat_bots)
        score = np.array([points[seat_bots == b].mean() for b in present])
        teams = [[ratings[b]] for b in present]
        new = model.rate(teams, ranks=list(-score))
        for b, team in zip(present, new, strict=True):
            ratings[b] = team[0]
    boards = sorted(board_sum)
    per_board = np.array([board_sum[k] / np.maximum(board_n[k], 1) for k in boards])
    played = np.array([board_n[k] > 0 for k in boards])
    wins = np.zeros(n_bots)
    entries = np.zeros(n_bots)
    for lineup, winners in zip(log.match_lineup, log.match_winners, strict=True):
        share = winners / max(1, winners.sum())
        np.add.at(wins, seats[lineup], share)
        np.add.at(entries, seats[lineup], 1)
    rows = []
    for b, name in enumerate(names):
        values = per_board[played[:, b], b] if len(boards) else np.zeros(0)
        mean = float(values.mean()) if values.size else float("nan")
        half = (
            float(Z95 * values.std(ddof=1) / math.sqrt(values.size))
            if values.size > 1
            else float("nan")
        )
        lo, hi = wilson_interval(wins[b], entries[b])
        rows.append(
            {
                "bot": name,
                "points_per_hand": mean,
                "points_ci95": [mean - half, mean + half],
                "hands": int(sum(board_n[k][b] for k in boards)),
                "boards": int(values.size),
                "match_win_rate": float(wins[b] / entries[b]) if entries[b] else float("nan"),
                "match_win_ci95": [lo, hi],
                "matches": int(entries[b]),
                "rating_mu": float(ratings[b].mu),
                "rating_sigma": float(ratings[b].sigma),
                "rating": float(ratings[b].ordinal()),
            }
        )
    return {
        "bots": rows,
        "lineups": [[names[b] for b in lineup] for lineup in seats],
        "boards": len(boards),
        "hands_played": len(log.hand_points),
        "matches_finished": len(log.match_lineup),
        "rating_model": "openskill PlackettLuce, ordinal = mu - 3 sigma, updated per hand",
    }


def run_arena(
    specs_or_bots: Sequence[str | Bot],
    hands: int = 200,
    seed: int = 0,
    rules: Rules | None = None,
    lanes: int | None = None,
) -> dict[str, Any]:
    """Play a duplicate tournament between bots (specs or Bot objects) and return the report."""
    bots = [registry.make_bot(b) if isinstance(b, str) else b for b in specs_or_bots]
    names = _unique_names(bots)
    seats, log = play_tournament(bots, hands, seed, rules, lanes)
    report = summarise(names, seats, log)
    report.update(seed=seed, hands=hands, rules=(rules or Rules()).to_dict())
    return report


# --------------------------------------------------------------------------- output


def report_table(report: dict[str, Any]):
    """The report as a rich Table, best rating first."""
    from rich.table import Table

    table = Table(
        title=(
            f"murlan arena: {report['boards']} deals, {report['hands_played']} hands, "
            f"{report['matches_finished']} matches, seed {report['seed']}"
        ),
        caption="par: 1.5 points/hand, 25% wins; rating: openskill mu - 3 sigma",
    )
    for col in ("bot", "pts/hand", "95% CI", "wins", "95% CI", "matches", "rating"):
        table.add_column(col, justify="left" if col == "bot" else "right", no_wrap=True)
    for row in sorted(report["bots"], key=lambda r: -r["rating"]):
        lo, hi = row["points_ci95"]
        wlo, whi = row["match_win_ci95"]
        has_matches = row["matches"] > 0
        table.add_row(
            row["bot"],
            f"{row['points_per_hand']:.3f}",
            f"{lo:.2f}-{hi:.2f}",
            f"{row['match_win_rate']:.0%}" if has_matches else "-",
            f"{wlo:.0%}-{whi:.0%}" if has_matches else "-",
            str(row["matches"]),
            f"{row['rating']:.1f}",
        )
    return table


def save_chart(report: dict[str, Any], path: str | Path) -> Path:
    """A PNG with points per hand and match win rate per bot, with their 95% intervals."""
    # A bare Figure (no pyplot): nothing global changes, so notebooks keep their backend.
    from matplotlib.figure import Figure

    rows = report["bots"]
    names = [r["bot"] for r in rows]
    x = np.arange(len(rows))
    fig = Figure(figsize=(4 + 1.2 * len(rows), 4))
    ax1, ax2 = fig.subplots(1, 2)
    pts = np.array([r["points_per_hand"] for r in rows])
    pci = np.array([r["points_ci95"] for r in rows])
    ax1.bar(x, pts, yerr=np.abs(pci.T - pts), capsize=4, color="tab:blue")
    ax1.axhline(1.5, color="grey", lw=1, ls="--")
    ax1.set(xticks=x, title="points per hand (par 1.5)")
    ax1.set_xticklabels(names, rotation=30, ha="right")
    win = np.array([r["match_win_rate"] for r in rows])
    wci = np.array([r["match_win_ci95"] for r in rows])
    ax2.bar(
        x, np.nan_to_num(win), yerr=np.abs(wci.T - np.nan_to_num(win)), capsize=4, color="tab:green"
    )
    ax2.axhline(0.25, color="grey", lw=1, ls="--")
    ax2.set(xticks=x, title="match win rate (par 25%)", ylim=(0, 1))
    ax2.set_xticklabels(names, rotation=30, ha="right")
    fig.suptitle(f"{report['boards']} deals, seed {report['seed']}")
    fig.tight_layout()
    path = Path(path)
    fig.savefig(path, dpi=100)
    return path


# --------------------------------------------------------------------------- command line


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The ``murlan arena`` options."""
    parser.add_argument(
        "bots", nargs="+", help="bot specs: random greedy rule search:200 ckpt:PATH bundle:DIR"
    )
    parser.add_argument(
        "--hands", type=int, default=200, help="seeded deals (each played by every lineup)"
    )
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--rules",
        action="append",
        default=[],
        metavar="FLAG=VALUE[,...]",
        help="variant flags, e.g. sticky_pass=true,joker_pair=true (repeatable)",
    )
    parser.add_argument(
        "--lanes", type=int, default=None, help="parallel deal sequences (default: hands/60)"
    )
    parser.add_argument(
        "--json",
        nargs="?",
        const="-",
        default=None,
        metavar="FILE",
        help="write the report as JSON (to stdout without FILE)",
    )
    parser.add_argument("--png", default=None, metavar="FILE", help="save a chart of the report")


def run_command(args: argparse.Namespace) -> int:
    """Run ``murlan arena`` from parsed arguments."""
    from rich.console import Console

    from murlan_env.rules import RulesError

    try:
        rules = Rules.parse(args.rules)
        bots = [registry.make_bot(spec) for spec in args.bots]
    except (ValueError, RulesError, FileNotFoundError) as err:
        print(f"murlan arena: error: {err}", file=sys.stderr)
        return 2
    report = run_arena(bots, args.hands, args.seed, rules, args.lanes)
    if args.json == "-":
        print(json.dumps(report, indent=2))
    else:
        Console().print(report_table(report))
        if args.json:
            Path(args.json).write_text(json.dumps(report, indent=2))
    if args.png:
        save_chart(report, args.png)
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="murlan arena", description=__doc__.splitlines()[0])
    add_arguments(parser)
    return run_command(parser.parse_args(argv))


if __name__ == "__main__":
    raise SystemExit(main())
