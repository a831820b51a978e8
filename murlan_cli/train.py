"""``murlan train``: train a preset, a YAML config or a resumed run (``train.py`` runs it too).

    murlan train                                     # the quick preset (minutes, 2 cores)
    murlan train --config ppo --seed 3               # a long preset (agents/configs/ppo.yaml)
    murlan train --config my.yaml num_envs=1024      # a YAML file, then key=value overrides
    murlan train --config hard-recipe --seed 1       # a staged preset: strong, then finetune
    murlan train --resume runs/quick-s1 total_decisions=5000000
    murlan train --rules sticky_pass=true,joker_pair=true   # train under variant rules
    murlan train --config ppo --ray-address auto --device auto

The presets, the overrides, the stages and the config checks are ``agents.presets``; this
module reads the command line (options and ``key=value`` overrides in any order), turns bad
input into one line on stderr and exit status 2, and prints the end-of-run report. A run
name whose directory holds a run is refused (resume it with ``--resume``) unless it is a
stage of a staged preset, which is resumed or skipped when finished.
"""

from __future__ import annotations

import argparse
import logging
import os
import sys
from typing import Any

from murlan_cli.options import add_rules_argument, seed
from murlan_cli.terminal import UsageError


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The ``murlan train`` options; options and overrides may come in any order (the murlan
    parser reads a subcommand's arguments intermixed)."""
    parser.add_argument(
        "--config", default="quick", help="preset name (agents/configs/) or YAML path"
    )
    parser.add_argument("--seed", type=seed, help="seed (overrides the config)")
    parser.add_argument("--resume", help="run directory or checkpoint to continue")
    parser.add_argument("--device", help="learner device: auto, cpu, cuda")
    add_rules_argument(parser, what="variant flags to train under")
    parser.add_argument(
        "--ray-address",
        default=os.environ.get("RAY_ADDRESS"),
        help="run rollout workers as Ray actors on this cluster (or RAY_ADDRESS)",
    )
    parser.add_argument(
        "overrides", nargs="*", metavar="KEY=VALUE", help="config overrides, e.g. num_envs=1024"
    )


def command_line_config(args: argparse.Namespace) -> dict[str, Any]:
    """The config keys the command line sets: overrides, then the options' keys."""
    from agents.presets import parse_overrides

    command_line = parse_overrides(args.overrides)
    if args.seed is not None:
        command_line["seed"] = args.seed
    if args.device:
        command_line["device"] = args.device
    if args.rules:
        from murlan_env.game.rules import Rules, RulesError

        try:
            command_line["rules"] = Rules.parse(args.rules).to_dict()
        except RulesError as e:
            raise UsageError(f"--rules: {e}") from None
    if args.ray_address:
        command_line["workers"] = "ray"
        command_line["ray_address"] = args.ray_address
    return command_line


def run(args: argparse.Namespace) -> int:
    """Check every run's config, then train them one after another."""
    from pathlib import Path

    from agents.checkpoint import CheckpointError
    from agents.config import ConfigError
    from agents.presets import load_preset, run_configs, trainer_of, upgrade_keys

    handler = logging.StreamHandler(sys.stderr)  # the trainers' log lines, on the terminal
    handler.setFormatter(logging.Formatter("%(message)s"))
    logger = logging.getLogger("agents")
    logger.addHandler(handler)
    level = logger.level
    logger.setLevel(logging.INFO)
    try:
        resumed = None
        if args.resume:
            resumed = resumed_checkpoint(args.resume)
            raw = upgrade_keys(resumed.config)
        else:
            raw = load_preset(args.config)
        configs = run_configs(
            raw, command_line_config(args), None if args.resume else Path(args.config).stem
        )
        check_devices(configs)
        staged = len(configs) > 1 or bool(configs[0][0])
        if not staged and resumed is None:
            from agents.training import refuse_existing_run

            refuse_existing_run(configs[0][2])
        for label, algorithm, cfg in configs:
            resume = resumed
            if staged:
                resume, finished = stage_progress(cfg)
                if finished:
                    print(f"stage {label}: {cfg.run_dir()} is finished; skipped")
                    continue
                print(f"stage {label}: {cfg.run_dir()}" + (" (resumed)" if resume else ""))
            report(algorithm, trainer_of(algorithm)(cfg, resume=resume))
    except (ConfigError, CheckpointError) as e:  # a checkpoint: init_from of another shape
        raise UsageError(e) from None
    except FileNotFoundError as e:  # init_from names no checkpoint
        raise UsageError(f"init_from: {e}") from None
    finally:
        logger.removeHandler(handler)
        logger.setLevel(level)
    return 0


def resumed_checkpoint(path: str):
    """The checkpoint ``--resume`` names (read once: its config here, the rest by the
    trainer); UsageError naming the file and the fix when it is missing or unreadable."""
    from agents.checkpoint import CheckpointError
    from agents.checkpoint import load as load_checkpoint

    try:
        ckpt = load_checkpoint(path)
    except (CheckpointError, FileNotFoundError) as e:
        raise UsageError(f"--resume: {e}") from None
    if not ckpt.config:
        raise UsageError(
            f"--resume: {path} holds no training config; resume a run directory of train.py"
        )
    return ckpt


def check_devices(configs: list) -> None:
    """ConfigError before any run starts when a config asks for a device this torch lacks."""
    from agents.training import resolve_device

    for _, _, cfg in configs:
        if hasattr(cfg, "device"):
            resolve_device(cfg.device)


def stage_progress(cfg):
    """(checkpoint to resume or None, whether the stage is finished) for a stage whose run
    directory may hold a checkpoint from an earlier, interrupted invocation."""
    from agents.checkpoint import CHECKPOINT_NAME, CheckpointError
    from agents.checkpoint import load as load_checkpoint
    from agents.config import ConfigError

    path = cfg.run_dir()
    if not (path / CHECKPOINT_NAME).is_file():
        return None, False
    try:
        ckpt = load_checkpoint(path)
    except CheckpointError as e:
        raise ConfigError(f"stage {cfg.name}: {e}") from None
    return ckpt, ckpt.counters["step"] >= cfg.total_decisions


def report(algorithm: str, out: dict) -> None:
    """The end-of-run summary: decisions, the final evaluation and the verdict against greedy."""
    counters = out["counters"]
    unit, rounds = (
        ("positions", "rounds") if out.get("unit") == "positions" else ("decisions", "iterations")
    )
    print(
        f"\n{algorithm} run {out['run_dir']}: {counters['step']:,} {unit}, "
        f"{counters['iteration']} {rounds}"
    )
    for r in out["results"].values():
        print("  " + r.line())
    greedy = out["results"].get("greedy")
    if greedy is not None:
        low = greedy.points_per_hand - greedy.ci95
        verdict = "clearly beats" if low > 1.5 else "does not clearly beat"
        print(
            f"The trained bot {verdict} the greedy bot: {greedy.points_per_hand:.3f} "
            f"± {greedy.ci95:.3f} points per hand (95% CI; par 1.5)."
        )
