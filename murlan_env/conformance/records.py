"""Record vectors: valid and corrupted ``murlan-record/1`` records with this validator's
verdict, to hold another implementation of the validator (the JavaScript client's) to this
one: the same verdict, the same fault location and the same reason.

``mutations`` is the seeded fuzz of single changes anywhere in a record (a value replaced by
junk, a key or list item removed, an unknown key added) that tests/test_records.py also
runs; ``rule_mutations`` adds changes a player could make (another card, a missing or extra
pass, other exchange cards, other results) and ``float_mutations`` integers written as
floats.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Iterator
from typing import Any

import numpy as np

from murlan_env.conformance.engine import VARIANTS
from murlan_env.records.generate import selfplay
from murlan_env.records.validator import validate

RECORD_VECTORS_FORMAT = "murlan-record-vectors/1"
# Junk the fuzz puts in place of a value: every JSON type, out-of-range and huge integers, a
# float, strings that are cards, no cards and no JSON.
FUZZ_JUNK = [None, True, -1, 4, 2**70, 1.5, "", "3S", "XX", "3S 3S", [], {}, [0, ""], [[0]], "{"]
DELETED = object()


def paths(x: Any, path: tuple = ()) -> Iterator[tuple]:
    """Every path (a tuple of keys and indices) into a JSON value, the root included."""
    yield path
    children = x.items() if isinstance(x, dict) else enumerate(x) if isinstance(x, list) else []
    for k, v in children:
        yield from paths(v, (*path, k))


def value_at(x: Any, path: tuple) -> Any:
    """The value at ``path`` in ``x``."""
    for k in path:
        x = x[k]
    return x


def junk_for(path: tuple) -> list:
    """The junk whose verdict at ``path`` does not depend on the position: values that may be
    legal in some positions (a pass, a card the player may hold, a pending give-back) are
    left out there."""
    junk = FUZZ_JUNK
    if path[-1] == "first_gives":  # null: a pending give-back; "3S": seat 'first' may hold it
        junk = [v for v in junk if v is not None and v != "3S"]
    if len(path) == 4 and path[2] == "plays":  # a whole entry: [0, ""] may be seat 0's pass
        junk = [v for v in junk if v != [0, ""]]
    if len(path) == 5 and path[2] == "plays" and path[4] == 1:  # cards: a pass, or a 3S
        junk = [v for v in junk if v != "" and v != "3S"]
    return junk


def mutations(base: dict, n: int, rng: np.random.Generator) -> Iterator[tuple[dict, tuple, Any]]:
    """``n`` random single mutations of ``base``: (record, path, value put there, or
    ``DELETED`` for a key or item removed). An unknown key added has the path of that key;
    hands and plays are never removed (that shifts the rest: the verdict would depend on the
    position)."""
    all_paths = [p for p in paths(base) if p]
    dicts = [p for p in paths(base) if isinstance(value_at(base, p), dict)]
    for _ in range(n):
        record = copy.deepcopy(base)
        kind = rng.random()
        if kind < 0.1:  # other keys are ignored, but not in rules: an unknown flag
            path = (*dicts[rng.integers(len(dicts))], "x-note")
            value = FUZZ_JUNK[rng.integers(len(FUZZ_JUNK))]
            value_at(record, path[:-1])[path[-1]] = value
            yield record, path, value
            continue
        path = all_paths[rng.integers(len(all_paths))]
        parent = value_at(record, path[:-1])
        shifts = isinstance(parent, list) and path[-2] in ("hands", "plays")
        if kind < 0.3 and not shifts:
            del parent[path[-1]]
            yield record, path, DELETED
        else:
            junk = junk_for(path)
            value = copy.deepcopy(junk[rng.integers(len(junk))])
            parent[path[-1]] = value
            yield record, path, value


def rule_mutations(base: dict, n: int, rng: np.random.Generator) -> Iterator[dict]:
    """``n`` changes a player or a careless writer could make: a play's card swapped for
    another card of the deal, a pass added or removed, two plays swapped, an exchange card
    changed, a result or total off by one, a winner added."""
    cards = [c for hand in base["hands"] for c in hand["deal"][0].split()]
    for _ in range(n):
        rec = copy.deepcopy(base)
        hands = rec["hands"]
        h = int(rng.integers(len(hands)))
        hand = hands[h]
        plays = hand["plays"]
        kind = int(rng.integers(7))
        if kind == 0 and plays:
            p = int(rng.integers(len(plays)))
            held = plays[p][1].split()
            if held:
                held[int(rng.integers(len(held)))] = cards[int(rng.integers(len(cards)))]
                plays[p][1] = " ".join(held)
        elif kind == 1 and plays:
            p = int(rng.integers(len(plays)))
            plays.insert(p, [plays[p][0], ""])
        elif kind == 2 and plays:
            passes = [i for i, (_, c) in enumerate(plays) if c == ""]
            if passes:
                del plays[passes[int(rng.integers(len(passes)))]]
        elif kind == 3 and len(plays) > 1:
            p = int(rng.integers(len(plays) - 1))
            plays[p], plays[p + 1] = plays[p + 1], plays[p]
        elif kind == 4 and hand["exchange"] is not None:
            key = ["last_gives", "first_gives"][int(rng.integers(2))]
            hand["exchange"][key] = cards[int(rng.integers(len(cards)))]
        elif kind == 5:
            key = ["scores", "points", "finish"][int(rng.integers(3))]
            where = rec if key == "scores" else hand
            if where[key]:
                where[key] = list(where[key])
                i = int(rng.integers(len(where[key])))
                where[key][i] = (where[key][i] + 1) % 4 if key == "finish" else where[key][i] + 1
        else:
            rec["winners"] = sorted({*rec["winners"], int(rng.integers(4))})
        yield rec


def float_mutations(base: dict, n: int, rng: np.random.Generator) -> Iterator[dict]:
    """``n`` copies of ``base`` with one integer (a seat, dealer, point, score, the target)
    written as a float: 3.0 equals 3 but is no JSON integer."""
    ints = [p for p in paths(base) if p and type(value_at(base, p)) is int]
    for _ in range(n):
        rec = copy.deepcopy(base)
        path = ints[int(rng.integers(len(ints)))]
        value_at(rec, path[:-1])[path[-1]] = float(value_at(base, path))
        yield rec


def _cut(record: dict, rng: np.random.Generator) -> dict:
    """``record`` cut inside its last hand: an unfinished match."""
    out = copy.deepcopy(record)
    hand = out["hands"][-1]
    keep = int(rng.integers(len(hand["plays"]) + 1))
    hand["plays"] = hand["plays"][:keep]
    out2 = copy.deepcopy(out)
    out2["hands"][-1].update(finish=[], points=None)
    return out2


def record_vectors(rng: np.random.Generator, matches: int = 8) -> dict[str, Any]:
    """Records and their verdicts: ``matches`` seeded random matches (the variants in turn;
    some whole, some stopped after a few hands), each followed by fuzzed and rule-level
    corrupted copies of a short prefix of it. Each item is ``{"record": JSON text, "valid",
    "fault", "reason"}`` (text, so a float such as 3.0 stays a float)."""
    items: list[dict] = []

    def add(record: Any) -> None:
        result = validate(record)
        text = json.dumps(record)
        items.append(
            {"record": text, "valid": result.valid, "fault": result.fault, "reason": result.reason}
        )

    for m in range(matches):
        rules = VARIANTS[m % len(VARIANTS)]
        max_hands = None if m % 2 == 0 else int(rng.integers(1, 4))
        record = selfplay(rng, 1, rules, max_hands=max_hands).record(0)
        add(record)
        # a short prefix (the first two hands, the second cut short) keeps each replay quick
        prefix = copy.deepcopy(record)
        del prefix["hands"][2:]
        if len(prefix["hands"]) == 2:
            second = prefix["hands"][1]
            second.update(plays=second["plays"][:12], finish=[], points=None)
        prefix["scores"] = prefix["hands"][0]["points"] or [0, 0, 0, 0]
        prefix["target"], prefix["winners"] = 21, []
        if len(prefix["hands"]) == 1 and prefix["hands"][0]["points"] is None:
            prefix["scores"] = [0, 0, 0, 0]
        add(prefix)
        add(_cut(record, rng))
        for mutated, _, _ in mutations(prefix, 40, rng):
            add(mutated)
        for mutated in rule_mutations(prefix, 20, rng):
            add(mutated)
        for mutated in float_mutations(prefix, 4, rng):
            add(mutated)
    for text in ("{", "[]", '"x"', "3"):
        items.append({"record": text, **_verdict_of_text(text)})
    return {"format": RECORD_VECTORS_FORMAT, "records": items}


def _verdict_of_text(text: str) -> dict[str, Any]:
    result = validate(text)
    return {"valid": result.valid, "fault": result.fault, "reason": result.reason}


__all__ = [
    "DELETED",
    "FUZZ_JUNK",
    "RECORD_VECTORS_FORMAT",
    "junk_for",
    "mutations",
    "paths",
    "record_vectors",
    "float_mutations",
    "rule_mutations",
    "value_at",
]
