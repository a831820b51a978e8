"""Bots in other processes (``proc:COMMAND``, murlan-bot/1): requests, answers and faults.

The bots here are small Python programs written for each test; the protocol's example bot
(examples/protocol_bot.py) plays whole arenas. Each fault (timeout, crash, garbage, illegal)
forfeits only the decisions it hits: the arena still finishes every game, and the other
bots' hands are all counted.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

from murlan_env import records
from murlan_env.bots import registry
from murlan_env.bots.process import (
    PROTOCOL,
    STDERR_LINES,
    BotCrashed,
    BotGarbage,
    BotIllegalMove,
    BotStartError,
    BotTimeout,
    ProcessBot,
    describe_faults,
)
from murlan_env.bundle.golden_positions import state_facts
from murlan_env.envs.person_match import PersonMatch
from murlan_env.eval.arena import report_table, run_arena
from murlan_env.game import engine
from murlan_env.game.rules import Rules

ROOT = Path(__file__).resolve().parents[1]
SLOW = 2.0  # seconds: no answer of these bots (start-up included) comes near it but the one
# that never comes; the timeout tests wait this long once each, so it is kept small
EXAMPLE = ROOT / "examples" / "protocol_bot.py"

# A bot that answers every request with its first legal move after ``misbehave(message, n)``
# (n: the move requests this process got; ``once()`` is true the first time only, across
# restarts) had its say; {log} gets every request.
TEMPLATE = """
import json, os, sys, time
n = 0
def once():  # true the first time only, across restarts of the process
    flag = __file__ + ".done"
    if os.path.exists(flag):
        return False
    open(flag, "w").close()
    return True
def misbehave(message, n):
{body}
for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "hello":
        hello = {{"type": "hello", "protocol": "{protocol}", "name": "{name}"{rules}}}
        print(json.dumps(hello), flush=True)
        continue
    if message["type"] == "bye":
        break
    n += 1
    if {log!r}:
        with open({log!r}, "a") as f:
            f.write(line)
    answer = misbehave(message, n)
    if answer is None:
        answer = {{"id": message["id"], "move": message["legal"][0]}}
    if answer != "skip":
        print(answer if isinstance(answer, str) else json.dumps(answer), flush=True)
