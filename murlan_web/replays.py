"""A record opened for the Replay page: its frames, and a bot's view of each decision.

The record is replayed through the engine once (``records.replay``, which checks it as it
goes), so an invalid one comes back as its fault location and reason (422), never as a stack
trace. A valid one keeps its engine states packed in one array (one ``STATE_DTYPE`` record per
state: each hand's start and the state after every decision), so the memory an open replay
holds grows with the record and little more. The frames the page steps through (a board with
every hand visible, and the decision that led to it) are built one hand at a time, when the
page reaches that hand: the opening answer carries the first hand and the list of hands.
"""

from __future__ import annotations

import logging
import threading
from typing import Any

import numpy as np

from murlan_env import records
from murlan_env.bots.history import HandLogs
from murlan_env.bots.protocol import Bot
from murlan_env.game.state import Phase, State
from murlan_web import hints, views
from murlan_web.errors import ApiError

log = logging.getLogger("murlan_web")


class Replay:
    """A valid record's states, packed, and the frames of each hand on request."""

    def __init__(self, text: str, source: str) -> None:
        try:
            record = records.loads(text)
            states = records.replay(record)
        except records.RecordError as err:  # the validator counts hands and plays from 1
            raise ApiError(
                422,
                f"invalid record: at {err.fault}: {err.reason}",
                fault=err.fault,
                where=err.fault,
                reason=err.reason,
            ) from None
        if not states:
            raise ApiError(422, "the record is valid but has no hands to replay")
        self.source = source
        self.rules = states[0].rules
        self.lock = threading.Lock()
        # One packed record per state, instead of one State (and its views) per state.
        self.packed = State(self.rules, np.concatenate([s.data for s in states]))
        hand_no = self.packed.hand_no
        self.hand_starts = [0, *(int(i) for i in np.flatnonzero(hand_no[1:] != hand_no[:-1]) + 1)]
        self.names = views.seat_names(records.players(record))
        self.summary_fields = {
            "names": self.names,
            "rules": record.get("rules", {}),
            "hands": len(record.get("hands", [])),
            "scores": record.get("scores"),
            "target": record.get("target"),
            "winners": record.get("winners"),
        }

    def __len__(self) -> int:
        return self.packed.batch_size

    def state(self, i: int) -> State:
        return self.packed.index(np.array([i]))

    def hand_range(self, hand: int) -> range:
        """The frame indices of ``hand`` (from 1); 404 for a hand the record does not have."""
        if not 1 <= hand <= len(self.hand_starts):
            raise ApiError(404, f"this replay has hands 1 to {len(self.hand_starts)}, not {hand}")
        starts = [*self.hand_starts, len(self)]
        return range(starts[hand - 1], starts[hand])

    def hand_frames(self, hand: int) -> list[dict[str, Any]]:
        """The frames of ``hand`` (from 1): the board after each decision, every hand visible,
        with the decision that led to it."""
        hand_log = views.HandLog()
        frames = []
        before = None
        for i in self.hand_range(hand):
            state = self.state(i)
            event = None if before is None else hand_log.add(before, state)
            board = views.board(
                state, self.names, visible=[True] * 4, table_cards=hand_log.table_cards
            )
            frames.append(
                {
                    "index": i,
                    "hand": board["hand"],
                    "event": event,
                    "board": board,
                    "decision": self.made(i) is not None,
                }
            )
            before = state
        return frames

    def made(self, i: int) -> int | None:
        """The action taken from state ``i`` (None where no decision follows it)."""
        if i + 1 >= len(self):
            return None
        packed = self.packed
        if int(packed.phase[i]) > Phase.EXCHANGE or packed.hand_no[i + 1] != packed.hand_no[i]:
            return None
        return int(packed.last_action[i + 1])

    def _hand_log(self, index: int) -> HandLogs:
        """The decisions of frame ``index``'s hand before it, for bots that read them."""
        hand = int(self.packed.hand_no[index]) + 1
        logs = HandLogs(1)
        for i in range(self.hand_range(hand).start, index):
            logs.record(self.state(i), np.array([self.made(i)]))
        return logs

    def summary(self) -> dict[str, Any]:
        """The record's totals, its hands (first frame index and number of frames of each)
        and the first hand's frames."""
        hands = [
            {"hand": h, "start": r.start, "frames": len(r)}
            for h in range(1, len(self.hand_starts) + 1)
            for r in [self.hand_range(h)]
        ]
        return {
            "source": self.source,
            **self.summary_fields,
            "frame_count": len(self),
            "hand_list": hands,
            "frames": self.hand_frames(1),
        }

    def advice(self, index: int, bot: Bot, seed: int) -> dict[str, Any]:
        """``bot``'s scores at the decision taken from frame ``index``, the move made marked."""
        if not 0 <= index < len(self):
            raise ApiError(400, f"frame {index} is not in this replay (0-{len(self) - 1})")
        made = self.made(index)
        if made is None:
            raise ApiError(409, f"no decision is taken from frame {index}")
        rng = np.random.default_rng([seed, index])
        state = self.state(index)
        try:
            out = hints.advice(bot, state, rng, made=made, logs=self._hand_log(index))
        except Exception:
            log.exception("replay advice from %s failed", bot.name)
            raise ApiError(
                500, f"{bot.name} could not score this decision: try another bot"
            ) from None
        out["seat"] = int(state.to_act[0])
        hand_log = views.HandLog()
        start = self.hand_range(int(self.packed.hand_no[index]) + 1).start
        for i in range(start, index + 1):
            event = hand_log.add(self.state(i), self.state(i + 1))
        out["made"] = {"action": made, "cards": event["cards"], "text": event["text"]}
        return out


__all__ = ["Replay"]
