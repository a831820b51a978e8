"""``murlan export``: a checkpoint's bundle for apps, then checked as an app would load it.

The export is ``agents.export.export_checkpoint`` (torch, imported when the command runs).
This module holds the options, runs the export with a progress bar per stage on a terminal,
prints a summary (the files written and their sizes, the golden positions, the PyTorch
parity; ``--json``: the same as one JSON object) and turns an unreadable checkpoint or too few
positions into a usage error (exit 2, one line on stderr).

Exit status 0 when the bundle loads strictly, its golden positions replay exactly and ONNX
Runtime is within 1e-5 of PyTorch on them; 1 when not, or when the golden set does not cover
the game; 2 when the checkpoint cannot be read.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from murlan_cli.golden import check_line
from murlan_cli.options import (
    add_supports_argument,
    count,
    output_folder,
    seed,
    supported_rules,
)
from murlan_cli.terminal import UsageError, stage_progress

TORCH_TOLERANCE = 1e-5  # the largest score difference between ONNX Runtime and PyTorch
# The stages of an export (``export_bundle``'s progress and the check here), as bars name them.
EXPORT_STAGES = {
    "onnx": "writing model.onnx",
    "coreml": "converting to Core ML",
    "play": "playing the golden matches",
    "float16": "writing model.fp16.onnx",
    "check": "checking the bundle",
}


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
    parser.add_argument(
        "--json", action="store_true", help="print the report as JSON instead of a summary"
    )


def run(args: argparse.Namespace) -> int:
    """Run ``murlan export`` from parsed arguments; UsageError for an unreadable checkpoint."""
    from agents.export import (  # torch loads only here
        HistoryNotCarried,
        export_checkpoint,
        torch_parity,
    )
    from agents.networks import CheckpointError, load_policy
    from murlan_env.bots.policy import BundleBot
    from murlan_env.bundle.files import verify_golden
    from murlan_env.bundle.golden import GoldenError, TooFewPositions

    try:
        with stage_progress(EXPORT_STAGES) as progress:
            bundle = export_checkpoint(
                args.checkpoint,
                args.out,
                n_positions=args.positions,
                seed=args.seed,
                coreml=not args.no_coreml,
                float16=not args.no_fp16,
                supported_rules=supported_rules(args.supports),
                progress=progress,
            )
            if progress:
                progress("check", 0, 1)
            BundleBot(args.out)
            check = verify_golden(args.out)
            parity = torch_parity(load_policy(args.checkpoint), args.out)
    except (CheckpointError, FileNotFoundError, TooFewPositions, HistoryNotCarried) as exc:
        raise UsageError(str(exc)) from None
    except GoldenError as exc:
        print(f"murlan export: error: {exc}", file=sys.stderr)
        return 1
    ok = check["ok"] and parity <= TORCH_TOLERANCE
    out = Path(args.out)
    report = {
        "bundle": str(args.out),
        "files": {p.name: p.stat().st_size for p in sorted(out.iterdir()) if p.is_file()},
        "models": {
            m.file: {"precision": m.precision, "tolerance": m.tolerance} for m in bundle.models
        },
        "golden": check,
        "torch_parity": parity,
        "coreml": bundle.coreml["note"],
        "ok": ok,
    }
    if args.json:
        print(json.dumps(report, indent=2))
    else:
        print("\n".join(summary_lines(report)))
    return 0 if ok else 1


def summary_lines(report: dict) -> list[str]:
    """The export report for a reader: the files written with their sizes, then whether the
    golden positions replay and ONNX Runtime agrees with PyTorch."""
    files = report["files"]
    width = max(map(len, files))
    lines = [f"wrote {report['bundle']}: {len(files)} files, {_size(sum(files.values()))}"]
    for name, size in files.items():
        model = report["models"].get(name)
        about = f"  {model['precision']}, tolerance {model['tolerance']:g}" if model else ""
        lines.append(f"  {name:<{width}}  {_size(size):>9}{about}")
    lines.append(check_line(report["golden"]))
    within = "within" if report["torch_parity"] <= TORCH_TOLERANCE else "OVER"
    lines.append(
        f"PyTorch vs ONNX Runtime on them: largest score difference "
        f"{report['torch_parity']:.1e} ({within} {TORCH_TOLERANCE:g})"
    )
    lines.append(f"Core ML: {report['coreml']}")
    return lines


def _size(n: int) -> str:
    """A file size as people read it: 812 B, 41.3 KB, 1.2 MB."""
    for unit in ("B", "KB"):
        if n < 1000:
            return f"{n} B" if unit == "B" else f"{n:.1f} KB"
        n /= 1000
    return f"{n:.1f} MB"
