"""The bot subcommands: ``murlan export``, ``murlan golden``, ``murlan arena``, ``murlan play``.

Export's and golden's options live here, their work in ``agents.export.run`` and
``murlan_env.bots.bundle``; arena's and play's beside their code (``murlan_env.eval.arena``,
``murlan_cli.play``); this module registers them. Building the parser imports no torch:
``agents`` modules that need it load when a command runs.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from murlan_cli import UsageError, command


def export_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("checkpoint", help="checkpoint file or run directory")
    parser.add_argument("--out", required=True, help="bundle directory to write")
    parser.add_argument("--positions", type=int, default=256, help="golden positions to record")
    parser.add_argument("--seed", type=int, default=0, help="seed of the golden matches")
    parser.add_argument(
        "--supports",
        action="append",
        metavar="FLAG=VALUE[,...]",
        help="rule variants the policy is measured to play besides its own (repeatable)",
    )
    parser.add_argument("--no-fp16", action="store_true", help="skip model.fp16.onnx")
    parser.add_argument("--no-coreml", action="store_true", help="skip the Core ML conversion")


@command(
    "export",
    help="write a checkpoint's bundle for apps: model.onnx, bot.json, golden.json",
    example="murlan export runs/quick --out bundles/quick",
    options=export_options,
    details=(
        "exit status: 0 the bundle's golden positions replay exactly and ONNX Runtime is\n"
        "within 1e-5 of PyTorch on them; 1 not, or the golden set does not cover the game;\n"
        "2 the checkpoint is missing or cannot be read"
    ),
)
def export_command(args: argparse.Namespace) -> int:
    from agents.export import run  # torch is imported only when exporting
    from agents.networks import CheckpointError

    try:
        return run(args)
    except CheckpointError as exc:
        raise UsageError(str(exc)) from None


def arena_options(parser: argparse.ArgumentParser) -> None:
    from murlan_env.eval.arena import add_arguments  # numpy only: torch loads for ckpt: bots only

    add_arguments(parser)


@command(
    "arena",
    help="seeded duplicate tournament between bots: points, match wins, ratings",
    example="murlan arena random greedy rule search:200 ckpt:runs/x --boards 40 --seed 0",
    options=arena_options,
)
def arena_command(args: argparse.Namespace) -> int:
    from murlan_env.eval.arena import run_command

    return run_command(args)


def play_options(parser: argparse.ArgumentParser) -> None:
    from murlan_cli.play import add_arguments

    add_arguments(parser)


@command(
    "play",
    help="play a match against three bots in the terminal",
    example="murlan play --seed 3 --bots rule,greedy,search:100 --rules sticky_pass=true",
    options=play_options,
)
def play_command(args: argparse.Namespace) -> int:
    from murlan_cli.play import run_command

    return run_command(args)


def supported_rules(texts: list[str] | None) -> dict[str, list]:
    """``--supports FLAG=VALUE[,...]`` options as flag -> values; UsageError when bad."""
    from murlan_env.game.rules import Rules, RulesError

    out: dict[str, list] = {}
    for text in texts or []:
        try:
            flags = Rules.parse(text).to_dict()
        except RulesError as e:
            raise UsageError(f"--supports: {e}") from None
        for flag, value in flags.items():
            out.setdefault(flag, []).append(value)
    return out


def golden_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("bundle", metavar="BUNDLE_DIR", help="bundle directory (bot.json ...)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the golden matches")
    parser.add_argument("--positions", type=int, default=256, help="positions to record")
    parser.add_argument(
        "--out",
        metavar="FILE",
        help="write the set to FILE and leave the bundle as it is "
        "(default: the bundle's own golden.json, and its entry in bot.json)",
    )
    parser.add_argument(
        "--upgrade",
        action="store_true",
        help="rewrite a murlan-bundle/2 bot.json in this format first (the model is kept)",
    )
    parser.add_argument(
        "--supports",
        action="append",
        metavar="FLAG=VALUE[,...]",
        help="record rule variants the policy is measured to play (repeatable; bot.json's "
        "supported_rules, which the golden set then covers)",
    )
    parser.add_argument(
        "--fp16",
        action="store_true",
        help="also write model.fp16.onnx (float16 weights) with its tolerance on the new set",
    )


@command(
    "golden",
    help="make golden test vectors for a bundle, scored by its float32 ONNX model",
    example="murlan golden murlan_env/bots/policies/ppo-finetune --seed 7 --positions 400 "
    "--out fresh.json",
    options=golden_options,
    details=(
        "exit status: 0 written and checked against this engine; 1 the set does not cover\n"
        "the game (some observation entry never varies) or does not replay; 2 bad input"
    ),
)
def golden_command(args: argparse.Namespace) -> int:
    import sys

    from rich.progress import Progress

    from murlan_env.bots.bundle import BundleError, regenerate_golden, verify_golden
    from murlan_env.bots.golden import GoldenError

    if args.positions < 1:
        raise UsageError(f"--positions must be at least 1, got {args.positions}")
    if args.fp16 and args.out is not None:
        raise UsageError("--fp16 measures the new model on the bundle's own set: drop --out")
    if args.out is not None and Path(args.out).is_dir():
        raise UsageError(f"--out {args.out} is a directory: name a file, e.g. golden-7.json")
    from rich.console import Console

    with Progress(console=Console(stderr=True), transient=True) as bar:
        tasks: dict[str, int] = {}

        def progress(stage: str, done: int, total: int) -> None:
            label = {"play": "playing matches", "replay": "replaying them"}.get(stage, stage)
            if stage not in tasks:
                tasks[stage] = bar.add_task(label, total=total)
            bar.update(tasks[stage], completed=done)

        try:
            _, golden = regenerate_golden(
                args.bundle,
                seed=args.seed,
                positions=args.positions,
                out=args.out,
                upgrade=args.upgrade,
                supports=supported_rules(args.supports),
                progress=progress,
            )
        except BundleError as e:
            raise UsageError(str(e)) from None
        except GoldenError as e:
            print(f"murlan golden: {e}", file=sys.stderr)
            return 1
    if args.fp16:
        from agents.quantize import add_float16

        half = add_float16(args.bundle).model("float16")
        print(f"wrote {half.file}: {half.bytes} bytes, golden tolerance {half.tolerance:g}")
    report = verify_golden(args.bundle, golden)
    where = args.out or f"{args.bundle}/golden.json"
    print(
        f"wrote {where}: {len(golden['positions'])} positions of {len(golden['matches'])} matches"
    )
    tags = golden["coverage"]["tags"]
    print("covers: " + ", ".join(f"{t} {n}" for t, n in tags.items()))
    print(f"check: {report}")
    return 0 if report["ok"] else 1
