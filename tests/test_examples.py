"""The examples in examples/ train with their libraries and beat three random bots.

Each example runs as the README shows it (``python examples/NAME.py``, in a subprocess), with a
small training budget, and must print a 95% confidence interval of its points per hand against
three random bots that lies wholly above par (1.5). The examples need the ``examples`` extra;
without it their tests skip, naming the command that installs it. The shared evaluation
(examples/vs_random.py) is checked here too, on bots whose strength is known.
"""

from __future__ import annotations

import importlib.util
import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from murlan_env.bots import GreedyBot, RandomBot

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples"
INSTALL = "pip install -e '.[examples]'"
sys.path.insert(0, str(EXAMPLES))

from vs_random import PAR, points_vs_random  # noqa: E402


def missing(*modules: str) -> bool:
    return any(importlib.util.find_spec(m) is None for m in modules)


def run_example(script: str, *args: str) -> tuple[float, float, float]:
    """Run an example in a fresh interpreter; (mean, low, high) of the line it ends with."""
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]),
    }
    done = subprocess.run(
        [sys.executable, str(EXAMPLES / script), *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    found = re.search(r"vs 3 random bots: ([\d.]+), 95% CI \[([\d.]+), ([\d.]+)\]", done.stdout)
    assert found, done.stdout
    return tuple(float(x) for x in found.groups())


@pytest.mark.skipif(missing("sb3_contrib"), reason=f"needs sb3-contrib: {INSTALL}")
def test_sb3_maskable_ppo_beats_random_bots():
    mean, low, high = run_example("sb3_maskable_ppo.py", "--steps", "6144", "--eval-deals", "80")
    assert low > PAR + 0.3, (mean, low, high)


@pytest.mark.skipif(missing("torchrl", "tensordict"), reason=f"needs torchrl: {INSTALL}")
def test_torchrl_pettingzoo_ppo_beats_random_bots():
    mean, low, high = run_example(
        "torchrl_pettingzoo_ppo.py", "--iterations", "20", "--eval-deals", "80"
    )
    assert low > PAR + 0.3, (mean, low, high)


def bot_policy(bot, seed: int = 0):
    """A murlan bot as the one-decision policy that vs_random.points_vs_random plays."""
    rng = np.random.default_rng(seed)
    return lambda obs, mask: int(bot.act(obs[None], mask[None], rng)[0])


def test_evaluation_finds_par_for_a_random_policy_and_an_edge_for_greedy():
    random = points_vs_random(bot_policy(RandomBot()), deals=60, seed=0)
    assert random.low < PAR < random.high, random
    greedy = points_vs_random(bot_policy(GreedyBot()), deals=60, seed=0)
    assert greedy.low > PAR + 0.5, greedy


def test_evaluation_deals_the_same_cards_whatever_the_learner_seat():
    import gymnasium

    env = gymnasium.make("murlan_env.gym_env:Murlan-v1", episode="hand")
    deals = []
    for seat in range(4):
        env.reset(seed=7, options={"seat": seat})
        deals.append(env.unwrapped.record()["hands"][0]["deal"])
    assert deals[1:] == deals[:1] * 3
