"""The bots a person can pick in the browser: a fixed menu, never a path from the browser.

The menu holds the built-in bots, a few search budgets (any ``search:N`` up to
``MAX_ROLLOUTS`` is accepted too), the difficulty levels and the shipped policies, and the
specs the person who started the server named with ``murlan serve --bots`` (the only way a
``bundle:DIR`` or ``ckpt:PATH`` gets in). Every spec resolves through
``murlan_env.bots.registry.make_bot``.
"""

from __future__ import annotations

import copy
import dataclasses
import re
import threading
from collections.abc import Sequence
from typing import Any

from murlan_env.bots import registry
from murlan_env.bots.protocol import Bot
from murlan_env.bots.registry import rules_conflict
from murlan_env.bots.search import SearchBot

SEARCH_BUDGETS = (50, 200, 800)
MAX_ROLLOUTS = 5000
_SEARCH_SPEC = re.compile(r"search:([1-9][0-9]{0,4})")


class UnknownBot(ValueError):
    """A spec that is not on the menu; the message lists the menu."""


@dataclasses.dataclass(frozen=True)
class BotChoice:
    """One entry of the menu."""

    spec: str  # what the browser sends back
    label: str  # what the person reads in a menu: short, so menus stay narrow
    group: str  # "built-in", "search", "difficulty level", "shipped policy" or "command line"
    scores: bool  # the bot scores candidate moves (hints show them), else it only acts
    about: str = ""  # a longer description, shown as a tooltip and a help line that wraps


class BotCatalog:
    """The menu of bots and the one place the web app builds bots from specs.

    ``extra_specs`` (from the command line) are built once here, so a bad one stops the
    server at start-up with the registry's message rather than failing in a browser later.
    Built bots are kept and shared: bots are stateless between ``act`` calls (their
    randomness comes from the caller's rng), so games and hints can use one instance.
    """

    def __init__(self, extra_specs: Sequence[str] = ()) -> None:
        self._built: dict[str, Bot] = {}
        self._lock = threading.Lock()
        choices = [
            BotChoice("rule", "rule", "built-in", False, "plans its hand and counts cards"),
            BotChoice("greedy", "greedy", "built-in", False, "plays its cheapest legal play"),
            BotChoice("random", "random", "built-in", False, "plays any legal move"),
        ]
        for n in SEARCH_BUDGETS:
            about = f"tries each move in {n} sampled deals of the hidden cards"
            choices.append(BotChoice(f"search:{n}", f"search, {n} rollouts", "search", True, about))
        for name, level in registry.levels().items():
            about = level.get("about") or f"the {level['policy']} policy"
            choices.append(BotChoice(name, name, "difficulty level", True, about))
        for name in registry.shipped_policies():
            about = "a trained policy shipped with murlan"
            choices.append(BotChoice(name, name, "shipped policy", True, about))
        for spec in extra_specs:
            bot = self.make(spec, checked=True)
            label = bot.name if len(bot.name) <= 40 else bot.name[:39] + "…"
            scores = hasattr(bot, "scores")
            choices.append(BotChoice(spec, label, "command line", scores, f"{bot.name} ({spec})"))
        self.choices: tuple[BotChoice, ...] = tuple(choices)
        self._specs = {c.spec for c in choices}

    def check(self, spec: Any) -> str:
        """``spec`` if the menu offers it (or it is ``search:N``, N <= MAX_ROLLOUTS); else
        UnknownBot. The browser can name nothing else, in particular no file path."""
        if isinstance(spec, str):
            if spec in self._specs:
                return spec
            found = _SEARCH_SPEC.fullmatch(spec)
            if found and int(found.group(1)) <= MAX_ROLLOUTS:
                return spec
        menu = ", ".join(c.spec for c in self.choices)
        raise UnknownBot(
            f"unknown bot {spec!r}: choose one of {menu}, or search:N with N up to {MAX_ROLLOUTS}"
        )

    def make(self, spec: str, *, checked: bool = False) -> Bot:
        """The bot of a spec (checked against the menu unless ``checked``), built once."""
        if not checked:
            spec = self.check(spec)
        with self._lock:
            bot = self._built.get(spec)
            if bot is None:
                bot = self._built[spec] = registry.make_bot(spec)
            return bot

    @staticmethod
    def budgeted(bot: Bot, budget_ms: int | None) -> Bot:
        """``bot`` with a time budget a move (``SearchBot``'s ``budget``, ``budget_ms`` ms) if
        it is a search (``expert``, ``search:N``), else ``bot`` itself: the set-up's "time a
        move". A copy that shares the built bot's models, so a game's budget is its own and
        costs nothing to make."""
        if budget_ms is None or not isinstance(bot, SearchBot) or bot.time_limit is not None:
            return bot
        out = copy.copy(bot)
        out.budget = budget_ms / 1000
        return out

    def to_json(self) -> list[dict[str, Any]]:
        return [dataclasses.asdict(c) for c in self.choices]


__all__ = ["BotCatalog", "BotChoice", "MAX_ROLLOUTS", "UnknownBot", "rules_conflict"]
