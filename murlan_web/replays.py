"""A record opened for the Replay page: its frames, and a bot's view of each decision.

The record is checked with ``records.validate`` first, so an invalid one comes back as its
fault location and reason (422), never as a stack trace; a valid one is replayed through
the engine (``records.replay``) into frames: one per engine state, each hand's start and
the state after every decision, with every hand visible.
"""

from __future__ import annotations

import logging
import threading
from typing import Any

import numpy as np

from murlan_env import records
from murlan_env.bots.basic import Bot
from murlan_env.bots.history import HandLogs
from murlan_env.game.state import Phase, State
from murlan_web import hints, views
from murlan_web.errors import ApiError

SEAT_NAMES = ("Seat 0", "Seat 1", "Seat 2", "Seat 3")
log = logging.getLogger("murlan_web")


class Replay:
    """A valid record's states and the frames the browser steps through."""

    def __init__(self, text: str, source: str) -> None:
        result = records.validate(text)
        if not result.valid:
            raise ApiError(  # the validator counts hands and plays from 1, as the page does
                422,
                f"invalid record: at {result.fault}: {result.reason}",
                fault=result.fault,
                where=result.fault,
                reason=result.reason,
            )
        self.source = source
        self.record = records.loads(text)
        self.states: list[State] = records.replay(self.record)
        if not self.states:
            raise ApiError(422, "the record is valid but has no hands to replay")
        self.rules = self.states[0].rules
        self.lock = threading.Lock()
        self.frames = self._frames()

    def _frames(self) -> list[dict[str, Any]]:
        log = views.HandLog()
        frames = []
        states = self.states
        for i, state in enumerate(states):
            new_hand = i == 0 or int(state.hand_no[0]) != int(states[i - 1].hand_no[0])
            if new_hand:
                log.start()
                event = None
            else:
                event = log.add(states[i - 1], state)
            board = views.board(state, SEAT_NAMES, visible=[True] * 4, table_cards=log.table_cards)
            frames.append(
                {
                    "index": i,
                    "hand": board["hand"],
                    "event": event,
                    "board": board,
                    "decision": self.made(i) is not None,
                }
            )
        return frames

    def made(self, i: int) -> int | None:
        """The action taken from state ``i`` (None where no decision follows it)."""
        if i + 1 >= len(self.states):
            return None
        state, after = self.states[i], self.states[i + 1]
        if int(state.phase[0]) > Phase.EXCHANGE or after.hand_no[0] != state.hand_no[0]:
            return None
        return int(after.last_action[0])

    def _hand_log(self, index: int) -> HandLogs:
        """The decisions of frame ``index``'s hand before it, for bots that read them."""
        states = self.states
        start = index
        while start > 0 and states[start - 1].hand_no[0] == states[index].hand_no[0]:
            start -= 1
        logs = HandLogs(1)
        for i in range(start, index):
            logs.record(states[i], np.array([self.made(i)]))
        return logs

    def summary(self) -> dict[str, Any]:
        return {
            "source": self.source,
            "rules": self.record.get("rules", {}),
            "hands": len(self.record.get("hands", [])),
            "scores": self.record.get("scores"),
            "target": self.record.get("target"),
            "winners": self.record.get("winners"),
            "frames": self.frames,
        }

    def advice(self, index: int, bot: Bot, seed: int) -> dict[str, Any]:
        """``bot``'s scores at the decision taken from frame ``index``, the move made marked."""
        if not 0 <= index < len(self.states):
            raise ApiError(400, f"frame {index} is not in this replay (0-{len(self.states) - 1})")
        made = self.made(index)
        if made is None:
            raise ApiError(409, f"no decision is taken from frame {index}")
        rng = np.random.default_rng([seed, index])
        state = self.states[index]
        try:
            out = hints.advice(bot, state, rng, made=made, logs=self._hand_log(index))
        except Exception:
            log.exception("replay advice from %s failed", bot.name)
            raise ApiError(
                500, f"{bot.name} could not score this decision: try another bot"
            ) from None
        out["seat"] = int(state.to_act[0])
        event = self.frames[index + 1]["event"]
        out["made"] = {"action": made, "cards": event["cards"], "text": event["text"]}
        return out


__all__ = ["Replay"]
