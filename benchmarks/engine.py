"""Engine speed benchmark: decisions per second of uniformly random legal play.

Rows (each measured for a fixed wall time, several times; the table shows medians):

- ``engine B=...``: the batched engine (``murlan_env.game.engine``) on B games at once. One loop
  iteration is ``legal_action_mask``, ``random_legal_actions``, ``step`` with ``rng`` (which
  deals the next hand of games whose hand ended, as ``next_hand`` does), then
  ``new_matches`` for matches that are over. The loop donates each state to the next step
  (``donate=True``: arrays updated in place rather than copied), as a training loop that
  keeps only the latest state can. A decision is one
  game waiting for a choice (play, pass or exchange give-back) in one step.
- ``single game (driver)``: one game stepped as the single-game envs step it
  (``murlan_env.envs.driver.GameDriver``: the engine on a batch of one, with its record and
  rewards): a random legal action from the driver's mask, ``play``, ``observe`` for the next
  seat; a new match when one is over.
- ``murlan AEC env``: the PettingZoo environment ``murlan_env.env()``, random legal actions
  from ``action_mask``, reset when every agent is done. A decision is one ``step`` with an
  action (not the ``None`` steps of finished agents).
- ``Murlan-v1 (learner steps)``: the Gymnasium single-agent env ``Murlan-v1``, random legal
  actions for the learner against three ``RandomBot`` opponents, reset when the episode ends.
  Here a decision is one learner ``step``; the three bot decisions inside it are not counted.
- ``OpenSpiel dou_dizhu (decisions)``: the C++ game through pyspiel, random play from dealt
  positions: a pool of games is dealt before timing, and each game is played from a
  ``clone()`` of one. A decision is one player action (bids included). This is the
  yardstick the engine's target is set against (benchmarks/README.md).
- ``OpenSpiel dou_dizhu (whole games)``: the same, dealing included. OpenSpiel deals through
  51 chance nodes, each sampled here in Python, which more than doubles the time per
  decision; shown for reference only.
- ``RLCard doudizhu``: ``rlcard.make("doudizhu")``, random legal actions, reset when over; a
  decision is one ``env.step`` (each builds the next observation, as the AEC env does).

The ratios compare the batched engine at the largest B with OpenSpiel's decisions (target
>= 10x) and the AEC env with RLCard (target >= 5x). Everything runs on one pinned core with
the BLAS/OpenMP pools at one thread, so the figures are per core; a busy machine lowers them,
and the medians over several runs are what to compare.

Usage: ``python -m benchmarks.engine [--quick] [--json [PATH]] [--seconds S] [--repeats N]
[--rows NAME ...]``.
``pip install -e '.[bench]'`` installs OpenSpiel and RLCard; rows whose library is missing are
skipped with a message.
"""

from __future__ import annotations

import os

# One thread for every numerical library, before numpy is imported anywhere.
for _var in (
    "OMP_NUM_THREADS",
    "MKL_NUM_THREADS",
    "OPENBLAS_NUM_THREADS",
    "NUMEXPR_NUM_THREADS",
    "VECLIB_MAXIMUM_THREADS",
):
    os.environ[_var] = "1"

import argparse  # noqa: E402
import dataclasses  # noqa: E402
import importlib.util  # noqa: E402
import json  # noqa: E402
import platform  # noqa: E402
import random  # noqa: E402
import statistics  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from collections.abc import Callable  # noqa: E402

import numpy as np  # noqa: E402

from murlan_env.game import engine  # noqa: E402
from murlan_env.game.rules import Rules  # noqa: E402

BATCH_SIZES = (1, 64, 1024, 4096)
OPENSPIEL_TARGET = 10.0  # engine at the largest B vs OpenSpiel dou_dizhu's decisions
RLCARD_TARGET = 5.0  # AEC env vs RLCard doudizhu

# A runner does a small amount of play and returns the number of decisions it made.
Runner = Callable[[], int]


class Skip(Exception):
    """A row that cannot run here (library missing); the message says why."""


# --------------------------------------------------------------------------- rows


def engine_runner(batch_size: int, seed: int, rules: Rules | None = None) -> Runner:
    """Random play on the batched engine; finished hands go on, finished matches restart."""
    rng = np.random.default_rng(seed)
    rules = rules or Rules()
    state = engine.init(rng, batch_size, rules)
    # PLAY and EXCHANGE wait for a decision; plain ints keep enum lookups out of the loop.
    hand_over, match_over = int(engine.Phase.HAND_OVER), int(engine.Phase.MATCH_OVER)

    def run() -> int:
        nonlocal state
        mask = engine.legal_action_mask(state)
        actions = engine.random_legal_actions(mask, rng)
        decisions = int(np.count_nonzero(state.phase < hand_over))
        state = engine.step(state, actions, rng=rng, donate=True)  # and deal the next hands
        over = np.flatnonzero(state.phase == match_over)
        if over.size:
            state = engine.new_matches(state, over, rng, donate=True)
        return decisions

    return run


