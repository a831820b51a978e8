"""Comparing a record's results with the engine's: each hand's finish and points, and the
match's scores, target and winners (RULES.md 8: "exactly what the plays imply").

The engine state after a replayed hand holds the true results; these checks only read the
record's values and name the first one that differs.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from murlan_env.game.engine import N_SEATS, TARGETS, Phase, State
from murlan_env.records.files import TOP_KEYS, RecordError
from murlan_env.records.values import int_list, is_int, show, top_value
from murlan_env.records.writer import finish_order


def check_hand_result(h: int, hand: Mapping[str, Any], state: State) -> None:
    """Hand ``h``'s ``finish`` and ``points`` against ``state``, the state after its plays."""
    over = state.phase[0] >= Phase.HAND_OVER
    finish = finish_order(state.place[0])
    given = int_list(hand["finish"], f"hand {h + 1} finish", "finish")
    if given != finish:
        what = "finish" if over else "finish so far (the hand is unfinished)"
        raise RecordError(f"hand {h + 1} finish", f"the plays give {what} {finish}, not {given}")
    where = f"hand {h + 1} points"
    if not over:
        if hand["points"] is not None:
            raise RecordError(where, "the hand is unfinished, so points must be null")
        return
    points = [int(p) for p in state.points[0]]
    if hand["points"] is None:
        raise RecordError(where, f"the hand is finished: points must be {points}")
    if int_list(hand["points"], where, "points", N_SEATS) != points:
        raise RecordError(where, f"the finish {finish} gives points {points}, not {hand['points']}")


def check_totals(record: Mapping[str, Any], state: State | None) -> None:
    """The record's ``scores``, ``target`` and ``winners`` against ``state``, the state after
    its last hand (None when it has no hands: a match not yet begun)."""
    for key in TOP_KEYS[TOP_KEYS.index("scores") :]:
        top_value(record, key)
    scores = [0] * N_SEATS if state is None else [int(s) for s in state.scores[0]]
    target = TARGETS[0] if state is None else int(state.target[0])
    winners = [] if state is None else [int(s) for s in np.flatnonzero(state.winners[0])]
    if int_list(record["scores"], "scores", "scores", N_SEATS) != scores:
        raise RecordError(
            "scores", f"the finished hands give scores {scores}, not {record['scores']}"
        )
    if not is_int(record["target"]):
        raise RecordError("target", f"the target must be an integer, got {show(record['target'])}")
    if record["target"] != target:
        raise RecordError(
            "target", f"the finished hands give target {target}, not {record['target']}"
        )
    given = int_list(record["winners"], "winners", "winners")
    if sorted(given) != winners or len(set(given)) != len(given):
        why = (
            f"the match is won by {winners}"
            if winners
            else "the match goes on, so winners must be []"
        )
        raise RecordError("winners", f"{why}, not {given}")
