"""Shared torch modules for the trainers, and the policy-loading contract for export.

Contract (``load_policy``), for code that consumes trained policies (export, arena, bots):

    policy = load_policy(path)       # a checkpoint file, or a run directory (runs/<name>)
    scores = policy(obs, mask)       # obs (B, OBS_SIZE) float32, mask (B, N_ACTIONS) bool
    action = scores.argmax(-1)       # greedy action, always legal where the mask has one
    policy.arch                      # {"algorithm": "ppo" | "dmc", "hidden": [...],
                                     #  "obs_size": 544, "n_actions": 109, ...}
    reads_history(policy.arch)       # True: the policy also takes the hand so far:
    scores = policy(obs, mask, history)  # history (B, LENGTH, 2) int16 or int64, the layout of
                                     #  murlan_env.game.hand_history (encode, from_rows)

A missing checkpoint raises FileNotFoundError; one that cannot be read (truncated, corrupted,
not a murlan checkpoint) raises ``CheckpointError``, a ValueError whose one-line message names
the file and the fix.

``forward(obs, mask[, history]) -> (B, N_ACTIONS) float32`` returns masked scores: PPO's
logits, DMC's Q-values, with illegal actions at ``torch.finfo(float32).min``. The module is in
eval mode, on the CPU, and its forward has no data-dependent Python control flow, so
``torch.onnx.export(policy, (obs, mask), ...)`` (with ``history`` for a policy that reads it)
traces it. ``build_network(arch)`` rebuilds an untrained module of the same shape (strict
``load_state_dict`` then checks the weights).

Networks:
- ``MLPTrunk``: the flat egocentric observation of ``engine.observe`` through a ReLU MLP.
- ``HistoryEncoder`` and ``AttentionHistory``: the hand so far (``murlan_env.game.hand_history``'s
  event rows) through embeddings and a GRU, or attention pooling, to a summary the trunk reads
  beside the observation (``arch["history"]``: "gru" or "attention"; without the key, or
  "none", no history is read).
- ``ActorCritic``: a trunk, then a logit per action of the action catalogue, and a state value:
  from the same trunk (``critic="shared"``), or from a critic of its own that also sees the
  other seats' hands (``critic="privileged"``, as PerfectDou trains: the critic only shapes
  the policy's updates, so it may know what the policy cannot; play and export use the
  policy alone).
- ``QNetwork``: DouZero's Q(s, a), scoring (observation, action features) pairs. Action
  features come from the static table (``combos.COST``, ``KIND``, ``KEY``), so similar plays
  (a pair of 7s, a pair of 8s) share what is learnt. The first pair layer is factorised
  (``W_s h(s) + W_a f(a)``) so scoring all 109 actions costs one small matrix per state.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import torch
from torch import nn

from agents.checkpoint import (  # noqa: F401  the checkpoint names load_policy's users import
    CHECKPOINT_NAME,
    Checkpoint,
    CheckpointError,
    checkpoint_path,
    first_sentence,
)
from agents.checkpoint import load as load_checkpoint
from agents.config import HISTORY_ENCODERS, PRECISIONS
from murlan_env.game import hand_history
from murlan_env.game.combos import COST, KEY, KIND, LENGTH, N_ACTIONS, Kind
from murlan_env.game.observation import HIDDEN_SIZE
from murlan_env.game.observation import SIZE as OBS_SIZE
from murlan_env.game.state import N_SEATS


def native_cpu_bf16() -> bool:
    """Whether this CPU has bfloat16 instructions (AVX512-BF16 or AMX tiles), as torch sees
    them. Without them oneDNN emulates bf16 products, which costs more than float32."""
    return bool(torch.cpu._is_avx512_bf16_supported() or torch.cpu._is_amx_tile_supported())


def resolve_precision(
    precision: str, device: torch.device, probe: Callable[[str], float] | None = None
) -> tuple[str, str]:
    """(precision, why): "auto" resolved to the faster of "fp32" and "bf16" on ``device``.

    CUDA: bf16 where the device computes it. CPU: fp32 unless the CPU has native bfloat16
    instructions (``native_cpu_bf16``), since emulated bf16 is slower than fp32; with them,
    ``probe(precision) -> seconds`` (a few learner steps, see ``time_learner_step``) decides,
    so that auto is never the slower of the two. ``why`` says which rule chose, for the
    run's log.
    """
    if precision not in PRECISIONS:
        raise ValueError(f"precision must be one of {PRECISIONS}, got {precision!r}")
    if precision != "auto":
        return precision, "set by the config"
    if device.type == "cuda":
        if torch.cuda.is_bf16_supported():
            return "bf16", f"{torch.cuda.get_device_name(device)} computes bfloat16"
        return "fp32", f"{torch.cuda.get_device_name(device)} does not compute bfloat16"
    capability = torch.backends.cpu.get_cpu_capability()
    if device.type != "cpu" or not native_cpu_bf16():
        return "fp32", (
            f"the CPU has no native bfloat16 instructions (no AVX512-BF16 or AMX; torch's CPU "
            f"capability: {capability}), so bf16 would be emulated and slower"
        )
    if probe is None:
        return "bf16", f"the CPU has native bfloat16 instructions ({capability})"
    fp32, bf16 = probe("fp32"), probe("bf16")
    chosen = "bf16" if bf16 < fp32 else "fp32"
    return chosen, (
        f"the CPU has native bfloat16 instructions ({capability}); a learner step measured "
        f"{bf16 * 1e3:.1f} ms in bf16 and {fp32 * 1e3:.1f} ms in fp32"
    )


def time_learner_step(
    net: nn.Module, rows: int, precision: str, device: torch.device, repeats: int = 3
) -> float:
    """Median seconds of one forward and backward pass of ``net`` on ``rows`` random
    observations in ``precision`` (the gradients are cleared afterwards; the weights and every
    random generator are left as they were)."""
    import time

    with torch.random.fork_rng(devices=[]):
        obs = torch.rand(rows, net.arch["obs_size"], device=device)
        actions = torch.randint(0, net.arch["n_actions"], (rows,), device=device)
        history = None
        if reads_history(net.arch):
            history = torch.from_numpy(random_histories(rows)).to(device)
    times = []
    for _ in range(repeats + 1):  # the first pass warms oneDNN's kernel cache up
        start = time.perf_counter()
        with autocast(precision, device):
            if isinstance(net, QNetwork):
                out = net.q_of(obs, actions)
            else:
                out = net.logits(obs, history)
        out.float().square().mean().backward()
        if device.type == "cuda":
            torch.cuda.synchronize(device)
        times.append(time.perf_counter() - start)
    net.zero_grad(set_to_none=True)
    return sorted(times[1:])[len(times[1:]) // 2]


def autocast(precision: str, device: torch.device | str = "cpu"):
    """The context for forward passes in ``precision``: bf16 autocast (float32 weights and
    reductions, bfloat16 matrix products), or nothing for fp32."""
    if precision == "bf16":
        return torch.autocast(torch.device(device).type, dtype=torch.bfloat16)
    return contextlib.nullcontext()


def masked_logits(logits: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """Illegal entries of ``logits`` set to the dtype's lowest value (the one masking helper)."""
    return torch.where(mask, logits, torch.finfo(logits.dtype).min)


