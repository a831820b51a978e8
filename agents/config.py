"""The trainers' common config: its fields, its checks, and the one rule for run names.

Torch-free, so ``train.py`` can check a config (and report a bad one in one line) before it
imports a trainer. A config checks itself when it is built (``__post_init__`` calls
``validate``), in Python as from YAML: every field must have its default's type (an integral
float such as ``1e6`` becomes an int) and every choice must be one the trainers run; the
first problem raises ``ConfigError`` with a one-line message naming the key and what it takes.
"""

from __future__ import annotations

import dataclasses
import time
from typing import Any

# The choices of the mode keys, here so that checking a config needs no torch; the modules
# that implement each mode import them from here.
WORKER_KINDS = ("local", "process", "ray")
INFERENCE_MODES = ("local", "server")
PRECISIONS = ("auto", "fp32", "bf16")


class ConfigError(ValueError):
    """A config that does not match the trainer's config dataclass (a one-line message)."""


def run_name(label: str, seed: int) -> str:
    """The default run name, ``<label>-s<seed>-<YYYYmmdd-HHMMSS>``: train.py labels a run
    with its preset, a config built in Python with its algorithm."""
    return f"{label}-s{seed}-{time.strftime('%Y%m%d-%H%M%S')}"


def _type_needed(value: Any, default: Any) -> str | None:
    """What a key whose default is ``default`` takes, when ``value`` is not that; else None."""
    if isinstance(default, bool):
        return None if isinstance(value, bool) else "true or false"
    if isinstance(default, int | float):
        if isinstance(value, bool) or not isinstance(value, int | float):
            return "a number"
        integral = not isinstance(value, float) or value.is_integer()
        return None if integral or isinstance(default, float) else "an integer"
    if isinstance(default, str):
        return None if isinstance(value, str) else "a string (quote it in YAML)"
    if isinstance(default, list):
        if not isinstance(value, list):
            return f"a list, e.g. {default!r}"
        kind = type(default[0]) if default else None  # items have the default's item type
        if kind is not None and not all(type(item) is kind for item in value):
            return f"a list of {kind.__name__} values, e.g. {default!r}"
        return None
    if isinstance(default, dict):
        if isinstance(value, dict) and all(isinstance(k, str) for k in value):
            return None
        return "a mapping of names to values, e.g. {sticky_pass: true}"
    return None


def checked_value(key: str, value: Any, default: Any) -> Any:
    """``value`` for a config key whose default is ``default``, if it has the same type (an
    integral float such as 1e6 becomes an int); ConfigError saying what the key takes if not."""
    needed = _type_needed(value, default)
    if needed is not None:
        raise ConfigError(f"config key {key!r} takes {needed}, got {value!r}")
    if isinstance(default, int) and not isinstance(default, bool) and isinstance(value, float):
        return int(value)  # "1e6" style budgets
    return value


def check_choice(key: str, value: str, allowed: tuple[str, ...]) -> None:
    """ConfigError unless ``value`` is one of ``allowed`` (the error names ``key``)."""
    if value not in allowed:
        raise ConfigError(f"{key} must be one of {list(allowed)}, got {value!r}")


