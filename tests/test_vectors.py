"""The vectors that hold the JavaScript engine to this one (murlan_env/conformance/engine.py):
their JSON Schema, what they cover, and (slow) a lock-step run of at least 100,000 decisions
in which the JavaScript engine plays the same matches and must agree at every step."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from collections import Counter
from pathlib import Path

import jsonschema_rs
import numpy as np
import pytest

from murlan_env.conformance import engine as engine_vectors
from murlan_env.game import engine
from murlan_env.game.rules import RULE_CHOICES, Rules

ROOT = Path(__file__).resolve().parents[1]
SCHEMA = json.loads((ROOT / "murlan_env" / "schemas" / "transitions.schema.json").read_text())
VALIDATOR = jsonschema_rs.validator_for(SCHEMA)
NODE = shutil.which("node")


@pytest.fixture(scope="module")
def transitions():
    return {"seed": 11, **engine_vectors.transition_vectors(np.random.default_rng(11), matches=1)}


def test_transition_vectors_follow_their_schema(transitions):
    jsonschema_rs.meta.validate(SCHEMA)
    VALIDATOR.validate(transitions)


def test_every_vector_file_the_conformance_package_writes_has_a_schema():
    """Each ``murlan conformance`` kind's format is the one its schema names."""
    from murlan_cli.conformance import KINDS
    from murlan_env.conformance.levels import LEVEL_VECTORS_FORMAT
    from murlan_env.conformance.records import RECORD_VECTORS_FORMAT
    from murlan_env.conformance.rule import RULE_VECTORS_FORMAT
    from murlan_env.conformance.search import SEARCH_VECTORS_FORMAT
    from murlan_env.schemas import NAMES, schema

    schema_of = {
        "transitions": "transitions",
        "lockstep": "transitions",
        "records": "record-vectors",
        "rule": "rule-vectors",
        "search": "search-vectors",
        "levels": "levels",
    }
    assert set(schema_of) == set(KINDS) and set(schema_of.values()) <= set(NAMES)
    text = json.dumps([schema(name) for name in set(schema_of.values())])
    for fmt in (
        engine_vectors.TRANSITIONS_FORMAT,
        engine_vectors.LOCKSTEP_FORMAT,
        RECORD_VECTORS_FORMAT,
        RULE_VECTORS_FORMAT,
        SEARCH_VECTORS_FORMAT,
        LEVEL_VECTORS_FORMAT,
    ):
        assert f'"const": "{fmt}"' in text.replace('"const":"', '"const": "'), fmt


def test_lockstep_matches_follow_their_schema():
    match = next(engine_vectors.lockstep_matches(np.random.default_rng(3), 1))
    assert any(e["kind"] == "next_hand" for e in match["events"])
    assert match["start"]["rules"] == match["rules"] == match["state"]["rules"]
    VALIDATOR.validate(match)


def test_a_short_lockstep_run_plays_every_value_of_every_flag():
    """As many matches as variants (the node suite's 8) play each variant once, so every
    value of every rule flag is held in lock-step, not only the standard rules."""
    n = len(engine_vectors.VARIANTS)
    rules = [m["rules"] for m in engine_vectors.lockstep_matches(np.random.default_rng(1), n)]
    assert rules == [r.to_dict(all_flags=True) for r in engine_vectors.VARIANTS]
    for flag, choices in RULE_CHOICES.items():
        assert {r[flag] for r in rules} == set(choices), flag


def test_start_transitions_carry_their_rules(transitions):
    starts = [t for t in transitions["transitions"] if t["kind"] == "start"]
    assert {json.dumps(t["start"]["rules"]) for t in starts} == {
        json.dumps(r.to_dict(all_flags=True)) for r in engine_vectors.VARIANTS
    }
    assert all(t["start"]["rules"] == t["next"]["rules"] for t in starts)