def action_features() -> np.ndarray:
    """(N_ACTIONS, 28) float32 features of each action of the static table.

    Cards consumed per rank (15), one-hot kind (6), comparison key / 14, cards played / 13,
    and two flags: is a bomb, is the joker pair.
    """
    cost = COST.astype(np.float32)
    kind = np.eye(len(Kind), dtype=np.float32)[KIND]
    key = np.maximum(KEY, 0).astype(np.float32)[:, None] / 14.0
    length = LENGTH.astype(np.float32)[:, None] / 13.0
    bomb = (KIND == Kind.QUAD).astype(np.float32)[:, None]
    joker_pair = np.zeros((N_ACTIONS, 1), np.float32)
    joker_pair[-1] = 1.0
    return np.concatenate([cost, kind, key, length, bomb, joker_pair], axis=1)


class MLPTrunk(nn.Module):
    """Observation -> features: Linear + ReLU layers of the given widths."""

    def __init__(self, obs_size: int, hidden: list[int]) -> None:
        super().__init__()
        layers: list[nn.Module] = []
        width = obs_size
        for h in hidden:
            layers += [nn.Linear(width, h), nn.ReLU()]
            width = h
        self.net = nn.Sequential(*layers)
        self.out_size = width

    def forward(self, obs: torch.Tensor) -> torch.Tensor:
        return self.net(obs)