"""


def script(
    tmp_path: Path,
    body: str = "return None",
    name: str = "scripted",
    log: str = "",
    rules: str = "",
    protocol: str = PROTOCOL,
) -> str:
    """A proc: command line for a bot whose ``misbehave`` has ``body``."""
    path = tmp_path / f"{name}.py"
    text = TEMPLATE.format(
        body=textwrap.indent(textwrap.dedent(body), "    "),
        name=name,
        log=log,
        rules=f', "rules": {rules}' if rules else "",
        protocol=protocol,
    )
    path.write_text(text)
    return f"{sys.executable} {path}"


def arena(bot, boards=3, seed=0, rules=None):
    return run_arena([bot, registry.make_bot("greedy")], boards, seed, rules, max_hands=2)


def test_requests_carry_the_match_and_the_position(tmp_path):
    log = tmp_path / "requests.jsonl"
    with ProcessBot(script(tmp_path, log=str(log))) as bot:
        arena(bot, boards=2, rules=Rules(sticky_pass=True))
    requests = [json.loads(line) for line in log.read_text().splitlines()]
    assert len(requests) > 50
    assert len({r["id"] for r in requests}) == len(requests)
    for r in requests[::7]:
        assert records.validate(r["record"]).valid
        state = records.replay(r["record"])[-1]  # the position the record leads to
        assert int(state.to_act[0]) == r["seat"]
        assert state_facts(state) == r["state"]
        assert r["state"]["rules"]["sticky_pass"] is True
        assert [] in r["legal"] or r["state"]["table_action"] == 0


def test_the_example_bot_plays_an_arena_and_replays_for_a_seed():
    spec = f"proc:{sys.executable} {EXAMPLE}"
    first, again = (run_arena([spec, "rule"], 3, 5, max_hands=2) for _ in range(2))
    assert first == again
    assert first["bots"][0]["bot"] == "lowest-play"
    assert first["faults"] == []
    assert first["bots"][1]["hands"] == 3 * 2 * 2 * 2  # boards x lineups x hands x seats


@pytest.mark.parametrize(
    ("body", "fault"),
    [
        ("if n == 5 and once(): time.sleep(60)", "timeout"),
        ("if n == 5 and once(): sys.exit(3)", "crash"),
        ("if n == 5 and once(): return 'hello there'", "garbage"),
        ("if n == 5 and once(): return {'id': 10**9, 'move': []}", "garbage"),
        ("if n == 5 and once(): return {'id': message['id'], 'move': ['XX']}", "garbage"),
        ("if n == 5 and once(): return {'id': message['id'], 'error': 'no idea'}", "garbage"),
        (
            "if n == 5 and once(): return {'id': message['id'], 'move': ['RJ', 'BJ', '3S']}",
            "illegal",
        ),
    ],
)
def test_a_fault_forfeits_only_the_decisions_it_hits(tmp_path, body, fault):
    # A time limit well above any answer's, even on a loaded machine, except the one that
    # never comes (the timeout case sleeps a minute).
    with ProcessBot(script(tmp_path, body), timeout=SLOW) as bot:
        report = arena(bot)
    assert [f.fault for f in bot.faults] == [fault]
    (row,) = report["faults"]
    assert row["faults"][0]["fault"] == fault and row["forfeited"] >= 1
    # every game was played to its hand cap: nothing lost from the other seats
    assert report["hands_played"] == 3 * 2 * 2
    assert report["bots"][1]["hands"] == 3 * 2 * 2 * 2


def test_strict_raises_the_named_fault(tmp_path):
    cases = [
        ("time.sleep(60)", BotTimeout),
        ("sys.exit(1)", BotCrashed),
        ("return '{'", BotGarbage),
        ("return {'id': message['id'], 'move': ['RJ', 'BJ', '3S']}", BotIllegalMove),
    ]
    for i, (body, error) in enumerate(cases):
        with ProcessBot(script(tmp_path, body, name=f"b{i}"), timeout=SLOW, strict=True) as bot:
            with pytest.raises(error):
                arena(bot, boards=1)


def test_a_broken_bot_is_given_up_after_max_faults(tmp_path):
    """Every decision of a bot that always crashes is forfeited and counted, those after it
    was given up too; the report says when it was given up and shows its stderr."""
    log = tmp_path / "asked.jsonl"
    body = "print('Traceback (most recent call last):', file=sys.stderr)\n"
    body += "print(f'ValueError: request {n} is too hard', file=sys.stderr); sys.exit(1)"
    with ProcessBot(script(tmp_path, body, log=str(log)), max_faults=2) as bot:
        report = arena(bot, boards=2)
    assert len(bot.faults) == 2 and bot.given_up
    assert len(log.read_text().splitlines()) == 2  # never asked again
    assert report["hands_played"] == 2 * 2 * 2
    (row,) = report["faults"]
    given_up = row["given_up"]
    assert given_up["after_faults"] == 2 and given_up["forfeited"] > 0
    assert given_up["at_decision"] == bot.decisions - given_up["forfeited"]
    assert row["forfeited"] == bot.decisions  # every decision it was asked, none uncounted
    assert row["faults"][0]["stderr"] == [
        "Traceback (most recent call last):",
        "ValueError: request 1 is too hard",
    ]
    lines = describe_faults(row["bot"], row)
    assert f"{bot.decisions} decision(s) forfeited" in lines[0]
    assert f"given up after 2 faults, at its decision {given_up['at_decision']}" in lines[0]
    assert lines[1:] == [
        "  the last 2 line(s) of its stderr:",
        "    Traceback (most recent call last):",
        "    ValueError: request 1 is too hard",  # the process restarted: its first request
    ]
    caption = report_table(report).caption
    assert f"given up after 2 faults, at its decision {given_up['at_decision']}" in caption


def test_a_bot_keeps_only_the_last_lines_of_its_stderr(tmp_path):
    body = "for i in range(100): print('x' * 1000, i, file=sys.stderr)\nsys.exit(1)"
    with ProcessBot(script(tmp_path, body), max_faults=1) as bot:
        arena(bot, boards=1)
    stderr = bot.faults[0].stderr
    assert len(stderr) == STDERR_LINES and stderr[-1].endswith("...")
    assert all(len(line) <= 240 + 3 for line in stderr)


def test_a_bot_that_crashes_before_its_hello_shows_its_stderr():
    command = f"{sys.executable} -c \"import sys; sys.exit('no module named wizardry')\""
    with pytest.raises(BotStartError, match="its stderr ended: no module named wizardry"):
        registry.make_bot(f"proc:{command}")


@pytest.mark.parametrize(
    ("command", "why"),
    [
        ("no-such-program-here --x", "no such program"),
        (f"{sys.executable} -c pass", "crash before its hello"),
        (f"{sys.executable} -c \"print('hi')\"", "garbage before its hello"),
    ],
)
def test_a_bot_that_cannot_start_says_so_in_one_line(command, why):
    with pytest.raises(BotStartError, match=why):
        registry.make_bot(f"proc:{command}")


def test_wrong_protocol_and_rules_in_the_hello(tmp_path):
    with pytest.raises(BotStartError, match="hello"):
        ProcessBot(script(tmp_path, protocol="murlan-bot/0", name="old"))
    with ProcessBot(script(tmp_path, rules='{"sticky_pass": [False]}', name="plain")) as bot:
        assert registry.rules_conflict(bot, Rules()) is None
        # The flag as the docs and --rules write it, not in Python's spelling.
        why = registry.rules_conflict(bot, Rules(sticky_pass=True))
        assert "sticky_pass=true" in why and "True" not in why


def test_a_process_bot_plays_in_a_person_match(tmp_path):
    """murlan play and murlan serve seat bots through a PersonMatch."""
    with ProcessBot(f"{sys.executable} {EXAMPLE}") as bot:
        match = PersonMatch([bot, registry.make_bot("rule"), bot], seat=1, seed=3)
        while not match.hand_over():
            if match.your_turn():
                match.play(_highest_legal(match))
            else:
                match.bot_turn()
        assert records.validate(match.record()).valid
        assert bot.faults == []


def _highest_legal(match: PersonMatch) -> int:
    return int(np.flatnonzero(engine.legal_action_mask(match.state)[0])[-1])


def test_proc_without_a_command_is_a_usage_error():
    out = subprocess.run(
        [sys.executable, "-m", "murlan_cli", "arena", "proc:", "rule", "--boards", "1"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"},
    )
    assert out.returncode == 2
    assert out.stderr.count("\n") == 1 and "proc: needs a command" in out.stderr


def murlan_play(args: list[str], moves: str) -> subprocess.CompletedProcess:
    """``murlan play ARGS`` in a fresh interpreter, a person typing ``moves``."""
    return subprocess.run(
        [sys.executable, "-m", "murlan_cli", "play", *args],
        input=moves,
        capture_output=True,
        text=True,
        cwd=ROOT,
        env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"},
        timeout=120,
    )


def test_murlan_play_reads_a_proc_command_with_spaces_as_one_spec():
    out = murlan_play(["--bots", f"proc:{sys.executable} {EXAMPLE}"], "quit\n")
    assert out.returncode == 0, out.stderr
    assert out.stdout.count("(lowest-play)") >= 1 and out.stderr == ""


def test_murlan_play_reports_a_crashing_bot_given_up_with_its_stderr(tmp_path):
    bot = tmp_path / "crashy.py"
    bot.write_text(
        "import json, sys\n"
        "for line in sys.stdin:\n"
        "    m = json.loads(line)\n"
        "    if m['type'] == 'hello':\n"
        f"        print(json.dumps({{'type': 'hello', 'protocol': '{PROTOCOL}'}}), flush=True)\n"
        "        continue\n"
        "    raise ValueError('I cannot play ' + str(m['id']))\n"
    )
    moves = "\n".join(["pass", "1"] * 100 + ["quit"]) + "\n"  # pass, else the lowest card
    out = murlan_play(
        ["--seed", "1", "--hands", "1", "--bots", f"proc:{sys.executable} {bot}"], moves
    )
    assert out.returncode == 0, out.stderr
    reports = [line for line in out.stderr.splitlines() if line.startswith("murlan play: ")]
    assert len(reports) == 3  # one process per seat, each given up
    for line in reports:
        assert "5 fault(s) (crash" in line and "given up after 5 faults, at its decision 5" in line
    assert "    ValueError: I cannot play 4" in out.stderr.splitlines()
