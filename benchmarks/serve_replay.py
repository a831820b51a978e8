"""What one replay costs `murlan serve`: server memory, CPU and JSON sent, against the record.

A greedy-bot match (``--seed``; seed 4: 12 hands) is written as a ``murlan-record/1`` file and
opened on the Replay page's API in process (Starlette's test client), as the page opens it:
``POST /api/replays`` with the record's text, then every hand's frames the page asks for as
the person steps through (``GET /api/replays/{id}/hands/{n}``; a server that sends every
frame at open has nothing more to send). Each row is the median of ``--repeats`` openings:

- the record (the first line): its hands and size;
- ``open CPU s``: process CPU time of the opening request (validation, replay, frames);
- ``kept KB``: memory the server keeps for the open replay (``tracemalloc``: what is still
  allocated after the request, the replay left open in the server);
- ``open KB`` / ``all hands KB``: JSON of the opening answer, and of it plus every hand's
  frames fetched one by one; ``all hands sent KB``: the bytes that went over the wire for
  them (gzip, which every browser accepts, where the server uses it);
- ``all hands CPU s``: CPU time to open and fetch every hand.

```
python -m benchmarks.serve_replay
python -m benchmarks.serve_replay --repeats 3 --seed 4
```
"""

from __future__ import annotations

import argparse
import gc
import statistics
import tempfile
import time
import tracemalloc
from pathlib import Path

import numpy as np
from fastapi.testclient import TestClient

from murlan_env import records
from murlan_env.bots.baseline import GreedyBot
from murlan_web.app import Settings, create_app


def greedy_record(seed: int) -> dict:
    return records.selfplay(np.random.default_rng(seed), bots=[GreedyBot()] * 4).record(0)


def open_all(client: TestClient, text: str) -> tuple[str, list[int], int, int]:
    """Open the record and fetch every hand's frames: the id, the hands, the bytes of the
    opening answer and of every answer, and of every answer as sent."""
    r = client.post("/api/replays", json={"text": text})
    assert r.status_code == 200, r.text
    opened = r.json()
    key, hands = opened["id"], [h["hand"] for h in opened.get("hand_list", [])]
    first, total = len(r.content), len(r.content)
    wire = r.num_bytes_downloaded
    for hand in hands[1:]:  # the page fetches each hand's frames as it reaches them
        got = client.get(f"/api/replays/{key}/hands/{hand}")
        assert got.status_code == 200, got.text
        total += len(got.content)
        wire += got.num_bytes_downloaded
    return key, hands, first, total, wire


def measure(client: TestClient, text: str) -> dict[str, float]:
    cpu = time.process_time()
    r = client.post("/api/replays", json={"text": text})
    open_cpu = time.process_time() - cpu
    assert r.status_code == 200, r.text
    key = r.json()["id"]
    client.delete(f"/api/replays/{key}")
    cpu = time.process_time()
    key, _, first, total, wire = open_all(client, text)
    all_cpu = time.process_time() - cpu
    client.delete(f"/api/replays/{key}")
    # Memory apart from the timings (tracemalloc slows every allocation down).
    gc.collect()
    tracemalloc.start()
    before = tracemalloc.get_traced_memory()[0]
    r = client.post("/api/replays", json={"text": text})
    key = r.json()["id"]
    del r
    gc.collect()
    kept = tracemalloc.get_traced_memory()[0] - before
    tracemalloc.stop()
    client.delete(f"/api/replays/{key}")
    return {
        "open CPU s": open_cpu,
        "kept KB": kept / 1024,
        "open KB": first / 1024,
        "all hands KB": total / 1024,
        "all hands sent KB": wire / 1024,
        "all hands CPU s": all_cpu,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0].replace("\n", " ") + " Takes about 20 s."
    )
    parser.add_argument("--seed", type=int, default=4, help="seed of the recorded match")
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args(argv)
    record = greedy_record(args.seed)
    text = records.dumps(record)
    with tempfile.TemporaryDirectory() as tmp:
        app = create_app(Settings(records_dir=Path(tmp), max_replays=1000, replays_per_client=1000))
        with TestClient(app, base_url="http://127.0.0.1") as client:
            measure(client, text)  # warm up: imports, numba
            rows = [measure(client, text) for _ in range(args.repeats)]
    print(f"record: seed {args.seed}, {len(record['hands'])} hands, {len(text) / 1024:.1f} KB")
    print(f"| {'what':<18} | median | min | max |")
    print("|---|---|---|---|")
    for key in rows[0]:
        values = [r[key] for r in rows]
        digits = 3 if "CPU" in key else 1
        print(
            f"| {key:<18} | {statistics.median(values):.{digits}f} | {min(values):.{digits}f} "
            f"| {max(values):.{digits}f} |"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
