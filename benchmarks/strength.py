r"""How strong a bot plays: seeded duplicate boards, 95% confidence intervals over boards.

Every subcommand seats bots on the same seeded duplicate boards (``play_duplicate``: each
deal played from every seat, so the cards' luck cancels out) and prints points per hand
(par 1.5: a hand's 6 points over 4 players) with 95% CIs over boards; differences are paired
board by board. What changes between them is who plays and against whom:

``tables BOT``: whole matches against every table that matters: three rule bots; a rule, a
search and a greedy bot in every rotation; held-out opponents (three search bots, three copies
of a frozen earlier policy with ``--frozen``); three greedy bots. Match wins too (par 25%).
About 4,000 hands a table at the default 100 boards; a few minutes a table for a policy.

    python -m benchmarks.strength tables hard --boards 100 --frozen ckpt:early.pt

``rule-bots``: the rule-based bots against each other (A in one seat against three B), with
each bot's decisions per second; about a minute at 1,000 deals.

    python -m benchmarks.strength rule-bots --deals 1000 --seed 0

``search``: search on top of a policy (``search:N:POLICY``) at each rollout budget, against
three copies of the bare policy and three rule bots, with its thinking time a decision;
``--belief`` weighs the worlds by the hand's history, ``--models rule`` adds the rule bot as a
model of the others (``--belief --models rule`` is ``expert``'s search). Minutes to hours:
a belief search costs about a second a decision.

    python -m benchmarks.strength search --policy hard --budgets 25 50 100 200 --boards 100

``paired``: one bot against another (``expert`` against ``hard`` by default), each in one seat
against three rule bots on the first two hands of the same boards, by hand number (hand 1 has
the start-card duty, hand 2 the exchange); played in chunks, the table printed after each;
``--save`` keeps the points per board (``belief.py headroom`` reads them). ``expert`` takes
30-70 s a board on one core.

    python -m benchmarks.strength paired --boards 24 --chunk 8 --seed 100 --save paired.npz

``levels``: the shipped levels easy, medium and hard against three greedy bots, per seed: the
source of the margins in ``tests/test_shipped_policies.py``; seconds a seed.

    python -m benchmarks.strength levels --seeds 11 0 1 2 3

``variants``: each level against three rule bots under the standard rules and each rule
variant flag alone (RULES.md 7); ``--supported`` prints levels.json's ``supported_rules``. A
level plays a variant when the variant's whole interval is at par or better (``hard``,
``expert``), or, for a level made weaker on purpose, when its mean is within its standard
interval or above. Tens of seconds a cell for a policy, half an hour for ``expert``.

    nice -n 10 python -m benchmarks.strength variants --levels hard,medium,easy --boards 1000 \
        --supported

``fp16``: each shipped policy's ``model.fp16.onnx`` against its ``model.onnx``, paired; a few
minutes at 512 boards.

    nice -n 10 python -m benchmarks.strength fp16 --boards 512

``arithmetic``: Python's ``expert`` with its belief and rollouts in int8 (or float32 again)
on the boards of runs saved by ``js_levels.py --levels expert --baseline hard --save``, paired
with the saved float32 ``expert`` and ``hard``; ``--draws K`` takes another bot generator on
the same deals, ``--pool`` pairs saved sides without playing. About a minute of CPU a board.

    python -m benchmarks.strength arithmetic expert-300.npz --jobs 2 --save int8-300.npz
    python -m benchmarks.strength arithmetic expert-300.npz --arithmetic float32 --draws 1 \
        --jobs 2 --save float32-300.npz
    python -m benchmarks.strength arithmetic expert-300.npz --pool int8-300.npz float32-300.npz
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import time
from concurrent.futures import ProcessPoolExecutor

import numpy as np

from benchmarks.common import (
    Timed,
    board_points,
    ci_text,
    expert_in,
    load_saved,
    markdown_table,
    mean_ci,
    paired_ci_text,
    pooled,
    table_results,
)
from murlan_cli.options import add_rules_argument
from murlan_env.bots import registry
from murlan_env.bots.baseline import GreedyBot, RandomBot
from murlan_env.bots.policy import BundleBot
from murlan_env.bots.rule import RuleBot
from murlan_env.bots.search import SearchBot
from murlan_env.eval.duplicate import one_against_three, play_duplicate
from murlan_env.game.rules import RULE_CHOICES, Rules, RulesError, flag_word

PAR = 1.5


# --- tables ------------------------------------------------------------------------------------


def tables(args) -> None:
    boards = [
        ("3 x rule", ["rule"]),
        (f"rule + {args.search} + greedy", ["rule", args.search, "greedy"]),
        (f"3 x {args.search} (held out)", [args.search]),
    ]
    if args.frozen:
        boards.append((f"3 x {args.frozen} (held out)", [args.frozen]))
    boards.append(("3 x greedy", ["greedy"]))
    print(f"{args.bot}: whole matches, {args.boards} boards per table, seed {args.seed}")
    print("| table | points/hand (95% CI) | 1st | match wins (95% CI) | hands | matches |")
    print("|---|---|---|---|---|---|")
    for name, others in boards:
        r = table_results(args.bot, others, args.boards, args.seed)
        lo, hi = r.points_ci95
        wlo, whi = r.match_win_ci95
        print(
            f"| {name} | {r.points_per_hand:.3f} ({lo:.3f}-{hi:.3f}) | {r.first_rate:.0%} "
            f"| {r.match_win_rate:.0%} ({wlo:.0%}-{whi:.0%}) | {r.hands} | {r.matches} |",
            flush=True,
        )


# --- rule-bots ---------------------------------------------------------------------------------


def rule_bots(args) -> None:
    rules = args.parsed_rules
    bots = {"random": Timed(RandomBot()), "greedy": Timed(GreedyBot()), "rule": Timed(RuleBot())}
    matchups = [("greedy", "random"), ("rule", "greedy"), ("rule", "random"), ("greedy", "rule")]
    print(f"rules {rules.to_dict()}  deals {args.deals} x 4 seats x {args.hands_per_deal} hands")
    print(f"{'A vs 3 x B':<20}{'A points/hand':>14}{'95% CI':>18}{'seconds':>9}")
    for a, b in matchups:
        start = time.perf_counter()
        result = play_duplicate(
            [bots[a], bots[b]],
            args.deals,
            lineups=one_against_three(),
            seed=args.seed,
            rules=rules,
            max_hands=args.hands_per_deal,
        )
        row = result.bot_results()[0]
        mean, (low, high) = row.points_per_hand, row.points_ci95
        elapsed = time.perf_counter() - start
        print(f"{a + ' vs ' + b:<20}{mean:>14.3f}{f'[{low:.3f}, {high:.3f}]':>18}{elapsed:>9.1f}")
    print(f"parity {PAR}")
    for name, bot in bots.items():
        rate = bot.decisions / bot.seconds if bot.seconds else float("nan")
        print(f"{name:<8} {bot.decisions:>9} decisions  {rate:>10.0f} decisions/s")


# --- search ------------------------------------------------------------------------------------


def search(args) -> None:
    policy = args.policy
    bare = registry.make_bot(policy)
    rows = [(policy, bare)]
    if args.belief:
        models = [registry.make_bot(spec) for spec in args.models]
        guide = registry.guided_by(bare, belief=True, models=models)
        if args.candidates is not None:
            guide["belief_candidates"] = args.candidates
        tag = "+belief" + "".join(f"+{spec}" for spec in args.models)
        tag += "" if args.candidates is None else f"/{args.candidates}"
        rows += [(f"search:{n}:{policy}{tag}", SearchBot(n, **guide)) for n in args.budgets]
    else:
        rows += [
            (f"search:{n}:{policy}", registry.make_bot(f"search:{n}:{policy}"))
            for n in args.budgets
        ]
    opponents = args.opponents or [policy, "rule"]
    header = f"{'bot':<30}" + "".join(f"{'vs 3 x ' + o:>20}" for o in opponents)
    print(f"{header}{'s/decision':>12}")
    for name, bot in rows:
        timed = Timed(bot)
        cells = []
        for opponent in opponents:
            r = table_results(timed, [opponent], args.boards, args.seed, max_hands=args.max_hands)
            low, high = r.points_ci95
            cells.append(f"{r.points_per_hand:.3f} ± {(high - low) / 2:.3f}")
        per = timed.seconds / max(timed.decisions, 1)
        print(f"{name:<30}" + "".join(f"{c:>20}" for c in cells) + f"{per:>12.4f}", flush=True)


# --- paired ------------------------------------------------------------------------------------


def per_board_hand(result, bot: int, hand: int) -> np.ndarray:
    """(boards,) the bot's mean points over its seats on hand ``hand`` of each board."""
    seats = result.lineups[result.hand_lineup] == bot  # (H, 4)
    rows, cols = np.nonzero(seats & (result.hand_number == hand)[:, None])
    total = np.bincount(result.hand_board[rows], result.hand_points[rows, cols], result.boards)
    count = np.bincount(result.hand_board[rows], minlength=result.boards)
    return total / np.maximum(count, 1)