@dataclasses.dataclass
class CommonConfig:
    """Fields every trainer has; the trainers' config dataclasses extend it."""

    name: str = ""
    """Run name: the run directory is ``runs/<name>``; empty: ``run_name(<label>, seed)``, the
    label being train.py's preset or, for a config built in Python, the algorithm."""
    seed: int = 1
    """Seeds Python, NumPy and torch, the rollouts and the learner."""
    runs_dir: str = "runs"
    """Parent directory of the run directories."""
    total_steps: int = 1_000_000
    """Training budget in engine decisions (all seats, all games)."""
    num_envs: int = 512
    """Matches stepped together by each rollout worker."""
    num_steps: int = 32
    """Engine steps per rollout (each worker returns num_envs * num_steps decisions)."""
    reward: str = "hand"
    """"hand": points of each hand minus 1.5 (dense, what the quick preset learns from);
    "match": the zero-sum match result (+1 for the winner, -1/3 for the others)."""
    rules: dict = dataclasses.field(default_factory=dict)
    """Variant flags of RULES.md section 7 (``Rules.from_dict``); empty: the standard game."""
    hidden: list = dataclasses.field(default_factory=lambda: [256, 256])
    """Widths of the observation trunk's layers."""
    learning_rate: float = 3e-4
    """Adam learning rate."""
    snapshot_share: float = 0.0
    """Share of rollout games against a frozen past snapshot of the learner."""
    bot_share: float = 0.0
    """Share of rollout games against rule-based bots (the learner takes one random seat)."""
    bots: list = dataclasses.field(default_factory=lambda: ["random", "greedy", "rule"])
    """Bots for the bot share, as murlan_env.bots.registry specs (repeat a spec to weight it)."""
    snapshot_every: int = 20
    """Iterations between snapshots added to the opponent pool."""
    snapshot_pool: int = 8
    """Most recent snapshots kept in the opponent pool."""
    workers: str = "local"
    """Where rollouts run: "local" (this process), "process" (child processes: rollouts
    overlap the update), or "ray" (Ray actors; set by --ray-address / RAY_ADDRESS)."""
    num_workers: int = 1
    """Rollout workers; each plays num_envs matches."""
    ray_address: str = ""
    """Ray cluster address for workers="ray" ("" starts a local Ray instance)."""
    torch_threads: int = 1
    """Intra-op threads of the learner (workers use one each)."""
    inference: str = "local"
    """Where the learner's forward passes in rollouts run: "local" (each worker on its own
    core) or "server" (one batched server on the learner's device for all process workers;
    agents.inference)."""
    device: str = "auto"
    """Learner device: "cpu", "cuda" or "auto" (cuda when present). Rollouts run on the CPU."""
    precision: str = "auto"
    """Matrix precision of forward and backward passes: "fp32", "bf16" (autocast: float32
    weights, bfloat16 products) or "auto" (bf16 where the device computes it natively)."""
    eval_every: int = 10
    """Iterations between evaluations (0: only at the end)."""
    eval_deals: int = 128
    """Fixed deals per evaluation; each is played with the learner in all four seats."""
    final_eval_deals: int = 0
    """Deals of the evaluation at the end of training (0: eval_deals); more deals, tighter CI."""
    eval_hands: int = 2
    """Hands played per evaluation deal (hand 2 includes the exchange); 0: whole matches,
    which also logs the match win rate."""
    eval_bots: list = dataclasses.field(default_factory=lambda: ["random", "greedy", "rule"])
    """Evaluation opponents, as murlan_env.bots.registry specs."""
    eval_seed: int = 1234
    """Seed of the evaluation deals: keep it fixed so curves compare across runs."""
    init_from: str = ""
    """Fine-tune: start from the weights of this checkpoint (file or run directory; its
    network must have this config's shape) with a fresh optimiser, learning-rate schedule and
    step count, instead of from random weights. Ignored when resuming."""
    checkpoint_every: int = 50
    """Iterations between resumable checkpoints (one is always written at the end)."""
    progress: bool = True
    """Show a progress bar."""

    def __post_init__(self) -> None:
        self.validate()

    def validate(self) -> None:
        """Check every field (types first, then values); ConfigError on the first problem.

        Runs when the config is built; call it again after changing fields by hand.
        """
        for field in dataclasses.fields(self):
            default = field.default
            if default is dataclasses.MISSING:
                default = field.default_factory()
            setattr(self, field.name, checked_value(field.name, getattr(self, field.name), default))
        self.check_values()

    def check_values(self) -> None:
        """The value checks of ``validate``: rules, modes, the starting checkpoint and bots."""
        from murlan_env.bots import registry
        from murlan_env.game.episode import REWARD_MODES
        from murlan_env.game.rules import Rules, RulesError

        try:
            Rules.from_dict(self.rules)  # unknown variant flags fail here, before any work
        except RulesError as e:
            raise ConfigError(f"config key 'rules': {e}") from None
        check_choice("reward", self.reward, REWARD_MODES)
        check_choice("workers", self.workers, WORKER_KINDS)
        check_choice("inference", self.inference, INFERENCE_MODES)
        check_choice("precision", self.precision, PRECISIONS)
        if self.inference == "server" and self.workers != "process":
            raise ConfigError('inference="server" serves process workers: set workers=process')
        if self.init_from:
            self.check_init_from()
        for key in ("bots", "eval_bots"):
            for spec in getattr(self, key):
                try:
                    registry.check_spec(spec)
                except (ValueError, OSError) as e:
                    raise ConfigError(f"config key {key!r}: {e}") from None

    def check_init_from(self) -> None:
        """``init_from`` names a readable checkpoint (this loads it: torch)."""
        from agents.networks import CheckpointError, load_checkpoint

        try:
            load_checkpoint(self.init_from)
        except (CheckpointError, FileNotFoundError) as e:
            raise ConfigError(f"config key 'init_from': {e}") from None


__all__ = [
    "INFERENCE_MODES",
    "PRECISIONS",
    "WORKER_KINDS",
    "CommonConfig",
    "ConfigError",
    "check_choice",
    "checked_value",
    "run_name",
]
