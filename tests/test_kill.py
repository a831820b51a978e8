"""Training you can kill: a real training process is killed with SIGKILL mid-run, and
``--resume`` goes on from its last checkpoint with nothing lost beyond it (process workers,
PPO and DMC, the replay and carried decisions included); a checkpoint is never left half
written."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import torch

ROOT = Path(__file__).resolve().parents[1]
TINY = {
    "ppo": [
        "num_envs=32", "rollout_steps=16", "hidden=[32]", "minibatch_size=256", "bot_share=0",
        "snapshot_share=0", "num_workers=1", "torch_threads=1",
    ],
    "dmc": [
        "num_envs=16", "rollout_steps=48", "hidden=[32]", "pair_hidden=16", "replay_size=20000",
        "batch_size=128", "updates_per_rollout=2", "num_workers=1", "torch_threads=1",
        "bot_share=0",
    ],
}  # fmt: skip
COMMON = [
    "checkpoint_every=1", "eval_every=0", "final_eval_deals=4",
    "eval_hands=1", "eval_bots=[random]", "progress=false",
]  # fmt: skip


def _start(algorithm: str, run_dir: Path, total: int, workers: str = "process") -> subprocess.Popen:
    args = [sys.executable, "train.py", "--config", algorithm, "--seed", "3", *TINY[algorithm]]
    args += [
        *COMMON,
        f"workers={workers}",
        f"total_decisions={total}",
        f"runs_dir={run_dir.parent}",
        f"name={run_dir.name}",
    ]
    return subprocess.Popen(
        args, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, start_new_session=True
    )


def _counters(ckpt: Path) -> dict | None:
    if not ckpt.exists():
        return None
    return torch.load(ckpt, map_location="cpu", weights_only=False)["counters"]


def _kill(proc: subprocess.Popen) -> None:
    os.killpg(proc.pid, signal.SIGKILL)  # the trainer and its worker processes
    proc.wait(timeout=30)


@pytest.mark.slow
@pytest.mark.parametrize("algorithm", ["ppo", "dmc"])
def test_kill_9_then_resume_loses_nothing_past_the_checkpoint(tmp_path, algorithm):
    run_dir = tmp_path / "killed"
    ckpt = run_dir / "checkpoint.pt"
    total = 10**9  # runs until killed
    proc = _start(algorithm, run_dir, total)
    try:
        deadline = time.monotonic() + 240
        while (_counters(ckpt) or {}).get("iteration", 0) < 3:
            assert proc.poll() is None, proc.stderr.read().decode()[-2000:]
            assert time.monotonic() < deadline, "no checkpoint of iteration 3 in time"
            time.sleep(0.2)
    finally:
        _kill(proc)
    at_kill = torch.load(ckpt, map_location="cpu", weights_only=False)
    step = at_kill["counters"]["step"]
    workers = at_kill["rng"]["workers"]
    assert workers and all(w["state"].batch_size > 0 for w in workers)  # none left out
    if algorithm == "dmc":
        assert len(at_kill["learner"]["replay"]["action"]) > 0
        assert workers[0]["carry"] is not None  # decisions of unfinished hands

    target = step + 2 * (32 * 16 if algorithm == "ppo" else 16 * 48)
    done = subprocess.run(
        [sys.executable, "train.py", "--resume", str(run_dir), f"total_decisions={target}"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    final = torch.load(ckpt, map_location="cpu", weights_only=False)
    assert final["counters"]["step"] == target  # every step after the checkpoint, once
    assert final["counters"]["iteration"] == at_kill["counters"]["iteration"] + 2
    assert any(not torch.equal(final["model"][k], at_kill["model"][k]) for k in final["model"])
    if algorithm == "dmc":
        before = len(at_kill["learner"]["replay"]["action"])
        assert len(final["learner"]["replay"]["action"]) > before  # kept and grown


@pytest.mark.slow
def test_a_kill_at_any_moment_leaves_a_loadable_checkpoint(tmp_path):
    """Checkpoints are written to a temporary file and renamed over the old one, so killing
    the trainer while it writes never corrupts the latest checkpoint.

    Event-driven: each run is killed only after it has written a checkpoint of its own (a
    higher iteration than the one it resumed from), at a different point of the checkpoint
    cycle each time: right away, or a fraction of the measured time between two checkpoints
    later, or the moment the temporary file appears (mid-write). The only clock is the
    generous overall deadline. The trainer writes its checkpoints itself, whatever runs its
    rollouts, so its rollouts run in-process here (``workers=local``): each of the six starts
    then spawns no worker process; the test above kills process workers."""
    run_dir = tmp_path / "often"
    ckpt, partial = run_dir / "checkpoint.pt", run_dir / "checkpoint.tmp"
    deadline = time.monotonic() + 900
    period = None  # seconds between two checkpoints, measured in the first run
    seen = [0]  # the iteration of the latest checkpoint after each kill
    # When to kill after a new checkpoint: a share of the period, or None for mid-write.
    for k, share in enumerate([0.0, 1 / 3, None, 2 / 3, 0.5, None]):
        proc = _start("ppo", run_dir, 10**9, workers="local") if k == 0 else _resume(run_dir)
        try:
            written = _wait_for_checkpoint_past(ckpt, seen[-1], proc, deadline)
            if period is None:
                _wait_for_checkpoint_past(ckpt, _counters(ckpt)["iteration"], proc, deadline)
                period = time.monotonic() - written
            if share is None:  # mid-write, if the poll catches the temporary file
                while not partial.exists() and proc.poll() is None:
                    assert time.monotonic() < deadline, "no checkpoint write in time"
                    time.sleep(0.002)
            else:
                time.sleep(period * share)
        finally:
            _kill(proc)
        counters = _counters(ckpt)  # raises if the file were half written
        assert counters["iteration"] > seen[-1], (seen, counters)  # went on, never back
        seen.append(counters["iteration"])


def _wait_for_checkpoint_past(
    ckpt: Path, iteration: int, proc: subprocess.Popen, deadline: float
) -> float:
    """Poll until ``ckpt`` holds an iteration above ``iteration``; the moment it was seen."""
    while (_counters(ckpt) or {}).get("iteration", 0) <= iteration:
        assert proc.poll() is None, proc.stderr and proc.stderr.read().decode()[-2000:]
        assert time.monotonic() < deadline, f"no checkpoint past iteration {iteration} in time"
        time.sleep(0.05)
    return time.monotonic()


def _resume(run_dir: Path) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "train.py", "--resume", str(run_dir)],
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