def paired_bot(args, parser: argparse.ArgumentParser):
    """``--bot``, or the search level it names with ``--candidates`` / ``--arithmetic``
    changed (built as the level itself is)."""
    if args.candidates is None and not args.arithmetic:
        return registry.make_bot(args.bot)
    level = dict(registry.levels().get(args.bot) or {})
    if not level.get("belief"):
        parser.error(
            f"--candidates and --arithmetic need a search level with a belief, not {args.bot!r}"
        )
    name = args.bot
    if args.candidates is not None:
        if args.candidates < 1:
            parser.error("--candidates must be positive")
        scale = args.candidates / level["candidates"]
        level["alternative_candidates"] = max(1, round(level["alternative_candidates"] * scale))
        level["candidates"] = args.candidates
        name += f"-{args.candidates}"
    if args.arithmetic:
        level["arithmetic"] = args.arithmetic
        name += f"-{args.arithmetic}"
    return registry.level_bot(name, level)


def paired(args, parser: argparse.ArgumentParser) -> None:
    if args.boards < 2 or args.chunk < 1:
        parser.error("--boards must be at least 2 and --chunk at least 1")
    bot = paired_bot(args, parser)
    bots = [bot, registry.make_bot(args.base), registry.make_bot(args.table)]
    print(
        f"{bot.name} and {args.base}, each in one seat against three {args.table} bots on the "
        "same boards, first two hands",
        flush=True,
    )
    lineups = np.array(
        [[b if s == k else 2 for s in range(4)] for b in (0, 1) for k in range(4)], np.int64
    )
    points = {(b, h): [] for b in (0, 1) for h in (0, 1)}
    done, start, seed = 0, time.perf_counter(), args.seed
    while done < args.boards:
        n = min(args.chunk, args.boards - done)
        result = play_duplicate(bots, n, lineups=lineups, seed=seed, max_hands=2)
        for b, h in points:
            points[b, h].append(per_board_hand(result, b, h))
        done, seed = done + n, seed + 1
        if args.save:
            np.savez(
                args.save,
                **{f"bot{b}_hand{h + 1}": np.concatenate(v) for (b, h), v in points.items()},
            )
        took = time.perf_counter() - start
        print(f"{done} boards (seeds {args.seed}-{seed - 1}), {took:.0f} s", flush=True)
        rows = []
        for h, label in ((0, "1 (start duty)"), (1, "2 (exchange)"), (None, "1 and 2")):
            hands = (0, 1) if h is None else (h,)
            mine = np.mean([np.concatenate(points[0, k]) for k in hands], axis=0)
            base = np.mean([np.concatenate(points[1, k]) for k in hands], axis=0)
            rows.append(
                [
                    label,
                    ci_text(mean_ci(mine)),
                    ci_text(mean_ci(base)),
                    paired_ci_text(mine, base),
                ]
            )
        print(markdown_table(["hand", bot.name, args.base, "gain (paired)"], rows), flush=True)


