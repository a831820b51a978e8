"""Smoke tests: the benchmark scripts run and report every row (timings are not checked)."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[1]


def run_script(name: str, args: list[str]) -> subprocess.CompletedProcess:
    """Run ``benchmarks/<name>`` with ``args``; fail with its stderr unless it exits 0."""
    done = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / name), *args],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return done


def test_engine_benchmark_runs_and_reports_its_rows(tmp_path):
    out = tmp_path / "bench.json"
    args = ["--seconds", "0.05", "--repeats", "1", "--batch-sizes", "1", "64", "--json", str(out)]
    done = run_script("engine.py", args)
    result = json.loads(out.read_text())
    rows = {row["name"]: row for row in result["rows"]}
    for name in ("engine B=1", "engine B=64", "single game (driver)", "murlan AEC env"):
        assert rows[name]["median"] > 0, name
    assert rows["Murlan-v1 (learner steps)"]["median"] > 0
    for name in ("OpenSpiel dou_dizhu (decisions)", "RLCard doudizhu"):
        assert rows[name]["median"] is not None or "install" in rows[name]["skipped"]
    names = [r["name"] for r in result["ratios"]]
    assert names == [
        "engine B=64 / OpenSpiel dou_dizhu (decisions)",
        "murlan AEC env / RLCard doudizhu",
    ]
    assert "target >= 5x" in done.stdout


def test_selfplay_benchmark_runs_the_training_loop_and_reports_its_split():
    args = ["--steps", "40000", "workers=local", "num_envs=64", "eval_deals=4"]
    args += ["final_eval_deals=4", "eval_bots=[greedy]", "eval_every=0"]
    done = run_script("selfplay.py", args)
    lines = done.stdout.splitlines()
    assert lines[0].startswith("quick: ") and "decisions/s end to end (local x1 workers" in lines[0]
    parts = [line.split()[0] for line in lines[2:8]]
    assert parts == ["rollout", "wait", "transfer", "update", "evaluation", "checkpoint"]
    assert "per iteration, outside rollout and update" in done.stdout
    assert lines[-2].startswith("vs greedy: ") and "points/hand" in lines[-2]
    assert lines[-1].startswith("CPU: ") and re.search("learner precision (fp32|bf16)", lines[-1])


def test_selfplay_benchmark_times_an_update_in_both_precisions():
    done = run_script("selfplay.py", ["--precision", "--presets", "quick", "--repeats", "1"])
    lines = done.stdout.splitlines()
    assert lines[0].startswith("CPU: ")
    (row,) = [line for line in lines if line.startswith("| quick |")]
    cells = [c.strip() for c in row.strip("|").split("|")]
    fp32, bf16 = (float(c.removesuffix(" ms").replace(",", "")) for c in cells[2:4])
    assert fp32 > 0 and bf16 > 0 and float(cells[4]) == pytest.approx(bf16 / fp32, rel=0.05)
    assert cells[5] in ("fp32", "bf16") and lines[-1].startswith("auto: ")


def test_lookahead_ceiling_reports_every_lookahead_against_the_bare_policy():
    done = run_script("lookahead_ceiling.py", ["--deals", "2", "--worlds", "2"])
    rows = [line for line in done.stdout.splitlines() if line.startswith("| ")][1:]
    cells = [[c.strip() for c in row.strip("|").split("|")] for row in rows]
    assert [c[:2] for c in cells] == [
        ["(no lookahead)", ""],
        ["true deal", "hard"],
        ["true deal", "rule (exact)"],
        ["2 sampled worlds", "hard"],
        ["2 sampled worlds", "rule (exact)"],
    ]
    assert all(c[3].startswith(("+", "-")) for c in cells[1:])  # a paired gain each
    # Paired on the same boards: each row's points per hand are the bare policy's plus its
    # gain (three figures rounded to 3 decimals).
    bare = float(cells[0][2].split()[0])
    for c in cells[1:]:
        assert float(c[2].split()[0]) == pytest.approx(bare + float(c[3].split()[0]), abs=2e-3)
    # Seeing the deal and modelling the deterministic rule bots exactly, the lookahead only
    # switches to a move that truly scores more: it can never lose points to the policy.
    assert float(cells[2][3].split()[0]) >= 0.0


def test_lookahead_ceiling_rows_between_uniform_worlds_and_the_true_deal():
    args = "--deals 2 --worlds 3 --known 0 1 --posterior 4 --candidates 32 --rows rule".split()
    done = run_script("lookahead_ceiling.py", args)
    rows = [line for line in done.stdout.splitlines() if line.startswith("| ")][1:]
    cells = [[c.strip() for c in row.strip("|").split("|")] for row in rows]
    assert [c[0] for c in cells] == [
        "(no lookahead)",
        "true deal",
        "3 worlds, each hidden card known w.p. 0",
        "3 worlds, each hidden card known w.p. 1",
        "3 worlds from the rule bots' posterior (32 candidates, 4 effective)",
    ]
    true_deal, uniform, known, posterior = cells[1:]
    # Worlds that keep every hidden card in its true hand are the true deal: the same moves,
    # so the same points, and no card misplaced.
    assert known[2:4] == true_deal[2:4] and float(known[4]) == 0.0
    assert float(uniform[4]) > 0.0 and float(posterior[4]) > 0.0


def test_learning_curve_joins_the_stages_of_a_staged_run(tmp_path):
    from torch.utils.tensorboard import SummaryWriter

    for stage, (steps, base) in {"one": ([10, 20, 30], 1.2), "two": ([5, 10], 1.6)}.items():
        with SummaryWriter(str(tmp_path / stage)) as writer:
            for i, step in enumerate(steps):
                writer.add_scalar("eval/rule/points_per_hand", base + 0.1 * i, step)
                writer.add_scalar("eval/rule/ci95", 0.05, step)
    png, points = tmp_path / "curve.png", tmp_path / "curve.json"
    args = [str(tmp_path / "one"), str(tmp_path / "two"), "--out", str(png), "--json", str(points)]
    done = run_script("learning_curve.py", args)
    rule = json.loads(points.read_text())["rule"]
    assert rule["step"] == [10, 20, 30, 35, 40]  # the second stage goes on from the first
    assert rule["points"] == pytest.approx([1.2, 1.3, 1.4, 1.6, 1.7])
    assert png.stat().st_size > 0 and "vs rule: 1.700 ± 0.050 at 40" in done.stdout


def test_labeller_benchmark_reports_each_precision_and_batch_size():
    args = ["--positions", "3", "--boards", "2", "--batch", "1", "3", "--runs", "2"]
    args += ["--rollouts", "8", "--candidates", "16"]
    done = run_script("labeller.py", args)
    rows = [line for line in done.stdout.splitlines() if line.startswith("| ")]
    assert "3 positions of `hard`" in done.stdout and "8 rollouts over 16" in done.stdout
    cells = [[cell.strip() for cell in row.split("|")[1:-1]] for row in rows[1:]]
    assert [row[:2] for row in cells] == [
        ["float32", "1"],
        ["float32", "3"],
        ["int8", "1"],
        ["int8", "3"],
    ]
    for row in cells:
        assert len(row) == 10 and float(row[2]) > 0  # positions per second
        assert all(cell.endswith("%") for cell in row[5:8])
        assert row[8] == row[9] == "nan%"  # scoring the labels takes a third run
    assert cells[0][5] == "100%"  # the first row against itself


def test_labeller_benchmark_scores_each_rows_labels_against_the_reproducible_overrides():
    args = ["--positions", "6", "--boards", "2", "--batch", "3", "--runs", "3"]
    args += ["--rollouts", "8", "--candidates", "16", "--precision", "float32"]
    done = run_script("labeller.py", args)
    assert "Reproducible overrides (float32 batch 3, runs 1 and 2):" in done.stdout
    row = [line for line in done.stdout.splitlines() if line.startswith("| float32")][0]
    finds, share = (row.split("|")[k].strip() for k in (9, 10))
    overrides = float(row.split("|")[8].strip().rstrip("%"))
    assert overrides > 0  # 8 rollouts override the policy somewhere in 6 positions
    assert share != "nan%" and 0 <= float(share.rstrip("%")) <= 100
    assert finds == "nan%" or 0 <= float(finds.rstrip("%")) <= 100


def test_search_strength_plays_the_belief_search_at_a_budget_and_worlds_against_the_tables_asked():
    args = ["--budgets", "8", "--belief", "--models", "rule", "--candidates", "16"]
    args += ["--opponents", "rule", "--boards", "1", "--max-hands", "1"]
    lines = run_script("search_strength.py", args).stdout.splitlines()
    assert lines[0].split() == ["bot", "vs", "3", "x", "rule", "s/decision"]
    names = [line.split()[0] for line in lines[1:]]
    assert names == ["hard", "search:8:hard+belief+rule/16"]
    for line in lines[1:]:
        points, _, half, seconds = line.split()[1:]
        assert 0 <= float(points) <= 3 and float(seconds) >= 0


def test_search_strength_refuses_candidates_without_a_belief():
    done = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "search_strength.py"), "--candidates", "16"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2 and "--candidates needs --belief" in done.stderr


def test_bot_speed_reports_every_bot_and_the_duplicate_boards():
    args = ["--positions", "64", "--batch", "16", "--boards", "1", "--runs", "1"]
    done = run_script("bot_speed.py", args)
    rows = [line for line in done.stdout.splitlines() if line.startswith("| ")][1:]
    assert [row.split("`")[1] for row in rows] == ["random", "greedy", "rule", "hard"]
    for row in rows:
        rate = row.split("|")[2].split()[0].replace(",", "")
        assert float(rate) > 0
    assert rows[-1].split("|")[2].strip().endswith("hands/s")


def test_label_noise_and_the_distillation_curve_read_a_run(tmp_path):
    """A tiny distill run, its overrides labelled again by a second search, and the
    curve fitted to nested subsets of its labels, with and without the consensus."""
    import murlan_cli

    tiny = ["rounds=1", "positions=16", "label_batch=4", "label_chunk=4", "label_workers=1"]
    tiny += [
        "search_rollouts=8",
        "belief_candidates=16",
        "eval_deals=2",
        "epochs=1",
        "eval_bots=[rule]",
    ]
    run = tmp_path / "run"
    args = ["--config", "distill", "name=run", f"runs_dir={tmp_path}", "progress=false", *tiny]
    assert murlan_cli.main(["train", *args]) == 0

    done = run_script("label_noise.py", [str(run), "--seed", "7"])
    rows = [line for line in done.stdout.splitlines() if line.startswith("| ")][1:]
    counts = [int(row.split("|")[2]) for row in rows]
    with np.load(run / "round-1" / "labels.npz") as labels:
        overridden = int(
            (labels["action"] != np.load(run / "round-1" / "positions.npz")["action"]).sum()
        )
    assert sum(counts) == overridden  # each override lands in one group
    relabels = run / "round-1" / "relabels-seed7.npz"
    assert relabels.exists()
    same = run_script("label_noise.py", [str(run), "--seed", "7"])  # read back, not labelled again
    assert [line for line in same.stdout.splitlines() if line.startswith("| ")][1:] == rows

    # The overrides and a sample of the keeps labelled again by two smaller searches.
    done = run_script("label_quality.py", [str(run), "--budgets", "4:8", "4", "--keeps", "3"])
    rows = [line for line in done.stdout.splitlines() if line.startswith("| ")][1:]
    # A budget without candidates takes the run's 16, whatever the budget before it took.
    assert [[c.strip() for c in row.split("|")[1:3]] for row in rows] == [["4", "8"], ["4", "16"]]
    assert f"one-off overrides {overridden - counts[0]} " in done.stdout
    kept = 16 - overridden
    assert f"keeps: {min(3, kept)} sampled of {kept})" in done.stdout

    # A fit setting after --sizes' list is a setting, not a size.
    for extra in (["epochs=2"], ["--consensus", str(relabels)]):
        done = run_script("distill_curve.py", [str(run), "--sizes", "4", "12", *extra])
        assert ("epochs=2" in done.stdout) == (extra == ["epochs=2"])
        rows = [line for line in done.stdout.splitlines() if line.startswith("| ")][1:]
        assert [row.split("|")[1].strip() for row in rows] == ["0", "4", "12"]
        for row in rows:
            assert row.split("|")[3].strip().endswith("%")  # held-out agreement
    bad = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "label_noise.py"), str(run), "--seed", "1"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert bad.returncode == 2 and "--seed must differ" in bad.stderr


def test_belief_benchmark_reports_the_belief_by_hand_and_weighting():
    done = run_script("belief.py", ["quality", "--deals", "2", "--positions", "12"])
    out = done.stdout
    for hand in ("hand 1", "hand 2", "all"):
        for weights in ("uniform", "tempered", "plain"):
            assert f"| {hand} | {weights} | " in out
    # Tempering never leaves fewer effective worlds than the plain likelihoods.
    rows = [line for line in out.splitlines() if line.startswith("| all | 12 |")]
    assert len(rows) == 1
    beta, plain, tempered = (float(c) for c in rows[0].strip("|").split("|")[2:5])
    assert 0 <= beta <= 1 and tempered >= plain


@pytest.mark.skipif(
    not (shutil.which("chromium") and shutil.which("chromedriver")),
    reason="needs Chromium and its driver: apt-get install chromium chromium-driver",
)
def test_browser_moves_benchmark_times_a_level_in_the_play_pages_worker():
    done = run_script("browser_moves.py", ["--level", "hard", "--matches", "1"])
    lines = done.stdout.splitlines()
    assert lines[0].startswith("hard at seat 1 against 3 hard, first 2 hands of 1 matches")
    assert "no budget" in lines[0]
    cells = [line.strip("|").split("|") for line in lines[3:5]]
    assert [c[0].strip() for c in cells] == ["all", "with a choice"]
    assert int(cells[0][1]) > int(cells[1][1]) > 5  # two hands' decisions of seat 1
    assert lines[-1].startswith("CPU: ") and "Chromium" in lines[-1]
    unknown = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "browser_moves.py"), "--level", "nope",
         "--matches", "1"], capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    assert unknown.returncode == 2 and "plays no level nope" in unknown.stderr
