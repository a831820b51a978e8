"""murlan arena: counts, determinism, ratings and outputs."""

from __future__ import annotations

import dataclasses
import io
import json
import math

import numpy as np
import pytest
from rich.console import Console

from murlan_cli import main as murlan
from murlan_cli.arena import print_report
from murlan_env.bots.baseline import GreedyBot, RandomBot
from murlan_env.bots.rule import RuleBot
from murlan_env.eval import arena
from murlan_env.eval.duplicate import play_duplicate
from murlan_env.game.rules import Rules


def test_counts_mean_what_they_say():
    report = arena.run_arena(["random", "greedy", "rule"], boards=3, seed=1, max_hands=2)
    # 3 boards, each by the 4 lineups of A B C A, 2 hands each.
    assert report["boards"] == 3 and report["games"] == 12 and len(report["lineups"]) == 4
    assert report["hands_played"] == 24 and report["matches_finished"] == 0
    assert report["unfinished"] == 12
    assert [row["hands"] for row in report["bots"]] == [48, 24, 24]  # random holds two seats
    assert report["summary"].startswith("3 boards x 4 lineups = 12 games (at most 2 hands): 24")
    whole = arena.run_arena(["random", "greedy"], boards=2, seed=1)
    assert whole["games"] == 4 and whole["matches_finished"] == 4 and whole["unfinished"] == 0
    assert [row["matches"] for row in whole["bots"]] == [8, 8]  # two seats each


def test_same_seed_same_report_and_points_add_up():
    specs = ["random", "greedy", "rule", "random"]
    a = arena.run_arena(specs, boards=2, seed=5, max_hands=3)
    b = arena.run_arena(specs, boards=2, seed=5, max_hands=3)
    assert a == b
    c = arena.run_arena(specs, boards=2, seed=6, max_hands=3)
    assert c["bots"] != a["bots"]
    names = [row["bot"] for row in a["bots"]]
    assert names == ["random", "greedy", "rule", "random#2"]
    # Four distinct seats per game: the bots' points per hand add up to 6 (3+2+1+0).
    assert sum(row["points_per_hand"] for row in a["bots"]) == pytest.approx(6.0)
    json.dumps(a, allow_nan=False)  # strict JSON: nothing measured is null, not NaN


def test_the_rule_bot_beats_random_with_separated_intervals():
    report = arena.run_arena(["rule", "random"], boards=4, seed=0)
    rule, rand = report["bots"]
    assert rule["points_ci95"][0] > rand["points_ci95"][1]
    assert rule["rating_ci95"][0] > rand["rating_ci95"][1]
    assert report["matches_finished"] == 8
    assert rule["match_win_rate"] > rand["match_win_rate"]
    lo, hi = rule["match_win_ci95"]
    assert 0 <= lo <= rule["match_win_rate"] <= hi <= 1


# --------------------------------------------------------------------------- ratings


def test_bradley_terry_matches_the_closed_form_for_two_bots():
    wins = np.array([[0.0, 30.0], [10.0, 0.0]])
    log_strength = arena.bradley_terry(wins)
    # Two bots: the strength ratio is the ratio of wins (with the prior's half-win each).
    expected = 400 * math.log10((30 + arena.PRIOR_TIE) / (10 + arena.PRIOR_TIE))
    gap = arena.ELO_SCALE * (log_strength[0] - log_strength[1])
    assert gap == pytest.approx(expected, rel=1e-8)


def test_pairwise_wins_count_seats_of_different_bots():
    hand_bots = np.array([[0, 1, 0, 1]])
    hand_points = np.array([[3, 1, 2, 0]])
    wins = arena.pairwise_wins(np.array([0]), hand_bots, hand_points, 1, 2)[0]
    # Bot 0's seats (3, 2 points) finished ahead of both of bot 1's (1, 0 points).
    assert wins.tolist() == [[0.0, 4.0], [0.0, 0.0]]