# --- levels ------------------------------------------------------------------------------------

LEVELS = ("easy", "medium", "hard")


def level_board_points(level: str, boards: int, seed: int, max_hands: int = 2) -> np.ndarray:
    """(boards,) the level's points per hand on each board against three greedy bots."""
    return board_points(level, boards, seed, max_hands, opponent="greedy")


def levels(args) -> None:
    for seed in args.seeds:
        points = {level: level_board_points(level, args.boards, seed) for level in LEVELS}
        line = f"seed {seed}: hard {ci_text(mean_ci(points['hard']))}"
        for better, worse in (("hard", "medium"), ("medium", "easy")):
            line += f" | {better} - {worse} {paired_ci_text(points[better], points[worse])}"
        print(line, flush=True)


# --- variants ----------------------------------------------------------------------------------

FULL_STRENGTH = ("hard", "expert")  # levels judged by par, not against their own standard figure


def all_variants() -> list[Rules]:
    """The standard rules, then each non-default value of each flag alone."""
    out = [Rules()]
    for flag, values in RULE_CHOICES.items():
        out += [Rules.from_dict({flag: v}) for v in values[1:]]
    return out


def pick_variants(names: str | None) -> list[Rules]:
    """The variants named in ``names`` (comma-separated, as printed: ``standard``,
    ``sticky_pass=true``, ...), in table order; all of them when None. ValueError names
    an unknown one."""
    every = {rules.text() or "standard": rules for rules in all_variants()}
    if names is None:
        return list(every.values())
    wanted = [x.strip() for x in names.split(",") if x.strip()]
    unknown = [x for x in wanted if x not in every]
    if unknown:
        raise ValueError(f"unknown variant {unknown[0]!r}; choose from {', '.join(every)}")
    return [rules for name, rules in every.items() if name in wanted]