class HistoryEncoder(nn.Module):
    """The hand so far -> a summary of ``width`` features: each event (``hand_history``'s
    ``[slot, action]`` row) embedded as the sum of an action and a slot embedding, then a GRU
    over the events in order; the summary is its last state.

    Padding is exact, not learnt around: rows whose action is negative (``PAD``) embed to
    zero, whatever else they hold, and the GRU has no biases, so a zero input leaves a zero
    state at zero. Left padding therefore keeps the state at zero until the first event, and
    the summary is the same however much padding precedes the events.
    """

    def __init__(self, n_actions: int, width: int) -> None:
        super().__init__()
        self.action_embed = nn.Embedding(n_actions, width)
        self.slot_embed = nn.Embedding(N_SEATS, width)
        self.gru = nn.GRU(width, width, batch_first=True, bias=False)
        self.out_size = width

    def forward(self, history: torch.Tensor) -> torch.Tensor:
        history = history.long()
        slot, action = history[..., 0], history[..., 1]
        real = (action >= 0).unsqueeze(-1)
        x = self.action_embed(action.clamp(min=0)) + self.slot_embed(slot.clamp(0, N_SEATS - 1))
        _, last = self.gru(torch.where(real, x, 0.0))
        return last[0]


class AttentionHistory(nn.Module):
    """The hand so far -> a summary of ``width`` features by attention pooling: each event
    (``hand_history``'s ``[slot, action]`` row) is embedded as the sum of an embedding of its
    (action, slot) pair and a recency embedding (0 for the latest event), then put through a
    ReLU layer; each of ``heads`` heads scores every event, and sums its share of the events'
    values with the softmax of those scores. The events are read in parallel, not one after
    another, so it costs a small multiple of the trunk on a CPU where ``HistoryEncoder``'s GRU
    costs many.

    Padding is exact: rows whose action is negative (``PAD``) score the dtype's lowest value,
    so they get no weight whatever they hold, and a learnt null score with a zero value
    stands in for the events of a hand that has none. Recency counts from the last row, so an
    event reads the same however much padding precedes it.
    """

    def __init__(self, n_actions: int, width: int, length: int, heads: int = 4) -> None:
        super().__init__()
        if width % heads:
            raise ValueError(f"history_hidden must be a multiple of {heads}, got {width}")
        self.heads = heads
        self.event_embed = nn.Embedding(n_actions * N_SEATS, width)  # one per (action, slot)
        self.recency_embed = nn.Embedding(length, width)
        self.token = nn.Sequential(nn.Linear(width, width), nn.ReLU())
        self.scores_values = nn.Linear(width, heads + width)
        self.null_score = nn.Parameter(torch.zeros(heads))
        columns = torch.arange(width) // (width // heads) == torch.arange(heads)[:, None]
        self.register_buffer("head_columns", columns.float(), persistent=False)
        self.out_size = width

    def forward(self, history: torch.Tensor) -> torch.Tensor:
        history = history.long()
        batch, length = history.shape[:2]
        slot, action = history[..., 0], history[..., 1]
        event = action.clamp(min=0) * N_SEATS + slot.clamp(0, N_SEATS - 1)
        # token(e + r) = ReLU(W e + W r + b): the token layer applied to the two tables (a few
        # hundred rows), then gathered, is the same function as applying it to every event of
        # the batch, at a fraction of the work. Recency counts back from the last row.
        layer = self.token[0]
        events = nn.functional.linear(self.event_embed.weight, layer.weight, layer.bias)
        recency = nn.functional.linear(self.recency_embed.weight[:length].flip(0), layer.weight)
        x = torch.relu(events[event] + recency)
        scores, values = self.scores_values(x).split([self.heads, self.out_size], -1)
        scores = torch.where((action >= 0).unsqueeze(-1), scores, torch.finfo(scores.dtype).min)
        null = self.null_score.to(scores.dtype).expand(batch, 1, self.heads)
        weights = torch.softmax(torch.cat([null, scores], 1), 1)[:, 1:]  # (B, L, heads)
        # Each head pools every value column in one batched product; its own columns kept.
        pooled = torch.matmul(weights.transpose(1, 2).to(values.dtype), values)  # (B, heads, W)
        return (pooled * self.head_columns.to(pooled.dtype)).sum(1)


