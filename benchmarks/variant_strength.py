"""The difficulty levels under every rule variant: points per hand against three rule bots.

Each level plays one seat against three rule bots under the standard rules and under each
variant flag alone (RULES.md 7), on seeded duplicate boards (the first ``--max-hands`` hands
of each match, every board played four times with the seats rotated, so the cards' luck
cancels out). It prints points per hand with 95% confidence intervals over boards; par is
1.5 (a hand's 6 points over 4 players). A level plays a variant when the variant's whole
interval is at par or better (``hard``), or, for a level made weaker on purpose (``easy``,
``medium``), when its mean under the variant is within the interval of its standard-rules
figure or above it: the variant takes nothing from it. ``--supported`` prints the
``supported_rules`` lists those criteria give, for levels.json.

    nice -n 10 python benchmarks/variant_strength.py --levels hard --boards 400
    nice -n 10 python benchmarks/variant_strength.py --levels easy,medium --boards 200
    nice -n 10 python benchmarks/variant_strength.py --levels expert --boards 24 \
        --variants sticky_pass=true,joker_pair=true,straight_plus_one=true

``expert`` (the slowest level by far) is judged like ``hard``, by par; its variants can be split
over processes with ``--variants``.
"""

from __future__ import annotations

import argparse
import json
import time

from murlan_env.bots import registry
from murlan_env.eval.duplicate import one_against_three, play_duplicate
from murlan_env.game.rules import RULE_CHOICES, Rules, flag_word

PAR = 1.5
FULL_STRENGTH = ("hard", "expert")  # levels judged by par, not against their own standard figure


def variants() -> list[Rules]:
    """The standard rules, then each non-default value of each flag alone."""
    out = [Rules()]
    for flag, values in RULE_CHOICES.items():
        out += [Rules.from_dict({flag: v}) for v in values[1:]]
    return out


def pick_variants(names: str | None) -> list[Rules]:
    """The variants named in ``names`` (comma-separated, as printed: ``standard``,
    ``sticky_pass=true``, ...), in table order; all of them when None. ValueError names
    an unknown one."""
    every = {rules.text() or "standard": rules for rules in variants()}
    if names is None:
        return list(every.values())
    wanted = [x.strip() for x in names.split(",") if x.strip()]
    unknown = [x for x in wanted if x not in every]
    if unknown:
        raise ValueError(f"unknown variant {unknown[0]!r}; choose from {', '.join(every)}")
    return [rules for name, rules in every.items() if name in wanted]


def measure(level: str, rules: Rules, boards: int, seed: int, max_hands: int):
    """(points per hand, (low, high) 95% CI) of ``level`` against three rule bots."""
    result = play_duplicate(
        [registry.make_bot(level), registry.make_bot("rule")],
        boards,
        lineups=one_against_three(),
        seed=seed,
        rules=rules,
        max_hands=max_hands,
    )
    row = result.bot_results()[0]
    return row.points_per_hand, row.points_ci95


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--levels", default="easy,medium,hard", help="comma-separated levels")
    parser.add_argument("--boards", type=int, default=400, help="duplicate boards per cell")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--max-hands", type=int, default=2, help="hands per board and seat")
    parser.add_argument("--supported", action="store_true", help="print supported_rules JSON")
    parser.add_argument(
        "--variants",
        help="comma-separated subset of the table's rows (default: all); the weaker levels "
        "need the standard row, which they are judged against",
    )
    args = parser.parse_args(argv)
    levels = [x.strip() for x in args.levels.split(",") if x.strip()]
    try:
        rows = pick_variants(args.variants)
    except ValueError as e:
        parser.error(str(e))
    if rows[0] != Rules() and any(level not in FULL_STRENGTH for level in levels):
        parser.error("the weaker levels are judged against their standard-rules row: keep it")
    print(
        f"{args.boards} boards x 4 seats x {args.max_hands} hands, seed {args.seed}, "
        "one level against three rule bots; points per hand, 95% CI"
    )
    print(f"{'level':<8}{'rules':<24}{'points/hand':>12}{'95% CI':>18}{'plays':>7}{'s':>7}")
    supported: dict[str, dict[str, list]] = {}
    for level in levels:
        base = None
        keep = {flag: [flag_word(values[0])] for flag, values in RULE_CHOICES.items()}
        for rules in rows:
            start = time.perf_counter()
            mean, (low, high) = measure(level, rules, args.boards, args.seed, args.max_hands)
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


if __name__ == "__main__":
    main()
