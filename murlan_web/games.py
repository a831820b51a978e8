"""One person's match against three bots, driven by the browser's requests.

A ``Game`` is ``murlan play`` without the terminal: the same seeded construction (a deal
stream and a bot stream spawned from the seed, bots acting with the engine's choice of
cards), so a seed, bots and moves give the same match in both. After every move of the
person the bots play on until it is the person's turn again or the hand is over; the next
hand starts when the person asks for it. Hints draw from their own stream (the seed and
the number of decisions so far), so asking for one never changes the game.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Sequence
from typing import Any

import numpy as np

from murlan_env import records
from murlan_env.bots.basic import Bot
from murlan_env.bots.history import HandLogs, act_with_history
from murlan_env.game import engine
from murlan_env.game.cards import CARD_NAMES, CARD_RANK, CardError, parse_card
from murlan_env.game.moves import IllegalMove, read_move
from murlan_env.game.rules import Rules
from murlan_env.game.state import Phase
from murlan_web import hints, views
from murlan_web.errors import ApiError
from murlan_web.record_files import RecordFolder

HINT_STREAM = 1


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
        if len(bots) != 3:
            raise ValueError(f"a game needs 3 bots, got {len(bots)}")
        self.lock = threading.Lock()
        self.seat = seat
        self.seed = seed
        self.rules = rules
        self.folder = folder
        self.players: list[Bot | None] = list(bots)
        self.players.insert(seat, None)
        self.specs: list[str | None] = list(specs)
        self.specs.insert(seat, None)
        self.names = [
            f"You · seat {s}" if b is None else f"Seat {s} · {b.name}"
            for s, b in enumerate(self.players)
        ]
        self.deal_rng, self.bot_rng = np.random.default_rng(seed).spawn(2)
        self.state = engine.init(self.deal_rng, 1, rules)
        self.hand_log = HandLogs(1)  # the hand so far, for bots that read it
        self.recorder = records.Recorder(self.state)
        self.log = views.HandLog()
        self.decisions = 0
        self.record_name: str | None = None
        self._play_bots()

    # ----------------------------------------------------------------- moves

    def your_turn(self) -> bool:
        state = self.state
        return int(state.phase[0]) <= Phase.EXCHANGE and int(state.to_act[0]) == self.seat

    def move(self, card_names: Sequence[str]) -> None:
        """Play the person's cards (none: pass; one in the exchange: the give-back).

        Raises ApiError 409 when it is not the person's turn, 400 for a name that is not a
        card, and 422 with the reason for a move the rules do not allow.
        """
        if not self.your_turn():
            raise ApiError(409, "it is not your turn")
        ids = []
        for name in card_names:
            try:
                ids.append(parse_card(name))
            except CardError as err:
                raise ApiError(400, str(err)) from None
        try:
            action = read_move(self.state, ids)
        except IllegalMove as err:
            raise ApiError(422, str(err), illegal=True) from None
        cards = np.zeros(len(CARD_NAMES), bool)
        cards[ids] = True
        self._step(action, cards)
        self._play_bots()

    def next_hand(self) -> None:
        """Deal the next hand once the current one is over (409 otherwise)."""
        if int(self.state.phase[0]) != Phase.HAND_OVER:
            raise ApiError(409, "the hand is not over" if not self.over() else "the match is over")
        self.state = engine.next_hand(self.state, self.deal_rng)
        self.hand_log.clear([0])
        self.recorder.update(self.state)
        self.log.start()
        self._play_bots()

    def over(self) -> bool:
        return int(self.state.phase[0]) == Phase.MATCH_OVER

    def hint(self, bot: Bot) -> dict[str, Any]:
        """What ``bot`` would play in the person's place, with its scores (409 if it is not
        the person's turn)."""
        if not self.your_turn():
            raise ApiError(409, "a hint is for your turn")
        rng = np.random.default_rng([self.seed, HINT_STREAM, self.decisions])
        return hints.advice(bot, self.state, rng, logs=self.hand_log)

    def record(self) -> dict[str, Any]:
        """The match so far as a murlan-record/1 object."""
        return self.recorder.record(0)

    def _step(self, action: int, cards: np.ndarray | None = None) -> None:
        before = self.state
        given = None if cards is None else cards[None]
        self.hand_log.record(before, np.array([action]))
        self.state = engine.step(before, np.array([action]), given)
        self.recorder.update(self.state)
        self.decisions += 1
        self.log.add(before, self.state)
        if self.over() and self.record_name is None:
            stamp = time.strftime("%Y%m%d-%H%M%S")
            self.record_name = self.folder.save(self.record(), f"game-{stamp}-seed{self.seed}")

    def _play_bots(self) -> None:
        """Let the bots act until it is the person's turn or the hand is over."""
        while int(self.state.phase[0]) <= Phase.EXCHANGE and not self.your_turn():
            seat = int(self.state.to_act[0])
            bot = self.players[seat]
            mask = engine.legal_action_mask(self.state)
            obs = engine.observe(self.state)
            logs = self.hand_log
            action = int(act_with_history(bot, obs, mask, self.bot_rng, logs, [0], [seat])[0])
            if not mask[0, action]:
                raise RuntimeError(f"bot {bot.name} chose illegal action {action}")
            self._step(action)

    # ----------------------------------------------------------------- views

    def view(self, reveal: bool = False) -> dict[str, Any]:
        """Everything the Play page draws; other hands only with ``reveal``."""
        state = self.state
        visible = [reveal or s == self.seat for s in range(4)]
        involved = self.seat in (int(state.ex_first[0]), int(state.ex_last[0]))
        board = views.board(
            state,
            self.names,
            visible=visible,
            table_cards=self.log.table_cards,
            give_back_seen=reveal or involved,
        )
        events = [
            e if reveal or involved or e["kind"] != "give back" else views.hide_cards(e)
            for e in self.log.events
        ]
        return {
            "seed": self.seed,
            "seat": self.seat,
            "rules": self.rules.to_dict(),
            "bots": self.specs,
            "names": self.names,
            "revealed": reveal,
            "board": board,
            "events": events,
            "your_turn": self.your_turn(),
            "exchange_prompt": self._exchange_prompt(),
            "record": self.record_name,
            "decisions": self.decisions,
        }

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