def history_encoder(arch: dict[str, Any]) -> nn.Module:
    """The history encoder ``arch["history"]`` names, of width ``arch["history_hidden"]``."""
    if arch["history"] == "gru":
        return HistoryEncoder(arch["n_actions"], arch["history_hidden"])
    return AttentionHistory(arch["n_actions"], arch["history_hidden"], arch["history_length"])


def random_histories(rows: int, seed: int = 0) -> np.ndarray:
    """(rows, LENGTH, 2) histories of random events, hands of every length up to LENGTH
    (``hand_history.encode``'s layout): inputs for timing and tracing, not for play."""
    rng = np.random.default_rng(seed)
    width = hand_history.LENGTH
    return hand_history.encode(
        rng.integers(0, N_SEATS, (rows, width)),
        rng.integers(0, N_ACTIONS, (rows, width)),
        rng.integers(0, width + 1, rows),
        np.zeros(rows, np.int64),
    )


def reads_history(arch: dict[str, Any]) -> bool:
    """Whether the network of ``arch`` reads the hand so far beside the observation."""
    return arch.get("history", "none") != "none"


def _init_linear(layer: nn.Linear, gain: float) -> nn.Linear:
    nn.init.orthogonal_(layer.weight, gain)
    nn.init.zeros_(layer.bias)
    return layer


def policy_scores(
    policy: nn.Module, obs: torch.Tensor, mask: torch.Tensor, history: torch.Tensor | None = None
) -> torch.Tensor:
    """``policy(obs, mask)`` (``policy(obs, mask, history)`` given the hand so far), through a
    faster equivalent where the module has one."""
    fast = getattr(policy, "legal_scores", None)
    if fast is not None:
        return fast(obs, mask)
    return policy(obs, mask) if history is None else policy(obs, mask, history)


def _orthogonal_trunk(size: int, hidden: list[int]) -> MLPTrunk:
    trunk = MLPTrunk(size, hidden)
    for m in trunk.modules():
        if isinstance(m, nn.Linear):
            _init_linear(m, 2**0.5)
    return trunk


