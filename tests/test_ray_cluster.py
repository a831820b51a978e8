"""The cluster path end to end: a local multi-process Ray cluster (a head node and a second
node joining it, both on loopback), and ``python train.py --ray-address`` training on it with
one rollout actor per node, as the worked example of docs/train.md does."""

from __future__ import annotations

import os
import secrets
import shutil
import socket
import subprocess
import sys
from pathlib import Path

import pytest
import torch

ROOT = Path(__file__).resolve().parents[1]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.mark.slow
@pytest.mark.xdist_group("ray")  # its `ray stop --force` would end another test's Ray
def test_train_py_on_a_local_multi_process_ray_cluster(tmp_path):
    pytest.importorskip("ray", reason="needs the ray extra: pip install -e '.[ray]'")
    ray_cli = shutil.which("ray") or str(Path(sys.executable).parent / "ray")
    # Ray's socket paths must stay short (AF_UNIX limit): its own temp dir, not pytest's.
    # Token authentication, with a token of this test's own (Ray 2.5x+ refuses token mode
    # without one: ~/.ray/auth_token, RAY_AUTH_TOKEN_PATH or RAY_AUTH_TOKEN).
    env = {**os.environ, "RAY_AUTH_MODE": "token", "RAY_AUTH_TOKEN": secrets.token_hex(32)}
    address = f"127.0.0.1:{_free_port()}"
    common = ["--num-cpus=1", "--node-ip-address=127.0.0.1", "--disable-usage-stats"]
    port = address.split(":")[1]

    def ray(*args: str) -> None:
        done = subprocess.run(
            [ray_cli, *args], env=env, capture_output=True, text=True, timeout=180
        )
        assert done.returncode == 0, done.stderr[-2000:]

    ray("start", "--head", f"--port={port}", "--include-dashboard=false", *common)
    try:
        ray("start", f"--address={address}", *common)
        done = subprocess.run(
            [
                sys.executable, "train.py", "--config", "quick", "--ray-address", address,
                "num_workers=2", "total_decisions=8192", "num_envs=64", "rollout_steps=32",
                "hidden=[32]", "minibatch_size=512", "bot_share=0", "eval_every=0",
                "final_eval_deals=4", "eval_hands=1", "eval_bots=[random]",
                f"runs_dir={tmp_path}", "name=cluster", "progress=false",
            ],
            cwd=ROOT, env=env, capture_output=True, text=True, timeout=300,
        )  # fmt: skip
        assert done.returncode == 0, done.stderr[-3000:]
    finally:
        subprocess.run([ray_cli, "stop", "--force"], env=env, capture_output=True, timeout=120)
    ckpt = torch.load(tmp_path / "cluster" / "checkpoint.pt", weights_only=False)
    assert ckpt["config"]["workers"] == "ray" and ckpt["config"]["ray_address"] == address
    assert ckpt["counters"]["step"] >= 8192
    assert len(ckpt["rng"]["workers"]) == 2  # both actors' games, ready to resume
