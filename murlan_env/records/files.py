"""The ``murlan-record/1`` format's name, keys and error, and reading and writing record files.

``loads``/``load`` read a record's JSON text (the content is checked by ``validate``, not
here); ``dumps``/``save`` write it with one play per line so a record reads and diffs well.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from typing import Any

FORMAT = "murlan-record/1"
# Required keys of a record, of each hand and of an exchange (RULES.md 8); others are ignored.
TOP_KEYS = ("format", "rules", "hands", "scores", "target", "winners")
HAND_KEYS = ("dealer", "deal", "exchange", "plays", "finish", "points")
EXCHANGE_KEYS = ("last", "first", "last_gives", "first_gives")


# The optional key that names who played each seat ("you", a level, a bot's name).
PLAYERS_KEY = "players"


def players(record: Mapping[str, Any]) -> list[str] | None:
    """The record's ``players`` (4 labels in seat order), or None when it has none or they
    are not 4 non-empty strings: an optional key, so a malformed one is ignored, not a fault."""
    named = record.get(PLAYERS_KEY)
    if isinstance(named, list) and len(named) == 4 and all(isinstance(p, str) and p for p in named):
        return list(named)
    return None


class RecordError(ValueError):
    """A record that breaks the format or the rules: ``fault`` says where, ``reason`` why."""

    def __init__(self, fault: str, reason: str) -> None:
        super().__init__(f"{fault}: {reason}")
        self.fault = fault
        self.reason = reason


def loads(text: str | bytes) -> dict[str, Any]:
    """Parse a record's JSON text; malformed JSON or a non-object raises RecordError("json")."""
    try:
        obj = json.loads(text)
    except (ValueError, RecursionError) as exc:  # JSONDecodeError and bad UTF-8 are ValueErrors
        raise RecordError("json", f"not valid JSON: {exc}") from None
    if not isinstance(obj, dict):
        raise RecordError("json", f"a record is a JSON object, got a JSON {type(obj).__name__}")
    return obj


def load(path: str | os.PathLike) -> dict[str, Any]:
    """Read a record file (OSError for a missing file; RecordError for bad JSON)."""
    with open(path, "rb") as f:
        return loads(f.read())


def dumps(record: Mapping[str, Any]) -> str:
    """JSON text of a record, one play per line and short lists on one line."""

    def scalar(x):
        return not isinstance(x, (dict, list, tuple))

    def write(x, indent):
        if scalar(x):
            return json.dumps(x)
        items = list(x.values()) if isinstance(x, dict) else list(x)
        if all(scalar(v) for v in items):
            return json.dumps(x, separators=(", ", ": "))
        pad, inner = " " * indent, " " * (indent + 2)
        if isinstance(x, dict):
            body = [f"{inner}{json.dumps(k)}: {write(v, indent + 2)}" for k, v in x.items()]
            return "{\n" + ",\n".join(body) + f"\n{pad}}}"
        body = [f"{inner}{write(v, indent + 2)}" for v in x]
        return "[\n" + ",\n".join(body) + f"\n{pad}]"

    return write(record, 0) + "\n"


def save(record: Mapping[str, Any], path: str | os.PathLike) -> None:
    """Write a record file (see ``dumps``)."""
    with open(path, "w", encoding="utf-8") as f:
        f.write(dumps(record))
