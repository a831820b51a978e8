"""Fingerprints of what each training preset produces: a refactor's check that behaviour is kept.

Trains every preset for a tiny budget with a fixed seed, at fixed precision (fp32), through the
training command, and prints a SHA-256 of each run's final weights (``model`` of its
checkpoint), plus the moves a ``ckpt:`` bot of the quick run makes in a short seeded arena. Run it
on the code before a change and after it; equal lines mean the change kept the weights and the
moves::

    python tests/preset_hashes.py --out before.json      # on the old code
    python tests/preset_hashes.py --compare before.json  # on the new code: exit 1 on a difference

Not a test (its fingerprints depend on the torch and numpy builds); a tool for refactors.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import torch

ROOT = Path(__file__).resolve().parents[1]
TINY = [
    "precision=fp32",
    "progress=false",
    "eval_every=2",
    "checkpoint_every=2",
    "eval_deals=4",
    "final_eval_deals=4",
    "eval_hands=1",
]
# preset -> its overrides on top of TINY (a tiny budget; the preset's shape and options kept).
PRESETS = {
    "quick": ["total_decisions=8192", "num_envs=64", "rollout_steps=32"],
    "quick-privileged": [
        "--config",
        "quick",
        "total_decisions=4096",
        "num_envs=64",
        "rollout_steps=32",
        "critic=privileged",
        "workers=local",
    ],
    "ppo": [
        "total_decisions=4096",
        "num_envs=32",
        "rollout_steps=32",
        "workers=local",
        "num_workers=1",
        "torch_threads=1",
        "snapshot_every=1",
    ],
    "strong": [
        "total_decisions=4096",
        "num_envs=32",
        "rollout_steps=32",
        "workers=local",
        "snapshot_every=1",
    ],
    "finetune": [
        "total_decisions=4096",
        "num_envs=32",
        "rollout_steps=32",
        "init_from={runs}/h-strong",
    ],
    "dmc": [
        "total_decisions=4096",
        "num_envs=32",
        "rollout_steps=32",
        "workers=local",
        "num_workers=1",
        "torch_threads=1",
        "batch_size=256",
        "updates_per_rollout=2",
    ],
}
DISTILL = ["rounds=1", "positions=24", "search_rollouts=8", "belief_candidates=16",
           "label_workers=1", "label_chunk=8", "eval_deals=4", "progress=false"]  # fmt: skip


def weights_hash(run: Path) -> str:
    """SHA-256 of a run's final weights, tensor by tensor in name order."""
    ckpt = torch.load(run / "checkpoint.pt", map_location="cpu", weights_only=False)
    digest = hashlib.sha256()
    for name, tensor in sorted(ckpt["model"].items()):
        digest.update(name.encode())
        digest.update(tensor.detach().contiguous().numpy().tobytes())
    return digest.hexdigest()


def train(runs: Path, label: str, args: list[str]) -> None:
    cmd = [sys.executable, str(ROOT / "train.py")]
    if "--config" not in args:
        cmd += ["--config", label]
    cmd += [a.format(runs=runs) for a in args] + [f"runs_dir={runs}", f"name=h-{label}"]
    subprocess.run(cmd, check=True, cwd=ROOT, stdout=subprocess.DEVNULL)


def fingerprints(which: list[str]) -> dict[str, str]:
    out = {}
    runs = Path(tempfile.mkdtemp(prefix="preset-hashes-"))
    try:
        for label in which:
            if label == "distill":
                train(runs, label, DISTILL)
            else:
                train(runs, label, PRESETS[label] + TINY)
            out[label] = weights_hash(runs / f"h-{label}")
            print(label, out[label], flush=True)
        if "quick" in which:
            arena = subprocess.run(
                [sys.executable, "-m", "murlan_cli", "arena", f"ckpt:{runs}/h-quick", "hard",
                 "rule", "--boards", "4", "--seed", "3", "--json"],
                check=True, cwd=ROOT, capture_output=True, text=True,
            )  # fmt: skip
            report = json.loads(arena.stdout)
            report.pop("seconds", None)
            text = json.dumps(report, sort_keys=True).replace(str(runs), "RUNS")
            out["arena"] = hashlib.sha256(text.encode()).hexdigest()
            print("arena", out["arena"], flush=True)
    finally:
        shutil.rmtree(runs, ignore_errors=True)
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", nargs="*", default=[*PRESETS, "distill"])
    parser.add_argument("--out", help="write the fingerprints to this JSON file")
    parser.add_argument("--compare", help="compare with fingerprints written by --out")
    args = parser.parse_args()
    got = fingerprints(args.only)
    if args.out:
        Path(args.out).write_text(json.dumps(got, indent=1) + "\n")
    if args.compare:
        want = json.loads(Path(args.compare).read_text())
        diff = [k for k in got if want.get(k) != got[k]]
        print("same" if not diff else f"different: {diff}")
        return 1 if diff else 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
