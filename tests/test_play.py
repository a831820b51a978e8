"""murlan play: typed input, explanations of illegal input, and whole games driven by stdin."""

from __future__ import annotations

import itertools
import subprocess
import sys

import numpy as np
import pytest

from murlan_cli.play import IllegalInput, TerminalGame
from murlan_env import records
from murlan_env.bots.baseline import RandomBot
from murlan_env.game import engine
from murlan_env.game.cards import parse_hand
from murlan_env.game.combos import PASS
from murlan_env.game.moves import IllegalMove

# Dealer 3: seats 0 and 1 get 14 cards, seats 2 and 3 get 13. Seat 0 holds 3S and leads.
DEAL = [
    "3S 3H 4S 4H 5S 6S 7S 8S 9S TS JS QS KS AS",
    "3D 4D 4C 5H 6H 7H 8H 9H TH JH QH KH AH 2H",
    "3C 5D 6D 7D 8D 9D TD JD QD KD AD 2D BJ",
    "5C 6C 7C 8C 9C TC JC QC KC AC 2C 2S RJ",
]


def _game() -> TerminalGame:
    return TerminalGame([RandomBot(), RandomBot(), RandomBot()], seat=0, write=lambda _: None)


def _parse(state, text):
    return _game().parse_play(state, text)


def _refused(state, text) -> str:
    with pytest.raises(IllegalMove) as err:
        _parse(state, text)
    return str(err.value)


def test_cards_by_name_or_number_become_the_play_and_its_cards():
    state = engine.deal_from(DEAL, 3)
    action, cards = _parse(state, "3s 3h")  # lower case is read too
    assert cards.tolist() == parse_hand("3S 3H").tolist()
    assert action == 16  # pair of 3s
    action, cards = _parse(state, "1 2")  # numbers: positions in my sorted hand
    assert action == 16 and cards.tolist() == parse_hand("3S 3H").tolist()
    action, cards = _parse(state, "3S 4S 5S 6S 7S")
    assert cards.sum() == 5 and action != PASS
    # Typed input is lenient (records are not): commas, extra spaces, 10 for T.
    action, cards = _parse(state, "  3s,3h   ")
    assert action == 16 and cards.tolist() == parse_hand("3S 3H").tolist()
    action, cards = _parse(state, "3S\t4S 5S, 6S  7S")
    assert cards.tolist() == parse_hand("3S 4S 5S 6S 7S").tolist()


@pytest.mark.parametrize(
    "text, reason",
    [
        ("zz", "unknown card"),
        ("4C", "seat 0 does not hold 4C"),
        ("3S 5S", "is not a combination"),
        ("pass", "the leader cannot pass"),
        ("3H", "must contain 3S"),  # a 3, but the opening needs the 3 of spades itself
        ("2", "must contain 3S"),  # 3H by its number
        ("4S", "must contain 3S"),
        ("1 1", "3S is named twice"),
        ("99", "no card number 99"),
    ],
)
def test_illegal_input_on_the_opening_lead_is_explained(text, reason):
    state = engine.deal_from(DEAL, 3)
    assert reason in _refused(state, text)


def test_unreadable_input_is_told_apart_from_a_refused_move():
    state = engine.deal_from(DEAL, 3)
    for text in ("zz", "99"):  # names no card
        with pytest.raises(IllegalInput):
            _parse(state, text)
    with pytest.raises(IllegalMove) as err:  # names cards, but the move is not allowed
        _parse(state, "4C")
    assert not isinstance(err.value, IllegalInput)


def test_illegal_input_against_a_play_on_the_table_is_explained():
    state = engine.deal_from(DEAL, 3)
    for action in (16, 17, PASS, PASS):  # me 3S 3H, seat 1 4D 4C, seats 2 and 3 pass
        state = engine.step(state, np.array([action]))
    assert state.to_act[0] == 0 and state.table[0] == 17
    assert "does not beat pair 4 4" in _refused(state, "5S")
    assert "pair 4 4 does not beat pair 4 4: only a higher pair" in _refused(state, "4S 4H")
    straight = _refused(state, "5S 6S 7S 8S 9S")
    assert "does not beat pair 4 4: only a higher pair or a quad" in straight
    assert _parse(state, "pass")[0] == PASS
    assert _parse(state, "")[0] == PASS


def test_the_exchange_give_back_is_checked():
    # Hand 2: seat 2 was last and gives me (seat 0, 1st) its highest card, the black joker.
    state = engine.deal_from(DEAL, 3, hand_no=1, previous=(0, 2))
    assert state.phase[0] == engine.Phase.EXCHANGE and state.to_act[0] == 0
    assert "cannot give back the card just received, BJ" in _refused(state, "BJ")
    assert "ranked 3 to 10" in _refused(state, "AS")
    assert "must give back exactly one card, ranked 3 to 10" in _refused(state, "pass")
    assert "exactly one card" in _refused(state, "3S 3H")
    action, cards = _parse(state, "3H")
    assert action == 1 and cards.tolist() == parse_hand("3H").tolist()