def test_ratings_do_not_depend_on_the_order_of_the_results():
    result = play_duplicate([RuleBot(), GreedyBot(), RandomBot()], 3, seed=2, max_hands=3)
    rating, interval = arena.fit_ratings(result, seed=0, samples=200)
    for seed in range(3):
        order = np.random.default_rng(seed).permutation(len(result.hand_board))
        hand_fields = ("hand_board", "hand_lineup", "hand_number", "hand_points", "hand_deal")
        shuffled = dataclasses.replace(
            result, **{name: getattr(result, name)[order] for name in hand_fields}
        )
        again, again_interval = arena.fit_ratings(shuffled, seed=0, samples=200)
        np.testing.assert_array_equal(again, rating)
        np.testing.assert_array_equal(again_interval, interval)
    # The dominant bot rates highest, the random bot lowest; the mean rating is 1500.
    assert rating[0] > rating[1] > rating[2]
    assert rating.mean() == pytest.approx(arena.ELO_MEAN)
    assert (interval[:, 0] <= rating).all() and (rating <= interval[:, 1]).all()


def test_a_bot_that_always_wins_rates_highest_and_stays_finite():
    hand_bots = np.tile([0, 1, 2, 1], (10, 1))
    hand_points = np.tile([3, 2, 0, 1], (10, 1))
    wins = arena.pairwise_wins(np.zeros(10, int), hand_bots, hand_points, 1, 3).sum(0)
    log_strength = arena.bradley_terry(wins)
    assert np.isfinite(log_strength).all()
    assert log_strength.argmax() == 0 and log_strength.argmin() == 2


# --------------------------------------------------------------------------- bots and rules


def test_a_checkpoint_and_its_exported_bundle_play_the_same_games(tmp_path):
    """``ckpt:`` and ``bundle:`` load the same weights into the same bot: on the same boards
    they score exactly alike, and unlike another network's weights."""
    import torch

    from agents.export import export_bundle
    from agents.networks import build_network, make_arch

    arch = make_arch("ppo", [16])
    bots = []
    for seed in (0, 1):
        torch.manual_seed(seed)
        net = build_network(arch)
        folder = tmp_path / f"net{seed}"
        folder.mkdir()
        torch.save({"spec": arch, "model": net.state_dict()}, folder / "checkpoint.pt")
        bots.append(f"ckpt:{folder}")
        if seed == 0:
            export_bundle(net, folder / "bundle", n_positions=0, coreml=False)
            bots.append(f"bundle:{folder / 'bundle'}")
    ckpt, bundle, other = (
        arena.run_arena([bot, "random"], boards=2, seed=1, max_hands=2) for bot in bots
    )
    assert [row["bot"] for row in ckpt["bots"]] == [bots[0], "random"]
    assert bundle["bots"][0]["bot"].startswith("bundle:") and ckpt["hands_played"] == 8
    points = [[row["points_per_hand"] for row in r["bots"]] for r in (ckpt, bundle, other)]
    assert points[0] == points[1] != points[2]


def test_rules_reach_the_games():
    """The variant flags change what is legal: the joker pair (action 108) is offered to the
    bots under ``joker_pair`` only."""
    from murlan_env.game.combos import JOKER_PAIR

    class Watching(RandomBot):
        offered = 0

        def act(self, obs, mask, rng):
            Watching.offered += int(mask[:, JOKER_PAIR].sum())
            return super().act(obs, mask, rng)

    offered = {}
    for rules in (Rules(), Rules(joker_pair=True)):
        Watching.offered = 0
        report = arena.run_arena([Watching(), "greedy"], boards=8, seed=2, rules=rules, max_hands=2)
        offered[rules.joker_pair] = Watching.offered
    assert report["rules"] == {"joker_pair": True}
    assert offered[False] == 0 and offered[True] > 0, offered


def test_progress_reaches_the_total():
    calls = []
    report = arena.run_arena(
        ["greedy", "random"], boards=2, seed=0, progress=lambda *call: calls.append(call)
    )
    assert calls[0][0] == 0 and calls[-1] == (report["hands_played"],) * 2


# --------------------------------------------------------------------------- output


