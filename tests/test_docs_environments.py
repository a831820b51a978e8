"""Every Python sample of docs/environments.md runs as written (each in a fresh interpreter,
as a reader would paste it) and prints what the page says it prints.

The Stable-Baselines3 and TorchRL samples need the ``examples`` extra; without it they skip,
naming the command that installs it, as tests/test_examples.py does for the scripts.
"""

from __future__ import annotations

import importlib.util
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PAGE = ROOT / "docs" / "environments.md"
SAMPLES = re.findall(r"```python\n(.*?)```", PAGE.read_text(), flags=re.S)
INSTALL = "pip install -e '.[examples]'"
# What some samples print (a regular expression searched in their output).
PRINTS = {
    "murlan_env.env(sticky_pass=True": r"\[\d(, \d)*\] \[\d+, \d+, \d+, \d+\]",
    'gymnasium.make("Murlan-v1", seat=0': r"seat 0 scored [0-3] points against three greedy",
    'make_vec("MurlanSelfPlay-v1"': r"AutoresetMode.SAME_STEP 0.0\n",
    "episode.advance(": r"\d+ hands played",
    "PettingZooWrapper(": r"torch.Size\(\[4, 109\]\)",
}


def _needs(sample: str) -> list[str]:
    return [m for m in ("sb3_contrib", "torchrl") if f"from {m}" in sample]


def _id(sample: str) -> str:
    return next((key for key in PRINTS if key in sample), sample.splitlines()[-1])[:40]


def test_the_page_has_its_samples():
    assert len(SAMPLES) == 7
    assert all(any(key in s for s in SAMPLES) for key in PRINTS)


@pytest.mark.parametrize("sample", SAMPLES, ids=[_id(s) for s in SAMPLES])
def test_sample_runs(sample):
    missing = [m for m in _needs(sample) if importlib.util.find_spec(m) is None]
    if missing:
        pytest.skip(f"needs {', '.join(missing)}: {INSTALL}")
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]),
    }
    done = subprocess.run(
        [sys.executable, "-c", sample], cwd=ROOT, env=env, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    for key, pattern in PRINTS.items():
        if key in sample:
            assert re.search(pattern, done.stdout), (pattern, done.stdout)
