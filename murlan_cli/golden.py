"""``murlan golden``: golden test vectors for any bundle, scored by its float32 ONNX model.

Apps and the JavaScript client test their encoders and move choosers against these vectors
(``murlan_env.bundle.golden``); a fresh set with another seed tests them on positions never
shipped.

Exit status 0 when the set is written and checks against this engine; 1 when it does not
cover the game (some observation entry never varies) or does not replay; 2 for bad input.
"""

from __future__ import annotations

import argparse
import sys

from murlan_cli.options import add_supports_argument, output_file, seed, supported_rules
from murlan_cli.terminal import UsageError, stage_progress

# The stages of making a golden set (``make_golden``'s progress), as the bars name them.
GOLDEN_STAGES = {"play": "playing matches"}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The ``murlan golden`` options."""
    from murlan_env.bundle.manifest import BUNDLE_FORMAT, UPGRADABLE_FORMATS

    parser.add_argument("bundle", metavar="BUNDLE_DIR", help="bundle directory (bot.json ...)")
    parser.add_argument("--seed", type=seed, default=0, help="seed of the golden matches")
    parser.add_argument("--positions", type=int, default=256, help="positions to record")
    parser.add_argument(
        "--out",
        type=output_file,
        metavar="FILE",
        help="write the set to FILE and leave the bundle as it is "
        "(default: the bundle's own golden.json, and its entry in bot.json)",
    )
    parser.add_argument(
        "--upgrade",
        action="store_true",
        help=f"rewrite an older ({' or '.join(UPGRADABLE_FORMATS)}) bot.json as "
        f"{BUNDLE_FORMAT} first (the model is kept; a shipped policy's bot.json gets its levels)",
    )
    add_supports_argument(
        parser,
        "record rule variants the policy is measured to play (repeatable; bot.json's "
        "supported_rules, which the golden set then covers)",
    )
    parser.add_argument(
        "--fp16",
        action="store_true",
        help="also write model.fp16.onnx (float16 weights) with its tolerance on the new set",
    )


def run(args: argparse.Namespace) -> int:
    """Run ``murlan golden`` from parsed arguments; UsageError for bad input."""
    from murlan_env.bundle.files import BundleError, regenerate_golden, verify_golden
    from murlan_env.bundle.golden import GoldenError, TooFewPositions

    if args.positions < 1:
        raise UsageError(f"--positions must be at least 1, got {args.positions}")
    if args.fp16 and args.out is not None:
        raise UsageError("--fp16 measures the new model on the bundle's own set: drop --out")
    supports = supported_rules(args.supports)
    try:
        with stage_progress(GOLDEN_STAGES) as progress:
            _, golden = regenerate_golden(
                args.bundle,
                seed=args.seed,
                positions=args.positions,
                out=args.out,
                upgrade=args.upgrade,
                supports=supports,
                progress=progress,
            )
    except (BundleError, TooFewPositions) as e:
        raise UsageError(str(e)) from None
    except GoldenError as e:
        print(f"murlan golden: {e}", file=sys.stderr)
        return 1
    if args.fp16:
        from murlan_env.bundle.quantize import add_float16

        half = add_float16(args.bundle).model("float16")
        print(f"wrote {half.file}: {half.bytes} bytes, golden tolerance {half.tolerance:g}")
    report = verify_golden(args.bundle, golden)
    where = args.out or f"{args.bundle}/golden.json"
    print(
        f"wrote {where}: {len(golden['positions'])} positions of {len(golden['matches'])} matches"
    )
    tags = golden["coverage"]["tags"]
    print("covers: " + ", ".join(f"{t} {n}" for t, n in tags.items()))
    print(check_line(report))
    return 0 if report["ok"] else 1


def check_line(check: dict) -> str:
    """``verify_golden``'s report in one line for a reader: every position replays and every
    model picks its move, or what differs (positions whose observation, state, legal moves or
    cards differ; moves each model picks otherwise, and its largest score difference)."""
    head = f"golden positions: {check['positions']}, "
    if check["ok"]:
        return head + "every one replays and every model picks its move"
    wrong = {
        "observation": sum(check["obs"].values()),
        "state": check["state"],
        "legal moves": check["legal"],
        "cards": check["cards"],
    }
    found = [f"{n} with another {what}" for what, n in wrong.items() if n]
    found += [
        f"{m['action_mismatches']} other move(s) from {file} "
        f"(largest score difference {m['scores_max_diff']:.1e})"
        for file, m in check["models"].items()
        if m["action_mismatches"] or m["scores_max_diff"] > 0
    ]
    return head + "FAILED: " + "; ".join(found or ["a model is outside its tolerance"])
