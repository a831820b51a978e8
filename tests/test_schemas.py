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
from murlan_env.bundle.golden_positions import state_facts
from murlan_env.game import engine
from murlan_env.game.rules import RULE_CHOICES, Rules
from murlan_env.game.state import Phase
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


def test_a_positions_exchange_is_always_an_object_of_two_cards_or_nulls():
    """``exchange`` as ``state_facts`` writes it, and the schema holds it, in each case: no
    exchange (hand 1), the 1st player before giving back (received, gave null), the last
    player after the give-back (both); never ``null`` itself."""
    deal = [
        "3S 4S 5S 6S 7S 8S 9S TS JS QS KS AS 2S",
        "3H 4H 5H 6H 7H 8H 9H TH JH QH KH AH 2H BJ",
        "3D 4D 5D 6D 7D 8D 9D TD JD QD KD AD 2D RJ",
        "3C 4C 5C 6C 7C 8C 9C TC JC QC KC AC 2C",
    ]
    first_hand = engine.deal_from(deal)
    # Hand 2 after seat 1 went out 1st and seat 0 last: seat 0 gives 2S, seat 1 gives back.
    give_back = engine.deal_from(deal, hand_no=1, previous=(1, 0))
    assert give_back.phase[0] == Phase.EXCHANGE and give_back.to_act[0] == 1
    after = engine.step(give_back, np.flatnonzero(engine.legal_action_mask(give_back)[0])[:1])
    assert after.to_act[0] == 0
    seen = []
    for state in (first_hand, give_back, after):
        facts = state_facts(state)
        assert errors("state", facts) == []
        seen.append(facts["exchange"])
    assert seen == [
        {"received": None, "gave": None},
        {"received": "2S", "gave": None},
        {"received": "3H", "gave": "2S"},
    ]
    assert errors("state", {**state_facts(first_hand), "exchange": None})


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