def test_a_narrow_non_terminal_console_gets_the_whole_table():
    report = arena.run_arena(["greedy", "random", "rule", "random"], boards=1, seed=0, max_hands=1)
    report["bots"][0]["bot"] = "ckpt:runs/a-rather-long-run-name/checkpoint.pt"
    out = io.StringIO()
    print_report(report, Console(file=out, width=40))
    text = out.getvalue()
    assert "…" not in text
    assert text.splitlines()[0] == f"murlan arena: {report['summary']}"
    for row in report["bots"]:
        # One line per bot, holding its whole name and its rating.
        lines = [line for line in text.splitlines() if f" {row['bot']} " in line]
        assert len(lines) == 1 and f"{row['rating']:.0f}" in lines[0]


def test_an_80_column_terminal_gets_every_number_and_folds_long_names():
    """On a terminal of 80 columns no number is cut: the table has no side borders and
    the bot column folds a long name onto more lines."""
    span = [0.9, 2.1]
    row = {
        "points_per_hand": 1.5, "points_ci95": span, "first_rate": 0.25,
        "match_win_rate": 0.25, "match_win_ci95": [0.05, 0.6], "matches": 40,
    }  # fmt: skip
    names = ["bundle:ppo-finetune(argmax)", "proc:python examples/protocol_bot.py", "rule"]
    report = {
        "seed": 0,
        "summary": "3 bots",
        "bots": [
            {**row, "bot": name, "rating": 1500.0 + 10 * i, "rating_ci95": [1234.0, 1789.0 + i]}
            for i, name in enumerate(names)
        ],
    }
    out = io.StringIO()
    print_report(report, Console(file=out, width=80, force_terminal=True, color_system=None))
    lines = out.getvalue().splitlines()
    assert max(map(len, lines)) <= 80 and "…" not in out.getvalue()
    words = [" ".join(line.split()) for line in lines]
    for i, name in enumerate(names):
        (line,) = [x for x in words if x.endswith(f"{1500 + 10 * i} 1234-{1789 + i}")]
        assert line.startswith(name[:6]) and "1.500 0.90-2.10 25% 25% 5%-60% 40" in line
    first_column = "".join(line.split("  ")[0].strip() for line in lines)
    assert all(name.replace(" ", "") in first_column for name in names)  # folded, all there


def test_command_line_writes_table_json_and_png(tmp_path, capsys):
    out_json, out_png = tmp_path / "r.json", tmp_path / "r.png"
    args = ["random", "greedy", "--boards", "2", "--max-hands", "2", "--seed", "3"]
    args += ["--rules", "joker_pair=true"]
    code = murlan(["arena", *args, "--json", str(out_json), "--png", str(out_png)])
    assert code == 0
    printed = capsys.readouterr().out
    assert "2 boards x 2 lineups = 4 games (at most 2 hands): 8 hands" in printed
    assert "greedy" in printed
    report = json.loads(out_json.read_text())
    assert report["rules"] == {"joker_pair": True} and report["seed"] == 3
    assert out_png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    # --json without a file prints the JSON report alone, the same as the file.
    assert murlan(["arena", *args, "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == report


def test_murlan_cli_has_the_arena(capsys):
    assert murlan(["arena", "random", "rule", "--boards", "1", "--max-hands", "1", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert [row["bot"] for row in report["bots"]] == ["random", "rule"]
    np.testing.assert_allclose(sum(r["points_per_hand"] for r in report["bots"]), 3.0)
    # Bad bot specs, rule flags and counts are usage errors (exit 2) with the reason on stderr.
    assert murlan(["arena", "random", "wizard"]) == 2
    assert "unknown bot 'wizard'" in capsys.readouterr().err
    assert murlan(["arena", "random", "rule", "--rules", "sticky_pass=often"]) == 2
    assert "sticky_pass" in capsys.readouterr().err
    assert murlan(["arena", "random", "rule", "--boards", "0"]) == 2
    assert "--boards" in capsys.readouterr().err


def test_the_old_hands_option_points_to_boards(capsys):
    assert murlan(["arena", "random", "greedy", "--hands", "40"]) == 2
    err = capsys.readouterr().err
    assert "--hands is gone" in err and "--boards" in err and "--max-hands" in err