def variants(args, parser: argparse.ArgumentParser) -> None:
    names = [x.strip() for x in args.levels.split(",") if x.strip()]
    try:
        rows = pick_variants(args.variants)
    except ValueError as e:
        parser.error(str(e))
    if rows[0] != Rules() and any(level not in FULL_STRENGTH for level in names):
        parser.error("the weaker levels are judged against their standard-rules row: keep it")
    print(
        f"{args.boards} boards x 4 seats x {args.max_hands} hands, seed {args.seed}, "
        "one level against three rule bots; points per hand, 95% CI"
    )
    print(f"{'level':<8}{'rules':<24}{'points/hand':>12}{'95% CI':>18}{'plays':>7}{'s':>7}")
    supported: dict[str, dict[str, list]] = {}
    for level in names:
        base = None
        keep = {flag: [flag_word(values[0])] for flag, values in RULE_CHOICES.items()}
        for rules in rows:
            start = time.perf_counter()
            got = table_results(
                level, ["rule"], args.boards, args.seed, max_hands=args.max_hands, rules=rules
            )
            mean, (low, high) = got.points_per_hand, got.points_ci95
            if base is None:
                base = (mean, low, high)
            if level in FULL_STRENGTH or base[0] >= PAR:
                plays = low >= PAR
            else:
                plays = mean >= base[1]
            name = rules.text() or "standard"
            if plays and rules != Rules():
                flag, value = next(iter(rules.to_dict().items()))
                keep[flag].append(flag_word(value))
            seconds = time.perf_counter() - start
            print(
                f"{level:<8}{name:<24}{mean:>12.3f}{f'[{low:.3f}, {high:.3f}]':>18}"
                f"{'yes' if plays else 'no':>7}{seconds:>7.0f}",
                flush=True,
            )
        supported[level] = keep
    if args.supported:
        print(json.dumps(supported, indent=1))


# --- fp16 --------------------------------------------------------------------------------------


