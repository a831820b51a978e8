"""Seeded duplicate tournaments between bots, with confidence intervals and ratings.

``run_arena`` plays one and returns a JSON-ready report; ``report_table`` and ``save_chart``
show it. The command line, ``murlan arena random greedy rule search:200 --boards 40 --seed 0``,
is ``murlan_cli.arena``.

The tournament is a duplicate run (``murlan_env.eval.duplicate``): ``boards`` seeded boards,
each played by every lineup (the bots rotated through the seats, so each bot holds each
seat's cards in turn), as whole matches (RULES.md 6) unless ``max_hands=K`` stops each
after K hands. With 4 bots there are 4 lineups; with 2 or 3, the rotations of ``A B A B`` /
``A B C A`` (2 and 4 lineups; a bot may hold two seats); with more, the 4 rotations of every
group of 4. So 20 boards with 3 bots play 20 x 4 = 80 matches.

Per bot the report gives points per hand (3/2/1/0 for 1st-4th; par 1.5) with a 95% CI over
boards, the share of hands finished 1st, the match win rate (a draw shares the win; par 25%)
with a 95% interval, and a rating: a Bradley-Terry model fitted by maximum likelihood to
every pair of seats in every hand (the better-placed seat wins the pair), on an Elo-like
scale (a 400-point gap means 10:1 odds of finishing ahead; the mean rating is 1500), with a
95% interval from resampling boards. The fit uses all results at once, so their order does
not matter. Same seed and bots, same report.

Bot specs are those of ``murlan_env.bots.registry`` (``random``, ``greedy``, ``rule``,
``search:N``, ``search:0.5s``, ``bundle:DIR``, ``ckpt:PATH``, the shipped policies).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from murlan_env.bots import registry
from murlan_env.bots.protocol import Bot
from murlan_env.eval.duplicate import DuplicateResult, Progress, play_duplicate
from murlan_env.game.engine import N_SEATS
from murlan_env.game.rules import Rules

DEFAULT_BOARDS = 20
BOOTSTRAP_SAMPLES = 1000
ELO_SCALE = 400 / math.log(10)  # rating points per unit of log-strength
ELO_MEAN = 1500.0
PRIOR_TIE = 0.5  # virtual half-wins each way between every two bots: keeps the fit finite


# --------------------------------------------------------------------------- ratings


def pairwise_wins(
    hand_board: np.ndarray,
    hand_bots: np.ndarray,
    hand_points: np.ndarray,
    n_boards: int,
    n_bots: int,
) -> np.ndarray:
    """(boards, bots, bots) ``[b, i, j]``: on board b, how often a seat of bot i finished a
    hand ahead of a seat of bot j (a tie counts half). Seats of one bot are not compared.

    ``hand_bots`` and ``hand_points`` are (H, 4): the bot and the points of each seat in
    each finished hand.
    """
    wins = np.zeros((n_boards, n_bots, n_bots))
    board = np.asarray(hand_board)
    for s, t in itertools.combinations(range(N_SEATS), 2):
        a, b = hand_bots[:, s], hand_bots[:, t]
        diff = np.sign(hand_points[:, s] - hand_points[:, t])
        other = a != b
        np.add.at(wins, (board[other], a[other], b[other]), (1 + diff[other]) / 2)
        np.add.at(wins, (board[other], b[other], a[other]), (1 - diff[other]) / 2)
    return wins


def bradley_terry(wins: np.ndarray, tol: float = 1e-10, max_iter: int = 100_000) -> np.ndarray:
    """Log-strengths (..., n) maximising the Bradley-Terry likelihood of ``wins`` (..., n, n).

    ``wins[i, j]`` counts i's wins over j; ``PRIOR_TIE`` virtual half-wins are added each way
    between every two bots. Minorise-maximise iterations (Hunter 2004, "MM algorithms for
    generalized Bradley-Terry models"), vectorised over leading axes (bootstrap samples).
    The result has mean 0 over the last axis.
    """
    n = wins.shape[-1]
    off_diagonal = ~np.eye(n, dtype=bool)
    w = wins + PRIOR_TIE * off_diagonal
    total_wins = w.sum(-1)
    games = w + np.swapaxes(w, -1, -2)
    p = np.ones(wins.shape[:-1])
    for _ in range(max_iter):
        pair_sum = p[..., :, None] + p[..., None, :]
        new = total_wins / (games / pair_sum).sum(-1)
        new /= np.exp(np.log(new).mean(-1, keepdims=True))
        if np.abs(np.log(new) - np.log(p)).max() < tol:
            p = new
            break
        p = new
    log_p = np.log(p)
    return log_p - log_p.mean(-1, keepdims=True)


def fit_ratings(
    result: DuplicateResult, seed: int = 0, samples: int = BOOTSTRAP_SAMPLES
) -> tuple[np.ndarray, np.ndarray]:
    """Elo-like ratings (bots,) and their 95% intervals (bots, 2) from a duplicate run.

    The interval is the 2.5-97.5 percentile range of the ratings refitted to ``samples``
    resamplings of the boards (with replacement), drawn from ``seed``.
    """
    hand_bots = result.lineups[result.hand_lineup]
    per_board = pairwise_wins(
        result.hand_board, hand_bots, result.hand_points, result.boards, len(result.names)
    )
    rating = ELO_MEAN + ELO_SCALE * bradley_terry(per_board.sum(0))
    rng = np.random.default_rng(seed)
    counts = rng.multinomial(result.boards, np.full(result.boards, 1 / result.boards), samples)
    resampled = np.tensordot(counts.astype(np.float64), per_board, axes=1)
    boot = ELO_MEAN + ELO_SCALE * bradley_terry(resampled)
    interval = np.percentile(boot, [2.5, 97.5], axis=0).T
    return rating, interval


# --------------------------------------------------------------------------- the report


def _number(x: float) -> float | None:
    """JSON-ready: nan (nothing measured) becomes None."""
    return None if x is None or not np.isfinite(x) else float(x)


def run_arena(
    specs_or_bots: Sequence[str | Bot],
    boards: int = DEFAULT_BOARDS,
    seed: int = 0,
    rules: Rules | None = None,
    max_hands: int | None = None,
    progress: Progress | None = None,
) -> dict[str, Any]:
    """Play a duplicate tournament between bots (specs or Bot objects); the JSON-ready report.

    ``boards`` boards, each played by every lineup: whole matches, or ``max_hands`` hands.
    ``progress(done, total)`` is called as hands end (see ``play_duplicate``).
    Rates without data (match wins when no match finished) are None.
    """
    bots = [registry.make_bot(b) if isinstance(b, str) else b for b in specs_or_bots]
    if len(bots) < 2:
        raise ValueError(f"an arena needs at least 2 bots, got {len(bots)}")
    rules = rules or Rules()
    result = play_duplicate(
        bots, boards, seed=seed, rules=rules, max_hands=max_hands, progress=progress
    )
    rating, rating_ci = fit_ratings(result, seed)
    rows = []
    for i, r in enumerate(result.bot_results()):
        rows.append(
            {
                "bot": r.name,
                "points_per_hand": _number(r.points_per_hand),
                "points_ci95": [_number(x) for x in r.points_ci95],
                "first_rate": _number(r.first_rate),
                "hands": r.hands,
                "boards": r.boards,
                "match_win_rate": _number(r.match_win_rate),
                "match_win_ci95": [_number(x) for x in r.match_win_ci95],
                "matches": r.matches,
                "rating": float(rating[i]),
                "rating_ci95": [float(x) for x in rating_ci[i]],
            }
        )
    return {
        "summary": result.describe(),
        "bots": rows,
        "lineups": [[result.names[b] for b in lineup] for lineup in result.lineups],
        "boards": result.boards,
        "games": result.games,
        "max_hands": max_hands,
        "hands_played": len(result.hand_board),
        "matches_finished": len(result.match_board),
        "unfinished": result.unfinished,
        "rating_model": (
            "Bradley-Terry on pairs of seats per hand, maximum likelihood; Elo-like scale "
            "(mean 1500, 400 = 10:1 odds); 95% interval from resampled boards"
        ),
        "seed": seed,
        "rules": rules.to_dict(),
        "faults": bot_faults(bots, result.names),
    }


def bot_faults(bots: Sequence[Bot], names: Sequence[str]) -> list[dict[str, Any]]:
    """Per bot that reports faults (a bot in another process: ``murlan_env.bots.process``),
    its name and its ``fault_report``: every decision forfeited, each fault (with the last
    lines of the process's stderr) and when it was given up; bots without faults are left
    out."""
    out, seen = [], set()
    for bot, name in zip(bots, names, strict=True):
        report = getattr(bot, "fault_report", None)
        if report is None or id(bot) in seen:
            continue
        seen.add(id(bot))
        report = report()
        if report["faults"]:
            out.append({"bot": name, **report})
    return out


# --------------------------------------------------------------------------- output


def _span(pair, fmt: str) -> str:
    lo, hi = pair
    return "-" if lo is None or hi is None else f"{lo:{fmt}}-{hi:{fmt}}"


def report_table(report: dict[str, Any]):
    """The report as a rich Table, best rating first."""
    from rich import box
    from rich.table import Table

    from murlan_env.bots.process import given_up_text

    given_up = [
        f"{row['bot']}: {given_up_text(row['given_up'])}; {row['forfeited']} decisions forfeited"
        for row in report.get("faults", ())
        if row.get("given_up")
    ]
    # No outer or column borders, and the bot column folds long names: the numbers keep
    # their width and the table fits an 80-column terminal.
    table = Table(
        box=box.SIMPLE_HEAD,
        show_edge=False,
        padding=(0, 1),
        collapse_padding=True,
        title=f"murlan arena, seed {report['seed']}",
        caption="\n".join(
            [
                "par: 1.5 points/hand, 25% 1st, 25% wins",
                "matches: one per seat held; rating: Elo-like, mean 1500",
                *given_up,
            ]
        ),
    )
    columns = ("bot", "pts/hand", "95% CI", "1st", "wins", "95% CI", "matches", "rating", "95% CI")
    table.add_column(columns[0], justify="left", overflow="fold", min_width=6)
    for col in columns[1:]:
        table.add_column(col, justify="right", no_wrap=True)
    for row in sorted(report["bots"], key=lambda r: -r["rating"]):
        win = row["match_win_rate"]
        table.add_row(
            row["bot"],
            f"{row['points_per_hand']:.3f}",
            _span(row["points_ci95"], ".2f"),
            f"{row['first_rate']:.0%}",
            "-" if win is None else f"{win:.0%}",
            _span(row["match_win_ci95"], ".0%"),
            str(row["matches"]),
            f"{row['rating']:.0f}",
            _span(row["rating_ci95"], ".0f"),
        )
    return table


def save_chart(report: dict[str, Any], path: str | Path) -> Path:
    """A PNG with points per hand and match win rate per bot, with their 95% intervals."""
    # A bare Figure (no pyplot): nothing global changes, so notebooks keep their backend.
    from matplotlib.figure import Figure

    def values(key: str) -> np.ndarray:
        return np.array([np.nan if r[key] is None else r[key] for r in rows], np.float64)

    def errors(key: str, centre: np.ndarray) -> np.ndarray:
        ci = np.array([[np.nan if x is None else x for x in r[key]] for r in rows], np.float64)
        return np.nan_to_num(np.abs(ci.T - centre))

    rows = report["bots"]
    names = [r["bot"] for r in rows]
    x = np.arange(len(rows))
    fig = Figure(figsize=(4 + 1.2 * len(rows), 4))
    ax1, ax2 = fig.subplots(1, 2)
    pts = values("points_per_hand")
    ax1.bar(x, pts, yerr=errors("points_ci95", pts), capsize=4, color="tab:blue")
    ax1.axhline(1.5, color="grey", lw=1, ls="--")
    ax1.set(xticks=x, title="points per hand (par 1.5)")
    ax1.set_xticklabels(names, rotation=30, ha="right")
    win = np.nan_to_num(values("match_win_rate"))
    ax2.bar(x, win, yerr=errors("match_win_ci95", win), capsize=4, color="tab:green")
    ax2.axhline(0.25, color="grey", lw=1, ls="--")
    ax2.set(xticks=x, title="match win rate (par 25%)", ylim=(0, 1))
    ax2.set_xticklabels(names, rotation=30, ha="right")
    fig.suptitle(report["summary"], fontsize="small")
    fig.tight_layout()
    path = Path(path)
    fig.savefig(path, dpi=100)
    return path
