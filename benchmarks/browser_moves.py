"""A level's move time in the browser: the play page's Web Worker in headless Chromium.

The checkout is served as plain files on 127.0.0.1 (the play page's own layout: its modules
under ``clients/js/``, the shipped bundles under ``murlan_env/bots/policies/``), and a
headless Chromium opens the play page. In the page, a script starts the page's own bots'
worker (``clients/js/play/worker.js``, through ``botworker.js``) and plays ``--matches``
seeded matches, the first ``--max-hands`` hands of each, with ``--level`` at seat 1 and
``--others`` at the other three seats, on the page's ``Game``. Each of seat 1's decisions is
timed on the page's thread, from the request to the answer (``performance.now()``): what a
person waits for, message passing included. Real positions, then: every decision the level
meets in those hands, the exchange's give-backs included.

It prints the median, p95 and largest move time over all the level's decisions and over
those with a choice (more than one legal move: the others are forced, a search has nothing to
weigh), the CPU and the Chromium version. Figures go to benchmarks/README.md with the machine.

```
python -m benchmarks.browser_moves --level hard --matches 2       # about 20 s
nice -n 10 python -m benchmarks.browser_moves --level expert --matches 8
nice -n 10 python -m benchmarks.browser_moves --level expert --matches 8 --budget-ms 300
```

Needs Debian's Chromium and its driver and the selenium package (as the browser tests).
"""

from __future__ import annotations

import argparse
import functools
import http.server
import os
import shutil
import statistics
import sys
import threading
import time
from pathlib import Path

from benchmarks.common import cpu_name, percentile

ROOT = Path(__file__).resolve().parents[1]
PAGE = "clients/js/play/index.html"

# Plays one seeded match's first hands in the page's worker and times seat 1's decisions (ms).
MATCH = """
const [level, others, seed, maxHands, budgetMs] = arguments;
window.benchResult = null;
(async () => {
  const { Game } = await import('/clients/js/src/index.js');
  if (!window.benchWorker) {
    const { BotWorker } = await import('/clients/js/play/botworker.js');
    const worker = new BotWorker('/clients/js/play/worker.js');
    const bundles = ['ppo-finetune', 'ppo-strong']
      .map((b) => new URL(`/murlan_env/bots/policies/${b}/`, location.href).href);
    const { choices } = await worker.request('load', { bundles, hook: null });
    window.benchWorker = { worker, choices };
  }
  const { worker, choices } = window.benchWorker;
  const key = (name) => {
    const found = choices.find((c) => c.level === name);
    const have = choices.map((c) => c.level).join(', ');
    if (!found) throw new Error(`the page plays no level ${name} (it plays ${have})`);
    return found.key;
  };
  const seats = [key(others), key(level), key(others), key(others)];
  await worker.request('match', { seats, rules: {}, budgetMs: budgetMs || null });
  const game = new Game({ seed });
  const times = [];
  let decisions = 0;
  while (game.phase !== 'match_over') {
    if (game.phase === 'hand_over') {
      if (game.handNo + 1 >= maxHands) break;
      game.nextHand();
      continue;
    }
    const seat = game.turn;
    const request = { seat, position: game.position(), seed: (seed * 1000003 + decisions) >>> 0,
      context: { record: game.record(), seat } };
    const choice = game.legalMoves().length > 1;
    const start = performance.now();
    const { move } = await worker.request('choose', request);
    if (seat === 1) times.push([performance.now() - start, choice]);
    game.play(move.cards);
    decisions += 1;
  }
  return times;
})().then((times) => { window.benchResult = { times }; },
  (err) => { window.benchResult = { error: String(err.message ?? err) }; });
"""


class _Quiet(http.server.SimpleHTTPRequestHandler):
    extensions_map = {
        **http.server.SimpleHTTPRequestHandler.extensions_map,
        ".js": "text/javascript",
    }

    def log_message(self, *args) -> None:
        pass


def fail(why: str) -> None:
    """One line on stderr, exit status 2."""
    print(f"browser_moves.py: {why}", file=sys.stderr)
    sys.exit(2)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0].replace("\n", " ")
        + " Takes a few minutes for expert at 2 matches (needs Chromium and chromedriver)."
    )
    parser.add_argument("--level", default="expert", help="the level timed, at seat 1")
    parser.add_argument("--others", default="hard", help="the level at the other seats")
    parser.add_argument("--matches", type=int, default=8, help="seeded matches played")
    parser.add_argument("--max-hands", type=int, default=2, help="hands of each match")
    parser.add_argument("--seed", type=int, default=0, help="match m is dealt by seed + m")
    parser.add_argument(
        "--budget-ms",
        type=float,
        help="a search level's time a move in ms (the set-up's 'time a move'; "
        "default: none, its whole search)",
    )
    args = parser.parse_args(argv)

    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    driver_path = shutil.which("chromedriver")
    if not (chromium and driver_path):
        fail("needs Chromium and chromedriver: apt-get install chromium chromium-driver")

    server = http.server.ThreadingHTTPServer(
        ("127.0.0.1", 0), functools.partial(_Quiet, directory=str(ROOT))
    )
    threading.Thread(target=server.serve_forever, daemon=True).start()
    options = webdriver.ChromeOptions()
    options.binary_location = chromium
    for arg in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu"):
        options.add_argument(arg)
    browser = webdriver.Chrome(service=Service(driver_path), options=options)
    try:
        browser.get(f"http://127.0.0.1:{server.server_address[1]}/{PAGE}")
        times: list[tuple[float, bool]] = []
        for m in range(args.matches):
            # The match runs in the page; the script returns at once and the result is polled,
            # so no WebDriver call lasts as long as a match.
            browser.execute_script(
                MATCH, args.level, args.others, args.seed + m, args.max_hands, args.budget_ms
            )
            while (out := browser.execute_script("return window.benchResult")) is None:
                time.sleep(0.2)
            if "error" in out:
                fail(out["error"])
            times += out["times"]
        version = browser.capabilities.get("browserVersion", "?")
    finally:
        browser.quit()
        server.shutdown()

    print(
        f"{args.level} at seat 1 against 3 {args.others}, first {args.max_hands} hands of "
        f"{args.matches} matches (seed {args.seed}), "
        f"{f'budget {args.budget_ms:g} ms' if args.budget_ms else 'no budget'}: "
        "the play page's worker in headless Chromium"
    )
    print("| decisions | n | median ms | p95 ms | max ms |")
    print("|---|---|---|---|---|")
    rows = [("all", [t for t, _ in times]), ("with a choice", [t for t, c in times if c])]
    for name, ms in rows:
        if ms:
            print(
                f"| {name} | {len(ms)} | {statistics.median(ms):.1f} | "
                f"{percentile(ms, 0.95):.1f} | {max(ms):.1f} |"
            )
    print(f"CPU: {cpu_name()}, {len(os.sched_getaffinity(0))} cores visible; Chromium {version}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