def fp16(args) -> None:
    print(f"{args.boards} boards x 4 seats x {args.max_hands} hands, seed {args.seed}, vs 3 rule")
    rows = []
    for name in args.policies.split(","):
        folder = registry.policies_dir() / name
        per_board = [
            board_points(
                BundleBot(folder, precision=precision, name=f"{name}-{precision}"),
                args.boards,
                args.seed,
                args.max_hands,
            )
            for precision in ("float32", "float16")
        ]
        diff = per_board[1] - per_board[0]
        mean, lo, hi = mean_ci(diff)
        rows.append(
            [
                name,
                f"{per_board[0].mean():.3f}",
                f"{per_board[1].mean():.3f}",
                f"{mean:+.4f} [{lo:+.4f}, {hi:+.4f}]",
                int((diff != 0).sum()),
            ]
        )
        print(f"{name} done", flush=True)
    header = ["policy", "float32", "float16", "fp16 - fp32, 95% CI", "boards that differ"]
    print(markdown_table(header, rows))


# --- arithmetic --------------------------------------------------------------------------------

META = ("seed", "chunk", "max_hands")
DRAWS_STRIDE = 1_000_000  # --draws K: the bots' generator of seed + K * DRAWS_STRIDE
SAVED_BY = "js_levels.py --levels expert --baseline hard --save"


def played_points(
    arithmetic: str, boards: int, seed: int, max_hands: int, draws: int
) -> tuple[np.ndarray, float]:
    """`expert`'s points per board in ``arithmetic`` (``board_points``) and their CPU seconds."""
    start = time.process_time()
    bot = expert_in(arithmetic)
    got = board_points(bot, boards, seed, max_hands, seed + draws * DRAWS_STRIDE)
    return got, time.process_time() - start


def against_saved(played: np.ndarray, runs: list[dict]) -> dict[str, np.ndarray]:
    """The points played here on the runs' first boards (in the runs' order) beside the saved
    float32 run's and hard's points on the same boards."""
    n = len(played)
    return {
        "played": played,
        "float32": pooled(runs, "expert_py")[:n],
        "hard": pooled(runs, "expert_base")[:n],
    }


def arithmetic_table(have: dict[str, np.ndarray], label: str) -> None:
    """The three sides' points per hand and the played side's paired differences."""
    text = [ci_text(mean_ci(have[k])) for k in ("played", "float32", "hard")]
    text += [paired_ci_text(have["played"], have[k]) for k in ("float32", "hard")]
    header = ["boards", label, "saved float32", "hard", f"{label} - saved", f"{label} - hard"]
    print(markdown_table(header, [[len(have["played"]), *text]]), flush=True)


def arithmetic_pool(paths: list[str], runs: list[dict]) -> None:
    """Every saved side's points per hand, each paired with the saved float32 run and `hard`,
    and int8 with each float32 run played here and with the mean of all float32 runs."""
    boards = sum(len(r["expert_py"]) for r in runs)
    sides = {"saved float32": pooled(runs, "expert_py")}
    hard = pooled(runs, "expert_base")
    for path in paths:
        saved = load_saved(path, ["points", "label"], "strength.py arithmetic --save")
        points, label = saved["points"], str(saved["label"])
        if len(points) != boards:
            raise SystemExit(f"{path} holds {len(points)} boards, the FILEs {boards}")
        sides[label if label not in sides else f"{label}, {path}"] = points
    float32 = [v for k, v in sides.items() if "float32" in k]
    rows = [[label, ci_text(mean_ci(points))] for label, points in [*sides.items(), ("hard", hard)]]
    print(markdown_table([f"side, {boards} boards", "points a hand"], rows))
    pairs = []
    for label, points in list(sides.items())[1:]:
        pairs += [(f"{label} - saved float32", points - sides["saved float32"])]
        if len(float32) > 1 and "float32" not in label:
            others = [k for k in list(sides)[1:] if "float32" in k]
            pairs += [(f"{label} - {k}", points - sides[k]) for k in others]
            pairs += [(f"{label} - the float32 runs' mean", points - np.mean(float32, axis=0))]
        pairs += [(f"{label} - hard", points - hard)]
    rows = [[label, ci_text(mean_ci(diff), "+")] for label, diff in pairs]
    print()
    print(markdown_table(["paired, board by board", "95% CI"], rows), flush=True)


