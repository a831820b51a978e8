"""Small duplicate tournaments for the Compare page, run in the background with progress.

A tournament is ``murlan_env.eval.arena.run_arena`` in a thread of its own: the browser polls the
job
for ``done``/``total`` (the arena's ``progress(done, total)`` callback: hands played, and the
fewest still to come) and, at the end, gets the report, its rows in the page's columns, and
the arena's chart. Rows are read generically: the columns the page knows (points per hand,
1st places, match wins and rating, each with its interval) where the report has them, and
every other plain field of a row as an extra column, so fields a newer arena adds show up
without a change here.
"""

from __future__ import annotations

import tempfile
import threading
import time
import traceback
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from murlan_env.bots.basic import Bot
from murlan_env.game.rules import Rules
from murlan_web.errors import json_safe

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


class Tournament:
    """One background run of the arena."""

    def __init__(
        self,
        bots: Sequence[Bot],
        specs: Sequence[str],
        *,
        boards: int,
        max_hands: int | None,
        seed: int,
        rules: Rules,
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
        self.started = time.time()
        self.finished: float | None = None
        self.thread = threading.Thread(target=self._run, name="murlan-tournament", daemon=True)

    def start(self) -> None:
        self.thread.start()

    def _progress(self, done: int, total: int) -> None:
        self.done, self.total = int(done), int(total)

    def _run(self) -> None:
        from murlan_env.eval.arena import run_arena, save_chart

        try:
            report = run_arena(
                self.bots,
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
        except Exception as err:  # a failed run is reported to the page, not raised
            self.error = f"{type(err).__name__}: {err}"
            traceback.print_exc()
            self.status = "failed"
        finally:
            self.finished = time.time()

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
            "seconds": round((self.finished or time.time()) - self.started, 1),
            "error": self.error,
        }
        if self.report is not None:
            out["columns"] = [{"key": k, "label": label} for k, label, _ in COLUMNS]
            out["rows"] = table_rows(self.report)
            out["summary"] = self.report.get("summary")
            out["report"] = json_safe(self.report)
            out["chart"] = f"/api/tournaments/{key}/chart.png" if self.chart else None
        return out


__all__ = ["COLUMNS", "Tournament", "table_rows"]