def aec_runner(seed: int) -> Runner:
    """Random legal play on the PettingZoo AEC env, reset whenever every agent is done."""
    # The factory behind murlan_env.env(), taken from its module.
    if importlib.util.find_spec("murlan_env.envs.aec") is None:
        raise Skip("murlan_env/envs/aec.py does not exist yet")
    from murlan_env.envs.aec import env as make_env

    env = make_env()
    picker = random.Random(seed)
    episode = 0
    env.reset(seed=seed)

    def run() -> int:
        nonlocal episode
        decisions = 0
        for _ in range(64):
            if not env.agents:
                episode += 1
                env.reset(seed=seed + episode)
            obs, _, terminated, truncated, _ = env.last()
            if terminated or truncated:
                env.step(None)
                continue
            legal = np.flatnonzero(obs["action_mask"])
            env.step(int(legal[picker.randrange(len(legal))]))
            decisions += 1
        return decisions

    return run


def driver_runner(seed: int) -> Runner:
    """Random legal play on one game through ``GameDriver``, observing each decision as the
    AEC env does."""
    from murlan_env.envs.driver import GameDriver

    rng = np.random.default_rng(seed)
    picker = random.Random(seed)
    driver = GameDriver(engine.init(rng, 1), rng)

    def run() -> int:
        nonlocal driver
        decisions = 0
        for _ in range(64):
            if driver.over:
                driver = GameDriver(engine.init(rng, 1), rng)
            driver.observe(driver.to_act)
            legal = np.flatnonzero(driver.mask)
            driver.play(int(legal[picker.randrange(len(legal))]))
            decisions += 1
        return decisions

    return run


def gym_runner(seed: int) -> Runner:
    """Random legal learner steps on Murlan-v1 against three random bots."""
    from murlan_env.envs.gym_env import MurlanGymEnv

    env = MurlanGymEnv()
    picker = random.Random(seed)
    obs, _ = env.reset(seed=seed)

    def run() -> int:
        nonlocal obs
        for _ in range(16):
            legal = np.flatnonzero(obs["action_mask"])
            obs, _, terminated, _, _ = env.step(int(legal[picker.randrange(len(legal))]))
            if terminated:
                obs, _ = env.reset()
        return 16

    return run


def _load_dou_dizhu():
    try:
        import pyspiel
    except ImportError as err:
        raise Skip(f"OpenSpiel is not installed ({err}); pip install open-spiel") from None
    return pyspiel.load_game("dou_dizhu")


def _play_out(state, picker: random.Random) -> int:
    """Random play of an OpenSpiel state to the end; returns the decisions made."""
    decisions = 0
    while not state.is_terminal():
        if state.is_chance_node():
            outcomes, probs = zip(*state.chance_outcomes(), strict=True)
            state.apply_action(picker.choices(outcomes, probs)[0])
        else:
            legal = state.legal_actions()
            state.apply_action(legal[picker.randrange(len(legal))])
            decisions += 1
    return decisions


def openspiel_runner(seed: int) -> Runner:
    """Random play of OpenSpiel's dou_dizhu, one whole game (dealing included) per call."""
    game = _load_dou_dizhu()
    picker = random.Random(seed)
    return lambda: _play_out(game.new_initial_state(), picker)


def openspiel_decisions_runner(seed: int, pool: int = 256) -> Runner:
    """Random play of OpenSpiel's dou_dizhu from dealt positions (cloned), one game per call."""
    game = _load_dou_dizhu()
    picker = random.Random(seed)
    dealt = []
    for _ in range(pool):
        state = game.new_initial_state()
        while state.is_chance_node():
            outcomes, probs = zip(*state.chance_outcomes(), strict=True)
            state.apply_action(picker.choices(outcomes, probs)[0])
        dealt.append(state)
    turn = 0

    def run() -> int:
        nonlocal turn
        turn += 1
        return _play_out(dealt[turn % pool].clone(), picker)

    return run