def test_the_end_of_a_hand_is_the_state_the_schema_describes(transitions):
    """The state after a hand-ending play, as transitions.schema.json describes it."""
    ends = [
        t
        for t in transitions["transitions"]
        if t["kind"] == "move" and t["next"]["phase"] in ("hand_over", "match_over")
    ]
    assert {t["next"]["phase"] for t in ends} == {"hand_over", "match_over"}
    for t in ends:
        before, move, after = t["state"], t["move"], t["next"]
        assert move["action"] != 0 and after["to_act"] is None and not after["start_duty"]
        assert (after["table"], after["table_seat"]) == (move["action"], before["to_act"])
        if not after["rules"]["sticky_pass"]:
            assert not any(after["passed"])
        assert sum(bool(h) for h in after["hands"]) == 1
        assert len(after["finish"]) == 4 and after["hands"][after["finish"][-1]]
        assert sorted(after["points"]) == [0, 1, 2, 3]
        totals = [p + s for p, s in zip(after["points"], before["scores"], strict=True)]
        assert totals == after["scores"]
        assert (after["winners"] != []) == (after["phase"] == "match_over")
        for key in ("rules", "hand_no", "dealer", "deal", "exchange"):
            assert after[key] == before[key], key


@pytest.mark.parametrize(
    "path, value",
    [
        (("hands", 0), "3S 3X"),
        (("phase",), "over"),
        (("passed",), [False] * 3),
        (("rules", "tie_rule"), "draw"),
        (("exchange",), {"last": 1}),
    ],
)
def test_the_schema_rejects_a_wrong_state(transitions, path, value):
    one = {**transitions, "transitions": [json.loads(json.dumps(transitions["transitions"][0]))]}
    VALIDATOR.validate(one)
    where = one["transitions"][0]["next"]
    for key in path[:-1]:
        where = where[key]
    where[path[-1]] = value
    assert not VALIDATOR.is_valid(one)


def test_transitions_cover_every_phase_variant_and_rare_case(transitions):
    seen = Counter(
        (t["kind"], t.get("state", {}).get("phase"), t["next"]["phase"])
        for t in transitions["transitions"]
    )
    for key in [
        ("start", None, "play"),
        ("next_hand", "hand_over", "exchange"),
        ("next_hand", "hand_over", "play"),
        ("move", "exchange", "play"),
        ("move", "play", "play"),
        ("move", "play", "hand_over"),
        ("move", "play", "match_over"),
    ]:
        assert seen[key] > 0, key
    rules = {json.dumps(t["next"]["rules"], sort_keys=True) for t in transitions["transitions"]}
    assert len(rules) == len(engine_vectors.VARIANTS)
    nexts = [t["next"] for t in transitions["transitions"]]
    # the automatic give-back, the both-jokers exception, target raises and a draw at 51
    assert any(
        t["kind"] == "start" and (t["next"]["exchange"] or {}).get("first_gives")
        for t in transitions["transitions"]
    )
    assert any(
        s["hand_no"] > 0 and s["exchange"] is None and not s["rules"]["no_exchange"] for s in nexts
    )
    assert {s["target"] for s in nexts} >= {21, 31, 41, 51}
    assert any(len(s["winners"]) > 1 for s in nexts)
    assert any(
        t["move"]["cards"] != t["move"]["engine_cards"]
        for t in transitions["transitions"]
        if t["kind"] == "move"
    )


def test_vectors_are_seeded():
    a = engine_vectors.transition_vectors(
        np.random.default_rng(5), 1, crafted=1, variants=[Rules()]
    )
    b = engine_vectors.transition_vectors(
        np.random.default_rng(5), 1, crafted=1, variants=[Rules()]
    )
    assert a == b


def test_state_json_of_a_known_deal():
    hands = [
        "3S 4S 5S 6S 7S 8S 9S TS JS QS KS AS 2S BJ",
        "3H 4H 5H 6H 7H 8H 9H TH JH QH KH AH 2H RJ",
        "3D 4D 5D 6D 7D 8D 9D TD JD QD KD AD 2D",
        "3C 4C 5C 6C 7C 8C 9C TC JC QC KC AC 2C",
    ]
    state = engine.deal_from(hands, dealer=3, rules=Rules(start_card="3C"))
    j = engine_vectors.state_json(state)
    assert j["hands"] == j["deal"] == hands
    assert (j["to_act"], j["phase"], j["start_duty"], j["table"], j["table_seat"]) == (
        3,
        "play",
        True,
        0,
        None,
    )
    assert j["rules"]["start_card"] == "3C" and j["exchange"] is None and j["finish"] == []


