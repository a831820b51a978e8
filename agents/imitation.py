"""Warm start by imitation: a policy first learns to play like a bot, then RL improves on it.

Reinforcement learning from scratch spends its first millions of decisions discovering what
any hand-written bot already knows (lead low, keep bombs, shed singles). ``demonstrations``
records a bot playing all four seats on the batched engine: every decision's observation,
legal mask and action, the hidden hands (for a privileged critic) and the decision's return
under the trainer's reward. ``pretrain`` fits the policy to the actions (cross-entropy on the
masked logits) and the value to the returns, so PPO starts from the bot's level of play with
a critic that already knows what positions are worth.
"""

from __future__ import annotations

import numpy as np
import torch
from torch import nn

from agents.minibatches import gradient_steps, shuffled
from agents.networks import autocast, masked_logits
from agents.returns import mc_returns
from murlan_env.bots import registry
from murlan_env.game import engine, episode, observation
from murlan_env.game.rules import Rules


def demonstrations(
    bot_spec: str,
    n_decisions: int,
    *,
    rules: Rules | None = None,
    reward: str = episode.HAND,
    num_envs: int = 256,
    seed: int = 0,
) -> dict[str, np.ndarray]:
    """``n_decisions`` decisions of ``bot_spec`` playing every seat, with their returns.

    Only decisions whose episode (a hand, or a match for ``reward="match"``) ended within the
    recording are kept, so every return is exact.
    """
    rng = np.random.default_rng(seed)
    bot = registry.make_bot(bot_spec)
    state = engine.init(rng, num_envs, rules or Rules())
    steps = max(1, -(-n_decisions // num_envs))
    columns = {"obs": [], "mask": [], "action": [], "hidden_hands": [], "seat": [], "ended": []}
    rewards = []
    for _ in range(steps + 256):  # extra steps so the last episodes end
        mask = engine.legal_action_mask(state)
        obs = observation.encode(state)
        actions = np.asarray(bot.act(obs, mask, rng), np.int64)
        columns["obs"].append(obs)
        columns["mask"].append(mask.copy())
        columns["action"].append(actions)
        columns["hidden_hands"].append(observation.encode_hidden(state))
        columns["seat"].append(state.to_act.copy())
        state, step = episode.advance(state, actions, rng, reward=reward, donate=True)
        columns["ended"].append(episode.ended(step, reward))
        rewards.append(step.rewards)
    seat, ended = np.stack(columns.pop("seat")), np.stack(columns.pop("ended"))
    ret, known = mc_returns(seat, ended, np.stack(rewards))
    keep = known.reshape(-1)
    out = {name: np.stack(value) for name, value in columns.items()}
    out = {name: value.reshape(keep.size, *value.shape[2:])[keep] for name, value in out.items()}
    out["return"] = ret.reshape(-1)[keep]
    return {name: value[:n_decisions] for name, value in out.items()}


def pretrain(
    net: nn.Module,
    demos: dict[str, np.ndarray],
    *,
    epochs: int = 4,
    minibatch_size: int = 2048,
    learning_rate: float = 1e-3,
    value_coef: float = 0.5,
    seed: int = 0,
    precision: str = "fp32",
    device: torch.device | str = "cpu",
) -> dict[str, float]:
    """Fit ``net`` (an ActorCritic) to the demonstrations; returns the last epoch's losses
    and the share of decisions where the policy's argmax is the demonstrated action."""
    gen = np.random.default_rng(seed)
    data = {k: torch.from_numpy(v).to(device) for k, v in demos.items()}
    hidden = data["hidden_hands"] if getattr(net, "privileged", False) else None
    opt = torch.optim.Adam(net.parameters(), lr=learning_rate)
    n = len(data["action"])

    def loss(rows: np.ndarray) -> tuple[torch.Tensor, dict[str, float]]:
        idx = torch.from_numpy(rows).to(device)
        with autocast(precision, device):
            logits, value = net.logits_and_value(
                data["obs"][idx], None if hidden is None else hidden[idx]
            )
        logits = masked_logits(logits.float(), data["mask"][idx])
        imitation = nn.functional.cross_entropy(logits, data["action"][idx])
        value_loss = 0.5 * ((value.float() - data["return"][idx]) ** 2).mean()
        agree = (logits.argmax(-1) == data["action"][idx]).float().mean()
        stats = {"imitation": imitation, "value": value_loss, "agreement": agree}
        return imitation + value_coef * value_loss, {k: v.item() for k, v in stats.items()}

    losses = {k: float("nan") for k in ("imitation", "value", "agreement")}
    for _ in range(epochs):
        losses = gradient_steps(opt, shuffled(gen, n, minibatch_size), loss, max_grad_norm=1.0)
        losses.pop("gradient_steps")
    return losses


__all__ = ["demonstrations", "pretrain"]