def rlcard_runner(seed: int) -> Runner:
    """Random legal play of RLCard's doudizhu env, reset when a game is over."""
    try:
        import rlcard
    except ImportError as err:
        raise Skip(f"RLCard is not installed ({err}); pip install rlcard") from None
    env = rlcard.make("doudizhu", config={"seed": seed})
    picker = random.Random(seed)
    obs, _ = env.reset()

    def run() -> int:
        nonlocal obs
        decisions = 0
        for _ in range(16):
            legal = list(obs["legal_actions"])
            obs, _ = env.step(legal[picker.randrange(len(legal))])
            decisions += 1
            if env.is_over():
                obs, _ = env.reset()
        return decisions

    return run


# --------------------------------------------------------------------------- measuring


@dataclasses.dataclass
class Row:
    """One benchmark row: its name, a factory for a fresh runner, and the results."""

    name: str
    make: Callable[[int], Runner]
    rates: list[float] = dataclasses.field(default_factory=list)  # decisions / wall second
    cpu_rates: list[float] = dataclasses.field(default_factory=list)  # decisions / CPU second
    skipped: str | None = None

    @property
    def median(self) -> float | None:
        return statistics.median(self.rates) if self.rates else None

    @property
    def cpu_median(self) -> float | None:
        return statistics.median(self.cpu_rates) if self.cpu_rates else None


def measure(run: Runner, seconds: float) -> tuple[float, float]:
    """Decisions per wall second and per CPU second of ``run`` called for ``seconds`` (wall).

    The CPU-time rate counts only this process's time, so it moves less than the wall rate
    when other jobs share the core.
    """
    run()  # warm-up: caches, first allocations, lazy imports
    decisions = 0
    start, cpu_start = time.perf_counter(), time.process_time()
    deadline = start + seconds
    while True:
        decisions += run()
        now = time.perf_counter()
        if now >= deadline:
            cpu = max(time.process_time() - cpu_start, 1e-9)
            return decisions / (now - start), decisions / cpu


def pin_to_one_core(core: int | None) -> int | None:
    """Pin this process to one CPU (default: the lowest allowed); None where unsupported."""
    if not hasattr(os, "sched_setaffinity"):
        return None
    allowed = sorted(os.sched_getaffinity(0))
    chosen = allowed[0] if core is None else core
    os.sched_setaffinity(0, {chosen})
    return chosen


def build_rows(batch_sizes: tuple[int, ...]) -> list[Row]:
    rows = [Row(f"engine B={b}", lambda seed, b=b: engine_runner(b, seed)) for b in batch_sizes]
    rows += [
        Row("single game (driver)", driver_runner),
        Row("murlan AEC env", aec_runner),
        Row("Murlan-v1 (learner steps)", gym_runner),
        Row("OpenSpiel dou_dizhu (decisions)", openspiel_decisions_runner),
        Row("OpenSpiel dou_dizhu (whole games)", openspiel_runner),
        Row("RLCard doudizhu", rlcard_runner),
    ]
    return rows


def run_rows(rows: list[Row], seconds: float, repeats: int, seed: int, log) -> None:
    """Fill each row's rates: ``repeats`` rounds over all rows (interleaved, so a burst of
    load elsewhere on the machine spreads over the rows rather than hitting one)."""
    for rep in range(repeats):
        for row in rows:
            if row.skipped:
                continue
            try:
                runner = row.make(seed + rep)
            except Skip as why:
                row.skipped = str(why)
                log(f"skip {row.name}: {why}")
                continue
            wall, cpu = measure(runner, seconds)
            row.rates.append(wall)
            row.cpu_rates.append(cpu)
            log(f"round {rep + 1}/{repeats} {row.name}: {wall:,.0f} decisions/s ({cpu:,.0f}/CPU-s)")


def ratios(rows: list[Row]) -> list[dict]:
    """The two target ratios of wall-time medians (and of CPU-time medians), None if missing."""
    wall = {row.name: row.median for row in rows}
    cpu = {row.name: row.cpu_median for row in rows}
    runs = {row.name: row.rates for row in rows}
    engines = [row for row in rows if row.name.startswith("engine B=")]
    biggest = engines[-1].name if engines else "engine"

    def ratio(num: str, den: str, target: float) -> dict:
        def of(rates: dict) -> float | None:
            a, b = rates.get(num), rates.get(den)
            return a / b if a is not None and b else None

        value = of(wall)
        met = None if value is None else value >= target
        # Round by round: the two runs of a round were measured minutes apart at most, so
        # their ratio moves less with the machine's load than the ratio of the medians.
        paired = [a / b for a, b in zip(runs.get(num, []), runs.get(den, []), strict=False)]
        return {
            "name": f"{num} / {den}",
            "ratio": value,
            "cpu_ratio": of(cpu),
            "round_ratio_median": statistics.median(paired) if paired else None,
            "target": target,
            "met": met,
        }

    return [
        ratio(biggest, "OpenSpiel dou_dizhu (decisions)", OPENSPIEL_TARGET),
        ratio("murlan AEC env", "RLCard doudizhu", RLCARD_TARGET),
    ]


