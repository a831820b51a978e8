"""The benchmark scripts report what they measured: every row, and figures that agree with each
other and with the measurement made again here (timings themselves are not checked).

Tables are read by their header (``tables``), never by column position, so a column added to a
report does not shift what a test reads."""

from __future__ import annotations

import ast
import contextlib
import importlib
import io
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[1]


# Scripts that pin their process to one core and its thread pools to one thread at import.
OWN_PROCESS = {"engine", "export"}


def run_script(name: str, args: list[str], status: int = 0) -> subprocess.CompletedProcess:
    """Run ``benchmarks.<name>``'s ``main(args)`` from the repository root with its output
    captured, as ``python -m benchmarks.<name> ARGS`` would; fail with its stderr unless it
    exits with ``status``.

    It runs in this process (but for OWN_PROCESS): a process per call would start torch and
    load the engine's compiled kernels again each time, more CPU than most calls' work.
    ``test_a_script_runs_as_a_module_and_as_a_file`` runs a script from the command line."""
    if name in OWN_PROCESS:
        command = [sys.executable, "-m", f"benchmarks.{name}", *args]
        done = subprocess.run(
            command, cwd=ROOT, capture_output=True, text=True, timeout=300, check=False
        )
    else:
        import torch

        main = importlib.import_module(f"benchmarks.{name}").main
        out, err, threads = io.StringIO(), io.StringIO(), torch.get_num_threads()
        try:
            with (
                contextlib.chdir(ROOT),
                contextlib.redirect_stdout(out),
                contextlib.redirect_stderr(err),
            ):
                try:
                    code = main(list(args))
                except SystemExit as e:  # what the interpreter would exit with
                    code = e.code
                    if code is not None and not isinstance(code, int):
                        print(code, file=sys.stderr)
                        code = 1
        finally:
            torch.set_num_threads(threads)  # a script may set this process to one thread
        done = subprocess.CompletedProcess(args, code or 0, out.getvalue(), err.getvalue())
    assert done.returncode == status, done.stderr[-2000:]
    return done


def tables(text: str) -> list[list[dict[str, str]]]:
    """The Markdown tables in ``text``: each a list of rows, each row a dict from the header's
    names to its stripped cells."""
    found, block = [], []
    for line in [*text.splitlines(), ""]:
        if line.startswith("|"):
            block.append([cell.strip() for cell in line.strip().strip("|").split("|")])
            continue
        if block:
            head, rule, *rows = block
            assert set("".join(rule)) <= set("-:"), f"no rule under the header {head}"
            assert all(len(row) == len(head) for row in rows), block
            found.append([dict(zip(head, row, strict=True)) for row in rows])
            block = []
    return found


def test_tables_are_read_by_their_header():
    text = "intro\n| a | b |\n|---|---|\n| 1 | x y |\n| 2 | |\nnext\n| c |\n|---|\n| 3 |\n"
    assert tables(text) == [[{"a": "1", "b": "x y"}, {"a": "2", "b": ""}], [{"c": "3"}]]


SCRIPTS = sorted(
    p.stem for p in (ROOT / "benchmarks").glob("*.py") if p.stem not in ("__init__", "common")
)


@pytest.mark.parametrize("name", SCRIPTS)
def test_every_script_has_one_main_and_imports_no_script_by_path(name):
    """``main(argv: list[str] | None = None) -> int`` with argparse, run by ``raise
    SystemExit(main())``; the shared helpers come from ``benchmarks.common`` by a normal import,
    never from a sibling file found through the path."""
    tree = ast.parse((ROOT / "benchmarks" / f"{name}.py").read_text(encoding="utf-8"))
    (main,) = [n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == "main"]
    assert (
        ast.unparse(main.args) == "argv: list[str] | None=None"
        and ast.unparse(main.returns) == "int"
    )
    calls = [ast.unparse(n.func) for n in ast.walk(main) if isinstance(n, ast.Call)]
    assert any(c.endswith("parse_args") or c.endswith("parse_intermixed_args") for c in calls)
    last = tree.body[-1]
    assert isinstance(last, ast.If) and ast.unparse(last.test) == "__name__ == '__main__'"
    assert [ast.unparse(n) for n in last.body] == ["raise SystemExit(main())"]
    assert ast.get_docstring(tree), "a docstring: what it measures and how long it takes"
    siblings = set(SCRIPTS) | {"common"}
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            assert node.module not in siblings, (
                f"from {node.module} import: use benchmarks.{node.module}"
            )
        elif isinstance(node, ast.Import):
            assert not {a.name for a in node.names} & siblings
        elif isinstance(node, ast.Attribute):
            assert ast.unparse(node) != "sys.path", "no sys.path changes"