@pytest.mark.slow
@pytest.mark.skipif(NODE is None, reason="the lock-step run needs Node.js 20+")
def test_lockstep_100k_decisions(tmp_path):
    path = tmp_path / "lockstep.jsonl"
    with path.open("w") as f:
        for match in engine_vectors.lockstep_matches(np.random.default_rng(2024), 90):
            f.write(json.dumps(match) + "\n")
    out = subprocess.run(
        [NODE, str(ROOT / "clients" / "js" / "tests" / "lockstep.js"), str(path)],
        capture_output=True,
        text=True,
        timeout=1200,
        check=False,
    )
    assert out.returncode == 0, out.stdout + out.stderr
    decisions = int(re.search(r"(\d+) decisions: no disagreement", out.stdout).group(1))
    assert decisions >= 100_000, out.stdout


@pytest.fixture(scope="module")
def record_vectors_4():
    from murlan_env.conformance.records import record_vectors

    return record_vectors(np.random.default_rng(4), matches=2)


def test_record_vectors_hold_every_kind_of_verdict(record_vectors_4):
    from murlan_env.conformance.records import record_vectors
    from murlan_env.records import validate
    from murlan_env.schemas import validator

    data = record_vectors_4
    validator("record-vectors").validate({"seed": 4, **data})
    faults = Counter(
        r["fault"].split(" play")[0].split(" ")[-1] for r in data["records"] if not r["valid"]
    )
    assert sum(r["valid"] for r in data["records"]) >= 4
    assert {"deal", "exchange", "finish", "points", "json", "scores", "winners"} <= set(faults)
    for r in data["records"][:40]:
        result = validate(r["record"])
        assert (result.valid, result.fault, result.reason) == (r["valid"], r["fault"], r["reason"])
    assert data == record_vectors(np.random.default_rng(4), matches=2)


def test_the_vectors_command(tmp_path, capsys):
    import murlan_cli

    out = tmp_path / "lockstep.jsonl"
    assert (
        murlan_cli.main(["vectors", "lockstep", "--seed", "1", "--matches", "2", "--out", str(out)])
        == 0
    )
    lines = out.read_text().splitlines()
    assert len(lines) == 2 and all(VALIDATOR.is_valid(json.loads(line)) for line in lines)
    assert murlan_cli.main(["vectors", "lockstep", "--matches", "0"]) == 2
    assert murlan_cli.main(["vectors", "moves"]) == 2
    err = capsys.readouterr().err
    assert "--matches must be at least 1" in err and "invalid choice" in err


def test_search_vectors_replay_and_weigh_what_they_say(tmp_path):
    """`murlan vectors search`: each rollout's moves, played on the engine from its world and
    first move, end the hand with its points; the weights sum to 1 and follow the world
    log-likelihoods' order; the history is the hand's moves as the record cuts it."""
    from murlan_cli import main
    from murlan_env.bots.belief import state_from_observation
    from murlan_env.records.validator import decisions
    from murlan_env.schemas import validator

    out = tmp_path / "search.json"
    assert main(["vectors", "search", "--seed", "3", "--matches", "1", "--out", str(out)]) == 0
    data = json.loads(out.read_text())
    validator("search-vectors").validate(data)
    assert data["positions"]
    for p in data["positions"]:
        at = decisions(p["record"])[-1]  # the position: where the record is cut
        assert int(at.state.to_act[0]) == p["state"]["seat"]
        plays = p["record"]["hands"][-1]["plays"]
        assert len(plays) == len(p["history"]) >= 2
        assert [(seat - p["state"]["seat"]) % 4 for seat, _ in plays] == [
            s for s, _ in p["history"]
        ]
        weights = np.array(p["weights"])
        assert weights.sum() == pytest.approx(1.0)
        ll = np.array([-np.inf if x is None else x for x in p["world_log_likelihood"]])
        assert (np.argsort(-ll, kind="stable")[:1] == np.argmax(weights)).all()
        for r in p["rollouts"]:
            world = np.array(r["world"], np.int8)
            state = state_from_observation(engine.observe(at.state), world[None])
            for action in [r["first"], *r["moves"]]:
                assert engine.legal_action_mask(state)[0, action]
                state = engine.step(state, np.array([action]))
            assert state.hand_over[0] and state.points[0].tolist() == r["points"]
            assert sorted(r["points"]) == [0, 1, 2, 3]