def report(rows: list[Row], settings: dict) -> dict:
    return {
        "settings": settings,
        "rows": [
            {
                "name": row.name,
                "median": row.median,
                "rates": row.rates,
                "cpu_median": row.cpu_median,
                "cpu_rates": row.cpu_rates,
                "skipped": row.skipped,
            }
            for row in rows
        ],
        "ratios": ratios(rows),
    }


def print_table(result: dict) -> None:
    """The rows and ratios as a rich table (plain text when rich is missing)."""
    lines = [("row", "median dec/s", "min", "max", "dec/CPU-s", "runs / note")]
    for row in result["rows"]:
        if row["median"] is None:
            lines.append((row["name"], "-", "-", "-", "-", f"skipped: {row['skipped']}"))
        else:
            rates = row["rates"]
            lines.append(
                (
                    row["name"],
                    f"{row['median']:,.0f}",
                    f"{min(rates):,.0f}",
                    f"{max(rates):,.0f}",
                    f"{row['cpu_median']:,.0f}",
                    str(len(rates)),
                )
            )
    ratio_lines = []
    for r in result["ratios"]:
        if r["ratio"] is None:
            ratio_lines.append(f"{r['name']}: n/a (target >= {r['target']:g}x)")
        else:
            verdict = "met" if r["met"] else "NOT met"
            ratio_lines.append(
                f"{r['name']}: {r['ratio']:.2f}x wall, {r['cpu_ratio']:.2f}x CPU,"
                f" {r['round_ratio_median']:.2f}x median of rounds"
                f" (target >= {r['target']:g}x on wall medians, {verdict})"
            )
    s = result["settings"]
    title = (
        f"random legal play, {s['seconds']:g} s per run, median of {s['repeats']}, core {s['core']}"
    )
    try:
        from rich.console import Console
        from rich.table import Table
    except ImportError:
        print(title)
        for line in lines:
            print(f"{line[0]:<34}{line[1]:>14}{line[2]:>12}{line[3]:>12}{line[4]:>12}  {line[5]}")
        print("\n".join(ratio_lines))
        return
    table = Table(title=title)
    for i, head in enumerate(lines[0]):
        table.add_column(head, justify="left" if i in (0, 5) else "right")
    for line in lines[1:]:
        table.add_row(*line)
    console = Console(width=max(Console().width, 100))
    console.print(table)
    for line in ratio_lines:
        console.print(line)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0].replace("\n", " ")
        + " Takes about 2 minutes at the defaults (3 s x 5 runs a row), --quick about 20 s."
    )
    parser.add_argument("--quick", action="store_true", help="short run: 0.5 s x 3 per row")
    parser.add_argument("--seconds", type=float, help="wall time per run (default 3, quick 0.5)")
    parser.add_argument("--repeats", type=int, help="runs per row (default 5, quick 3)")
    parser.add_argument(
        "--batch-sizes", type=int, nargs="+", default=list(BATCH_SIZES), help="engine batch sizes"
    )
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--rows",
        nargs="+",
        metavar="NAME",
        help="only the rows whose name starts with one of these (e.g. 'engine B=1')",
    )
    parser.add_argument("--core", type=int, help="CPU to pin to (default: lowest allowed)")
    parser.add_argument(
        "--json",
        nargs="?",
        const="-",
        metavar="PATH",
        help="write the results as JSON to PATH (or stdout with no PATH) instead of the table",
    )
    args = parser.parse_args(argv)
    seconds = args.seconds or (0.5 if args.quick else 3.0)
    repeats = args.repeats or (3 if args.quick else 5)
    core = pin_to_one_core(args.core)
    to_stdout = args.json == "-"

    def log(message: str) -> None:
        print(message, file=sys.stderr)

    rows = build_rows(tuple(args.batch_sizes))
    if args.rows:
        rows = [row for row in rows if any(row.name.startswith(p) for p in args.rows)]
    run_rows(rows, seconds, repeats, args.seed, log)
    settings = {
        "seconds": seconds,
        "repeats": repeats,
        "seed": args.seed,
        "core": core,
        "python": platform.python_version(),
        "numpy": np.__version__,
        "machine": platform.machine(),
    }
    result = report(rows, settings)
    if args.json is None:
        print_table(result)
    elif to_stdout:
        json.dump(result, sys.stdout, indent=2)
        print()
    else:
        with open(args.json, "w") as f:
            json.dump(result, f, indent=2)
        print_table(result)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