def test_a_script_runs_as_a_module_and_as_a_file():
    """``python -m benchmarks.NAME`` from the root, and ``python benchmarks/NAME.py`` with the root
    on PYTHONPATH, parse the same command line."""
    as_module = run_script("strength", ["--help"]).stdout
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    as_file = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "strength.py"), "--help"],
        capture_output=True, text=True, env=env, timeout=120, check=True,
    )  # fmt: skip
    assert as_file.stdout == as_module and "paired" in as_module and "arithmetic" in as_module


def test_strength_paired_reports_each_hand_and_the_gain_board_by_board(tmp_path):
    saved = tmp_path / "paired.npz"
    args = ["paired", "--bot", "hard", "--base", "greedy", "--boards", "2", "--chunk", "1"]
    done = run_script("strength", [*args, "--table", "medium", "--save", str(saved)])
    assert "each in one seat against three medium bots" in done.stdout.splitlines()[0]
    *_, rows = tables(done.stdout)  # the table after the last chunk
    assert [row["hand"] for row in rows] == ["1 (start duty)", "2 (exchange)", "1 and 2"]
    with np.load(saved) as points:
        mine = {h: points[f"bot0_hand{h}"] for h in (1, 2)}
        base = {h: points[f"bot1_hand{h}"] for h in (1, 2)}
    assert mine[1].shape == (2,)
    for row, h in zip(rows, (1, 2), strict=False):
        assert float(row["hard"].split()[0]) == pytest.approx(mine[h].mean(), abs=5e-4)
        gain = (mine[h] - base[h]).mean()
        assert float(row["gain (paired)"].split()[0]) == pytest.approx(gain, abs=5e-4)


def test_engine_benchmark_runs_and_reports_its_rows(tmp_path):
    out = tmp_path / "bench.json"
    args = ["--seconds", "0.05", "--repeats", "1", "--batch-sizes", "1", "64", "--json", str(out)]
    done = run_script("engine", args)
    result = json.loads(out.read_text())
    rows = {row["name"]: row for row in result["rows"]}
    ours = ["engine B=1", "engine B=64", "single game (driver)", "murlan AEC env"]
    for name in [*ours, "Murlan-v1 (learner steps)"]:
        assert rows[name]["skipped"] is None and len(rows[name]["rates"]) == 1, name
    for row in rows.values():
        # Each median is the median of the runs it lists; a skipped row says how to install.
        if row["skipped"] is None:
            assert row["median"] == np.median(row["rates"]), row
        else:
            assert row["median"] is None and "install" in row["skipped"], row
    names = [r["name"] for r in result["ratios"]]
    assert names == [
        "engine B=64 / OpenSpiel dou_dizhu (decisions)",
        "murlan AEC env / RLCard doudizhu",
    ]
    # Each ratio is its two rows' medians divided, judged against its target, and printed.
    for ratio in result["ratios"]:
        top, bottom = (rows[name]["median"] for name in ratio["name"].split(" / "))
        if bottom is None:
            assert ratio["ratio"] is None and ratio["met"] is None
            assert f"{ratio['name']}: n/a (target >= {ratio['target']:g}x)" in done.stdout
        else:
            assert ratio["ratio"] == pytest.approx(top / bottom)
            assert ratio["met"] == (ratio["ratio"] >= ratio["target"])
            assert f"{ratio['name']}: {ratio['ratio']:.2f}x wall" in " ".join(done.stdout.split())


