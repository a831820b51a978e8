"""Train a Murlan agent: a thin dispatcher to the trainers in ``agents/``.

    python train.py                                  # the quick preset (a few minutes, 2 cores)
    python train.py --config ppo --seed 3            # a long preset (configs/ppo.yaml)
    python train.py --config my.yaml num_envs=1024   # a YAML file, then key=value overrides
    python train.py --resume runs/quick-s1 total_steps=5000000
    python train.py --config ppo --ray-address auto --device auto

A config names its ``algorithm`` ("ppo" or "dmc"); every other key must be a field of that
trainer's config dataclass (``agents.ppo.PPOConfig``, ``agents.dmc.DMCConfig``): unknown keys
are errors. The run directory ``runs/<name>`` holds the resolved config, TensorBoard logs
(``tensorboard --logdir runs``) and the resumable ``checkpoint.pt``.
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import sys
from pathlib import Path
from typing import Any

import yaml

CONFIG_DIR = Path(__file__).resolve().parent / "configs"


class ConfigError(ValueError):
    """A config that does not match the trainer's config dataclass."""


def trainer_of(algorithm: str):
    """(config class, train function) of an algorithm."""
    if algorithm == "ppo":
        from agents import ppo

        return ppo.PPOConfig, ppo.train
    if algorithm == "dmc":
        from agents import dmc

        return dmc.DMCConfig, dmc.train
    raise ConfigError(f"unknown algorithm {algorithm!r}: expected 'ppo' or 'dmc'")


def load_preset(name_or_path: str) -> dict[str, Any]:
    """The raw dict of a preset name (configs/<name>.yaml) or a YAML path."""
    path = Path(name_or_path)
    if not path.suffix:
        path = CONFIG_DIR / f"{name_or_path}.yaml"
    if not path.is_file():
        presets = sorted(p.stem for p in CONFIG_DIR.glob("*.yaml"))
        raise ConfigError(f"no config {name_or_path!r}: give a YAML path or one of {presets}")
    raw = yaml.safe_load(path.read_text()) or {}
    if not isinstance(raw, dict):
        raise ConfigError(f"{path}: a config is a mapping of keys to values")
    return raw


def parse_overrides(items: list[str]) -> dict[str, Any]:
    """``key=value`` strings to a dict; values are read as YAML (numbers, lists, booleans)."""
    out = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key:
            raise ConfigError(f"override {item!r} is not key=value")
        out[key.strip()] = yaml.safe_load(value)
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
    for key, value in raw.items():
        default = known[key].default
        if isinstance(default, (int, float)) and not isinstance(default, bool):
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                raise ConfigError(f"config key {key!r} takes a number, got {value!r}")
            if isinstance(default, int) and isinstance(value, float) and value.is_integer():
                raw[key] = int(value)  # "1e6" style budgets
            elif isinstance(default, int) and isinstance(value, float):
                raise ConfigError(f"config key {key!r} takes an integer, got {value!r}")
        elif isinstance(default, bool) and not isinstance(value, bool):
            raise ConfigError(f"config key {key!r} takes true or false, got {value!r}")
    cfg = cls(**raw)
    from murlan_env import registry
    from murlan_env.episode import REWARD_MODES
    from murlan_env.rules import Rules, RulesError

    try:
        Rules.from_dict(cfg.rules)  # unknown variant flags fail here, before any work
    except RulesError as e:
        raise ConfigError(f"config key 'rules': {e}") from None
    if cfg.reward not in REWARD_MODES:
        raise ConfigError(f"reward must be one of {list(REWARD_MODES)}, got {cfg.reward!r}")
    for key in ("bots", "eval_bots"):
        for spec in getattr(cfg, key):
            try:
                registry.check_spec(spec)
            except (ValueError, OSError) as e:
                raise ConfigError(f"config key {key!r}: {e}") from None
    return algorithm, cfg


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--config", default="quick", help="preset name (configs/) or YAML path")
    parser.add_argument("--seed", type=int, help="seed (overrides the config)")
    parser.add_argument("--resume", help="run directory or checkpoint to continue")
    parser.add_argument("--device", help="learner device: auto, cpu, cuda")
    parser.add_argument(
        "--rules",
        action="append",
        metavar="FLAG=VALUE[,...]",
        help="variant flags to train under, e.g. sticky_pass=true,joker_pair=true",
    )
    parser.add_argument(
        "--ray-address",
        default=os.environ.get("RAY_ADDRESS"),
        help="run rollout workers as Ray actors on this cluster (or RAY_ADDRESS)",
    )
    parser.add_argument("overrides", nargs="*", help="key=value config overrides")
    args = parser.parse_args(argv)
    try:
        if args.resume:
            import torch

            from agents.networks import checkpoint_path

            ckpt = torch.load(checkpoint_path(args.resume), map_location="cpu", weights_only=False)
            raw = dict(ckpt["config"])
        else:
            raw = load_preset(args.config)
        raw.update(parse_overrides(args.overrides))
        if args.seed is not None:
            raw["seed"] = args.seed
        if args.device:
            raw["device"] = args.device
        if args.rules:
            from murlan_env.rules import Rules, RulesError

            try:
                raw["rules"] = Rules.parse(args.rules).to_dict()
            except RulesError as e:
                raise ConfigError(f"--rules: {e}") from None
        if args.ray_address:
            raw["workers"], raw["ray_address"] = "ray", args.ray_address
        if not args.resume and not raw.get("name"):
            import time

            seed = raw.get("seed", 1)
            raw["name"] = f"{Path(args.config).stem}-s{seed}-{time.strftime('%Y%m%d-%H%M%S')}"
        algorithm, cfg = build_config(raw)
    except ConfigError as e:
        print(f"train.py: config error: {e}", file=sys.stderr)
        return 2
    _, train = trainer_of(algorithm)
    out = train(cfg, resume=args.resume)
    counters = out["counters"]
    print(
        f"\n{algorithm} run {out['run_dir']}: {counters['step']:,} decisions, "
        f"{counters['iteration']} iterations"
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
    return 0


if __name__ == "__main__":
    sys.exit(main())
