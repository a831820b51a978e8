"""Another `expert` search against Python's, position by position: do they value moves alike?

Strength over boards costs hours of CPU; a search's decisions can be compared far more cheaply.
At positions from real play (the expert policy and the rule bot seated alternately, with each
hand so far, ``conformance.search.play_positions``), Python's ``expert`` (``SearchBot.search``) and
the other search each search every position with ``--seeds`` seeds. The other search is

- ``js``: ``clients/js``'s (``clients/js/benchmarks/values.js``, ``Search.search`` as
  ``murlan-bot --level expert`` runs it; the search vectors hold what is deterministic given
  the draws, this pairs the whole searches, draws included), or
- ``int8``: Python's with its belief and rollouts in int8 against Python's in float32
  (``belief.expert_in``: the level's ``arithmetic``).

It prints how often two searches pick the same move (Python with Python, the other with
itself, Python with the other: the last should match the first two), the mean gap between the
two searches' values of a legal move, and each side's picks judged by Python searches run with
other seeds (a held-out judge): the other's picks should be worth what Python's are.

    python -m benchmarks.search_agreement --other js --positions 80 --seeds 6 --games 60
    python -m benchmarks.search_agreement --other int8 --positions 80 --seeds 6 --games 60

``js`` needs Node.js 20+ (``node`` on the PATH, or ``--node``); ``int8`` needs onnxruntime.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import time
from itertools import combinations
from pathlib import Path

import numpy as np

from murlan_env.bots import registry
from murlan_env.bots.policy import BundleBot
from murlan_env.conformance.search import play_positions
from murlan_env.eval.duplicate import mean_ci
from murlan_env.game.combos import N_ACTIONS

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "clients" / "js" / "benchmarks" / "values.js"
LABELS = {"js": "JavaScript", "int8": "int8"}


def js_search(node: str, bundle: Path, requests: list[dict]) -> subprocess.Popen:
    """Start Node answering ``requests`` (values.js reads them all from stdin before it
    searches); read its stdout when it is done."""
    command = [node, str(SCRIPT), str(bundle)]
    proc = subprocess.Popen(
        command, cwd=SCRIPT.parents[1], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    proc.stdin.write("".join(json.dumps(r) + "\n" for r in requests))
    proc.stdin.close()
    return proc


def js_answers(node: subprocess.Popen, shape: tuple[int, int]):
    """Node's picks (P, S), values (P, S, A) and the policy's moves (P, S) it searched from."""
    out = node.stdout.read()  # its stdin is closed already: no communicate()
    if node.wait():
        raise SystemExit(f"values.js failed with exit status {node.returncode}")
    answers = [json.loads(line) for line in out.splitlines() if line.strip()]
    picks = np.array([a["action"] for a in answers], np.int64).reshape(shape)
    values = np.array([[-np.inf if v is None else v for v in a["values"]] for a in answers])
    priors = np.array([a["prior"] for a in answers], np.int64).reshape(shape)
    return picks, values.reshape(*shape, -1), priors


def python_searches(bot, positions: list[dict], seeds: int, key: int):
    """``bot.search``'s picks (P, S) and values (P, S, A), seed ``[key, position, s]``."""
    picks = np.zeros((len(positions), seeds), np.int64)
    values = np.zeros((len(positions), seeds, N_ACTIONS))
    for i, p in enumerate(positions):
        history = [np.array(p["history"], np.int64)]
        for s in range(seeds):
            rng = np.random.default_rng([key, i, s])
            action, value = bot.search(p["_obs"], p["_mask"][None], rng, history)
            picks[i, s], values[i, s] = action[0], value[0]
    return picks, values