def test_selfplay_benchmark_runs_the_training_loop_and_reports_its_split():
    args = ["--steps", "4000", "workers=local", "num_envs=64", "eval_deals=4"]
    args += ["final_eval_deals=4", "eval_bots=[greedy]", "eval_every=0"]
    done = run_script("selfplay", args)
    lines = done.stdout.splitlines()
    head = re.fullmatch(
        r"quick: ([\d,]+) decisions in ([\d.]+) s = ([\d,]+) decisions/s end to end "
        r"\(local x1 workers, B=64, .*\)",
        lines[0],
    )
    assert head, lines[0]
    decisions, total, rate = (float(x.replace(",", "")) for x in head.groups())
    assert decisions >= 4000  # the budget: two iterations of 64 x 32 decisions
    # The total prints to 0.1 s and the rate to 1 decision/s: the rate lies in the range
    # those roundings leave (on a short run the total's rounding alone moves it by 2%).
    assert decisions / (total + 0.05) - 0.5 <= rate <= decisions / (total - 0.05) + 0.5
    assert lines[1].split() == ["part", "seconds", "share"]
    split = {}
    for line in lines[2:8]:
        name, seconds, share = line.split()
        split[name] = float(seconds)
        # seconds print to 0.01, the total to 0.1 and the share to 0.1%: the share must lie in
        # the range those roundings leave
        low = 100 * max(split[name] - 0.005, 0) / (total + 0.05)
        high = 100 * (split[name] + 0.005) / (total - 0.05)
        assert low - 0.05 <= float(share.rstrip("%")) <= high + 0.05, line
    assert list(split) == ["rollout", "wait", "transfer", "update", "evaluation", "checkpoint"]
    outside = split["transfer"] + split["checkpoint"]
    found = re.match(r"per iteration, outside rollout and update: ([\d.]+) s = ", lines[8])
    assert found and float(found.group(1)) == pytest.approx(outside, abs=0.011), lines[8]
    assert lines[-2].startswith("vs greedy: ") and "points/hand" in lines[-2]
    assert lines[-1].startswith("CPU: ") and re.search("learner precision (fp32|bf16)", lines[-1])


def test_time_to_strength_reads_the_first_evaluation_at_the_targets():
    from benchmarks.time_to_strength import first_reached

    curves = {
        "greedy": {"step": [1, 2, 3, 4], "points": [1.9, 2.0, 1.96, 2.1]},
        "rule": {"step": [1, 2, 3, 4], "points": [1.3, 1.2, 1.26, 1.1]},
    }
    assert first_reached(curves, {"greedy": 1.95, "rule": 1.25}) == 2  # both at once
    assert first_reached(curves, {"greedy": 1.95}) == 1
    assert first_reached(curves, {"greedy": 2.5, "rule": 0}) is None
    with pytest.raises(ValueError, match="evaluates no random: add it to eval_bots"):
        first_reached(curves, {"random": 2.0})


def test_time_to_strength_times_real_runs_to_the_first_evaluation_at_the_targets():
    tiny = ["--seeds", "1", "--steps", "4000", "workers=local", "num_envs=64", "eval_deals=4"]
    tiny += ["final_eval_deals=4", "eval_bots=[greedy,rule]", "eval_every=1"]
    header = ["seed", "first at >= 0 vs greedy and >= 0 vs rule", "decisions then"]
    lines = run_script("time_to_strength", [*tiny, "--greedy", "0", "--rule", "0"]).stdout
    table = [line for line in lines.splitlines() if line.startswith("|")]
    assert table[0].startswith(f"| {' | '.join(header)} | whole run |")
    cells = [c.strip() for c in table[2].strip("|").split("|")]
    reached, whole = float(cells[1].removesuffix(" s")), float(cells[3].removesuffix(" s"))
    # the first evaluation (after the first iteration's 64 x 32 decisions) already holds 0
    assert cells[0] == "1" and cells[2] == "2,048" and 0 < reached <= whole
    assert "reached by 1 of 1 seeds, median" in lines
    out = run_script("time_to_strength", [*tiny, "--greedy", "3.5"]).stdout
    assert "| not reached | - |" in out and "reached by 0 of 1 seeds, no median" in out


def test_history_curve_lines_up_the_runs_evaluations_by_decisions():
    from benchmarks.history_curve import curve_rows

    def run(history, steps, points):
        curve = {"step": steps, "points": points, "ci95": [0.1] * len(steps)}
        return {"history": history, "curves": {"greedy": curve, "rule": curve}}

    runs = [run("none", [10, 20], [1.0, 1.5]), run("gru", [20, 30], [1.25, 2.0])]
    assert curve_rows(runs, ["greedy"]) == [
        ["10", "1.000 ± 0.100", "-"],
        ["20", "1.500 ± 0.100", "1.250 ± 0.100"],
        ["30", "-", "2.000 ± 0.100"],
    ]
    assert curve_rows(runs, ["rule", "greedy"])[0] == ["10", *["1.000 ± 0.100", "-"] * 2]
    with pytest.raises(ValueError, match="evaluates no random: add it to eval_bots"):
        curve_rows(runs, ["random"])


