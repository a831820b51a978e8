"""``murlan export``: a checkpoint's bundle for apps, then checked as an app would load it.

The export is ``agents.export.export_checkpoint`` (torch, imported when the command runs).
This module holds the options, runs the export, prints what was written and the golden
check, and turns an unreadable checkpoint into a usage error (exit 2, one line on stderr).

Exit status 0 when the bundle loads strictly, its golden positions replay exactly and ONNX
Runtime is within 1e-5 of PyTorch on them; 1 when not, or when the golden set does not cover
the game; 2 when the checkpoint cannot be read.
"""

from __future__ import annotations

import argparse
import sys

from murlan_cli.options import (
    add_supports_argument,
    count,
    output_folder,
    seed,
    supported_rules,
)
from murlan_cli.terminal import UsageError

TORCH_TOLERANCE = 1e-5  # the largest score difference between ONNX Runtime and PyTorch


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The ``murlan export`` options."""
    parser.add_argument("checkpoint", help="checkpoint file or run directory")
    parser.add_argument(
        "--out", required=True, type=output_folder, help="bundle directory to write"
    )
    parser.add_argument("--positions", type=count, default=256, help="golden positions to record")
    parser.add_argument("--seed", type=seed, default=0, help="seed of the golden matches")
    add_supports_argument(parser, "rule variants the policy is measured to play besides its own")
    parser.add_argument("--no-fp16", action="store_true", help="skip model.fp16.onnx")
    parser.add_argument("--no-coreml", action="store_true", help="skip the Core ML conversion")


def run(args: argparse.Namespace) -> int:
    """Run ``murlan export`` from parsed arguments; UsageError for an unreadable checkpoint."""
    from agents.export import export_checkpoint, torch_parity  # torch loads only here
    from agents.networks import CheckpointError, load_policy
    from murlan_env.bots.policy import BundleBot
    from murlan_env.bundle.files import GOLDEN_FILE, MANIFEST_FILE, verify_golden
    from murlan_env.bundle.golden import GoldenError, TooFewPositions

    try:
        bundle = export_checkpoint(
            args.checkpoint,
            args.out,
            n_positions=args.positions,
            seed=args.seed,
            coreml=not args.no_coreml,
            float16=not args.no_fp16,
            supported_rules=supported_rules(args.supports),
        )
    except (CheckpointError, FileNotFoundError, TooFewPositions) as exc:
        raise UsageError(str(exc)) from None
    except GoldenError as exc:
        print(f"murlan export: error: {exc}", file=sys.stderr)
        return 1
    BundleBot(args.out)
    check = verify_golden(args.out)
    parity = torch_parity(load_policy(args.checkpoint), args.out)
    files = ", ".join(f"{m.file} ({m.bytes} bytes)" for m in bundle.models)
    print(f"wrote {args.out}: {files}, {MANIFEST_FILE}, {GOLDEN_FILE}")
    print(f"golden: {check}")
    print(f"pytorch vs onnx on the golden positions: {parity:.2e}")
    print(f"core ml: {bundle.coreml['note']}")
    return 0 if check["ok"] and parity <= TORCH_TOLERANCE else 1