def arithmetic(args, parser: argparse.ArgumentParser) -> None:
    if args.jobs < 1 or args.draws < 0:
        parser.error("--jobs must be at least 1 and --draws at least 0")
    runs = [load_saved(path, [*META, "expert_py", "expert_base"], SAVED_BY) for path in args.runs]
    if args.pool:
        arithmetic_pool(args.pool, runs)
        return
    label = args.arithmetic + (f" (draws {args.draws})" if args.draws else "")
    chunks = []  # (run index, boards, seed)
    for i, run in enumerate(runs):
        boards, chunk, seed = len(run["expert_py"]), int(run["chunk"]), int(run["seed"])
        chunks += [
            (i, min(chunk, boards - d), seed + k) for k, d in enumerate(range(0, boards, chunk))
        ]
    print(
        f"expert, belief and rollouts in {label}, against the saved float32 points of "
        f"{', '.join(args.runs)}: {sum(c[1] for c in chunks)} boards, {args.jobs} chunk(s) at once"
    )
    got: list[np.ndarray] = []  # each chunk's points, in the runs' order of boards
    cpu, start = 0.0, time.perf_counter()
    spawn = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(args.jobs, mp_context=spawn) as procs:
        futures = [
            procs.submit(
                played_points, args.arithmetic, n, seed, int(runs[i]["max_hands"]), args.draws
            )
            for i, n, seed in chunks
        ]
        for future in futures:
            points, seconds = future.result()
            got.append(points)
            cpu += seconds
            played = np.concatenate(got)
            if args.save:
                np.savez(args.save, points=played, label=label)
            took = time.perf_counter() - start
            print(f"\n{len(played)} boards, {took:.0f} s, {cpu / len(played):.1f} CPU s a board")
            arithmetic_table(against_saved(played, runs), label)