def test_selfplay_benchmark_times_an_update_in_both_precisions():
    done = run_script("selfplay", ["--precision", "--presets", "quick", "--repeats", "1"])
    lines = done.stdout.splitlines()
    assert lines[0].startswith("CPU: ")
    ((row,),) = tables(done.stdout)
    assert row["preset"] == "quick"
    fp32, bf16 = (
        float(row[f"{p} update"].removesuffix(" ms").replace(",", "")) for p in ("fp32", "bf16")
    )
    assert float(row["bf16 / fp32"]) == pytest.approx(bf16 / fp32, rel=0.05, abs=0.01)
    assert row["auto picks"] in ("fp32", "bf16") and lines[-1].startswith("auto: ")


def test_lookahead_ceiling_reports_every_lookahead_against_the_bare_policy():
    done = run_script("lookahead_ceiling", ["--deals", "2", "--worlds", "2"])
    (rows,) = tables(done.stdout)
    assert [(r["lookahead on"], r["the others play like"]) for r in rows] == [
        ("(no lookahead)", ""),
        ("true deal", "hard"),
        ("true deal", "rule (exact)"),
        ("2 sampled worlds", "hard"),
        ("2 sampled worlds", "rule (exact)"),
    ]
    # Paired on the same boards: each row's points per hand are the bare policy's plus its
    # gain (three figures rounded to 3 decimals).
    bare = float(rows[0]["points/hand"].split()[0])
    for row in rows[1:]:
        gain = float(row["gain"].split()[0])
        assert float(row["points/hand"].split()[0]) == pytest.approx(bare + gain, abs=2e-3)
    # Seeing the deal and modelling the deterministic rule bots exactly, the lookahead only
    # switches to a move that truly scores more: it can never lose points to the policy.
    assert float(rows[2]["gain"].split()[0]) >= 0.0


def test_lookahead_ceiling_rows_between_uniform_worlds_and_the_true_deal():
    args = "--deals 2 --worlds 3 --known 0 1 --posterior 4 --candidates 32 --rows rule".split()
    done = run_script("lookahead_ceiling", args)
    (rows,) = tables(done.stdout)
    assert [row["lookahead on"] for row in rows] == [
        "(no lookahead)",
        "true deal",
        "3 worlds, each hidden card known w.p. 0",
        "3 worlds, each hidden card known w.p. 1",
        "3 worlds from the rule bots' posterior (32 candidates, 4 effective)",
    ]
    true_deal, uniform, known, posterior = rows[1:]
    # Worlds that keep every hidden card in its true hand are the true deal: the same moves,
    # so the same points, and no card misplaced.
    for column in ("points/hand", "gain"):
        assert known[column] == true_deal[column]
    assert float(known["misplaced"]) == 0.0
    assert float(uniform["misplaced"]) > 0.0 and float(posterior["misplaced"]) > 0.0


def test_learning_curve_joins_the_stages_of_a_staged_run(tmp_path):
    from torch.utils.tensorboard import SummaryWriter

    for stage, (steps, base) in {"one": ([10, 20, 30], 1.2), "two": ([5, 10], 1.6)}.items():
        with SummaryWriter(str(tmp_path / stage)) as writer:
            for i, step in enumerate(steps):
                writer.add_scalar("eval/rule/points_per_hand", base + 0.1 * i, step)
                writer.add_scalar("eval/rule/ci95", 0.05, step)
    png, points = tmp_path / "curve.png", tmp_path / "curve.json"
    args = [str(tmp_path / "one"), str(tmp_path / "two"), "--out", str(png), "--json", str(points)]
    done = run_script("learning_curve", args)
    rule = json.loads(points.read_text())["rule"]
    assert rule["step"] == [10, 20, 30, 35, 40]  # the second stage goes on from the first
    assert rule["points"] == pytest.approx([1.2, 1.3, 1.4, 1.6, 1.7])
    assert png.stat().st_size > 0 and "vs rule: 1.700 ± 0.050 at 40" in done.stdout


def test_labels_speed_reports_each_precision_and_batch_size():
    args = ["--positions", "3", "--boards", "2", "--batch", "1", "3", "--runs", "2"]
    args += ["--rollouts", "8", "--candidates", "16"]
    done = run_script("labels", ["speed", *args])
    assert "3 positions of `hard`" in done.stdout and "8 rollouts over 16" in done.stdout
    (rows,) = tables(done.stdout)
    assert [(row["precision"], row["batch"]) for row in rows] == [
        ("float32", "1"),
        ("float32", "3"),
        ("int8", "1"),
        ("int8", "3"),
    ]
    same = "same move as float32 batch 1 (run 1)"
    for row in rows:
        # Each row's CPU time per position is the inverse of its rate, from the same runs.
        rate, per = float(row["positions/CPU s (median)"]), float(row["CPU s/position"])
        assert rate * per == pytest.approx(1, abs=0.02 + 0.0005 * rate), row
        # Shares of 3 positions; scoring the labels takes a third run.
        for column in (same, "same move, run 1 vs run 2", "overrides"):
            count = float(row[column].rstrip("%")) * 3 / 100
            assert count == pytest.approx(round(count), abs=0.02), (column, row)
        assert row["finds the reproducible overrides"] == "nan%"
        assert row["of its overrides reproducible"] == "nan%"
    assert rows[0][same] == "100%"  # the first row against itself


