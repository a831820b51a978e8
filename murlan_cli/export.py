"""``murlan export``: a checkpoint's bundle for apps, then checked as an app would load it.

The export is ``agents.export.export_checkpoint`` (torch, imported when the command runs);
the options are ``murlan_env.bots.bundle.export_arguments``. This module runs them, prints
what was written and the golden check, and turns an unreadable checkpoint into a usage error
(exit 2, one line on stderr). ``murlan_cli.bots`` registers the subcommand.

Exit status 0 when the bundle loads strictly and its golden positions replay exactly with ONNX
Runtime within 1e-5 of PyTorch, 1 when they do not, 2 when the checkpoint cannot be read.
"""

from __future__ import annotations

import argparse

from murlan_cli import UsageError

GOLDEN_TOLERANCE = 1e-5  # the largest score difference between ONNX Runtime and PyTorch


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The ``murlan export`` options."""
    from murlan_env.bots.bundle import export_arguments

    export_arguments(parser)


def run_command(args: argparse.Namespace) -> int:
    """Run ``murlan export`` from parsed arguments; UsageError for an unreadable checkpoint."""
    from agents.export import export_checkpoint  # torch is imported only when exporting
    from agents.networks import CheckpointError
    from murlan_env.bots.bundle import (
        GOLDEN_FILE,
        MODEL_FILE,
        SPEC_FILE,
        BundleBot,
        verify_golden,
    )

    try:
        bot = export_checkpoint(
            args.checkpoint,
            args.out,
            n_matches=args.matches,
            n_positions=args.positions,
            seed=args.seed,
            coreml=not args.no_coreml,
        )
    except (CheckpointError, FileNotFoundError) as exc:
        raise UsageError(str(exc)) from None
    BundleBot(args.out)
    check = verify_golden(args.out)
    size = bot["model"]["bytes"]
    print(f"wrote {args.out}: {MODEL_FILE} ({size} bytes), {SPEC_FILE}, {GOLDEN_FILE}")
    print(f"golden: {check}")
    print(f"core ml: {bot['coreml']['note']}")
    ok = (
        check["obs_max_diff"] == 0
        and check["mask_mismatches"] == 0
        and check["scores_max_diff"] <= GOLDEN_TOLERANCE
    )
    return 0 if ok else 1
