"""The small parts the trainers' configs are composed of, their checks, and run names.

A trainer's config class inherits the parts it reads and nothing else: ``RunConfig`` (name,
seed, folder), ``RulesConfig``, ``NetworkConfig`` (the trunk's widths), ``EvalConfig``, and for
the self-play trainers ``SelfPlayConfig`` (budget, games per worker, opponents, workers,
device, precision, loop). PPO's and DMC's configs are ``SelfPlayConfig`` plus their own keys;
distill's has no rollouts, workers or device, so ``workers=ray`` is refused there. What a
trainer's own algorithm reads -- its ``learning_rate``, ``rollout_steps`` and the rest of its
optimiser and loss -- is declared on its own config class, in its own module, so each key is
written down where the code that reads it is.

Torch-free and free of I/O. A config checks itself when it is built (``__post_init__`` calls
``validate``), in Python as from YAML: every field must have its default's type (an integral
float such as ``1e6`` becomes an int) and every choice must be one the trainers run; the
first problem raises ``ConfigError`` with a one-line message naming the key and what it takes.
Files a config names (``init_from``) are read when training starts, not here; bot specs are
checked by building the bot, as the registry does (a ``ckpt:``/``bundle:`` spec reads its
file).
"""

from __future__ import annotations

import dataclasses
import time
from pathlib import Path
from typing import Any

# The choices of the mode keys, here so that checking a config needs no torch; the modules
# that implement each mode import them from here.
WORKER_KINDS = ("local", "process", "ray")
INFERENCE_MODES = ("local", "server")
PRECISIONS = ("auto", "fp32", "bf16")
DEVICE_KINDS = ("auto", "cpu", "cuda")
HISTORY_ENCODERS = ("none", "gru", "attention")


class ConfigError(ValueError):
    """A config that does not match the trainer's config dataclass (a one-line message)."""


