"""One person's match against three bots, driven by the browser's requests.

A ``Game`` is ``murlan play`` without the terminal: both play the person's match through
``murlan_env.envs.person_match.PersonMatch`` (the seeded set-up, the bots' turns and the
record), so a seed, bots and moves give the same match in both. After every move of the person
the bots play on until it is the person's turn again or the hand is over; the next hand starts
when the person asks for it. Each request keeps the boards of the moves it made (``steps`` in
the view), so the page can show them one at a time at the person's pace.

A request is all or nothing: when a bot fails on its turn, the game goes back to where it was
before the request (the person's move taken back) and the person is told so, instead of a
game stuck half way. Hints draw from their own stream (the seed and the number of decisions so
far), so asking for one never changes the game.
"""

from __future__ import annotations

import copy
import logging
import threading
import time
from collections.abc import Sequence
from typing import Any

import numpy as np

from murlan_env.bots.protocol import Bot
from murlan_env.envs.person_match import BotError, PersonMatch
from murlan_env.game import engine
from murlan_env.game.cards import CARD_NAMES, CARD_RANK, CardError, parse_card
from murlan_env.game.moves import IllegalMove, read_move
from murlan_env.game.rules import Rules
from murlan_env.game.state import Phase, State
from murlan_web import hints, views
from murlan_web.errors import ApiError
from murlan_web.record_files import RecordFolder

HINT_STREAM = 1
log = logging.getLogger("murlan_web")


