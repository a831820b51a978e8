"""The JavaScript expert search against Python's, position by position: do they value moves alike?

The search vectors hold what is deterministic given the draws (tests/make-vectors.sh); this
pairs the whole searches, draws included. At positions from real play (the expert policy and
the rule bot seated alternately, with each hand so far, ``search_vectors.play_positions``),
Python's ``expert`` (``SearchBot.search``) and ``clients/js``'s (``benchmarks/values.js``,
``Search.search`` as ``murlan-bot --level expert`` runs it) each search every position with
``--seeds`` seeds. It prints how often two searches pick the same move (Python with Python,
JavaScript with JavaScript, Python with JavaScript: the last should match the first two), the
mean gap between the two searches' values of a legal move, and each language's picks judged by
Python searches run with other seeds (a held-out judge): JavaScript's picks should be worth what
Python's are.

    python benchmarks/js_search_agreement.py --positions 60 --seeds 6

Needs Node.js 20+ (``node`` on the PATH, or ``--node``); the client needs no npm packages.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import tempfile
import time
from itertools import combinations
from pathlib import Path

import numpy as np

from murlan_env.bots import registry
from murlan_env.bots.bundle import BundleBot
from murlan_env.bots.search_vectors import play_positions
from murlan_env.eval.duplicate import mean_ci

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "clients" / "js" / "benchmarks" / "values.js"


def js_search(node: str, bundle: Path, requests: list[dict]) -> subprocess.Popen:
    """Start Node answering ``requests`` (values.js); read its stdout when it is done."""
    tmp = tempfile.NamedTemporaryFile("w", suffix=".jsonl", delete=False)
    tmp.write("".join(json.dumps(r) + "\n" for r in requests))
    tmp.close()
    command = [node, str(SCRIPT), str(bundle), tmp.name]
    return subprocess.Popen(command, cwd=SCRIPT.parents[1], stdout=subprocess.PIPE, text=True)


def agreement(picks: np.ndarray, other: np.ndarray | None = None) -> float:
    """Share of seed pairs that pick the same move: within ``picks`` (P, S), or between it and
    ``other`` seed for seed."""
    if other is not None:
        return float((picks == other).mean())
    pairs = list(combinations(range(picks.shape[1]), 2))
    return float(np.mean([(picks[:, a] == picks[:, b]).mean() for a, b in pairs]))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--positions", type=int, default=60, help="positions (default 60)")
    parser.add_argument("--seeds", type=int, default=6, help="searches a position per language")
    parser.add_argument("--games", type=int, default=40, help="matches the positions come from")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--node", default="node", help="the Node.js program")
    args = parser.parse_args()
    if args.seeds < 4 or args.seeds % 2:
        parser.error("--seeds must be even and at least 4 (half choose, half judge)")
    bundle = registry.policies_dir() / registry.levels()["expert"]["policy"]
    rng = np.random.default_rng(args.seed)
    policy = BundleBot(bundle)
    positions = play_positions(policy, rng, args.positions, args.games)
    prior = np.array([policy.act(p["_obs"], p["_mask"][None], rng)[0] for p in positions])
    requests = [
        {
            "state": p["state"],
            "record": p["record"],
            "seat": p["state"]["seat"],
            "seed": 7919 * i + s,
        }
        for i, p in enumerate(positions)
        for s in range(args.seeds)
    ]
    start = time.perf_counter()
    node = js_search(args.node, bundle, requests)
    bot = registry.make_bot("expert")
    n_pos, n_seeds = len(positions), args.seeds
    py_values = np.zeros((n_pos, n_seeds, 109))
    py_picks = np.zeros((n_pos, n_seeds), np.int64)
    for i, p in enumerate(positions):
        history = [np.array(p["history"], np.int64)]
        for s in range(n_seeds):
            search_rng = np.random.default_rng([args.seed, i, s])
            action, values = bot.search(p["_obs"], p["_mask"][None], search_rng, history)
            py_picks[i, s], py_values[i, s] = action[0], values[0]
    py_seconds = time.perf_counter() - start
    out, _ = node.communicate()
    if node.returncode:
        raise SystemExit(f"values.js failed with exit status {node.returncode}")
    js_seconds = time.perf_counter() - start
    answers = [json.loads(line) for line in out.splitlines() if line.strip()]
    js_picks = np.array([a["action"] for a in answers], np.int64).reshape(n_pos, n_seeds)
    js_values = np.array(
        [[-np.inf if v is None else v for v in a["values"]] for a in answers]
    ).reshape(n_pos, n_seeds, -1)

    legal = np.stack([p["_mask"] for p in positions])
    gap = [
        (js_values[i][:, legal[i]].mean(0) - py_values[i][:, legal[i]].mean(0)).mean()
        for i in range(n_pos)
    ]
    half = n_seeds // 2
    judge = py_values[:, half:].mean(1)  # Python searches that chose nothing below
    rows = np.arange(n_pos)[:, None]
    worth_py = judge[rows, py_picks[:, :half]].mean(1)
    worth_js = judge[rows, js_picks[:, :half]].mean(1)
    (gm, gl, gh), (wm, wl, wh) = mean_ci(np.array(gap)), mean_ci(worth_js - worth_py)
    print(
        f"{n_pos} positions from real play (seed {args.seed}), {n_seeds} searches each per "
        f"language; wall {py_seconds:.0f} s Python, {js_seconds:.0f} s JavaScript (concurrently)"
    )
    print("| measure | value |")
    print("|---|---|")
    print(f"| same move, Python with Python (seed pairs) | {agreement(py_picks):.3f} |")
    print(f"| same move, JavaScript with JavaScript | {agreement(js_picks):.3f} |")
    print(f"| same move, Python with JavaScript | {agreement(py_picks, js_picks):.3f} |")
    js_prior = np.array([a["prior"] for a in answers]).reshape(n_pos, n_seeds)
    print(f"| the policy's move, the same in both | {(js_prior == prior[:, None]).mean():.3f} |")
    print(
        f"| the policy's move kept, Python / JavaScript | {(py_picks == prior[:, None]).mean():.3f}"
        f" / {(js_picks == prior[:, None]).mean():.3f} |"
    )
    print(
        f"| value of a legal move, JavaScript - Python, 95% CI | {gm:+.4f} [{gl:+.4f}, {gh:+.4f}] |"
    )
    print(
        f"| a pick's worth to a held-out Python search, JavaScript - Python, 95% CI | "
        f"{wm:+.4f} [{wl:+.4f}, {wh:+.4f}] |"
    )


if __name__ == "__main__":
    main()
