"""The ``murlan`` command line: exit codes and output of each subcommand.

Most tests call ``cli.main(argv)`` in-process; one runs ``python -m murlan_cli`` to check the
real process exit status (the console script ``murlan`` is ``murlan_cli:main``).
"""

from __future__ import annotations

import io
import json
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

import murlan_cli as cli
from murlan_env import records
from murlan_env.game.combos import action_catalogue


@pytest.fixture(scope="module")
def game_file(tmp_path_factory):
    """A record of a whole seeded match between random bots, written by ``murlan selfplay``."""
    path = tmp_path_factory.mktemp("records") / "game.json"
    assert cli.main(["selfplay", "--seed", "3", "--out", str(path)]) == 0
    return path


def test_help_lists_each_command_once_under_its_group(capsys):
    assert cli.main(["--help"]) == 0
    out = capsys.readouterr().out
    assert set(cli.COMMANDS) >= {"replay", "actions", "selfplay", "conformance"}
    listed = re.findall(r"^    (\w+)  ", out, re.M)
    assert listed == list(cli.COMMANDS)  # once each, in the table's order
    headings = [line for line in out.splitlines() if line.endswith(":") and line[0] != " "]
    groups = list(dict.fromkeys(cmd.group for cmd in cli.COMMANDS.values()))
    assert [h[:-1] for h in headings if h[:-1] in groups] == groups
    for old in cli.RENAMED:
        assert old not in listed  # an old name runs, but is not listed


@pytest.mark.parametrize("name", sorted(cli.COMMANDS))
def test_each_subcommand_has_help_with_an_example(name, capsys):
    assert cli.main([name, "--help"]) == 0
    out = capsys.readouterr().out
    assert f"usage: murlan {name}" in out
    assert "example:\n  murlan " + name in out


@pytest.mark.parametrize(
    "argv", [[], ["nope"], ["replay"], ["actions", "--bogus"], ["selfplay", "--seed", "x"]]
)
def test_usage_errors_exit_2(argv, capsys):
    """One line naming the help to read, not argparse's usage block."""
    assert cli.main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "usage:" not in err
    assert err.startswith("murlan") and "error:" in err and "--help')" in err


def test_replay_a_valid_record(game_file, capsys):
    assert cli.main(["replay", str(game_file)]) == 0
    out = capsys.readouterr().out
    record = records.load(game_file)
    assert f"valid murlan-record/1, {len(record['hands'])} hand(s)" in out
    winners = record["winners"]  # one, or several on a draw
    if len(winners) == 1:
        assert f"won by seat {winners[0]}" in out
    else:
        assert f"drawn between seats {', '.join(map(str, winners))}" in out
    assert "standard rules" in out
    scores = "  ".join(f"seat {s}: {v}" for s, v in enumerate(record["scores"]))
    assert scores in out
    for hand in record["hands"]:  # each hand's finish order is in the table
        assert " ".join(map(str, hand["finish"])) in out


def test_replay_names_the_players_a_record_names(game_file, tmp_path, capsys):
    named = tmp_path / "named.json"
    records.save({**records.load(game_file), "players": ["hard", "you", "rule", "easy"]}, named)
    assert cli.main(["replay", str(named)]) == 0
    assert "players: seat 0 hard, seat 1 you, seat 2 rule, seat 3 easy" in capsys.readouterr().out
    assert cli.main(["replay", str(game_file)]) == 0
    assert "players:" not in capsys.readouterr().out


def test_replay_lists_plays_on_request(game_file, capsys):
    assert cli.main(["replay", "--plays", str(game_file)]) == 0
    out = capsys.readouterr().out
    first_seat, first_cards = records.load(game_file)["hands"][0]["plays"][0]
    assert f"seat {first_seat}  {first_cards}" in out
    assert "pass" in out


def test_replay_an_invalid_record(game_file, tmp_path, capsys):
    record = records.load(game_file)
    seat, _ = record["hands"][0]["plays"][1]
    record["hands"][0]["plays"][1] = [(seat + 1) % 4, ""]
    bad = tmp_path / "bad.json"
    records.save(record, bad)
    assert cli.main(["replay", str(bad)]) == 1
    out = capsys.readouterr().out
    assert f"invalid record at hand 1 play 2: it is seat {seat}'s turn" in out


@pytest.mark.parametrize(
    ("text", "fault"),
    [
        ('{"format": "murlan-record/1", "rules": {"nope": true}}', "rules"),
        (
            '{"format": "murlan-record/1", "rules": {}, "hands": [], "scores": [0, 0, 0, 0], '
            '"target": 21, "winners": [1]}',
            "winners",
        ),
    ],
)
def test_replay_malformed_records(text, fault, tmp_path, capsys):
    path = tmp_path / "x.json"
    path.write_text(text)
    assert cli.main(["replay", str(path)]) == 1
    out = capsys.readouterr().out
    assert f"invalid record at {fault}: " in out
    assert "Traceback" not in out