class ActorCritic(nn.Module):
    """PPO's network: one logit per action and a value, both for the seat to act.

    ``arch["critic"]``: "shared" (the value head sits on the policy's trunk) or "privileged"
    (a separate critic MLP of widths ``arch["critic_hidden"]`` reads the observation and the
    hidden hands of ``murlan_env.game.observation.encode_hidden``). ``arch["history"]``:
    "gru" puts a ``HistoryEncoder`` ("attention": an ``AttentionHistory``) of width
    ``arch["history_hidden"]`` before the trunk, whose input is then the observation and the
    encoder's summary; every method then takes the ``history`` (a privileged critic does not
    read it: it sees the hands themselves).
    """

    def __init__(self, arch: dict[str, Any]) -> None:
        super().__init__()
        self.arch = dict(arch)
        self.privileged = arch.get("critic", "shared") == "privileged"
        summary = arch["history_hidden"] if reads_history(arch) else 0
        self.trunk = _orthogonal_trunk(arch["obs_size"] + summary, list(arch["hidden"]))
        self.policy_head = _init_linear(nn.Linear(self.trunk.out_size, arch["n_actions"]), 0.01)
        if self.privileged:
            size = arch["obs_size"] + arch["hidden_size"]
            self.critic = _orthogonal_trunk(size, list(arch["critic_hidden"]))
            self.value_head = _init_linear(nn.Linear(self.critic.out_size, 1), 1.0)
        else:
            self.value_head = _init_linear(nn.Linear(self.trunk.out_size, 1), 1.0)
        self.history_encoder = None
        if reads_history(arch):
            self.history_encoder = history_encoder(arch)

    def features(self, obs: torch.Tensor, history: torch.Tensor | None = None) -> torch.Tensor:
        """The trunk's output (B, hidden[-1]): of the observation, and of the hand so far when
        the network reads it."""
        if self.history_encoder is None:
            return self.trunk(obs)
        if history is None:
            raise ValueError(
                "this network reads the hand so far: pass its history "
                "(murlan_env.game.hand_history)"
            )
        return self.trunk(torch.cat([obs, self.history_encoder(history)], -1))

    def logits(self, obs: torch.Tensor, history: torch.Tensor | None = None) -> torch.Tensor:
        """Unmasked logits (B, A)."""
        return self.policy_head(self.features(obs, history))

    def logits_and_value(
        self,
        obs: torch.Tensor,
        hidden_hands: torch.Tensor | None = None,
        history: torch.Tensor | None = None,
    ) -> tuple[torch.Tensor, torch.Tensor]:
        """Unmasked logits (B, A) and values (B,); ``hidden_hands`` (the other seats' hands,
        ``observation.encode_hidden``) feeds a privileged critic."""
        h = self.features(obs, history)
        if self.privileged:
            return self.policy_head(h), self.value(obs, hidden_hands)
        return self.policy_head(h), self.value_head(h).squeeze(-1)

    def value(
        self,
        obs: torch.Tensor,
        hidden_hands: torch.Tensor | None = None,
        history: torch.Tensor | None = None,
    ) -> torch.Tensor:
        """Values (B,) of the seat to act."""
        if self.privileged:
            if hidden_hands is None:
                raise ValueError("a privileged critic needs the hidden hands (encode_hidden)")
            both = torch.cat([obs, hidden_hands], -1)
            return self.value_head(self.critic(both)).squeeze(-1)
        return self.value_head(self.features(obs, history)).squeeze(-1)

    def forward(
        self, obs: torch.Tensor, mask: torch.Tensor, history: torch.Tensor | None = None
    ) -> torch.Tensor:
        """Masked logits (B, A): the export contract (the policy alone)."""
        return masked_logits(self.logits(obs, history), mask)

    def rollout_scores(
        self,
        obs: torch.Tensor,
        mask: torch.Tensor,
        hidden_hands: torch.Tensor | None = None,
        history: torch.Tensor | None = None,
    ) -> tuple[torch.Tensor, torch.Tensor]:
        """What a rollout step asks of the learner's network (locally or through
        ``agents.inference``): masked logits (B, A) and values (B,)."""
        logits, value = self.logits_and_value(obs, hidden_hands, history)
        return masked_logits(logits, mask), value