def test_labels_speed_scores_each_rows_labels_against_the_reproducible_overrides():
    args = ["--positions", "6", "--boards", "2", "--batch", "3", "--runs", "3"]
    args += ["--rollouts", "8", "--candidates", "16", "--precision", "float32"]
    done = run_script("labels", ["speed", *args])
    found = re.search(
        r"Reproducible overrides \(float32 batch 3, runs 1 and 2\): (\d+) of 6 positions",
        done.stdout,
    )
    assert found, done.stdout
    reproducible = int(found.group(1))
    ((row,),) = tables(done.stdout)
    overrides = float(row["overrides"].rstrip("%")) * 6 / 100
    assert overrides > 0 and overrides == pytest.approx(round(overrides), abs=0.01)
    # The overrides of run 3 that are reproducible and found again, counted two ways: as a
    # share of the reproducible overrides and as a share of run 3's overrides.
    share = float(row["of its overrides reproducible"].rstrip("%")) / 100
    found_again = share * round(overrides)
    assert found_again == pytest.approx(round(found_again), abs=0.01)
    assert found_again <= reproducible
    finds = row["finds the reproducible overrides"]
    if reproducible:
        assert float(finds.rstrip("%")) / 100 * reproducible == pytest.approx(found_again, abs=0.01)
    else:
        assert finds == "nan%"


def test_strength_search_plays_the_belief_search_at_a_budget_and_worlds_against_the_tables_asked():
    args = ["--budgets", "8", "--belief", "--models", "rule", "--candidates", "16"]
    args += ["--opponents", "rule", "--boards", "1", "--max-hands", "1"]
    lines = run_script("strength", ["search", *args]).stdout.splitlines()
    assert lines[0].split() == ["bot", "vs", "3", "x", "rule", "s/decision"]
    names = [line.split()[0] for line in lines[1:]]
    assert names == ["hard", "search:8:hard+belief+rule/16"]
    # The bare policy's row is its duplicate result at that table (seed 0), played again here.
    from benchmarks.common import table_results

    again = table_results("hard", ["rule"], 1, 0, max_hands=1)
    assert lines[1].split()[1] == f"{again.points_per_hand:.3f}"


def test_strength_search_refuses_candidates_without_a_belief():
    done = run_script("strength", ["search", "--candidates", "16"], status=2)
    assert "--candidates needs --belief" in done.stderr


def test_bot_speed_reports_every_bot_and_the_duplicate_boards():
    args = ["--positions", "64", "--batch", "16", "--boards", "1", "--runs", "1"]
    done = run_script("bot_speed", args)
    (rows,) = tables(done.stdout)
    assert [row["what"].split("`")[1] for row in rows] == ["random", "greedy", "rule", "hard"]
    assert rows[-1]["what"] == "`hard` vs three `rule`, 1 boards x 4 lineups x 2 hands"
    units = [row["rate (median)"].split(" ", 1)[1] for row in rows]
    assert units == ["decisions/s"] * 3 + ["hands/s"]
    assert all(len(row["runs (CPU s)"].split()) == 1 for row in rows)  # --runs 1


