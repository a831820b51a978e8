"""Small duplicate tournaments for the Compare page, run in the background with progress.

A tournament is ``murlan_env.eval.arena.run_arena`` in a thread of its own: the browser polls the
job for ``done``/``total`` (the arena's ``progress(done, total)`` callback: hands played, and the
fewest still to come) and, at the end, gets the report, its rows in the page's columns, and
the arena's chart. Rows are read generically: the columns the page knows (points per hand,
1st places, match wins and rating, each with its interval) where the report has them, and
every other plain field of a row as an extra column, so fields a newer arena adds show up
without a change here.

A tournament can be cancelled (``cancel``) and stops by itself at its time limit: every bot
decision first checks both (``_Stoppable``), so a run ends within one decision of a batch. Its
cost is bounded before it starts (``work``: rollouts per decision, summed over the bots, times
boards times hands), so one decision of a batch is short too.
"""

from __future__ import annotations

import logging
import tempfile
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from murlan_env.bots.protocol import Bot
from murlan_env.game.rules import Rules
from murlan_web.errors import json_safe

log = logging.getLogger("murlan_web")
HANDS_PER_MATCH = 10  # about how many hands a whole match lasts, for the cost estimate

# Columns of the table: (key, label, report fields it is read from, first found).
COLUMNS = (
    ("points", "points / hand", ("points_per_hand",)),
    ("points_ci", "95% CI", ("points_ci95",)),
    ("first", "1st", ("first_rate",)),
    ("wins", "match wins", ("match_win_rate",)),
    ("wins_ci", "95% CI", ("match_win_ci95",)),
    ("matches", "matches", ("matches",)),
    ("rating", "rating", ("rating",)),
    ("rating_ci", "95% CI", ("rating_ci95",)),
)
_READ = {field for _, _, fields in COLUMNS for field in fields} | {"bot"}


def table_rows(report: dict[str, Any]) -> list[dict[str, Any]]:
    """The report's rows in the page's columns, best rating first (report order without one);
    ``extra`` holds the row's other numbers and words."""
    rows = []
    for raw in report.get("bots", []):
        row: dict[str, Any] = {"bot": str(raw.get("bot", "?"))}
        for key, _, fields in COLUMNS:
            row[key] = next((raw[f] for f in fields if f in raw), None)
        row["extra"] = {
            k: v for k, v in raw.items() if k not in _READ and isinstance(v, (int, float, str))
        }
        rows.append(json_safe(row))
    if all(isinstance(r["rating"], (int, float)) for r in rows):
        rows.sort(key=lambda r: -r["rating"])
    return rows


def rollouts(bot: Bot) -> int:
    """Rollouts a bot plays per decision (1 for a bot that does not search), for ``work``."""
    return max(1, int(getattr(bot, "rollouts", None) or 1))


def work(bots: Sequence[Bot], boards: int, max_hands: int | None) -> int:
    """The cost of a tournament in rollouts per decision x boards x hands (whole matches
    counted as ``HANDS_PER_MATCH`` hands): what the server's limit caps."""
    hands = min(max_hands or HANDS_PER_MATCH, HANDS_PER_MATCH)
    return sum(rollouts(b) for b in bots) * boards * hands


class Stopped(Exception):
    """The tournament was cancelled or reached its time limit."""


class _Stoppable:
    """A bot that first checks whether its tournament must stop; otherwise the bot itself
    (every other attribute is the wrapped bot's)."""

    def __init__(self, bot: Bot, tournament: Tournament) -> None:
        self._bot = bot
        self._tournament = tournament

    def __getattr__(self, name: str):
        return getattr(self._bot, name)

    def act(self, *args, **kwargs):
        self._tournament.check()
        return self._bot.act(*args, **kwargs)


class Tournament:
    """One background run of the arena, stopped by ``cancel`` or after ``time_limit``
    seconds."""

    def __init__(
        self,
        bots: Sequence[Bot],
        specs: Sequence[str],
        *,
        boards: int,
        max_hands: int | None,
        seed: int,
        rules: Rules,
        time_limit: float = 300.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.bots = list(bots)
        self.specs = list(specs)
        self.boards = boards
        self.max_hands = max_hands
        self.seed = seed
        self.rules = rules
        self.status = "running"
        self.done = 0
        self.total: int | None = None
        self.report: dict[str, Any] | None = None
        self.chart: bytes | None = None
        self.error: str | None = None
        self.clock = clock  # seconds, for the time limit and the view's ``seconds``
        self.started = clock()
        self.finished: float | None = None
        self.time_limit = time_limit
        self._stop = threading.Event()
        self._why_stopped = "cancelled"
        self.thread = threading.Thread(target=self._run, name="murlan-tournament", daemon=True)

    def start(self) -> None:
        self.thread.start()

    def cancel(self) -> None:
        """Ask the run to stop (it does so before the next bot decision)."""
        self._stop.set()

    def check(self) -> None:
        """Raise Stopped if the run was cancelled or is past its time limit."""
        if self.clock() - self.started > self.time_limit:
            self._why_stopped = "timed out"
            self._stop.set()
        if self._stop.is_set():
            raise Stopped(self._why_stopped)

    def _progress(self, done: int, total: int) -> None:
        self.done, self.total = int(done), int(total)
        self.check()

    def _run(self) -> None:
        from murlan_env.eval.arena import run_arena, save_chart

        try:
            report = run_arena(
                [_Stoppable(b, self) for b in self.bots],
                boards=self.boards,
                seed=self.seed,
                rules=self.rules,
                max_hands=self.max_hands,
                progress=self._progress,
            )
            with tempfile.TemporaryDirectory() as tmp:
                path = Path(tmp) / "chart.png"
                save_chart(report, path)
                self.chart = path.read_bytes()
            self.report = report
            self.status = "done"
        except Stopped as why:
            self.status = str(why)
            limit = f"the time limit of {self.time_limit:g} s"
            self.error = f"stopped at {limit}" if self.status == "timed out" else "cancelled"
        except Exception:  # a failed run is reported to the page (in words) and to the log
            log.exception("tournament %s failed", self.specs)
            self.error = "a bot failed during the tournament (the server's log says more)"
            self.status = "failed"
        finally:
            self.finished = self.clock()

    def view(self, key: str) -> dict[str, Any]:
        out: dict[str, Any] = {
            "id": key,
            "status": self.status,
            "bots": self.specs,
            "boards": self.boards,
            "max_hands": self.max_hands,
            "seed": self.seed,
            "rules": self.rules.to_dict(),
            "done": self.done,
            "total": self.total,
            "seconds": round((self.finished or self.clock()) - self.started, 1),
            "time_limit": self.time_limit,
            "error": self.error,
        }
        if self.report is not None:
            out["columns"] = [{"key": k, "label": label} for k, label, _ in COLUMNS]
            out["rows"] = table_rows(self.report)
            out["summary"] = self.report.get("summary")
            out["report"] = json_safe(self.report)
            out["chart"] = f"/api/tournaments/{key}/chart.png" if self.chart else None
        return out


__all__ = ["COLUMNS", "Stopped", "Tournament", "rollouts", "table_rows", "work"]
