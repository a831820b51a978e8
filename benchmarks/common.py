"""What the benchmark scripts share: intervals as text, duplicate boards against a fixed table,
runs saved and pooled, Markdown tables, timing a bot, and the machine's name.

The statistics themselves are ``murlan_env.eval.duplicate``'s (``mean_ci``, ``play_duplicate``);
this module only formats and arranges them, so every script reports an interval the same way.
"""

from __future__ import annotations

import platform
import time
from collections.abc import Iterable, Sequence
from pathlib import Path

import numpy as np

from murlan_env.bots import registry
from murlan_env.bots.history import uses_history
from murlan_env.bots.protocol import Bot
from murlan_env.eval.duplicate import (
    mean_ci,
    one_against_three,
    play_duplicate,
    rotations,
    seeded_deals,
)
from murlan_env.game.state import N_SEATS, State

__all__ = [
    "Timed",
    "board_points",
    "ci_text",
    "cpu_name",
    "expert_in",
    "load_saved",
    "markdown_table",
    "mean_ci",
    "paired_ci_text",
    "percentile",
    "pooled",
    "table_results",
    "true_hidden_hands",
]


def ci_text(m: tuple[float, float, float], sign: str = "") -> str:
    """``mean_ci``'s (mean, low, high) as "mean [low, high]" to 3 decimals; ``sign`` "+" signs
    them (a difference)."""
    mean, lo, hi = m
    return f"{mean:{sign}.3f} [{lo:{sign}.3f}, {hi:{sign}.3f}]"


def paired_ci_text(a: np.ndarray, b: np.ndarray) -> str:
    """The board-by-board difference ``a - b`` as a signed "mean [low, high]" (95% CI)."""
    return ci_text(mean_ci(np.asarray(a) - np.asarray(b)), "+")


def markdown_table(header: Sequence[str], rows: Iterable[Sequence[object]]) -> str:
    """A Markdown table: the header, its rule and one line per row (cells as ``str`` gives
    them). tests/test_benchmarks.py reads tables by their header, so columns are named."""
    lines = [f"| {' | '.join(header)} |", f"|{'---|' * len(header)}"]
    lines += [f"| {' | '.join(str(cell) for cell in row)} |" for row in rows]
    return "\n".join(lines)


def board_points(
    bot: str | Bot,
    boards: int,
    seed: int,
    max_hands: int | None,
    draws: int | None = None,
    opponent: str = "rule",
    rules=None,
) -> np.ndarray:
    """(boards,) the bot's points per hand on each duplicate board, in one seat against three
    ``opponent`` bots in every seat in turn: the boards of ``seed``, the bots' generator seeded
    by ``draws`` (default: ``seed`` too); the first ``max_hands`` hands (None: whole matches)."""
    player = registry.make_bot(bot) if isinstance(bot, str) else bot
    result = play_duplicate(
        [player, registry.make_bot(opponent)],
        boards,
        lineups=one_against_three(),
        seed=seed if draws is None else draws,
        deals=seeded_deals(seed),
        rules=rules,
        max_hands=max_hands,
    )
    return result.board_points()[:, 0]


def table_results(
    bot: str | Bot,
    others: list[str],
    boards: int,
    seed: int,
    progress=None,
    max_hands: int | None = None,
    rules=None,
):
    """The bot's (a spec or a Bot) ``BotResult`` at a table: one spec (three copies, the bot in
    each seat in turn) or three specs (the four seated in every rotation); whole matches unless
    ``max_hands``."""
    player = registry.make_bot(bot) if isinstance(bot, str) else bot
    bots = [player] + [registry.make_bot(s) for s in others]
    lineups = one_against_three() if len(others) == 1 else rotations(4)
    result = play_duplicate(
        bots,
        boards,
        lineups=lineups,
        seed=seed,
        rules=rules,
        progress=progress,
        max_hands=max_hands,
    )
    return result.bot_results()[0]


class Timed:
    """A bot wrapper that counts decisions and the seconds spent choosing them (time inside
    the bot only)."""

    def __init__(self, bot: Bot) -> None:
        self.bot, self.name = bot, bot.name
        self.uses_history = uses_history(bot)  # pass the hand's history on to a bot that reads it
        self.decisions, self.seconds = 0, 0.0

    def act(self, obs: np.ndarray, mask: np.ndarray, rng: np.random.Generator, **history):
        start = time.perf_counter()
        out = self.bot.act(obs, mask, rng, **history)
        self.seconds += time.perf_counter() - start
        self.decisions += len(obs)
        return out


def load_saved(path: str | Path, keys: Sequence[str], hint: str) -> dict[str, np.ndarray]:
    """Every array of a run saved with ``np.savez``; SystemExit naming the missing ``keys`` and
    ``hint`` (the command that saves them) if the file lacks any."""
    with np.load(path) as saved:
        found = {k: saved[k] for k in saved.files}
    missing = [k for k in keys if k not in found]
    if missing:
        raise SystemExit(f"{path} holds no {', '.join(missing)}: save it with {hint}")
    return found


def pooled(runs: Sequence[dict[str, np.ndarray]], key: str) -> np.ndarray:
    """One array's per-board values over several saved runs (each of other boards), in order."""
    return np.concatenate([run[key] for run in runs])


def expert_in(arithmetic: str) -> Bot:
    """The ``expert`` level with its belief and rollouts in ``arithmetic`` (``float32`` or
    ``int8``: the level's ``arithmetic`` field), every other setting as levels.json states."""
    level = {**registry.levels()["expert"], "arithmetic": arithmetic}
    return registry.level_bot(f"expert-{arithmetic}", level)


def true_hidden_hands(state: State) -> np.ndarray:
    """(B, 4, 15) int8 held cards per seat slot, slot 0 the seat to act (its own hand)."""
    slots = (state.to_act[:, None] + np.arange(N_SEATS)) % N_SEATS
    return state.counts[np.arange(state.batch_size)[:, None], slots]


def percentile(values: Sequence[float], q: float) -> float:
    """The q-quantile (0..1) by linear interpolation, as numpy's default."""
    return float(np.quantile(np.asarray(values, dtype=float), q))


def cpu_name() -> str:
    """The CPU's model name (Linux), else what the platform module says: every timing a script
    prints names the machine it ran on."""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine() or "unknown CPU"