def run_name(label: str, seed: int) -> str:
    """The default run name, ``<label>-s<seed>-<YYYYmmdd-HHMMSS>``: murlan train labels a run
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


def check_at_least(cfg: Any, low: float, *keys: str) -> None:
    """ConfigError naming the first of ``keys`` whose value (or list item) is below ``low``."""
    for key in keys:
        value = getattr(cfg, key)
        for item in value if isinstance(value, list) else [value]:
            if item < low:
                raise ConfigError(f"config key {key!r} must be at least {low}, got {value!r}")


def check_share(cfg: Any, *keys: str) -> None:
    """ConfigError unless each of ``keys`` is a share in [0, 1]."""
    for key in keys:
        value = getattr(cfg, key)
        if not 0 <= value <= 1:
            raise ConfigError(f"config key {key!r} is a share in [0, 1], got {value!r}")


def check_choice(key: str, value: str, allowed: tuple[str, ...]) -> None:
    """ConfigError unless ``value`` is one of ``allowed`` (the error names ``key``)."""
    if value not in allowed:
        raise ConfigError(f"{key} must be one of {list(allowed)}, got {value!r}")


class ConfigPart:
    """What every config part shares: checking itself when built.

    A trainer's config is a dataclass that inherits the parts it reads; each part's
    ``check_values`` checks its own fields and calls ``super().check_values()``, so the
    checks of every part run. Checking does no I/O: a file a config names (``init_from``, a
    ``bundle:`` bot's folder) is read when training starts.
    """

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
        """The value checks of ``validate`` (each part extends it)."""


@dataclasses.dataclass
class RunConfig(ConfigPart):
    """The run: its name and folder, the seed, threads and the progress bar."""

    name: str = ""
    """Run name: the run directory is ``runs/<name>``; empty: ``run_name(<label>, seed)``, the
    label being the preset's name or, for a config built in Python, the algorithm. A name
    whose directory holds a run is refused unless the run is resumed."""
    seed: int = 1
    """The run's seed: every random stream the trainer draws (Python, NumPy and torch, the
    rollouts, the learner, distillation's rounds) derives from it (``agents.seeds``)."""
    runs_dir: str = "runs"
    """Parent directory of the run directories."""
    torch_threads: int = 1
    """Intra-op threads of the learner (workers use one each)."""
    progress: bool = True
    """Show a progress bar."""

    def check_values(self) -> None:
        super().check_values()
        check_at_least(self, 0, "seed")  # numpy's seed sequences take no negative seed
        check_at_least(self, 1, "torch_threads")

    def run_dir(self) -> Path:
        """The directory of this config's run: ``<runs_dir>/<name>``."""
        return Path(self.runs_dir) / self.name


@dataclasses.dataclass
class RulesConfig(ConfigPart):
    """The rule variants the trainer plays."""

    rules: dict = dataclasses.field(default_factory=dict)
    """Variant flags of RULES.md section 7 (``Rules.from_dict``); empty: the standard game."""

    def check_values(self) -> None:
        super().check_values()
        from murlan_env.game.rules import Rules, RulesError

        try:
            Rules.from_dict(self.rules)  # unknown variant flags fail here, before any work
        except RulesError as e:
            raise ConfigError(f"config key 'rules': {e}") from None


@dataclasses.dataclass
class NetworkConfig(ConfigPart):
    """The policy network's trunk (each trainer declares its own optimiser's settings, its
    ``learning_rate`` among them, beside the code that reads them)."""

    hidden: list = dataclasses.field(default_factory=lambda: [256, 256])
    """Widths of the observation trunk's layers."""
    history: str = "none"
    """The hand-so-far encoder beside the observation: "none" (the trunk reads the observation
    alone), "gru" or "attention": the hand's plays and passes with their seats
    (murlan_env.game.hand_history) are embedded and read in order by a GRU, or by attention
    pooling (several times cheaper on a CPU), into a summary the trunk reads with the
    observation. PPO only for now: DMC and distill refuse it, as do imitate,
    inference="server" and bundle export."""
    history_hidden: int = 32
    """Width of the history encoder's embeddings and summary (a multiple of 4 for
    "attention", which splits it among 4 heads); read only when history is not "none"."""

    def check_values(self) -> None:
        super().check_values()
        check_at_least(self, 1, "hidden", "history_hidden")
        check_choice("history", self.history, HISTORY_ENCODERS)


@dataclasses.dataclass
class EvalConfig(ConfigPart):
    """The evaluation: fixed duplicate deals against bots."""

    eval_deals: int = 128
    """Fixed deals per evaluation; each is played with the learner in all four seats."""
    eval_hands: int = 2
    """Hands played per evaluation deal (hand 2 includes the exchange); 0: whole matches,
    which also logs the match win rate."""
    eval_bots: list = dataclasses.field(default_factory=lambda: ["random", "greedy", "rule"])
    """Evaluation opponents, as murlan_env.bots.registry specs."""
    eval_seed: int = 1234
    """Seed of the evaluation deals: keep it fixed so curves compare across runs."""

    def check_values(self) -> None:
        super().check_values()
        check_at_least(self, 1, "eval_deals")
        check_at_least(self, 0, "eval_hands", "eval_seed")
        check_bots("eval_bots", self.eval_bots)


@dataclasses.dataclass
class SelfPlayConfig(RunConfig, RulesConfig, NetworkConfig, EvalConfig):
    """What the self-play trainers (PPO, DMC) share: the budget, the rollouts and their
    opponents, where they run, the learner's device and precision, and the loop's rhythm."""

    total_decisions: int = 1_000_000
    """Training budget in engine decisions (all seats, all games)."""
    num_envs: int = 512
    """Matches stepped together by each rollout worker (each trainer's ``rollout_steps`` says
    how many engine steps a rollout plays)."""
    reward: str = "hand"
    """"hand": points of each hand minus 1.5 (dense, what the quick preset learns from);
    "match": the zero-sum match result (+1 for the winner, -1/3 for the others)."""
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
    inference: str = "local"
    """Where the learner's forward passes in rollouts run: "local" (each worker on its own
    core) or "server" (one batched server on the learner's device for all process workers;
    agents.inference)."""
    device: str = "auto"
    """Learner device: "cpu", "cuda" or "auto" (cuda when present). Rollouts run on the CPU."""
    precision: str = "auto"
    """Matrix precision of forward and backward passes: "fp32", "bf16" (autocast: float32
    weights, bfloat16 products) or "auto": bf16 on CUDA devices that compute it and on CPUs
    with native bfloat16 instructions (AVX512-BF16 or AMX) where a short measurement at the
    start finds it faster, fp32 elsewhere (the run's log says which and why)."""
    eval_every: int = 10
    """Iterations between evaluations (0: only at the end)."""
    final_eval_deals: int = 0
    """Deals of the evaluation at the end of training (0: eval_deals); more deals, tighter CI."""
    init_from: str = ""
    """Fine-tune: start from the weights of this checkpoint (file or run directory; its
    network must have this config's shape, or be it without the history encoder, which then
    starts with no say) or of a bundle's policy (a PPO run; its value head starts fresh: see
    critic_warmup), with a fresh optimiser, learning-rate schedule and step count, instead of
    from random weights (agents.starting_weights). Ignored when resuming."""
    checkpoint_every: int = 50
    """Iterations between resumable checkpoints (one is always written at the end)."""

    def check_values(self) -> None:
        super().check_values()
        from murlan_env.game.episode import REWARD_MODES

        check_choice("reward", self.reward, REWARD_MODES)
        check_choice("workers", self.workers, WORKER_KINDS)
        check_choice("inference", self.inference, INFERENCE_MODES)
        check_choice("precision", self.precision, PRECISIONS)
        check_device(self.device)
        check_at_least(self, 1, "total_decisions", "num_envs", "num_workers")
        check_at_least(self, 1, "snapshot_every", "snapshot_pool")
        check_at_least(self, 0, "eval_every", "final_eval_deals", "checkpoint_every")
        check_share(self, "snapshot_share", "bot_share")
        if self.snapshot_share + self.bot_share > 1:
            raise ConfigError(
                f"snapshot_share + bot_share is the share of games against others: at most 1, "
                f"got {self.snapshot_share} + {self.bot_share}"
            )
        if self.inference == "server" and self.workers != "process":
            raise ConfigError('inference="server" serves process workers: set workers=process')
        check_bots("bots", self.bots)


def check_no_history(cfg: Any, trainer: str) -> None:
    """ConfigError unless ``cfg.history`` is "none": for the trainers that do not train a
    history encoder yet (PPO is the only one that does)."""
    if cfg.history != "none":
        raise ConfigError(
            f"history={cfg.history!r}: history encoders are PPO-only for now, {trainer} does "
            "not train one; set history: none (or train with PPO)"
        )


def check_device(device: str) -> None:
    """ConfigError unless ``device`` names a kind of device torch knows ("cuda:1" too)."""
    kind = device.split(":")[0]
    if kind not in DEVICE_KINDS:
        raise ConfigError(f"device must be one of {list(DEVICE_KINDS)} (or cuda:N), got {device!r}")


def check_bots(key: str, specs: list) -> None:
    """ConfigError naming ``key`` unless every spec is a bot the registry makes."""
    from murlan_env.bots import registry

    for spec in specs:
        try:
            registry.check_spec(spec)
        except (ValueError, OSError) as e:
            raise ConfigError(f"config key {key!r}: {e}") from None


__all__ = [
    "INFERENCE_MODES",
    "DEVICE_KINDS",
    "HISTORY_ENCODERS",
    "PRECISIONS",
    "WORKER_KINDS",
    "ConfigError",
    "ConfigPart",
    "EvalConfig",
    "NetworkConfig",
    "RulesConfig",
    "RunConfig",
    "SelfPlayConfig",
    "check_at_least",
    "check_bots",
    "check_device",
    "check_no_history",
    "check_choice",
    "check_share",
    "checked_value",
    "run_name",
]
