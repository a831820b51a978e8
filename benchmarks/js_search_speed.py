"""Move times of the JavaScript expert search in Node.js, on one core, at real positions.

The positions are the play decisions with a choice of the expert policy's shipped golden set
(real play, murlan_env/bots/policies/NAME/golden.json), sent as the murlan-bot/1 requests murlan
sends (with each match's record cut at the decision, from which the search reads the hand so
far). ``clients/js/benchmarks/search.js`` answers them as ``murlan-bot --level expert`` does,
once at the level's settings and once per time budget, pinned to one core (``taskset -c 0``
where there is one), and prints median and p95 wall and CPU milliseconds per move.

    nice -n 10 python -m benchmarks.js_search_speed --positions 40 --budgets 100,300,1000

Needs Node.js 20+ (``node`` on the PATH, or ``--node``).
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import tempfile
from pathlib import Path

import numpy as np

from benchmarks.common import cpu_name
from murlan_env.bots import registry
from murlan_env.bots.process import golden_requests

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "clients" / "js" / "benchmarks" / "search.js"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0].replace("\n", " ")
        + " Takes a few minutes at the defaults on a free core (needs Node.js 20+)."
    )
    parser.add_argument("--positions", type=int, default=40, help="positions to time (default 40)")
    parser.add_argument(
        "--budgets", default="100,300,1000", help="budgets in ms (default 100,300,1000)"
    )
    parser.add_argument("--seed", type=int, default=0, help="seed of the positions' choice")
    parser.add_argument("--node", default="node", help="Node.js executable")
    args = parser.parse_args(argv)
    bundle = registry.policies_dir() / registry.levels()["expert"]["policy"]
    golden = json.loads((bundle / "golden.json").read_text())
    requests = [
        r for r in golden_requests(golden) if r["state"]["phase"] == "play" and len(r["legal"]) > 1
    ]
    rng = np.random.default_rng(args.seed)
    picks = sorted(rng.choice(len(requests), min(args.positions, len(requests)), replace=False))
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "requests.jsonl"
        path.write_text("".join(json.dumps(requests[i]) + "\n" for i in picks))
        pin = ["taskset", "-c", "0"] if shutil.which("taskset") else []
        budgets = [b for b in args.budgets.split(",") if b]
        command = [*pin, args.node, str(SCRIPT), str(bundle), str(path), *budgets]
        print(f"machine: {cpu_name()}; pinned: {bool(pin)}")
        subprocess.run(command, check=True, cwd=SCRIPT.parents[1])
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
