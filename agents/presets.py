"""Training presets: the YAML files of ``agents/configs/``, overrides, stages and run names.

What ``murlan train`` does between its command line and a trainer, with no argparse and no
printing, so that tests, benchmarks and notebooks build the same configs the command does:

    raw = load_preset("quick")                        # agents/configs/quick.yaml, or a path
    raw |= parse_overrides(["num_envs=1024"])         # key=value, values read as YAML
    algorithm, cfg = build_config(raw)                # the trainer's checked config
    runs = run_configs(raw, {}, "quick")              # [(stage, algorithm, config)], named

The presets ship inside the package (``importlib.resources``), so an installed murlan trains
them from any folder. A config names its ``algorithm`` ("ppo", "dmc" or "distill");
``ALGORITHMS`` maps each name to its trainer's config class and ``train`` function
(``agents.ppo.PPOConfig`` and ``agents.ppo.train`` for "ppo"). Every other key must be a field
of that config class, and a bad one raises ``ConfigError`` with one line saying what the key
takes.

A staged preset (``stages:``) trains several runs one after another, each from the weights of
the one before: the last is ``runs/<name>``, the others ``runs/<name>-<stage>``; overrides
apply to every stage, and ``stages=[...]`` replaces the list.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable
from importlib import resources
from pathlib import Path
from typing import Any

import yaml

from agents import distill, dmc, ppo
from agents.config import ConfigError, run_name

# Presets that were renamed: old name -> (new name, why).
RENAMED_PRESETS = {
    "hard": ("hard-recipe", "'hard' is a difficulty level; the preset is the recipe of its policy")
}
# Config keys that were renamed: old key -> new key. A config or override that gives an old key
# is refused with one line naming the new one; a resumed run's saved config is read with the
# new names (``upgrade_keys``).
RENAMED_KEYS: dict[str, str] = {"total_steps": "total_decisions", "num_steps": "rollout_steps"}
# Each algorithm's trainer: its config class (every key its presets may set) and its
# ``train(cfg, resume=None) -> dict``.
ALGORITHMS = {
    "ppo": (ppo.PPOConfig, ppo.train),
    "dmc": (dmc.DMCConfig, dmc.train),
    "distill": (distill.DistillConfig, distill.train),
}


class _Loader(yaml.SafeLoader):
    """PyYAML's safe loader reading numbers as YAML 1.2 does: ``1e3`` and ``5e6`` are floats
    (YAML 1.1, PyYAML's default, wants ``1.0e+3`` and reads ``1e3`` as a string), so budgets
    written the usual way reach the config checks, which take integral floats for integers."""


_Loader.add_implicit_resolver(
    "tag:yaml.org,2002:float",
    re.compile(r"^[-+]?(?:[0-9][0-9_]*)(?:\.[0-9_]*)?[eE][-+]?[0-9]+$"),
    list("-+0123456789"),
)


def read_yaml(text: str) -> Any:
    """``text`` read as YAML by the safe loader, with ``1e3``-style numbers read as numbers."""
    return yaml.load(text, Loader=_Loader)


def preset_dir():
    """The folder of the shipped presets (a ``Traversable``: a path in a checkout or wheel)."""
    return resources.files("agents") / "configs"


def preset_names() -> list[str]:
    """The names ``--config`` takes without a path."""
    return sorted(
        p.name[: -len(".yaml")] for p in preset_dir().iterdir() if p.name.endswith(".yaml")
    )


def _trainer(algorithm: str) -> tuple[type, Callable[..., dict]]:
    """(config class, train function) of an algorithm; ConfigError for an unknown one."""
    if algorithm not in ALGORITHMS:
        raise ConfigError(f"unknown algorithm {algorithm!r}: expected one of {list(ALGORITHMS)}")
    return ALGORITHMS[algorithm]


def config_class(algorithm: str) -> type:
    """The config class of an algorithm (``PPOConfig``, ``DMCConfig``, ``DistillConfig``)."""
    return _trainer(algorithm)[0]


def trainer_of(algorithm: str) -> Callable[..., dict]:
    """The ``train(cfg, resume=None) -> dict`` function of an algorithm."""
    return _trainer(algorithm)[1]


def load_preset(name_or_path: str) -> dict[str, Any]:
    """The raw dict of a preset name (``agents/configs/<name>.yaml``) or a YAML path."""
    if name_or_path in RENAMED_PRESETS:
        new, why = RENAMED_PRESETS[name_or_path]
        raise ConfigError(f"the preset {name_or_path!r} is now {new!r} ({why}): --config {new}")
    if Path(name_or_path).suffix:
        path = Path(name_or_path)
        if not path.is_file():
            raise ConfigError(
                f"no config {name_or_path!r}: give a YAML path or one of {preset_names()}"
            )
    else:
        path = preset_dir() / f"{name_or_path}.yaml"
        if not path.is_file():
            raise ConfigError(
                f"no config {name_or_path!r}: give a YAML path or one of {preset_names()}"
            )
    try:
        raw = read_yaml(path.read_text())
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
            out[key.strip()] = read_yaml(value)
        except yaml.YAMLError as e:
            raise ConfigError(
                f"override {item!r}: the value is not valid YAML ({yaml_problem(e)})"
            ) from None
    return out


def build_config(raw: dict[str, Any]):
    """(algorithm, config instance) from a raw dict; unknown keys are errors."""
    raw = dict(raw)
    algorithm = raw.pop("algorithm", None)
    if algorithm is None:
        raise ConfigError(
            f"the config must name its algorithm: 'algorithm: ppo', one of {list(ALGORITHMS)}"
        )
    for old in sorted(set(raw) & set(RENAMED_KEYS)):
        raise ConfigError(f"config key {old!r} is now {RENAMED_KEYS[old]!r}: use that name")
    cls = config_class(algorithm)
    known = {f.name for f in dataclasses.fields(cls)}
    unknown = sorted(set(raw) - known)
    if unknown:
        raise ConfigError(
            f"unknown {algorithm} config key(s) {unknown}; known keys: {sorted(known)}"
        )
    return algorithm, cls(**raw)  # the config checks its types and values (agents.config)


def upgrade_keys(raw: dict[str, Any]) -> dict[str, Any]:
    """A saved config (a checkpoint's) with its renamed keys under their new names."""
    return {RENAMED_KEYS.get(key, key): value for key, value in raw.items()}


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
            "[{config: strong, total_decisions: 150_000_000}, {config: finetune}]"
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
    configs = []
    for i, (label, stage) in enumerate(stages):
        if i:  # starts from the stage before (set below), whose run does not exist yet
            stage.pop("init_from", None)
        algorithm, cfg = build_config(stage)
        if i:
            cfg.init_from = str(configs[-1][2].run_dir())
        configs.append((label, algorithm, cfg))
    return configs


__all__ = [
    "ALGORITHMS",
    "RENAMED_KEYS",
    "RENAMED_PRESETS",
    "build_config",
    "config_class",
    "load_preset",
    "name_stages",
    "parse_overrides",
    "preset_dir",
    "preset_names",
    "read_yaml",
    "run_configs",
    "stages_of",
    "trainer_of",
    "upgrade_keys",
    "yaml_problem",
]