def test_labels_noise_and_quality_and_the_distillation_curve_read_a_run(tmp_path):
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
        # The preset's int8 search exports the policy to ONNX for each search (a CPU second
        # each); test_labels_speed_reports_each_precision_and_batch_size labels in int8.
        "label_precision=float32",
    ]
    run = tmp_path / "run"
    args = ["--config", "distill", "name=run", f"runs_dir={tmp_path}", "progress=false", *tiny]
    assert murlan_cli.main(["train", *args]) == 0

    done = run_script("labels", ["noise", str(run), "--seed", "7"])
    (rows,) = tables(done.stdout)
    counts = [int(row["positions"]) for row in rows]
    with np.load(run / "round-1" / "labels.npz") as labels:
        overridden = int(
            (labels["action"] != np.load(run / "round-1" / "positions.npz")["action"]).sum()
        )
    assert sum(counts) == overridden  # each override lands in one group
    relabels = run / "round-1" / "relabels-seed7.npz"
    assert relabels.exists()
    same = run_script("labels", ["noise", str(run), "--seed", "7"])  # read back, not labelled again
    assert tables(same.stdout) == [rows]

    # The overrides and a sample of the keeps labelled again by two smaller searches.
    done = run_script("labels", ["quality", str(run), "--budgets", "4:8", "4", "--keeps", "3"])
    (rows,) = tables(done.stdout)
    # A budget without candidates takes the run's 16, whatever the budget before it took.
    assert [(row["rollouts"], row["belief candidates"]) for row in rows] == [
        ("4", "8"),
        ("4", "16"),
    ]
    assert f"one-off overrides {overridden - counts[0]} " in done.stdout
    kept = 16 - overridden
    assert f"keeps: {min(3, kept)} sampled of {kept})" in done.stdout

    # A fit setting after --sizes' list is a setting, not a size.
    for extra in (["epochs=2"], ["--consensus", str(relabels)]):
        done = run_script("distill_curve", [str(run), "--sizes", "4", "12", *extra])
        assert ("epochs=2" in done.stdout) == (extra == ["epochs=2"])
        (rows,) = tables(done.stdout)
        assert [row["fitted"] for row in rows] == ["0", "4", "12"]
        # Before any fit the policy is where the run started: nothing to compare it with.
        assert rows[0]["agree fitted"] == rows[0]["over start, paired"] == ""
        for row in rows:
            assert 0 <= float(row["agree held-out"].rstrip("%")) <= 100
    bad = run_script("labels", ["noise", str(run), "--seed", "1"], status=2)
    assert "--seed must differ" in bad.stderr


def test_belief_benchmark_reports_the_belief_by_hand_and_weighting():
    done = run_script("belief", ["quality", "--deals", "2", "--positions", "6"])
    found = tables(done.stdout)
    (tempering,) = [t for t in found if "ESS tempered (median)" in t[0]]
    (quality,) = [t for t in found if "bits per hidden card" in t[0]]
    assert [(row["positions"], row["weights"]) for row in quality] == [
        (hand, weights)
        for hand in ("hand 1", "hand 2", "all")
        for weights in ("uniform", "tempered", "plain")
    ]
    # The positions of hand 1 and hand 2 are all the positions; tempering never leaves fewer
    # effective worlds than the plain likelihoods.
    rows = {row["positions"]: row for row in tempering}
    assert int(rows["all"]["n"]) == 6 == int(rows["hand 1"]["n"]) + int(rows["hand 2"]["n"])
    for row in tempering:
        assert float(row["ESS tempered (median)"]) >= float(row["ESS plain (median)"]), row


@pytest.mark.skipif(
    not (shutil.which("chromium") and shutil.which("chromedriver")),
    reason="needs Chromium and its driver: apt-get install chromium chromium-driver",
)
def test_browser_moves_benchmark_times_a_level_in_the_play_pages_worker():
    done = run_script("browser_moves", ["--level", "hard", "--matches", "1"])
    lines = done.stdout.splitlines()
    assert lines[0].startswith("hard at seat 1 against 3 hard, first 2 hands of 1 matches")
    assert "no budget" in lines[0]
    (rows,) = tables(done.stdout)
    assert [row["decisions"] for row in rows] == ["all", "with a choice"]
    assert int(rows[0]["n"]) > int(rows[1]["n"]) > 5  # two hands' decisions of seat 1
    assert lines[-1].startswith("CPU: ") and "Chromium" in lines[-1]
    unknown = run_script("browser_moves", ["--level", "nope", "--matches", "1"], status=2)
    assert "plays no level nope" in unknown.stderr


NODE_MISSING = "the JavaScript client's benchmarks need Node.js 20+ (https://nodejs.org)"