def test_rule_vectors_hold_the_rule_bots_moves_from_real_play():
    from murlan_env.conformance.rule import rule_vectors
    from murlan_env.schemas import validator

    rules = (Rules(), Rules(joker_pair=True, straight_plus_one=True))
    data = rule_vectors(np.random.default_rng(6), matches=1, keep=0.2, variants=rules)
    validator("rule-vectors").validate({"seed": 6, **data})
    positions = data["positions"]
    states = validator("transitions", "state")
    assert {p["state"]["phase"] for p in positions} == {"play", "exchange"}
    assert len({json.dumps(p["state"]["rules"]) for p in positions}) == 2
    for p in positions:
        states.validate(p["state"])
        validator("state").validate(p["position"])
        assert p["move"] in p["legal"] and len(p["log_probs"]) == len(p["legal"])
        assert len(p["knob_moves"]) == len(data["knobs"])
        assert set(p["knob_moves"]) <= set(p["legal"])
        assert np.isclose(np.exp(p["log_probs"]).sum(), 1.0)
        assert p["log_probs"][p["legal"].index(p["move"])] == max(p["log_probs"])
    assert data == rule_vectors(np.random.default_rng(6), matches=1, keep=0.2, variants=rules)


@pytest.mark.slow  # a whole match of a level per variant: several seconds on two cores
def test_level_vectors_hold_each_levels_moves_for_its_decision_seeds():
    """``murlan conformance levels``: schema-valid, seeded, the give-back and the mix among the
    positions, and every action the level's own for the position's seed (replayed from the
    vectors' scores and draws: the mix draw, then the play draw of whoever plays)."""
    from murlan_env.bots import draws, registry
    from murlan_env.bots.protocol import pick_from_scores
    from murlan_env.conformance.levels import level_vectors
    from murlan_env.game.combos import N_ACTIONS
    from murlan_env.schemas import validator

    rules = (Rules(),)
    bots = {"medium": registry.make_bot("medium")}
    data = level_vectors(np.random.default_rng(4), bots, variants=rules)
    validator("levels").validate({"seed": 4, **data})
    positions = data["positions"]
    kinds = {(p["position"]["phase"], p["weak"]) for p in positions}
    assert kinds >= {("play", False), ("play", True), ("exchange", False)}
    medium = {"policy": "ppo-strong", "temperature": 0.5, "mix": ["greedy", 0.3]}
    assert data["levels"] == {"medium": medium}
    for d in data["draws"]:
        assert d["uniform"] == float(draws.uniforms(np.array([d["seed"]]), d["index"])[0])
    for p in positions:
        seed = np.array([p["seed"]])
        assert p["draws"] == [float(draws.uniforms(seed, i)[0]) for i in (0, 1)]
        assert p["weak"] == (p["draws"][0] < 0.3) and p["action"] in p["legal"]
        if p["weak"]:
            continue  # the greedy bot's move: clients/js holds its own to Python's
        scores = np.full((1, N_ACTIONS), np.finfo(np.float32).min, np.float32)
        mask = np.zeros((1, N_ACTIONS), bool)
        scores[0, p["legal"]] = p["scores"]
        mask[0, p["legal"]] = True
        assert pick_from_scores(scores, mask, 0.5, np.array(p["draws"][1:]))[0] == p["action"]
    assert data == level_vectors(np.random.default_rng(4), bots, variants=rules)


def _location_kind(location: str) -> str:
    """A fault location with its numbers named as docs/record-faults.md names them:
    ``hand 2 play 7`` -> ``hand H play P``."""
    names = iter("HP")
    return re.sub(r"\d+", lambda _: next(names), location)


def _documented_locations() -> set[str]:
    text = (ROOT / "docs" / "record-faults.md").read_text()
    table = text.split("\n## Locations\n")[1].split("\n## ")[0]
    return set(re.findall(r"^\| `([^`]+)` \|", table, re.M))