# --- the command line --------------------------------------------------------------------------


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="strength.py",
        description=__doc__.split("\n\n")[0] + " Subcommands: what is measured against what; "
        "each one's --help says how long it takes.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="example: python -m benchmarks.strength tables hard --boards 100",
    )
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    def command(name: str, text: str) -> argparse.ArgumentParser:
        return sub.add_parser(name, help=text, description=text)

    p = command(
        "tables",
        "a bot's whole matches at every table that matters (about 4,000 hands a table at "
        "100 boards; minutes a table for a policy)",
    )
    p.add_argument("bot", help="the bot spec to measure (e.g. hard, ckpt:runs/x)")
    p.add_argument("--boards", type=int, default=100, help="boards per table")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--search", default="search:100", help="the search bot's spec")
    p.add_argument("--frozen", default=None, help="a frozen earlier policy (held out)")

    p = command(
        "rule-bots",
        "the rule-based bots against each other, and their decisions per second (about a "
        "minute at 1,000 deals)",
    )
    p.add_argument("--deals", type=int, default=1000, help="duplicate deals per matchup")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--hands-per-deal", type=int, default=2)
    add_rules_argument(p)

    p = command(
        "search",
        "search on top of a policy at each rollout budget, with its thinking time (minutes "
        "for plain searches, hours for a belief search on 100 boards)",
    )
    p.add_argument("--policy", default="hard", help="bot spec searched over (a policy)")
    p.add_argument("--budgets", nargs="+", type=int, default=[25, 50, 100, 200])
    p.add_argument("--boards", type=int, default=100, help="duplicate boards per matchup")
    p.add_argument("--max-hands", type=int, default=2, help="hands per board")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--belief", action="store_true", help="weigh the worlds by the hand's history")
    p.add_argument(
        "--models",
        nargs="+",
        default=[],
        metavar="BOT",
        help="with --belief: other bots the others may play like (e.g. rule)",
    )
    p.add_argument(
        "--candidates",
        type=int,
        default=None,
        help="with --belief: uniform worlds the belief weighs (default: SearchBot's, 1,024)",
    )
    p.add_argument(
        "--opponents",
        nargs="+",
        default=None,
        metavar="BOT",
        help="the tables: three copies of each (default: the policy, then rule)",
    )

    p = command(
        "paired",
        "one bot against another on the same boards, by hand number (expert: 30-70 s a board "
        "on one core)",
    )
    p.add_argument("--boards", type=int, default=40)
    p.add_argument("--chunk", type=int, default=8, help="boards per duplicate run")
    p.add_argument("--seed", type=int, default=100)
    p.add_argument("--bot", default="expert", help="the bot paired against --base")
    p.add_argument("--base", default="hard")
    p.add_argument(
        "--table",
        default="rule",
        help="the three others at every board: a bot spec (rule; hard: a table of the shipped "
        "hard level)",
    )
    p.add_argument(
        "--candidates",
        type=int,
        default=None,
        help="--bot's belief candidates (its rule-bot candidates scaled alike): 256 is a "
        "quarter of expert's worlds",
    )
    p.add_argument(
        "--arithmetic",
        choices=("float32", "int8"),
        default=None,
        help="--bot's belief and rollouts in this arithmetic (a search level's field; "
        "default: the level's)",
    )
    p.add_argument(
        "--save", default=None, help="write each bot's points per board and hand here (.npz)"
    )

    p = command(
        "levels",
        "easy, medium and hard against three greedy bots, per seed: the margins "
        "tests/test_shipped_policies.py holds (seconds a seed)",
    )
    p.add_argument("--seeds", type=int, nargs="+", default=[11])
    p.add_argument("--boards", type=int, default=48)

    p = command(
        "variants",
        "the levels under each rule variant against three rule bots (tens of seconds a cell, "
        "half an hour a cell for expert)",
    )
    p.add_argument("--levels", default="easy,medium,hard", help="comma-separated levels")
    p.add_argument("--boards", type=int, default=400, help="duplicate boards per cell")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--max-hands", type=int, default=2, help="hands per board and seat")
    p.add_argument("--supported", action="store_true", help="print supported_rules JSON")
    p.add_argument(
        "--variants",
        help="comma-separated subset of the table's rows (default: all); the weaker levels "
        "need the standard row, which they are judged against",
    )

    p = command(
        "fp16",
        "each shipped policy's float16 model against its float32 one, paired (a few minutes "
        "at 512 boards)",
    )
    p.add_argument("--boards", type=int, default=512)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--max-hands", type=int, default=2)
    p.add_argument("--policies", default=",".join(registry.shipped_policies()))

    p = command(
        "arithmetic",
        "expert's belief and rollouts in int8 or float32, paired with saved float32 runs "
        "(about a minute of CPU a board)",
    )
    p.add_argument("runs", nargs="+", metavar="FILE", help=f"runs saved by {SAVED_BY}")
    p.add_argument(
        "--arithmetic",
        choices=("int8", "float32"),
        default="int8",
        help="the belief and rollouts' arithmetic of the expert played here (default int8)",
    )
    p.add_argument(
        "--draws",
        type=int,
        default=0,
        help="0: the saved run's bot generator; K > 0: another one, on the same deals",
    )
    p.add_argument("--jobs", type=int, default=1, help="chunks played at once (processes)")
    p.add_argument("--save", default=None, help="write the points per board here (.npz)")
    p.add_argument(
        "--pool",
        nargs="+",
        metavar="SAVED",
        help="play nothing: pair the points of files saved with --save (each over the FILEs, "
        "in the same order) with the runs' points and with each other",
    )
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command == "tables":
        tables(args)
    elif args.command == "rule-bots":
        try:
            args.parsed_rules = Rules.parse(args.rules)
        except RulesError as e:
            parser.error(f"--rules: {e}")  # exits 2
        rule_bots(args)
    elif args.command == "search":
        if args.candidates is not None and not args.belief:
            parser.error("--candidates needs --belief: they are the belief's worlds")
        if args.candidates is not None and args.candidates < 1:
            parser.error(f"--candidates must be positive, got {args.candidates}")
        if args.models and not args.belief:
            parser.error("--models needs --belief: the belief chooses each seat's model")
        search(args)
    elif args.command == "paired":
        paired(args, parser)
    elif args.command == "levels":
        levels(args)
    elif args.command == "variants":
        variants(args, parser)
    elif args.command == "fp16":
        fp16(args)
    elif args.command == "arithmetic":
        arithmetic(args, parser)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