@pytest.mark.skipif(not shutil.which("node"), reason=NODE_MISSING)
def test_js_levels_plays_chunks_at_once_and_reuses_pythons_points(tmp_path):
    saved = tmp_path / "hard.npz"
    common = ["--levels", "hard", "--boards", "2", "--chunk", "1", "--baseline", "medium"]
    first = run_script("js_levels", [*common, "--jobs", "2", "--save", str(saved)])
    *_, (row,) = tables(first.stdout)
    # hard is the argmax in both languages: the same moves, so the same points board by board.
    assert row["JavaScript"] == row["Python"] and row["JS - Python, 95% CI"].startswith("+0.000")
    assert row["JS - medium"] == row["Python - medium"] and row["boards"] == "2"
    with np.load(saved) as points:
        assert points["hard_js"].shape == points["hard_base"].shape == (2,)
    # Each chunk is dealt from its own seed: one job playing the chunks in turn plays the same
    # boards as two at once.
    one_job = run_script("js_levels", common)
    *_, (again,) = tables(one_job.stdout)
    assert again == row
    reused = run_script("js_levels", [*common, "--reuse", str(saved)])
    *_, (same,) = tables(reused.stdout)
    assert same == row
    pooled = run_script("js_levels", ["--levels", "hard", "--baseline", "medium", "--pool",
                                         str(saved), str(saved)])  # fmt: skip
    ((twice,),) = tables(pooled.stdout)
    assert twice["boards"] == "4" and twice["JavaScript"].split()[0] == row["JavaScript"].split()[0]
    other = run_script("js_levels", [*common, "--chunk", "2", "--reuse", str(saved)], status=1)
    assert "was not saved with --chunk 2" in other.stderr


@pytest.mark.skipif(not shutil.which("node"), reason=NODE_MISSING)
def test_js_levels_pairs_two_murlan_bot_settings_on_the_same_boards(tmp_path):
    """``--against-js`` plays a second murlan-bot of the level in Python's place (how a time
    budget is paired with the whole search): hard with the same options twice makes the same
    moves, so the same points board by board; it takes no Python run to reuse."""
    saved = tmp_path / "pair.npz"
    common = ["--levels", "hard", "--boards", "2", "--chunk", "1", "--against-js", ""]
    done = run_script("js_levels", [*common, "--jobs", "2", "--save", str(saved)])
    assert "paired with murlan-bot as the bundle states it" in done.stdout.splitlines()[0]
    *_, (row,) = tables(done.stdout)
    assert row["JavaScript"] == row["JS as shipped"] and row["boards"] == "2"
    assert row["JS - JS as shipped, 95% CI"].startswith("+0.000")
    pooled = run_script("js_levels", ["--levels", "hard", "--against-js", "", "--pool", str(saved)])
    ((again,),) = tables(pooled.stdout)
    assert again == row
    refused = run_script("js_levels", [*common, "--reuse", str(saved)], status=2)
    assert "no --reuse or --baseline" in refused.stderr


@pytest.mark.slow
@pytest.mark.skipif(not shutil.which("node"), reason=NODE_MISSING)
def test_search_agreement_pairs_the_two_searches_on_the_same_positions():
    # The fewest positions and searches it takes (two seeds choose, two judge), from one match.
    args = ["--positions", "2", "--seeds", "4", "--games", "1"]
    done = run_script("search_agreement", args)
    assert done.stdout.startswith("2 positions from real play (seed 0), 4 searches each")
    (rows,) = tables(done.stdout)
    found = {row["measure"]: row["value"] for row in rows}
    # The prior is the policy's argmax, deterministic: the same move in both languages.
    assert found["the policy's move, the same in both"] == "1.000"
    pairs = [
        "Python with Python (seed pairs)",
        "JavaScript with JavaScript",
        "Python with JavaScript",
    ]
    assert all(re.fullmatch(r"[01]\.\d{3}", found[f"same move, {pair}"]) for pair in pairs)
    worth = found["a pick's worth to a held-out Python search, JavaScript - Python, 95% CI"]
    assert re.fullmatch(r"[+-]\d\.\d{4} \[[+-]\d\.\d{4}, [+-]\d\.\d{4}\]", worth)


@pytest.mark.slow
def test_search_agreement_pairs_the_int8_search_with_float32():
    args = ["--other", "int8", "--positions", "2", "--seeds", "4", "--games", "1"]
    done = run_script("search_agreement", args)
    (rows,) = tables(done.stdout)
    found = {row["measure"]: row["value"] for row in rows}
    assert "same move, Python with int8" in found and "same move, int8 with int8" in found
    # Both keep the float32 policy's move as their prior: no row compares the priors.
    assert "the policy's move, the same in both" not in found
    kept = found["the policy's move kept, Python / int8"]
    assert re.fullmatch(r"[01]\.\d{3} / [01]\.\d{3}", kept)