def test_the_exchange_is_shown_and_played_from_typed_input():
    out: list[str] = []
    start = engine.deal_from(DEAL, 3, hand_no=1, previous=(0, 2))
    script = itertools.chain(["3D", "3H"], itertools.cycle(["pass", "1"]))
    game = TerminalGame([RandomBot()] * 3, seed=2, read=_scripted(script), write=out.append)
    record = game.run(hands=1, start=start)
    text = "\n".join(out)
    assert "Exchange: Seat 2 (random) gives BJ (highest card) to You (1st)." in text
    assert "You received BJ. Give back one card ranked 3 to 10" in text
    assert "Not allowed: seat 0 does not hold 3D" in text
    assert "You give back 3H." in text
    assert record["hands"][0]["exchange"]["first_gives"] == "3H"
    assert "Hand 2 over" in text


def _scripted(lines):
    """A reader that returns scripted lines, then raises EOFError like input() at the end."""
    it = iter(lines)

    def read(prompt: str) -> str:
        try:
            return next(it)
        except StopIteration:
            raise EOFError from None

    return read


def test_a_whole_match_to_the_end_is_a_valid_record(tmp_path):
    out: list[str] = []
    # "pass" where passing is allowed, else the lowest card: always a legal way on.
    script = itertools.cycle(["pass", "1"])
    game = TerminalGame(
        [RandomBot(), RandomBot(), RandomBot()], seed=5, read=_scripted(script), write=out.append
    )
    path = tmp_path / "match.json"
    record = game.run(record_path=str(path))
    text = "\n".join(out)
    assert "*** Match over:" in text
    assert records.validate(records.load(path)).valid
    assert records.load(path) == record
    assert record["winners"], "a finished match has winners"
    assert len(record["hands"]) >= 7  # 21 points take at least 7 hands
    assert "Not allowed: the leader cannot pass" in text


def test_quit_stops_and_keeps_an_unfinished_but_valid_record(tmp_path):
    out: list[str] = []
    game = TerminalGame(
        [RandomBot()] * 3, seat=2, seed=1, read=_scripted(["pass", "1", "quit"]), write=out.append
    )
    record = game.run(record_path=str(tmp_path / "r.json"))
    assert records.validate(record).valid
    assert record["hands"][0]["points"] is None
    assert "You quit: the match stops here." in "\n".join(out)


def test_murlan_play_end_to_end_from_stdin(tmp_path):
    path = tmp_path / "game.json"
    script = "zz\n" + "pass\n1\n" * 400
    proc = subprocess.run(
        [sys.executable, "-m", "murlan_cli", "play", "--seed", "1", "--hands", "2",
         "--bots", "rule,greedy,random", "--rules", "sticky_pass=true", "--record", str(path)],
        input=script, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    assert "Your hand: 1:" in out and "Legal:" in out and "Cards left:" in out
    assert "Not allowed: unknown card 'zz'" in out
    assert "Hand 2 over" in out and "Stopping after 2 hand(s)" in out
    assert "Seat 1 (rule)" in out and "Seat 2 (greedy)" in out and "Seat 3 (random)" in out
    record = records.load(path)
    assert records.validate(record).valid
    assert record["rules"] == {"sticky_pass": True}
    assert [h["points"] is not None for h in record["hands"]] == [True, True]


def test_bad_options_are_usage_errors(capsys):
    from murlan_cli import main

    assert main(["play", "--bots", "rule,greedy"]) == 2
    assert "one spec or three" in capsys.readouterr().err
    assert main(["play", "--bots", "wizard"]) == 2
    assert "unknown bot 'wizard'" in capsys.readouterr().err
    assert main(["play", "--rules", "tie_rule=never"]) == 2
    assert "tie_rule" in capsys.readouterr().err


def test_a_bot_that_fails_on_its_turn_is_one_line_and_exit_1(monkeypatch, capsys):
    from murlan_cli import main

    def broken(self, obs, mask, rng):
        raise ValueError("no move for you")

    monkeypatch.setattr(RandomBot, "act", broken)
    # Seed 1 deals the 3S to seat 0, who leads it; then the bot at seat 1 raises.
    monkeypatch.setattr("sys.stdin", __import__("io").StringIO("3S\nquit\n"))
    assert main(["play", "--bots", "random", "--seed", "1", "--seat", "0"]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1
    assert "failed on its turn" in err[0] and "no move for you" in err[0]