class QNetwork(nn.Module):
    """DMC's network: Q(s, a) for (observation, action features) pairs, all actions at once."""

    def __init__(self, arch: dict[str, Any]) -> None:
        super().__init__()
        self.arch = dict(arch)
        feats = torch.from_numpy(action_features())
        self.register_buffer("features", feats, persistent=False)
        self.trunk = MLPTrunk(arch["obs_size"], list(arch["hidden"]))
        width = arch["pair_hidden"]
        self.state_proj = nn.Linear(self.trunk.out_size, width)
        self.action_proj = nn.Sequential(
            nn.Linear(feats.shape[1], width), nn.ReLU(), nn.Linear(width, width, bias=False)
        )
        self.head = nn.Sequential(
            nn.ReLU(), nn.Linear(width, width), nn.ReLU(), nn.Linear(width, 1)
        )

    def q_values(self, obs: torch.Tensor) -> torch.Tensor:
        """Unmasked Q-values (B, A) of every action."""
        s = self.state_proj(self.trunk(obs))  # (B, W)
        a = self.action_proj(self.features)  # (A, W)
        return self.head(s[:, None, :] + a[None, :, :]).squeeze(-1)

    def q_of(self, obs: torch.Tensor, actions: torch.Tensor) -> torch.Tensor:
        """Q(s, a) (B,) of one given action per observation (the training target's pair)."""
        s = self.state_proj(self.trunk(obs))
        a = self.action_proj(self.features[actions.long()])
        return self.head(s + a).squeeze(-1)

    def forward(self, obs: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        """Masked Q-values (B, A): the export contract."""
        return masked_logits(self.q_values(obs), mask)

    def legal_scores(self, obs: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        """The same as ``forward``, scoring only the legal pairs (a handful of 109 per state).

        Much faster for rollouts and evaluation; ``forward`` stays free of data-dependent
        shapes for export.
        """
        s = self.state_proj(self.trunk(obs))
        a = self.action_proj(self.features)
        rows, cols = mask.nonzero(as_tuple=True)
        q = self.head(s[rows] + a[cols]).squeeze(-1)
        out = torch.full(mask.shape, torch.finfo(q.dtype).min, dtype=q.dtype, device=q.device)
        out[rows, cols] = q
        return out

    def rollout_scores(
        self, obs: torch.Tensor, mask: torch.Tensor, hidden_hands: torch.Tensor | None = None
    ) -> tuple[torch.Tensor, None]:
        """What a rollout step asks of the learner's network (locally or through
        ``agents.inference``): masked Q-values (B, A) (``legal_scores``), and no value."""
        return self.legal_scores(obs, mask), None


def make_arch(
    algorithm: str,
    hidden: list[int],
    pair_hidden: int = 128,
    critic: str = "shared",
    critic_hidden: list[int] | None = None,
    history: str = "none",
    history_hidden: int = 32,
) -> dict[str, Any]:
    """The JSON-ready description from which ``build_network`` rebuilds a module. A network
    without a history encoder has no history keys, so its description is what it was before
    history encoders existed (older checkpoints load and fine-tune unchanged)."""
    arch: dict[str, Any] = {
        "algorithm": algorithm,
        "hidden": [int(h) for h in hidden],
        "obs_size": OBS_SIZE,
        "n_actions": N_ACTIONS,
    }
    if algorithm == "dmc":
        arch["pair_hidden"] = int(pair_hidden)
    if algorithm == "ppo" and critic != "shared":
        if critic != "privileged":
            raise ValueError(f'critic must be "shared" or "privileged", got {critic!r}')
        arch["critic"] = critic
        arch["critic_hidden"] = [int(h) for h in (critic_hidden or hidden)]
        arch["hidden_size"] = HIDDEN_SIZE
    if history != "none":
        if history not in HISTORY_ENCODERS[1:] or algorithm != "ppo":
            raise ValueError(
                f"history must be one of {list(HISTORY_ENCODERS)} (PPO only), got {history!r}"
            )
        arch["history"] = history
        arch["history_hidden"] = int(history_hidden)
        arch["history_length"] = hand_history.LENGTH
    return arch


def build_network(arch: dict[str, Any]) -> ActorCritic | QNetwork:
    """An untrained module for ``arch`` (see ``make_arch``)."""
    length = arch.get("history_length", hand_history.LENGTH)
    if reads_history(arch) and length != hand_history.LENGTH:
        raise ValueError(
            f"the network reads {length} events of history, this version encodes "
            f"{hand_history.LENGTH} (murlan_env.game.hand_history.LENGTH)"
        )
    if arch["algorithm"] == "ppo":
        return ActorCritic(arch)
    if arch["algorithm"] == "dmc":
        return QNetwork(arch)
    raise ValueError(f"unknown algorithm {arch['algorithm']!r} in network architecture")


def load_policy(path: str | Path | Checkpoint) -> nn.Module:
    """The trained policy of a checkpoint file or run directory, on the CPU in eval mode.

    See the module docstring for the contract of the returned module. Raises
    FileNotFoundError or CheckpointError (see ``load_checkpoint``).
    """
    ckpt = load_checkpoint(path)
    try:
        net = build_network(ckpt.arch)
        net.load_state_dict(ckpt.model, strict=True)
    except (KeyError, TypeError, ValueError, RuntimeError) as e:
        raise CheckpointError(
            f"checkpoint {ckpt.path} does not hold a network this version of murlan "
            f"can build ({first_sentence(e)}); re-train (python train.py) or pick another "
            "checkpoint"
        ) from e
    net.eval()
    return net
