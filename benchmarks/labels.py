"""What expert iteration's labels cost and how far they can be trusted: the search's moves
on positions from real play, timed and labelled again.

Expert iteration labels positions with the search (``agents.labelling.label_positions``) and
fits the policy to its overrides of the policy's move. Three measurements of those labels:

``speed``: positions labelled per CPU second by the search a round labels with
(``agents.distill.expert_search`` on `hard`'s weights: ``--rollouts`` over ``--candidates``
belief worlds, expert's own 200 and 1,024 by default), by the policy's arithmetic in the
belief and rollouts (``--precision``: float32, or the int8 model of
``murlan_env.bundle.quantize.to_int8``) and by batch size. The positions are drawn at random from
`hard`'s decisions with a choice in one seat against three rule bots (first two hands of
``--boards`` seeded boards), as a round's are. Each run labels the same positions once per row
with its precision's search, rows in turn, so the machine's load falls alike on every row; times
are the process's CPU seconds (one thread). The table gives the median over the runs and how often
each row chose the same move as the first row (the search's own noise: two seeds of one row
agree about as often). With three runs or more it also scores each row's last run against the
*reproducible overrides* (positions where the first row's runs 1 and 2 override the policy
with the same move): the share of them it finds, and the share of its own overrides among
them (about one position in 25 carries one, so this needs thousands). Seconds for the
defaults; about 0.1-0.3 CPU s a position at the preset's budgets.

    python -m benchmarks.labels speed                     # 48 positions, batch 8, both precisions
    python -m benchmarks.labels speed --rollouts 500 --candidates 256 --runs 5   # the preset's
    python -m benchmarks.labels speed --precision float32 --batch 1 8 32 --positions 96

``noise``: a run's labelled round (``RUN/round-K`` of ``train.py --config distill``) labelled
again at every position the first search overrode, by a second search with another seed: how
often it makes the same override, keeps the policy's move or picks a third, with the first
search's value gap (its best move's mean points over the policy's) in each group. It saves the
second labels beside the first (``relabels-seed{S}.npz``: rows, action, values), which
``quality`` and ``distill_curve.py --consensus`` read. As long as the round's overrides take
to label (about 0.1 CPU s each).

    python -m benchmarks.labels noise runs/curve --seed 7 --workers 2

``quality``: what cheaper labels cost. The round labelled twice (``noise``) sorts its positions
into *reproducible overrides* (both searches played the same move, not the policy's), *one-off
overrides* and *keeps* (a sample of ``--keeps``); each group is labelled again at every
``--budgets`` (``R`` rollouts, or ``R:C`` also with ``C`` belief candidates), and the table
gives CPU seconds a position (one thread, after a warm-up), the share of reproducible
overrides each budget finds, how often it overrides in the other groups and, over all the
round's positions, how many overrides it makes and what share of them are reproducible.
Minutes to an hour, by the budgets.

    python -m benchmarks.labels quality runs/r1000 --budgets 200 200:256 50:256 --keeps 600
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np
import torch
from tqdm import tqdm

from agents import presets
from agents.config import ConfigError
from agents.distill import (
    DistillConfig,
    bundle_dir,
    expert_search,
    label_chunks,
    labelled_round,
    policy_from_bundle,
)
from agents.labelling import label_positions, play_positions, save_arrays
from murlan_env.bots import registry

# --- speed -------------------------------------------------------------------------------------


def speed(args) -> None:
    torch.set_num_threads(1)

    positions = play_positions(
        registry.make_bot("hard"), registry.make_bot("rule"), args.boards, seed=args.seed
    )
    sample = np.random.default_rng(args.seed).permutation(len(positions))[: args.positions]
    positions = positions.take(np.sort(sample))
    net = policy_from_bundle(bundle_dir("ppo-finetune")).eval()
    # A search keeps nothing between calls, so one per precision serves every batch size and
    # run (the int8 one exports and quantises the policy: a CPU second each time).
    searches = {
        precision: expert_search(
            net,
            DistillConfig(
                search_rollouts=args.rollouts,
                belief_candidates=args.candidates,
                label_precision=precision,
            ),
        )
        for precision in args.precision
    }
    rows = [(p, b) for p in args.precision for b in args.batch]
    seconds = {row: [] for row in rows}
    moves = {row: [] for row in rows}
    for run in range(args.runs):
        for row in rows:
            precision, batch = row
            search = searches[precision]
            t0 = time.process_time()
            actions, _ = label_positions(search, positions, np.random.default_rng(run), batch)
            seconds[row].append(time.process_time() - t0)
            moves[row].append(actions)
    print(
        f"{len(positions)} positions of `hard` against 3 rule bots (hand so far: "
        f"{positions.log_length.mean():.1f} moves on average), {args.rollouts} rollouts over "
        f"{args.candidates} belief worlds, {args.runs} runs, CPU time\n"
    )
    first = "{} batch {}".format(*rows[0])
    played = positions.action.astype(np.int64)
    ref = moves[rows[0]]
    reproducible = (
        (ref[0] != played) & (ref[0] == ref[1]) if args.runs >= 3 else np.zeros(len(played), bool)
    )
    if args.runs >= 3:
        print(
            f"Reproducible overrides ({first}, runs 1 and 2): {reproducible.sum()} of "
            f"{len(played)} positions; each row's labels scored on its run {args.runs}\n"
        )
    print(
        "| precision | batch | positions/CPU s (median) | CPU s/position | runs (CPU s) "
        f"| same move as {first} (run 1) | same move, run 1 vs run 2 | overrides "
        "| finds the reproducible overrides | of its overrides reproducible |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|")
    for row in rows:
        median = float(np.median(seconds[row]))
        same = float((moves[row][0] == ref[0]).mean())
        again = float((moves[row][0] == moves[row][1]).mean()) if args.runs > 1 else float("nan")
        runs = " ".join(f"{s:.1f}" for s in seconds[row])
        last = moves[row][-1]
        overrides = last != played
        found = overrides & reproducible & (last == ref[0])
        finds = found.sum() / reproducible.sum() if reproducible.any() else float("nan")
        scored = overrides.any() and args.runs >= 3
        share = found.sum() / overrides.sum() if scored else float("nan")
        print(
            f"| {row[0]} | {row[1]} | {len(positions) / median:.2f} | "
            f"{median / len(positions):.3f} | {runs} | {same:.0%} | {again:.0%} | "
            f"{overrides.mean():.1%} | {finds:.1%} | {share:.1%} |"
        )


# --- noise -------------------------------------------------------------------------------------


def gap(values: np.ndarray, chosen: np.ndarray, played: np.ndarray) -> np.ndarray:
    """Mean points of the chosen move over the played one, per row."""
    rows = np.arange(len(chosen))
    return values[rows, chosen] - values[rows, played]


def noise(args, parser: argparse.ArgumentParser) -> None:
    config = json.loads((args.run / "config.json").read_text())
    run_seed = config["seed"]
    config.update(seed=args.seed, label_workers=args.workers, progress=False)
    try:
        _, cfg = presets.build_config(config)
    except ConfigError as e:
        parser.error(str(e))
    if cfg.seed == run_seed:
        parser.error("--seed must differ from the run's seed: the same seed labels alike")
    positions, first, first_values, _ = labelled_round(args.run, args.round)
    played = positions.action.astype(np.int64)
    rows = np.flatnonzero(first != played)
    out = args.run / f"round-{args.round}" / f"relabels-seed{args.seed}.npz"
    if out.exists():
        with np.load(out) as saved:
            second = saved["action"].astype(np.int64)
            rows = saved["rows"]
        seconds = float("nan")
    else:
        net = policy_from_bundle(bundle_dir(cfg.start))
        net.eval()
        t0 = time.perf_counter()
        picked = positions.take(rows)
        size = cfg.label_chunk
        chunks = [np.arange(k, min(rows.size, k + size)) for k in range(0, rows.size, size)]
        with tqdm(total=rows.size, desc="relabel") as bar:
            parts = list(label_chunks(net, cfg, args.round, picked, chunks, bar))
        second = np.concatenate([a for a, _ in parts]).astype(np.int64)
        values = np.concatenate([v for _, v in parts])
        seconds = time.perf_counter() - t0
        save_arrays(out, {"rows": rows, "action": second, "values": values})

    print(
        f"{args.run} round {args.round}: {len(positions)} labelled positions; the first "
        f"search overrode the policy's move at {rows.size} ({rows.size / len(positions):.1%}); "
        f"a second search (seed {args.seed}) labelled those again in {seconds:.0f} s"
    )
    gaps = gap(first_values[rows], first[rows], played[rows])
    groups = {
        "the same override": second == first[rows],
        "the policy's move": second == played[rows],
        "a third move": (second != first[rows]) & (second != played[rows]),
    }
    print("| the second search plays | positions | share | first search's gap, median |")
    print("|---|---|---|---|")
    for name, where in groups.items():
        median = f"{np.median(gaps[where]):.3f}" if where.any() else ""
        print(f"| {name} | {int(where.sum())} | {where.mean():.1%} | {median} |")


# --- quality -----------------------------------------------------------------------------------


def groups(first, second_rows, second, played, keeps: int, rng) -> dict[str, np.ndarray]:
    """Rows of the three groups (module docstring); every keep when ``keeps`` exceeds them."""
    repeat = second == first[second_rows]
    kept = np.flatnonzero(first == played)
    return {
        "reproducible overrides": second_rows[repeat],
        "one-off overrides": second_rows[~repeat],
        "keeps": np.sort(rng.permutation(kept)[: min(keeps, kept.size)]),
    }


def budget(text: str) -> tuple[int, int | None]:
    """``R`` or ``R:C`` as (rollouts, candidates or None: the run's)."""
    rollouts, _, candidates = text.partition(":")
    try:
        return int(rollouts), int(candidates) if candidates else None
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected R or R:C (integers), got {text!r}") from None


def quality(args, parser: argparse.ArgumentParser) -> None:
    config = json.loads((args.run / "config.json").read_text())
    if args.seed in (config["seed"], args.relabels):
        parser.error("--seed must differ from the run's and the relabels' seeds")
    relabels = args.run / f"round-{args.round}" / f"relabels-seed{args.relabels}.npz"
    if not relabels.is_file():
        parser.error(f"{relabels} is missing: run benchmarks/labels.py noise on the run first")
    config.update(seed=args.seed, label_workers=1, progress=False)
    positions, first, _, _ = labelled_round(args.run, args.round)
    played = positions.action.astype(np.int64)
    with np.load(relabels) as saved:
        second_rows, second = saved["rows"], saved["action"].astype(np.int64)
    rng = np.random.default_rng(args.seed)
    rows = groups(first, second_rows, second, played, args.keeps, rng)
    n_kept = int((first == played).sum())
    # Each group's share of the round: what its rows stand for over all positions.
    weight = {
        "reproducible overrides": rows["reproducible overrides"].size / len(positions),
        "one-off overrides": rows["one-off overrides"].size / len(positions),
        "keeps": n_kept / len(positions),
    }
    every = np.concatenate(list(rows.values()))
    picked = positions.take(every)
    torch.set_num_threads(1)
    net = policy_from_bundle(bundle_dir(config["start"]))
    net.eval()
    print(
        f"{args.run} round {args.round} (labelled twice with {config['search_rollouts']} "
        f"rollouts over {config['belief_candidates']} worlds): {len(positions)} positions; "
        + ", ".join(f"{k} {v.size} ({weight[k]:.1%})" for k, v in rows.items())
        + f" (keeps: {rows['keeps'].size} sampled of {n_kept})\n"
    )
    print(
        "| rollouts | belief candidates | CPU s/position | finds the reproducible overrides "
        "| overrides one-off / keeps | overrides, share of all positions | of them reproducible |"
    )
    print("|---|---|---|---|---|---|---|")
    for rollouts, candidates in args.budgets:
        settings = dict(config, search_rollouts=rollouts)  # the run's, but for the budget
        if candidates is not None:
            settings["belief_candidates"] = candidates
        try:
            _, cfg = presets.build_config(settings)
        except ConfigError as e:
            parser.error(str(e))
        search = expert_search(net, cfg)
        gen = np.random.default_rng([args.seed, rollouts, cfg.belief_candidates])
        warm = picked.take(np.arange(min(cfg.label_batch, len(picked))))
        label_positions(search, warm, gen)  # compiles the engine's kernels, untimed
        t0 = time.process_time()
        desc = f"{rollouts}:{cfg.belief_candidates}"
        with tqdm(total=len(picked), desc=desc, leave=False) as bar:
            chosen, _ = label_positions(search, picked, gen, cfg.label_batch, bar.update)
        seconds = (time.process_time() - t0) / len(picked)
        chosen = chosen.astype(np.int64)
        overrides = chosen != played[every]
        start = 0
        rate, same = {}, {}
        for name, r in rows.items():
            part = slice(start, start + r.size)
            start += r.size
            rate[name] = float(overrides[part].mean()) if r.size else float("nan")
            same[name] = float((chosen[part] == first[r]).mean()) if r.size else float("nan")
        total = sum(weight[k] * rate[k] for k in rows)
        true = weight["reproducible overrides"] * same["reproducible overrides"]
        print(
            f"| {rollouts} | {cfg.belief_candidates} | {seconds:.3f} "
            f"| {same['reproducible overrides']:.1%} "
            f"| {rate['one-off overrides']:.1%} / {rate['keeps']:.1%} | {total:.1%} "
            f"| {true / total if total else float('nan'):.0%} |",
            flush=True,
        )


# --- the command line --------------------------------------------------------------------------


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="labels.py",
        description=__doc__.split("\n\n")[0] + " Each subcommand's --help says how long it takes.",
        epilog="example: python -m benchmarks.labels speed --rollouts 500 --candidates 256",
    )
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    def command(name: str, text: str) -> argparse.ArgumentParser:
        return sub.add_parser(name, help=text, description=text)

    p = command(
        "speed",
        "positions labelled per CPU second by precision and batch size, and how the labels "
        "agree (seconds at the defaults; about 0.1-0.3 CPU s a position at the preset's budgets)",
    )
    p.add_argument("--positions", type=int, default=48, help="positions labelled per run")
    p.add_argument("--batch", type=int, nargs="+", default=[8], help="batch sizes")
    p.add_argument(
        "--precision",
        nargs="+",
        default=["float32", "int8"],
        choices=["float32", "int8"],
        help="the policy's arithmetic in the search's belief and rollouts",
    )
    p.add_argument("--rollouts", type=int, default=200, help="the search's rollouts")
    p.add_argument("--candidates", type=int, default=1024, help="belief worlds weighed")
    p.add_argument("--runs", type=int, default=3, help="runs (the median is reported)")
    p.add_argument("--boards", type=int, default=32, help="boards played for positions")
    p.add_argument("--seed", type=int, default=11, help="seed of the boards and sample")

    p = command(
        "noise",
        "a round's overrides labelled again by a second search: how reproducible they are "
        "(as long as labelling the overrides takes, about 0.1 CPU s each)",
    )
    p.add_argument("run", type=Path, help="a run of train.py --config distill")
    p.add_argument("--round", type=int, default=1, help="the labelled round to read")
    p.add_argument("--seed", type=int, default=7, help="seed of the second search")
    p.add_argument("--workers", type=int, default=1, help="labelling processes")

    p = command(
        "quality",
        "smaller searches scored against two searches that agree (minutes to an hour, by the "
        "budgets)",
    )
    p.add_argument("run", type=Path, help="a run of train.py --config distill")
    p.add_argument("--round", type=int, default=1, help="the labelled round to read")
    p.add_argument("--relabels", type=int, default=7, help="seed of noise's second labels")
    p.add_argument(
        "--budgets",
        type=budget,
        nargs="+",
        default=[(200, None), (200, 256), (50, 256)],
        help="searches to label with: R rollouts or R:C with C belief candidates",
    )
    p.add_argument("--keeps", type=int, default=600, help="keeps sampled (module doc)")
    p.add_argument("--seed", type=int, default=11, help="seed of the searches and sample")
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command == "speed":
        speed(args)
    elif args.command == "noise":
        noise(args, parser)
    else:
        quality(args, parser)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