@pytest.mark.parametrize(
    ("text", "why"),
    [("{ not json", "not valid JSON"), ("[1, 2]", "a record is a JSON object, got a JSON list")],
)
def test_replay_of_a_file_that_is_no_record_is_a_usage_error(text, why, tmp_path, capsys):
    path = tmp_path / "x.json"
    path.write_text(text)
    assert cli.main(["replay", str(path)]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.startswith(f"murlan replay: error: {path} is not a game record ({why}")
    assert "murlan-record/1 JSON file" in captured.err


def test_replay_a_missing_file_is_a_usage_error(tmp_path, capsys):
    assert cli.main(["replay", str(tmp_path / "none.json")]) == 2
    assert "cannot read" in capsys.readouterr().err


def test_actions_table_and_json(capsys):
    assert cli.main(["actions", "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == action_catalogue()
    assert cli.main(["actions"]) == 0
    out = capsys.readouterr().out
    assert "109 actions" in out and "straight" in out and "A 2 3 4 5" in out


def test_selfplay_is_seeded_and_follows_the_rules(tmp_path, capsys):
    a, b, c = (tmp_path / f"{n}.json" for n in "abc")
    argv = ["selfplay", "--seed", "5", "--rules", "sticky_pass=true", "--rule", "start_card=3C"]
    assert cli.main([*argv, "--max-hands", "2", "--out", str(a)]) == 0
    assert cli.main([*argv, "--max-hands", "2", "--out", str(b)]) == 0
    assert "wrote" in capsys.readouterr().out
    assert a.read_text() == b.read_text()
    record = records.load(a)
    assert record["rules"] == {"sticky_pass": True, "start_card": "3C"}
    assert len(record["hands"]) == 2
    assert records.validate(record).valid
    assert cli.main(["selfplay", "--seed", "6", "--max-hands", "2", "--out", str(c)]) == 0
    assert c.read_text() != a.read_text()
    capsys.readouterr()
    assert cli.main(["selfplay", "--seed", "5", "--max-hands", "1"]) == 0  # to stdout
    assert records.validate(capsys.readouterr().out).valid


def test_selfplay_rules_take_the_one_rule_syntax(tmp_path):
    """--rules FLAG=VALUE,FLAG=VALUE as everywhere; --rule is the same option."""
    one, two = tmp_path / "one.json", tmp_path / "two.json"
    argv = ["selfplay", "--seed", "2", "--max-hands", "1"]
    assert cli.main([*argv, "--rules", "joker_pair=true,tie_rule=leader", "--out", str(one)]) == 0
    assert cli.main([*argv, "--rule", "joker_pair=true", "--rule", "tie_rule=leader",
                     "--out", str(two)]) == 0  # fmt: skip
    assert records.load(one)["rules"] == {"joker_pair": True, "tie_rule": "leader"}
    assert one.read_text() == two.read_text()


@pytest.mark.parametrize(
    ("rule", "named"),
    [
        ("nope=true", "unknown rule flag 'nope'; flags: sticky_pass=false|true"),
        ("sticky_pass=maybe", "rule sticky_pass takes false or true, got 'maybe'"),
        ("sticky_pass", "write rule flags as FLAG=VALUE"),
        ("tie_rule=1", "rule tie_rule takes raise or leader, got '1'"),
    ],
)
def test_selfplay_bad_rules_are_usage_errors(rule, named, capsys):
    assert cli.main(["selfplay", "--rules", rule]) == 2
    err = capsys.readouterr().err
    assert err.startswith("murlan selfplay: error: --rules: ") and named in err
    assert err.count("\n") == 1


def test_adding_a_command_is_a_module_and_a_row(tmp_path, monkeypatch, capsys):
    """A module with add_arguments and run, and a row in the table: nothing registers itself,
    and the module is imported only when its command is asked for."""
    (tmp_path / "echo_command.py").write_text(
        "def add_arguments(parser):\n"
        "    parser.add_argument('--n', type=int, default=1, help='the number to print')\n"
        "def run(args):\n"
        "    print(f'n={args.n}')\n"
        "    return 0 if args.n > 0 else 1\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    echo = cli.Command("echo", "echo_command", "tests", "print a number", "murlan echo --n 3")
    monkeypatch.setattr(cli, "COMMANDS", {**cli.COMMANDS, "echo": echo})
    assert cli.main(["--help"]) == 0
    assert "tests:\n    echo" in capsys.readouterr().out
    assert "echo_command" not in sys.modules
    assert cli.main(["echo", "--n", "3"]) == 0 and "n=3" in capsys.readouterr().out
    assert cli.main(["echo", "--n", "0"]) == 1
    assert cli.main(["echo", "--help"]) == 0
    assert "--n N       the number to print (default: 1)" in capsys.readouterr().out
    monkeypatch.delitem(sys.modules, "echo_command")


def test_an_old_name_says_its_new_one_and_works_the_same(tmp_path, capsys):
    """``murlan vectors`` is ``murlan conformance``: same arguments, same output, same exit
    statuses, after one line on stderr giving the new name."""
    assert cli.RENAMED == {"vectors": "conformance"}
    argv = ["lockstep", "--seed", "1", "--matches", "1"]
    assert cli.main(["conformance", *argv]) == 0
    new = capsys.readouterr()
    assert cli.main(["vectors", *argv]) == 0
    old = capsys.readouterr()
    assert old.out == new.out and new.err == ""
    assert old.err == "murlan vectors is now murlan conformance\n"
    assert cli.main(["vectors", "lockstep", "--matches", "0"]) == 2
    assert capsys.readouterr().err == (
        "murlan vectors is now murlan conformance\n"
        "murlan vectors: error: --matches must be at least 1, got 0\n"
    )
    assert cli.main(["vectors", "--help"]) == 0
    shown = capsys.readouterr()
    assert shown.out.startswith("usage: murlan vectors [-h] [--seed SEED]")
    assert "murlan vectors is now murlan conformance." in shown.out
    assert shown.err == "murlan vectors is now murlan conformance\n"


def test_the_console_script_is_murlan_cli_main():
    pyproject = tomllib.loads((Path(__file__).parents[1] / "pyproject.toml").read_text())
    assert pyproject["project"]["scripts"]["murlan"] == "murlan_cli:main"
    assert "murlan_cli*" in pyproject["tool"]["setuptools"]["packages"]["find"]["include"]


def test_process_exit_codes(game_file, tmp_path):
    cmd = [sys.executable, "-m", "murlan_cli"]
    ok = subprocess.run(
        [*cmd, "replay", str(game_file)], capture_output=True, text=True, timeout=120
    )
    assert ok.returncode == 0, ok.stderr
    assert "valid murlan-record/1" in ok.stdout
    bad = tmp_path / "bad.json"
    bad.write_text('{"format": "murlan-record/1", "rules": {"nope": true}}')
    fail = subprocess.run([*cmd, "replay", str(bad)], capture_output=True, text=True, timeout=120)
    assert fail.returncode == 1 and "invalid record at rules" in fail.stdout
    bad.write_text("[]")
    not_record = subprocess.run(
        [*cmd, "replay", str(bad)], capture_output=True, text=True, timeout=120
    )
    assert not_record.returncode == 2 and "is not a game record" in not_record.stderr
    usage = subprocess.run([*cmd, "replay"], capture_output=True, text=True, timeout=120)
    assert usage.returncode == 2 and "murlan replay: error:" in usage.stderr


def test_replay_reads_standard_input(game_file, monkeypatch, capsys):
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(game_file.read_bytes())))
    assert cli.main(["replay", "-"]) == 0
    assert "-: valid murlan-record/1" in capsys.readouterr().out


def test_help_and_records_need_no_torch(game_file):
    """Building every subcommand's parser and replaying a record import no torch (fast help);
    torch loads only for commands that run a network (export, ckpt: bots)."""
    code = f"""
import sys
import murlan_cli
murlan_cli.build_parser()
assert murlan_cli.main(["replay", {str(game_file)!r}]) == 0
print(sorted(m for m in sys.modules if m == "torch" or m.startswith("torch.")))
"""
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120
    )
    assert out.stdout.strip().splitlines()[-1] == "[]"


def test_help_imports_no_command_module():
    """``murlan --help`` reads the table only: no command module, no engine, no numpy."""
    code = """
import contextlib, io, sys
import murlan_cli
with contextlib.redirect_stdout(io.StringIO()):
    assert murlan_cli.main(["--help"]) == 0
modules = {c.module for c in murlan_cli.COMMANDS.values()} | {"numpy", "murlan_env", "rich"}
print(sorted(modules & set(sys.modules)))
"""
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120
    )
    assert out.stdout.strip() == "[]"


def test_stage_progress_shows_bars_only_on_a_terminal(monkeypatch):
    """Off a terminal (piped, CI) long commands print no bars, whose lines would only clutter
    a log; on one each stage gets a bar that goes when the work ends."""
    from murlan_cli.terminal import stage_progress

    with stage_progress({"play": "playing matches"}) as progress:
        assert progress is None  # pytest's captured stderr is no terminal
    err = io.StringIO()
    err.isatty = lambda: True
    monkeypatch.setattr(sys, "stderr", err)
    with stage_progress({"play": "playing matches"}) as progress:
        progress("play", 1, 2)
    assert "playing matches" in err.getvalue()
