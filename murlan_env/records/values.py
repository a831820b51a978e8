"""Reading the JSON values of a record: keys, seats, integers and card strings, or a fault.

Each reader returns the value it checked or raises ``RecordError`` at the location it is
given, with the value shown in the reason. These are the format's rules (RULES.md 8), not
the game's: seats, dealers, points, scores and the target are JSON integers (never 3.0 or
true), and a card string names cards in the notation of RULES.md 1 separated by single
spaces, with nothing before the first card or after the last (``""`` names no cards).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from murlan_env.game.cards import CardError, parse_cards
from murlan_env.game.state import N_SEATS
from murlan_env.records.files import RecordError


def show(x: Any, limit: int = 80) -> str:
    """A value as JSON for messages, shortened; never raises on odd Python objects."""
    try:
        text = json.dumps(x)
    except (TypeError, ValueError, RecursionError):
        text = repr(x)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def top_value(record: Mapping[str, Any], key: str) -> Any:
    """A top-level value of a record; a missing key is a fault at that key."""
    if key not in record:
        raise RecordError(key, f"the record has no {key!r} key")
    return record[key]


def require_keys(obj: Mapping[str, Any], keys: tuple[str, ...], where: str, what: str) -> None:
    """Fault at ``where`` for the first of ``keys`` that ``obj`` (the ``what``) lacks."""
    for key in keys:
        if key not in obj:
            raise RecordError(where, f"the {what} has no {key!r} key")


def is_int(x: Any) -> bool:
    """A JSON integer: not a bool, not a float such as 3.0."""
    return type(x) is int


def seat(x: Any, where: str, what: str) -> int:
    """A seat, an integer 0-3."""
    if not is_int(x) or not 0 <= x < N_SEATS:
        raise RecordError(where, f"{what} must be a seat, an integer 0-3, got {show(x)}")
    return x


def int_list(x: Any, where: str, what: str, length: int | None = None) -> list[int]:
    """A list of JSON integers, of ``length`` items when given."""
    if not isinstance(x, list) or not all(is_int(v) for v in x):
        raise RecordError(where, f"{what} must be a list of integers, got {show(x)}")
    if length is not None and len(x) != length:
        raise RecordError(where, f"{what} must list {length} integers, got {len(x)}")
    return x


def card_ids(x: Any, where: str, what: str) -> list[int]:
    """Card ids of a card string: cards separated by single spaces, ``""`` for none."""
    if not isinstance(x, str):
        raise RecordError(where, f'{what} must be a string of cards ("" for none), got {show(x)}')
    if " ".join(x.split()) != x:
        raise RecordError(
            where,
            f"{what}: cards are separated by single spaces, with no space before or after "
            f"them, got {x!r}",
        )
    try:
        return parse_cards(x)
    except CardError as exc:
        raise RecordError(where, f"{what}: {exc}") from None


def one_card(x: Any, where: str, what: str) -> int:
    """The card id of a string naming exactly one card."""
    if not isinstance(x, str):
        raise RecordError(where, f'{what} must be one card such as "7D", got {show(x)}')
    ids = card_ids(x, where, what)
    if len(ids) != 1:
        raise RecordError(where, f"{what} must be exactly one card, got {x!r}")
    return ids[0]