def _python_locations() -> set[str]:
    """Every location the Python validator's code can raise a RecordError at: the first
    argument of each ``RecordError(...)``, the ``where`` argument of each reader of values
    (``murlan_env.records.values``) and the keys ``top_value`` is asked for, each resolved
    through the function's own ``where = ...`` when it is that name."""
    import ast

    folder = ROOT / "murlan_env" / "records"
    trees = [ast.parse(path.read_text()) for path in sorted(folder.glob("*.py"))]
    where_at = {"RecordError": 0, "top_value": 1}  # callee -> index of its location argument
    for tree in trees:
        for fn in ast.walk(tree):
            if isinstance(fn, ast.FunctionDef):
                names = [a.arg for a in fn.args.args]
                if "where" in names:
                    where_at[fn.name] = names.index("where")

    def text_of(node, local):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            return node.value
        if isinstance(node, ast.JoinedStr):
            parts = [text_of(v, local) if isinstance(v, ast.Constant) else "0" for v in node.values]
            return "".join(parts)
        if isinstance(node, ast.Name) and node.id in local:
            return text_of(local[node.id], local)
        return None  # a parameter handed on: its callers are read instead

    found = set()
    for tree in trees:
        for fn in ast.walk(tree):
            if not isinstance(fn, ast.FunctionDef):
                continue
            local = {
                t.id: node.value
                for node in ast.walk(fn)
                if isinstance(node, ast.Assign)
                for t in node.targets
                if isinstance(t, ast.Name) and t.id == "where"
            }
            for call in ast.walk(fn):
                if isinstance(call, ast.Call) and isinstance(call.func, ast.Name):
                    at = where_at.get(call.func.id)
                    if at is not None and len(call.args) > at:
                        text = text_of(call.args[at], local)
                        if text is not None:
                            found.add(_location_kind(text))
    return found


def _javascript_locations() -> set[str]:
    """The same for the JavaScript validator: the literal first argument of each ``new
    RecordError(...)``, each ``const where = ...`` and the literal location handed to a
    reader of values (``topValue``, ``intList``)."""
    found = set()
    for path in sorted((ROOT / "clients" / "js" / "src" / "records").glob("*.js")):
        code = path.read_text()
        for pattern in (
            r"new RecordError\(\s*('[^']*'|`[^`]*`)",
            r"const where = (`[^`]*`|'[^']*')",
            r"topValue\([^,()]+, ('[^']*')\)",
            r"intList\([^,()]+, ('[^']*'|`[^`]*`)",
        ):
            for literal in re.findall(pattern, code):
                found.add(_location_kind(re.sub(r"\$\{[^}]*\}", "0", literal[1:-1])))
    return found


def test_every_fault_location_is_documented(record_vectors_4):
    """docs/record-faults.md lists exactly the locations both validators can report, and
    every location the record vectors' verdicts report."""
    documented = _documented_locations()
    python = _python_locations()
    assert python == documented, (python - documented, documented - python)
    assert _javascript_locations() == documented
    reported = {_location_kind(r["fault"]) for r in record_vectors_4["records"] if r["fault"]}
    assert reported <= documented and len(reported) >= 8, reported - documented


# The placeholders of docs/record-faults.md's reason patterns (each stands for any text).
_REASON_PLACEHOLDER = re.compile(
    r"\b(?:V|T|S|N|C|R|H|P|KEY|FLAG|TYPE|WHY|KIND|RANKS|SHAPE|what)\b|H-1|P-1|\.\.\."
)


def _documented_reasons() -> list[re.Pattern]:
    """Every reason pattern of docs/record-faults.md's tables (the last column's code spans)."""
    text = (ROOT / "docs" / "record-faults.md").read_text()
    out = []
    for line in text.split("\n## Reasons\n")[1].splitlines():
        if line.startswith("|"):
            for literal in re.findall(r"`([^`]+)`", line.strip("|").split("|")[-1]):
                parts = _REASON_PLACEHOLDER.split(literal)
                out.append(re.compile(".*".join(re.escape(p) for p in parts)))
    return out


def test_every_reason_the_record_vectors_give_is_documented(record_vectors_4):
    """Each reason of the record vectors' verdicts reads as one of docs/record-faults.md's
    patterns, its placeholders filled in."""
    patterns = _documented_reasons()
    assert len(patterns) > 50 and not any(p.fullmatch("x") for p in patterns)
    reasons = {r["reason"] for r in record_vectors_4["records"] if r["reason"]}
    undocumented = [r for r in reasons if not any(p.fullmatch(r) for p in patterns)]
    assert len(reasons) > 30 and undocumented == []
