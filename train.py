"""Train a Murlan agent: a thin dispatcher to the trainers in ``agents/``.

    python train.py                                  # the quick preset (a few minutes, 2 cores)
    python train.py --config ppo --seed 3            # a long preset (configs/ppo.yaml)
    python train.py --config my.yaml num_envs=1024   # a YAML file, then key=value overrides
    python train.py --config hard-recipe --seed 1    # a staged preset: strong, then finetune
    python train.py --resume runs/quick-s1 total_steps=5000000
    python train.py --rules sticky_pass=true,joker_pair=true   # train under variant rules
    python train.py --config ppo --ray-address auto --device auto

A config names its ``algorithm`` ("ppo", "dmc" or "distill", expert iteration: ``python
train.py --config distill``); every other key must be a field of that trainer's config
dataclass (``agents.ppo.PPOConfig``, ``agents.dmc.DMCConfig``,
``agents.distill.DistillConfig``): unknown keys, values of the wrong type, unknown rule flags
or bots, unreadable configs and checkpoints are errors (exit status 2, one line on stderr).
The run directory ``runs/<name>`` holds the resolved config, TensorBoard logs (``tensorboard
--logdir runs``) and the resumable ``checkpoint.pt``.

A staged preset (``stages:``) trains several runs one after another, each from the weights of
the one before: the last is ``runs/<name>``, the others ``runs/<name>-<stage>``; overrides
apply to every stage, and ``stages=[...]`` replaces the list. Running the same command again
(same ``name=``) skips finished stages and resumes an interrupted one.
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import sys
from pathlib import Path
from typing import Any

import yaml

from agents.config import ConfigError, run_name

CONFIG_DIR = Path(__file__).resolve().parent / "configs"
# Presets that were renamed: old name -> (new name, why).
RENAMED_PRESETS = {
    "hard": ("hard-recipe", "'hard' is a difficulty level; the preset is the recipe of its policy")
}


def trainer_of(algorithm: str):
    """(config class, train function) of an algorithm."""
    if algorithm == "ppo":
        from agents import ppo

        return ppo.PPOConfig, ppo.train
    if algorithm == "dmc":
        from agents import dmc

        return dmc.DMCConfig, dmc.train
    if algorithm == "distill":
        from agents import distill

        return distill.DistillConfig, distill.train
    raise ConfigError(f"unknown algorithm {algorithm!r}: expected 'ppo', 'dmc' or 'distill'")


def load_preset(name_or_path: str) -> dict[str, Any]:
    """The raw dict of a preset name (configs/<name>.yaml) or a YAML path."""
    if name_or_path in RENAMED_PRESETS:
        new, why = RENAMED_PRESETS[name_or_path]
        raise ConfigError(f"the preset {name_or_path!r} is now {new!r} ({why}): --config {new}")
    path = Path(name_or_path)
    if not path.suffix:
        path = CONFIG_DIR / f"{name_or_path}.yaml"
    if not path.is_file():
        presets = sorted(p.stem for p in CONFIG_DIR.glob("*.yaml"))
        raise ConfigError(f"no config {name_or_path!r}: give a YAML path or one of {presets}")
    try:
        raw = yaml.safe_load(path.read_text())
    except OSError as e:
        raise ConfigError(f"cannot read config {path}: {e.strerror or e}") from None
    except (yaml.YAMLError, UnicodeDecodeError) as e:
        raise ConfigError(f"{path} is not valid YAML ({yaml_problem(e)}); fix the file") from None
    if raw is None:
        raw = {}
    if not isinstance(raw, dict):
        raise ConfigError(
            f"{path}: a config is a mapping of keys to values (key: value lines), "
            f"got a YAML {type(raw).__name__}"
        )
    return raw


def yaml_problem(error: Exception) -> str:
    """A YAML error as one line: what is wrong and where (PyYAML's own message spans lines)."""
    mark = getattr(error, "problem_mark", None)
    problem = getattr(error, "problem", None) or str(error).strip().splitlines()[0]
    return f"{problem} at line {mark.line + 1}, column {mark.column + 1}" if mark else problem


def parse_overrides(items: list[str]) -> dict[str, Any]:
    """``key=value`` strings to a dict; values are read as YAML (numbers, lists, booleans)."""
    out = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key:
            raise ConfigError(f"override {item!r} is not key=value")
        try:
            out[key.strip()] = yaml.safe_load(value)
        except yaml.YAMLError as e:
            raise ConfigError(
                f"override {item!r}: the value is not valid YAML ({yaml_problem(e)})"
            ) from None
    return out


def build_config(raw: dict[str, Any]):
    """(algorithm, config dataclass instance) from a raw dict; unknown keys are errors."""
    raw = dict(raw)
    algorithm = raw.pop("algorithm", None)
    if algorithm is None:
        raise ConfigError(
            "the config must name its algorithm: 'algorithm: ppo' or 'algorithm: dmc'"
        )
    cls, _ = trainer_of(algorithm)
    known = {f.name: f for f in dataclasses.fields(cls)}
    unknown = sorted(set(raw) - set(known))
    if unknown:
        raise ConfigError(
            f"unknown {algorithm} config key(s) {unknown}; known keys: {sorted(known)}"
        )
    cfg = cls(**raw)  # the config checks its types and values (agents.config)
    return algorithm, cfg


def resumed_config(path: str) -> dict[str, Any]:
    """The raw config saved in the checkpoint of ``path`` (file or run directory); ConfigError
    naming the file and the fix when it is missing or cannot be read."""
    from agents.networks import CheckpointError, load_checkpoint

    try:
        ckpt = load_checkpoint(path)
    except (CheckpointError, FileNotFoundError) as e:
        raise ConfigError(f"--resume: {e}") from None
    if not isinstance(ckpt.get("config"), dict):
        raise ConfigError(
            f"--resume: {path} holds no training config; resume a run directory of train.py"
        )
    return dict(ckpt["config"])


def stages_of(raw: dict[str, Any], command_line: dict[str, Any]) -> list[tuple[str, dict]]:
    """(label, raw config) of each run a preset trains, in order: one for a plain preset.

    A staged preset lists its runs under ``stages``: each names a preset or YAML path
    (``config``) and may set keys of its own. The staged preset's other keys apply to every
    stage, a stage's own keys win over them, and command-line overrides win over all. Each
    stage after the first starts from the weights of the one before (``init_from``, set by
    ``run_configs``).
    """
    raw = dict(raw)
    stages = raw.pop("stages", None)
    if stages is None:
        return [("", {**raw, **command_line})]
    if not (
        isinstance(stages, list)
        and stages
        and all(isinstance(s, dict) and isinstance(s.get("config"), str) for s in stages)
    ):
        raise ConfigError(
            "'stages' takes a list of mappings, each naming the preset it runs, e.g. "
            "[{config: strong, total_steps: 150_000_000}, {config: finetune}]"
        )
    out = []
    for stage in stages:
        stage = dict(stage)
        preset = stage.pop("config")
        nested = load_preset(preset)
        if "stages" in nested:
            raise ConfigError(f"stage {preset!r} is itself a staged preset: list its stages")
        label = Path(preset).stem
        if any(label == seen for seen, _ in out):
            label = f"{label}{len(out) + 1}"
        out.append((label, {**nested, **raw, **stage, **command_line}))
    return out


def name_stages(stages: list[tuple[str, dict]], name: str) -> None:
    """Name each stage's run: the last stage's is ``<name>`` (the finished policy, where a
    one-stage run would be), the others ``<name>-<label>``."""
    for i, (label, raw) in enumerate(stages):
        raw["name"] = name if i == len(stages) - 1 else f"{name}-{label}"


def run_configs(
    raw: dict[str, Any], command_line: dict[str, Any], preset: str | None
) -> list[tuple[str, str, Any]]:
    """(stage label, algorithm, checked config) of each run to train, all checked before any
    starts. ``preset`` names the default run name (``<preset>-s<seed>-<time>``); None when
    resuming a run, whose config already has its name."""
    if "stages" in command_line:  # stages=[...] on the command line replaces the preset's
        command_line = dict(command_line)
        raw = {**raw, "stages": command_line.pop("stages")}
    stages = stages_of(raw, command_line)
    if preset is not None:
        name = stages[-1][1].get("name")
        if not name:
            name = run_name(preset, stages[-1][1].get("seed", 1))
        name_stages(stages, name)
    from agents.training import run_dir

    configs = []
    for i, (label, stage) in enumerate(stages):
        if i:  # starts from the stage before (set below), whose run does not exist yet
            stage.pop("init_from", None)
        algorithm, cfg = build_config(stage)
        if i:
            cfg.init_from = str(run_dir(configs[-1][2]))
        configs.append((label, algorithm, cfg))
    return configs


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--config", default="quick", help="preset name (configs/) or YAML path (default: quick)"
    )
    parser.add_argument("--seed", type=int, help="seed (overrides the config)")
    parser.add_argument("--resume", help="run directory or checkpoint to continue")
    parser.add_argument("--device", help="learner device: auto, cpu, cuda")
    from murlan_cli import report_usage_error
    from murlan_cli.options import add_rules_argument

    add_rules_argument(parser, what="variant flags to train under")
    parser.add_argument(
        "--ray-address",
        default=os.environ.get("RAY_ADDRESS"),
        help="run rollout workers as Ray actors on this cluster (or RAY_ADDRESS)",
    )
    parser.add_argument("overrides", nargs="*", help="key=value config overrides")
    args = parser.parse_args(argv)
    try:
        raw = resumed_config(args.resume) if args.resume else load_preset(args.config)
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
                raise ConfigError(f"--rules: {e}") from None
        if args.ray_address:
            command_line["workers"] = "ray"
            command_line["ray_address"] = args.ray_address
        configs = run_configs(raw, command_line, None if args.resume else Path(args.config).stem)
    except ConfigError as e:
        return report_usage_error("train.py", e)
    from agents.networks import CheckpointError
    from agents.training import run_dir

    for label, algorithm, cfg in configs:
        _, train = trainer_of(algorithm)
        resume = args.resume
        if label:
            try:
                resume, finished = stage_progress(cfg)
            except ConfigError as e:
                return report_usage_error("train.py", e)
            if finished:
                print(f"stage {label}: {run_dir(cfg)} is finished; skipped")
                continue
            print(f"stage {label}: {run_dir(cfg)}" + (" (resumed)" if resume else ""))
        try:
            out = train(cfg, resume=resume)
        except CheckpointError as e:  # init_from names a network of another shape
            return report_usage_error("train.py", e)
        report(algorithm, out)
    return 0


def stage_progress(cfg) -> tuple[str | None, bool]:
    """(checkpoint to resume or None, whether the stage is finished) for a stage whose run
    directory may hold a checkpoint from an earlier, interrupted invocation."""
    from agents.networks import CHECKPOINT_NAME, CheckpointError, load_checkpoint
    from agents.training import run_dir

    path = run_dir(cfg)
    if not (path / CHECKPOINT_NAME).is_file():
        return None, False
    try:
        step = load_checkpoint(path)["counters"]["step"]
    except CheckpointError as e:
        raise ConfigError(f"stage {cfg.name}: {e}") from None
    return str(path), step >= cfg.total_steps


def report(algorithm: str, out: dict) -> None:
    """The end-of-run summary: decisions, the final evaluation and the verdict against greedy."""
    counters = out["counters"]
    unit, rounds = (
        ("positions", "rounds")
        if out.get("unit") == "positions"
        else (
            "decisions",
            "iterations",
        )
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


if __name__ == "__main__":
    sys.exit(main())
