"""murlan arena: duplicate schedules, determinism, statistics and outputs."""

from __future__ import annotations

import json

import numpy as np
import pytest

from agents import arena
from murlan_env.bots import RandomBot, RuleBot
from murlan_env.rules import Rules


@pytest.mark.parametrize("n_bots, n_lineups", [(2, 2), (3, 4), (4, 4), (5, 20)])
def test_lineups_rotate_every_bot_through_every_seat(n_bots, n_lineups):
    seats = arena.lineups(n_bots)
    assert seats.shape == (n_lineups, 4)
    assert len({tuple(row) for row in seats}) == n_lineups
    for bot in range(n_bots):
        # Each bot sits in each seat equally often over the lineups.
        per_seat = (seats == bot).sum(0)
        assert (per_seat == per_seat[0]).all() and per_seat[0] > 0


def test_lineups_need_two_bots():
    with pytest.raises(ValueError, match="at least 2"):
        arena.lineups(1)


def test_every_lineup_plays_the_same_first_deals():
    bots = [RandomBot(), RuleBot(), RandomBot(), RuleBot()]
    seats, log = arena.play_tournament(bots, hands=6, seed=4, lanes=2)
    assert len(seats) == 4
    first_hands = [
        (b, lineup)
        for b, lineup in zip(log.hand_board, log.hand_lineup, strict=True)
        if b[1:] == (0, 0)
    ]
    # Hand 0 of match 0 of both lanes, played once by each of the 4 lineups.
    assert sorted(first_hands) == sorted(((lane, 0, 0), i) for lane in (0, 1) for i in range(4))
    # Every finished hand hands out 3 + 2 + 1 + 0 points.
    assert all(sorted(p.tolist()) == [0, 1, 2, 3] for p in log.hand_points)
    # Each lane stops after its share of the deals: 3 hands per lineup.
    assert len(log.hand_points) == 6 * 4


def test_same_seed_same_report_and_points_add_up():
    specs = ["random", "greedy", "rule", "random"]
    a = arena.run_arena(specs, hands=8, seed=5)
    b = arena.run_arena(specs, hands=8, seed=5)
    assert a == b
    c = arena.run_arena(specs, hands=8, seed=6)
    assert c["bots"] != a["bots"]
    # Four distinct seats per deal: the bots' points per hand add up to 6 (3+2+1+0).
    names = [row["bot"] for row in a["bots"]]
    assert names == ["random", "greedy", "rule", "random#2"]
    assert sum(row["points_per_hand"] for row in a["bots"]) == pytest.approx(6.0)


def test_the_rule_bot_beats_random_with_separated_intervals():
    report = arena.run_arena(["rule", "random"], hands=40, seed=0)
    rule, rand = report["bots"]
    assert rule["points_ci95"][0] > rand["points_ci95"][1]
    assert rule["rating"] > rand["rating"]
    assert report["matches_finished"] > 0
    assert rule["match_win_rate"] > rand["match_win_rate"]
    lo, hi = rule["match_win_ci95"]
    assert 0 <= lo <= rule["match_win_rate"] <= hi <= 1


def test_wilson_interval_matches_the_textbook_value():
    lo, hi = arena.wilson_interval(5, 10)
    assert lo == pytest.approx(0.2366, abs=1e-4) and hi == pytest.approx(0.7634, abs=1e-4)
    assert arena.wilson_interval(0, 0) == (0.0, 1.0)


def test_checkpoint_bots_play_in_the_arena(tmp_path):
    import torch

    from agents.networks import build_network, make_spec

    spec = make_spec("ppo", [16])
    torch.manual_seed(0)
    net = build_network(spec)
    path = tmp_path / "checkpoint.pt"
    torch.save({"spec": spec, "model": net.state_dict()}, path)
    report = arena.run_arena([f"ckpt:{tmp_path}", "random"], hands=2, seed=1)
    assert [row["bot"] for row in report["bots"]] == [f"ckpt:{tmp_path}", "random"]
    assert report["hands_played"] == 2 * 2


def test_rules_reach_the_games():
    report = arena.run_arena(["greedy", "random"], hands=2, seed=2, rules=Rules(sticky_pass=True))
    assert report["rules"] == {"sticky_pass": True}


def test_command_line_writes_table_json_and_png(tmp_path, capsys):
    out_json, out_png = tmp_path / "r.json", tmp_path / "r.png"
    code = arena.main(
        ["random", "greedy", "--hands", "4", "--seed", "3", "--rules", "joker_pair=true",
         "--json", str(out_json), "--png", str(out_png)]
    )  # fmt: skip
    assert code == 0
    printed = capsys.readouterr().out
    assert "murlan arena" in printed and "greedy" in printed
    report = json.loads(out_json.read_text())
    assert report["rules"] == {"joker_pair": True} and report["seed"] == 3
    assert out_png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    # --json without a file prints the JSON report alone, the same as the file.
    assert (
        arena.main(
            [
                "random",
                "greedy",
                "--hands",
                "4",
                "--seed",
                "3",
                "--rules",
                "joker_pair=true",
                "--json",
            ]
        )
        == 0
    )
    assert json.loads(capsys.readouterr().out) == report


def test_murlan_cli_has_the_arena(capsys):
    from murlan_env.cli import main

    assert main(["arena", "random", "rule", "--hands", "2", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert [row["bot"] for row in report["bots"]] == ["random", "rule"]
    np.testing.assert_allclose(sum(r["points_per_hand"] for r in report["bots"]), 3.0)
    # Bad bot specs and rule flags are usage errors (exit 2) with the reason on stderr.
    assert main(["arena", "random", "wizard", "--hands", "2"]) == 2
    assert "unknown bot 'wizard'" in capsys.readouterr().err
    assert main(["arena", "random", "rule", "--rules", "sticky_pass=often"]) == 2
    assert "sticky_pass" in capsys.readouterr().err


def test_exported_bundles_play_in_the_arena(tmp_path):
    import torch

    from agents.export import export_bundle
    from agents.networks import build_network, make_spec

    torch.manual_seed(0)
    net = build_network(make_spec("ppo", [16]))
    export_bundle(net, tmp_path / "b", n_matches=1, n_positions=4, coreml=False)
    report = arena.run_arena([f"bundle:{tmp_path / 'b'}", "greedy"], hands=2, seed=1)
    assert report["bots"][0]["bot"].startswith("bundle:b")
    assert report["hands_played"] == 2 * 2
