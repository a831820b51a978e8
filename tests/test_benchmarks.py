"""Smoke test: the engine benchmark script runs and reports every row (timings are not checked)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_engine_benchmark_runs_and_reports_its_rows(tmp_path):
    out = tmp_path / "bench.json"
    args = ["--seconds", "0.05", "--repeats", "1", "--batch-sizes", "1", "64", "--json", str(out)]
    done = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "engine.py"), *args],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
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
