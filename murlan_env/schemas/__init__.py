"""JSON Schemas of the files murlan writes for other programs to read (package data).

- ``state.schema.json``: a position as the seat to act sees it (a golden position's and a
  bot request's ``state``);
- ``record.schema.json``: a ``murlan-record/1`` record's shape (the validator judges its play);
- ``golden.schema.json``: a ``murlan-golden/2`` golden set;
- ``protocol.schema.json``: the lines of the bot protocol ``murlan-bot/1`` (its ``$defs``
  name each message: ``hello_from_murlan``, ``hello_from_bot``, ``move``, ``answer``, ``bye``);
- the conformance vectors (``murlan conformance KIND``, ``murlan_env.conformance``):
  ``transitions.schema.json`` (``murlan-transitions/1`` and the lines of ``murlan-lockstep/1``:
  engine states, moves and deals), ``record-vectors.schema.json`` (``murlan-record-vectors/1``:
  records and the validator's verdicts), ``rule-vectors.schema.json``
  (``murlan-rule-vectors/1``: the rule bot's moves), ``search-vectors.schema.json``
  (``murlan-search-vectors/1``: the search's belief and rollouts for fixed draws) and
  ``levels.schema.json`` (``murlan-level-vectors/1``: the levels' moves for given decision
  seeds).

The schemas refer to each other by ``$id`` (``urn:murlan:schemas:NAME``); ``validator``
resolves those references. Validating needs the ``jsonschema-rs`` package (the test extra), a
compiled validator that checks a whole golden set in milliseconds.
"""

from __future__ import annotations

import json
from importlib import resources
from typing import Any

NAMES = (
    "state",
    "record",
    "golden",
    "protocol",
    "transitions",
    "record-vectors",
    "rule-vectors",
    "search-vectors",
    "levels",
)


def schema(name: str) -> dict[str, Any]:
    """The schema ``NAME.schema.json`` as a dict."""
    if name not in NAMES:
        raise ValueError(f"no schema {name!r}; schemas: {', '.join(NAMES)}")
    path = resources.files("murlan_env.schemas") / f"{name}.schema.json"
    return json.loads(path.read_text(encoding="utf-8"))


def validator(name: str, part: str | None = None):
    """A ``jsonschema_rs`` validator of schema ``name`` (or of its ``$defs`` entry ``part``)
    that resolves the other schemas: ``validate``, ``is_valid`` and ``iter_errors`` (each
    error's ``instance_path`` and ``message``)."""
    import jsonschema_rs

    own = schema(name)
    registry = jsonschema_rs.Registry([(s["$id"], s) for s in map(schema, NAMES)])
    target = own if part is None else {"$ref": f"{own['$id']}#/$defs/{part}"}
    return jsonschema_rs.validator_for(target, registry=registry)


__all__ = ["NAMES", "schema", "validator"]