@pytest.mark.slow
def test_strength_arithmetic_pairs_int8_with_the_saved_float32_points(tmp_path):
    run = tmp_path / "expert.npz"  # as js_levels.py --levels expert --baseline hard --save
    float32, hard = np.array([1.75, 1.25]), np.array([1.5, 1.0])
    np.savez(run, seed=5, chunk=1, max_hands=1, expert_py=float32, expert_base=hard)
    saved = tmp_path / "int8.npz"
    done = run_script("strength", ["arithmetic", str(run), "--jobs", "2", "--save", str(saved)])
    *_, (row,) = tables(done.stdout)
    with np.load(saved) as points:
        int8 = points["points"]
    assert int8.shape == (2,) and row["boards"] == "2"
    # Points per hand are quarters: each board is one hand in each of the four seats.
    assert np.all((int8 * 4) % 1 == 0) and np.all((0 <= int8) & (int8 <= 3))
    assert row["saved float32"].startswith("1.500 ") and row["hard"].startswith("1.250 ")
    assert float(row["int8"].split()[0]) == pytest.approx(int8.mean(), abs=5e-4)
    assert float(row["int8 - saved"].split()[0]) == pytest.approx((int8 - float32).mean(), abs=5e-4)
    again = tmp_path / "float32.npz"  # as --arithmetic float32 --draws 1 would save it
    np.savez(again, points=np.array([2.0, 1.0]), label="float32 (draws 1)")
    pooled = run_script("strength", ["arithmetic", str(run), "--pool", str(saved), str(again)])
    sides, pairs = tables(pooled.stdout)
    points = {r["side, 2 boards"]: r["points a hand"] for r in sides}
    assert points["int8"] == row["int8"] and points["hard"] == row["hard"]
    assert points["float32 (draws 1)"].startswith("1.500 ")
    ci = {r["paired, board by board"]: float(r["95% CI"].split()[0]) for r in pairs}
    assert f"{ci['int8 - saved float32']:+.3f}" == row["int8 - saved"].split()[0]
    mean = (float32 + np.array([2.0, 1.0])) / 2
    assert ci["int8 - the float32 runs' mean"] == pytest.approx((int8 - mean).mean(), abs=5e-4)
    assert ci["float32 (draws 1) - saved float32"] == pytest.approx(0.0, abs=5e-4)
    np.savez(run, seed=5, chunk=1, max_hands=1, expert_py=float32)
    missing = run_script("strength", ["arithmetic", str(run), "--pool", str(saved)], status=1)
    assert "holds no expert_base" in missing.stderr


@pytest.mark.slow
def test_card_reader_starts_at_the_uniform_deal_and_learns_from_the_true_hands():
    """An untrained reader gives the uniform deal's card-by-seat marginals (so its first
    steps measure what it learns beyond them), and fitting the true hands takes it below."""
    import torch

    from benchmarks import card_reader
    from benchmarks.belief import marginal_bits, uniform_marginals

    pos = card_reader.positions(6, 3, "rule")
    data = card_reader.dataset(pos)
    obs = data["obs"].numpy()
    torch.manual_seed(0)
    reader = card_reader.CardReader(None, 0, [32])
    np.testing.assert_allclose(
        card_reader.marginals(reader, data), uniform_marginals(obs), atol=1e-6
    )
    uniform = marginal_bits(uniform_marginals(obs), pos["true"], obs).mean()
    card_reader.train(reader, data, epochs=8, batch=64, lr=3e-3, seed=0, label="fit")
    fitted = marginal_bits(card_reader.marginals(reader, data), pos["true"], obs).mean()
    assert fitted < uniform - 0.02, (fitted, uniform)


@pytest.mark.slow
def test_card_reader_reports_every_reader_and_refuses_an_encoder_it_cannot_read(
    tmp_path, checkpoint
):
    import torch

    from agents.networks import build_network, make_arch

    net = build_network(make_arch("ppo", [32], history="attention", history_hidden=8))
    path = tmp_path / "history.pt"
    torch.save({"spec": net.arch, "model": net.state_dict(), "config": {}}, path)
    small = ["--train-deals", "2", "--deals", "2", "--positions", "0", "--epochs", "1"]
    small += ["--hidden", "16", "--width", "8"]
    done = run_script("card_reader", [*small, "--encoder", str(path)])
    (table,) = [t for t in tables(done.stdout) if "bits per hidden card" in t[0]]
    assert [row["reader"] for row in table] == [
        "uniform",
        "observation",
        "observation + history",
        "observation + the checkpoint's summary",
    ]
    refused = run_script("card_reader", [*small, "--encoder", str(checkpoint)], status=2)
    assert "without a history encoder" in refused.stderr