def agreement(picks: np.ndarray, other: np.ndarray | None = None) -> float:
    """Share of seed pairs that pick the same move: within ``picks`` (P, S), or between it and
    ``other`` seed for seed."""
    if other is not None:
        return float((picks == other).mean())
    pairs = list(combinations(range(picks.shape[1]), 2))
    return float(np.mean([(picks[:, a] == picks[:, b]).mean() for a, b in pairs]))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0].replace("\n", " ")
        + " Takes about ten minutes at the defaults (an expert search is about a second of CPU)."
    )
    parser.add_argument("--other", choices=sorted(LABELS), default="js", help="default js")
    parser.add_argument("--positions", type=int, default=60, help="positions (default 60)")
    parser.add_argument("--seeds", type=int, default=6, help="searches a position per side")
    parser.add_argument("--games", type=int, default=40, help="matches the positions come from")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--node", default="node", help="the Node.js program")
    args = parser.parse_args(argv)
    if args.seeds < 4 or args.seeds % 2:
        parser.error("--seeds must be even and at least 4 (half choose, half judge)")
    label = LABELS[args.other]
    bundle = registry.policies_dir() / registry.levels()["expert"]["policy"]
    rng = np.random.default_rng(args.seed)
    policy = BundleBot(bundle)
    positions = play_positions(policy, rng, args.positions, args.games)
    prior = np.array([policy.act(p["_obs"], p["_mask"][None], rng)[0] for p in positions])
    shape = (len(positions), args.seeds)
    start = time.perf_counter()
    if args.other == "js":
        requests = [
            {**{k: p[k] for k in ("state", "record")}, "seat": p["state"]["seat"], "seed": s}
            for i, p in enumerate(positions)
            for s in range(7919 * i, 7919 * i + args.seeds)
        ]
        node = js_search(args.node, bundle, requests)
        bot = registry.make_bot("expert")  # the level as it ships
    else:
        from benchmarks.common import expert_in

        bot = expert_in("float32")
    py_picks, py_values = python_searches(bot, positions, args.seeds, args.seed)
    py_seconds = time.perf_counter() - start
    if args.other == "js":
        picks, values, other_prior = js_answers(node, shape)
        seconds = f"{time.perf_counter() - start:.0f} s JavaScript (at the same time)"
    else:
        begun = time.perf_counter()
        picks, values = python_searches(expert_in("int8"), positions, args.seeds, args.seed + 1)
        other_prior = None  # the same float32 prior
        seconds = f"{time.perf_counter() - begun:.0f} s int8"

    legal = np.stack([p["_mask"] for p in positions])
    gap = [
        (values[i][:, legal[i]].mean(0) - py_values[i][:, legal[i]].mean(0)).mean()
        for i in range(len(positions))
    ]
    half = args.seeds // 2
    judge = py_values[:, half:].mean(1)  # Python searches that chose nothing below
    rows = np.arange(len(positions))[:, None]
    worth = judge[rows, picks[:, :half]].mean(1) - judge[rows, py_picks[:, :half]].mean(1)
    (gm, gl, gh), (wm, wl, wh) = mean_ci(np.array(gap)), mean_ci(worth)
    print(
        f"{len(positions)} positions from real play (seed {args.seed}), {args.seeds} searches "
        f"each per side; {py_seconds:.0f} s Python, {seconds}"
    )
    print("| measure | value |")
    print("|---|---|")
    print(f"| same move, Python with Python (seed pairs) | {agreement(py_picks):.3f} |")
    print(f"| same move, {label} with {label} | {agreement(picks):.3f} |")
    print(f"| same move, Python with {label} | {agreement(py_picks, picks):.3f} |")
    if other_prior is not None:
        same = (other_prior == prior[:, None]).mean()
        print(f"| the policy's move, the same in both | {same:.3f} |")
    print(
        f"| the policy's move kept, Python / {label} | {(py_picks == prior[:, None]).mean():.3f}"
        f" / {(picks == prior[:, None]).mean():.3f} |"
    )
    print(f"| a legal move's value, {label} - Python, 95% CI | {gm:+.4f} [{gl:+.4f}, {gh:+.4f}] |")
    print(
        f"| a pick's worth to a held-out Python search, {label} - Python, 95% CI | "
        f"{wm:+.4f} [{wl:+.4f}, {wh:+.4f}] |"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
