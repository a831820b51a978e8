"""The JSON Schemas of murlan_env/schemas hold for what murlan writes, and refuse what it does
not: golden sets (the shipped ones and a fresh one), records of every rule variant, the
``state`` and ``record`` of bot requests (what clients/js and other programs read)."""

from __future__ import annotations

import copy
import json

import numpy as np
import pytest

from murlan_env import records
from murlan_env.bots import registry
from murlan_env.bots.process import golden_requests
from murlan_env.game.rules import RULE_CHOICES, Rules
from murlan_env.schemas import NAMES, schema, validator


def errors(name: str, value) -> list[str]:
    found = validator(name).iter_errors(value)
    return [f"{list(e.instance_path)}: {e.message[:120]}" for e in found]


def shipped_golden() -> list[dict]:
    return [
        json.loads((registry.policies_dir() / name / "golden.json").read_text())
        for name in registry.shipped_policies()
    ]


def test_the_schemas_are_valid_json_schemas():
    import jsonschema_rs

    for name in NAMES:
        jsonschema_rs.meta.validate(schema(name))
        assert schema(name)["$schema"] == "https://json-schema.org/draft/2020-12/schema"


def test_the_rules_in_the_schema_are_the_engines_flags():
    flags = schema("state")["$defs"]["rules"]["properties"]
    assert list(flags) == list(RULE_CHOICES)
    for flag, choices in RULE_CHOICES.items():
        if isinstance(choices[0], bool):
            assert flags[flag] == {"type": "boolean"}
        else:
            assert flags[flag]["enum"] == list(choices)


def every_16th_position(golden: dict) -> dict:
    """``golden`` with every 16th position and only the matches they lie in (renumbered), so
    that making their requests replays those matches alone."""
    positions = golden["positions"][::16]
    used = sorted({p["match"] for p in positions})
    renumber = {m: i for i, m in enumerate(used)}
    return {
        **golden,
        "matches": [golden["matches"][m] for m in used],
        "positions": [{**p, "match": renumber[p["match"]]} for p in positions],
    }


def test_shipped_golden_sets_and_their_requests_conform():
    for golden in shipped_golden():
        assert errors("golden", golden) == []
        for request in golden_requests(every_16th_position(golden)):
            assert errors("state", request["state"]) == []
            assert errors("record", request["record"]) == []


@pytest.mark.parametrize(
    "rules", [Rules(), Rules(sticky_pass=True, joker_pair=True), Rules(no_exchange=True)]
)
def test_records_of_every_variant_conform(rules):
    rec = records.selfplay(np.random.default_rng(4), n_games=3, rules=rules, max_hands=3)
    for record in rec.records():
        assert errors("record", record) == []


def test_what_is_not_a_record_or_a_position_is_refused():
    rec = records.selfplay(np.random.default_rng(1), n_games=1, max_hands=2).record(0)
    bad_card = copy.deepcopy(rec)
    bad_card["hands"][0]["deal"][0] = "3S  4S"  # two spaces
    no_key = {k: v for k, v in rec.items() if k != "winners"}
    bad_seat = copy.deepcopy(rec)
    bad_seat["hands"][0]["plays"][0][0] = 4
    for broken in (bad_card, no_key, bad_seat, {**rec, "format": "murlan-record/2"}):
        assert errors("record", broken)
    state = shipped_golden()[0]["positions"][0]["state"]
    assert errors("state", {**state, "phase": "bidding"})
    assert errors("state", {**state, "rules": {**state["rules"], "sticky_pass": "true"}})
    assert errors("state", {**state, "extra": 1})


def test_the_protocols_lines_conform(tmp_path):
    """What murlan sends and what the example bot answers, logged through a relay."""
    import sys
    from pathlib import Path

    from murlan_env.bots.process import ProcessBot

    example = Path(__file__).resolve().parents[1] / "examples" / "protocol_bot.py"
    log_in, log_out = tmp_path / "in.jsonl", tmp_path / "out.jsonl"
    relay = tmp_path / "relay.sh"
    relay.write_text(f"tee {log_in} | {sys.executable} {example} | tee {log_out}\n")
    with ProcessBot(["bash", str(relay)]) as bot:
        from murlan_env.eval.arena import run_arena

        run_arena([bot, "greedy"], 1, 0, max_hands=2)
    sent = [json.loads(line) for line in log_in.read_text().splitlines()]
    answered = [json.loads(line) for line in log_out.read_text().splitlines()]
    assert sent[0]["type"] == "hello" and answered[0]["type"] == "hello"
    assert errors_of("hello_from_murlan", sent[0]) == errors_of("hello_from_bot", answered[0]) == []
    moves = [m for m in sent if m["type"] == "move"]
    assert moves and all(errors_of("move", m) == [] for m in moves)
    assert all(errors_of("answer", a) == [] for a in answered[1:])
    assert errors("protocol", sent[-1]) == []  # the bye
    assert errors_of("answer", {"id": 1}) and errors_of("move", {**moves[0], "seat": 7})


def errors_of(part: str, value) -> list[str]:
    return [e.message for e in validator("protocol", part).iter_errors(value)]