class Game:
    """A match: the person at ``seat``, ``bots`` (3) at the other seats in seat order."""

    def __init__(
        self,
        bots: Sequence[Bot],
        specs: Sequence[str],
        *,
        seat: int,
        rules: Rules,
        seed: int,
        folder: RecordFolder,
    ) -> None:
        self.lock = threading.Lock()
        self.match = PersonMatch(bots, seat=seat, rules=rules, seed=seed)
        self.seat = seat
        self.seed = seed
        self.rules = rules
        self.folder = folder
        self.specs: list[str | None] = list(specs)
        self.specs.insert(seat, None)
        # Each seat's time a move in ms (a search bot's budget), None for the person and the others.
        self.budgets = [_budget_ms(bot) for bot in bots]
        self.budgets.insert(seat, None)
        self.names = views.seat_names(self.match.names)
        self.log = views.HandLog()
        # This request's decisions (the person's, then the bots'): the state after each, the
        # cards on the table then and how many events the hand had.
        self.steps: list[tuple[State, list[str], int]] = []
        self.record_name: str | None = None
        self.history: list[dict[str, Any]] = []  # every finished hand's finish and points
        self._request(self._play_bots, "no match was started")

    @property
    def state(self) -> State:
        return self.match.state

    @property
    def decisions(self) -> int:
        return self.match.decisions

    # ----------------------------------------------------------------- moves

    def your_turn(self) -> bool:
        return self.match.your_turn()

    def move(self, card_names: Sequence[str]) -> None:
        """Play the person's cards (none: pass; one in the exchange: the give-back).

        Raises ApiError 409 when it is not the person's turn, 400 for a name that is not a
        card, 422 with the reason for a move the rules do not allow, and 500 (the move taken
        back) when a bot fails on the turns that follow.
        """
        if self.over():
            raise ApiError(409, "the match is over: start a new one")
        if not self.your_turn():
            raise ApiError(409, "it is not your turn")
        ids = []
        for name in card_names:
            try:
                ids.append(parse_card(name))
            except CardError as err:
                raise ApiError(400, str(err)[:200]) from None
        try:
            action = read_move(self.state, ids)
        except IllegalMove as err:
            raise ApiError(422, str(err), illegal=True) from None
        cards = np.zeros(len(CARD_NAMES), bool)
        cards[ids] = True

        def person_then_bots() -> None:
            self._log(*self.match.play(action, cards))
            self._play_bots()

        self._request(person_then_bots, "your move was taken back")

    def next_hand(self) -> None:
        """Deal the next hand once the current one is over (409 otherwise)."""
        if not self.match.hand_over():
            raise ApiError(409, "the hand is not over" if not self.over() else "the match is over")

        def deal_then_bots() -> None:
            self.match.next_hand()
            self.log.start()
            self._play_bots()

        self._request(deal_then_bots, "the next hand was not dealt")

    def over(self) -> bool:
        return self.match.match_over()

    def hint(self, bot: Bot) -> dict[str, Any]:
        """What ``bot`` would play in the person's place, with its scores (409 if it is not
        the person's turn, 500 without the details if the bot fails)."""
        if self.over():
            raise ApiError(409, "the match is over: start a new one")
        if not self.your_turn():
            raise ApiError(409, "a hint is for your turn")
        rng = np.random.default_rng([self.seed, HINT_STREAM, self.decisions])
        try:
            return hints.advice(
                bot, self.state, rng, logs=self.match.logs, recorder=self.match.recorder
            )
        except Exception:
            log.exception("hint from %s failed", bot.name)
            raise ApiError(500, f"{bot.name} could not give a hint here: try another bot") from None

    def record(self) -> dict[str, Any]:
        """The match so far as a murlan-record/1 object."""
        return self.match.record()

    def _request(self, change, undone: str) -> None:
        """Run ``change`` (steps of the table) all or nothing: if a bot fails, the game goes
        back to before it and the person gets a 500 saying which bot and that ``undone``."""
        saved = (self.match.snapshot(), copy.deepcopy(self.log), list(self.history))
        self.steps = []
        try:
            change()
        except BotError as err:
            log.error("%s", err, exc_info=err.__cause__)
            self.match, self.log, self.history = saved
            self.steps = []
            raise ApiError(
                500,
                f"the bot at seat {err.seat} ({err.name}) failed on its turn, so {undone}. "
                "Try again, or start a new match with other bots.",
                bot_failed=err.seat,
            ) from None
        if self.match.hand_over() or self.over():
            self._finish_hand()

    def _finish_hand(self) -> None:
        state = self.state
        hand = int(state.hand_no[0]) + 1
        if not self.history or self.history[-1]["hand"] != hand:
            self.history.append({"hand": hand, "points": state.points[0].tolist()})
        if self.over() and self.record_name is None:
            stamp = time.strftime("%Y%m%d-%H%M%S")
            self.record_name = self.folder.save(self.record(), f"game-{stamp}-seed{self.seed}")

    def _log(self, before: State, after: State) -> None:
        self.log.add(before, after)
        self.steps.append((after, list(self.log.table_cards), len(self.log.events)))

    def _play_bots(self) -> None:
        """Let the bots act until it is the person's turn or the hand is over."""
        while self.match.in_hand() and not self.your_turn():
            self._log(*self.match.bot_turn())

    # ----------------------------------------------------------------- views

    def summary(self) -> dict[str, Any]:
        """A line about the match, for a page that offers to resume it."""
        state = self.state
        return {
            "seed": self.seed,
            "seat": self.seat,
            "bots": self.specs,
            "rules": self.rules.to_dict(),
            "hand": int(state.hand_no[0]) + 1,
            "scores": state.scores[0].tolist(),
            "over": self.over(),
        }

    def view(self, reveal: bool = False) -> dict[str, Any]:
        """Everything the Play page draws; other hands only with ``reveal``. ``steps``: the
        board after each decision of the last request (the person's move, then the bots'),
        and how many of ``events`` had happened by then, for the page to show the moves one at
        a time."""
        state = self.state
        involved = self.seat in (int(state.ex_first[0]), int(state.ex_last[0]))
        events = [
            e if reveal or involved or e["kind"] != "give back" else views.hide_cards(e)
            for e in self.log.events
        ]
        steps = [
            {"board": self._board(after, cards, reveal), "events": n}
            for after, cards, n in self.steps
        ]
        return {
            "seed": self.seed,
            "seat": self.seat,
            "rules": self.rules.to_dict(),
            "rules_text": views.rules_text(self.rules),
            "bots": self.specs,
            "budgets": self.budgets,
            "names": self.names,
            "revealed": reveal,
            "board": self._board(state, self.log.table_cards, reveal),
            "events": events,
            "steps": steps,
            "hands": self.history,
            "your_turn": self.your_turn(),
            "exchange_prompt": self._exchange_prompt(),
            "record": self.record_name,
            "decisions": self.decisions,
        }

    def _board(self, state: State, table_cards: Sequence[str], reveal: bool) -> dict[str, Any]:
        involved = self.seat in (int(state.ex_first[0]), int(state.ex_last[0]))
        decided = int(state.phase[0]) >= Phase.HAND_OVER  # the cards left are laid down
        return views.board(
            state,
            self.names,
            visible=[reveal or decided or s == self.seat for s in range(4)],
            table_cards=table_cards,
            give_back_seen=reveal or involved,
        )

    def _exchange_prompt(self) -> dict[str, Any] | None:
        """The give-back dialogue when the person is the previous 1st player."""
        state = self.state
        if not self.your_turn() or int(state.phase[0]) != Phase.EXCHANGE:
            return None
        received = int(state.ex_last_gives[0])
        mask = engine.legal_action_mask(state)[0]
        hand = np.flatnonzero(state.cards[0, self.seat])
        eligible = [CARD_NAMES[c] for c in hand if c != received and mask[1 + int(CARD_RANK[c])]]
        return {
            "received": CARD_NAMES[received],
            "from": int(state.ex_last[0]),
            "eligible": eligible,
        }


__all__ = ["Game"]


def _budget_ms(bot: Bot) -> int | None:
    """A bot's time budget a move in ms (``SearchBot``'s ``budget``, set by the set-up's "time
    a move"), or None: it takes what it takes."""
    budget = getattr(bot, "budget", None)
    return None if budget is None else round(budget * 1000)
