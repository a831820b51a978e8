"""Search on top of a policy: strength against thinking time.

    python benchmarks/search_strength.py --policy hard --budgets 25 50 100 200 --boards 100

For each rollout budget N, ``search:N:POLICY`` (the policy plays every seat in the rollouts and
its own move stands unless the search finds one better by ``registry.SEARCH_MARGIN``) plays
one seat against three copies of the bare policy and against three rule bots, on the same
duplicate boards as the bare policy itself (points per hand, 95% CI over boards, par 1.5).
The last column is the search's mean thinking time per decision on this machine (one core).
With ``--belief`` the searches also weigh their worlds by how well they explain the others'
moves so far this hand under the policy (``SearchBot``'s ``belief``); ``--models rule`` adds
the rule bot as another model of the others, chosen seat by seat when it explains a seat's moves
better (``SearchBot``'s ``alternatives``); ``--belief --models rule`` is the ``expert``
level's search. ``--candidates K`` gives the belief K uniform worlds to weigh (the default,
the expert level's, 1,024); ``--opponents rule`` plays only the table against the rule bots.

    python benchmarks/search_strength.py --policy hard --budgets 500 --belief --models rule \
        --candidates 256 --opponents rule --boards 80 --seed 2
"""

from __future__ import annotations

import argparse
import sys

from bots_strength import Timed  # this folder is on the path
from strength import table_results

from murlan_env.bots import registry
from murlan_env.bots.search import SearchBot


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0],
        epilog="example: python benchmarks/search_strength.py --policy hard --budgets 50 200",
    )
    parser.add_argument("--policy", default="hard", help="bot spec searched over (a policy)")
    parser.add_argument("--budgets", nargs="+", type=int, default=[25, 50, 100, 200])
    parser.add_argument("--boards", type=int, default=100, help="duplicate boards per matchup")
    parser.add_argument("--max-hands", type=int, default=2, help="hands per board")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--belief", action="store_true", help="weigh the worlds by the hand's history"
    )
    parser.add_argument(
        "--models",
        nargs="+",
        default=[],
        metavar="BOT",
        help="with --belief: other bots the others may play like (e.g. rule)",
    )
    parser.add_argument(
        "--candidates",
        type=int,
        default=None,
        help="with --belief: uniform worlds the belief weighs (default: SearchBot's, 1,024)",
    )
    parser.add_argument(
        "--opponents",
        nargs="+",
        default=None,
        metavar="BOT",
        help="the tables: three copies of each (default: the policy, then rule)",
    )
    args = parser.parse_args(argv)
    if args.candidates is not None and not args.belief:
        parser.error("--candidates needs --belief: they are the belief's worlds")
    if args.candidates is not None and args.candidates < 1:
        parser.error(f"--candidates must be positive, got {args.candidates}")
    if args.models and not args.belief:
        parser.error("--models needs --belief: the belief chooses each seat's model")
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
    return 0


if __name__ == "__main__":
    sys.exit(main())
