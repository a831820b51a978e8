"""The ``murlan`` command line: exit codes and output of each subcommand.

Most tests call ``cli.main(argv)`` in-process; one runs the installed console script to check
the real process exit status.
"""

from __future__ import annotations

import io
import json
import shutil
import subprocess
import sys

import pytest

from murlan_env import cli, records
from murlan_env.combos import action_table


@pytest.fixture(scope="module")
def game_file(tmp_path_factory):
    """A record of a whole seeded match between random bots, written by ``murlan selfplay``."""
    path = tmp_path_factory.mktemp("records") / "game.json"
    assert cli.main(["selfplay", "--seed", "3", "--out", str(path)]) == 0
    return path


def test_help_lists_the_subcommands(capsys):
    assert cli.main(["--help"]) == 0
    out = capsys.readouterr().out
    for name in ("replay", "actions", "selfplay"):
        assert name in out
    assert set(cli.COMMANDS) >= {"replay", "actions", "selfplay"}


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
    assert cli.main(argv) == 2
    assert "usage: murlan" in capsys.readouterr().err


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
    assert f"invalid record at hand 0 play 1: it is seat {seat}'s turn" in out


@pytest.mark.parametrize(
    ("text", "fault"),
    [
        ("{ not json", "json"),
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


def test_replay_a_missing_file_is_a_usage_error(tmp_path, capsys):
    assert cli.main(["replay", str(tmp_path / "none.json")]) == 2
    assert "cannot read" in capsys.readouterr().err


def test_actions_table_and_json(capsys):
    assert cli.main(["actions", "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == action_table()
    assert cli.main(["actions"]) == 0
    out = capsys.readouterr().out
    assert "109 actions" in out and "straight" in out and "A 2 3 4 5" in out


def test_selfplay_is_seeded_and_follows_the_rules(tmp_path, capsys):
    a, b, c = (tmp_path / f"{n}.json" for n in "abc")
    argv = ["selfplay", "--seed", "5", "--rule", "sticky_pass=true", "--rule", "start_card=3C"]
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


@pytest.mark.parametrize("rule", ["nope=true", "sticky_pass=maybe", "sticky_pass", "tie_rule=1"])
def test_selfplay_bad_rules_are_usage_errors(rule, capsys):
    assert cli.main(["selfplay", "--rule", rule]) == 2
    assert "murlan selfplay: error:" in capsys.readouterr().err


def test_registering_a_subcommand(monkeypatch, capsys):
    monkeypatch.setattr(cli, "COMMANDS", dict(cli.COMMANDS))

    def options(parser):
        parser.add_argument("--n", type=int, default=1)

    @cli.command("echo", help="print a number", example="murlan echo --n 3", options=options)
    def echo(args):
        print(f"n={args.n}")
        return 0 if args.n > 0 else 1

    assert cli.main(["echo", "--n", "3"]) == 0 and "n=3" in capsys.readouterr().out
    assert cli.main(["echo", "--n", "0"]) == 1
    with pytest.raises(ValueError, match="registered twice"):
        cli.command("echo", help="again", example="murlan echo")(echo)


def test_console_script_exit_codes(game_file, tmp_path):
    exe = shutil.which("murlan")
    cmd = [exe] if exe else [sys.executable, "-m", "murlan_env.cli"]
    ok = subprocess.run(
        [*cmd, "replay", str(game_file)], capture_output=True, text=True, timeout=120
    )
    assert ok.returncode == 0, ok.stderr
    assert "valid murlan-record/1" in ok.stdout
    bad = tmp_path / "bad.json"
    bad.write_text("[]")
    fail = subprocess.run([*cmd, "replay", str(bad)], capture_output=True, text=True, timeout=120)
    assert fail.returncode == 1 and "invalid record at json" in fail.stdout
    usage = subprocess.run([*cmd, "replay"], capture_output=True, text=True, timeout=120)
    assert usage.returncode == 2 and "usage:" in usage.stderr


def test_replay_reads_standard_input(game_file, monkeypatch, capsys):
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(game_file.read_bytes())))
    assert cli.main(["replay", "-"]) == 0
    assert "-: valid murlan-record/1" in capsys.readouterr().out
