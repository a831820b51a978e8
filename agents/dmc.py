"""Deep Monte-Carlo (DouZero's method): Q(s, a) regressed on Monte-Carlo returns.

Reading order: the config, the learner (network, replay, update), ``train``.
Self-play is epsilon-greedy over the Q-values of the legal actions; every decision of a seat
gets that seat's return of the hand (``points - 1.5``, undiscounted) as its target once the
hand ends. Targets are exact returns, not bootstraps, which is what makes DMC stable on long
card-game episodes with sparse rewards. A replay buffer of the most recent decisions (from
finished hands) is sampled for the regression; checkpoints hold it (as uint8 observation
codes), so a resumed run goes on with the same replay.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import torch
from torch import nn

from agents.config import CommonConfig
from agents.networks import QNetwork, autocast, make_spec, resolve_precision
from agents.rollout import RolloutSettings
from agents.training import resolve_device, seed_everything, train_loop
from murlan_env.game.observation import from_codes, to_codes


@dataclasses.dataclass
class DMCConfig(CommonConfig):
    """DMC's settings (the common fields are documented on CommonConfig)."""

    epsilon: float = 0.01
    """Exploration: share of learner decisions taken uniformly among the legal actions."""
    pair_hidden: int = 128
    """Width of the (state, action) pair layers of the Q-network."""
    replay_size: int = 200_000
    """Decisions kept in the replay of recent episodes."""
    batch_size: int = 2048
    """Decisions per gradient step."""
    updates_per_rollout: int = 4
    """Gradient steps after each rollout."""
    max_grad_norm: float = 40.0
    """Gradient norm clipping (DouZero's value)."""


class Replay:
    """A ring buffer of (observation, action, return) from finished hands, oldest overwritten
    first. Observations are kept as their uint8 codes (``observation.to_codes``: lossless, a
    quarter of the memory), so the buffer fits in a checkpoint."""

    def __init__(self, size: int, obs_size: int) -> None:
        self.codes = np.zeros((size, obs_size), np.uint8)
        self.action = np.zeros(size, np.int64)
        self.ret = np.zeros(size, np.float32)
        self.size, self.n, self.pos = size, 0, 0

    def add(self, obs: np.ndarray, action: np.ndarray, ret: np.ndarray) -> None:
        k = len(action)
        if k >= self.size:
            obs, action, ret, k = (
                obs[-self.size :],
                action[-self.size :],
                ret[-self.size :],
                self.size,
            )
        idx = (self.pos + np.arange(k)) % self.size
        self.codes[idx], self.action[idx], self.ret[idx] = to_codes(obs), action, ret
        self.pos = (self.pos + k) % self.size
        self.n = min(self.n + k, self.size)

    def sample(self, rng: np.random.Generator, k: int):
        """``k`` decisions drawn uniformly, with replacement: (obs, action, return)."""
        idx = rng.integers(0, self.n, k)
        return from_codes(self.codes[idx]), self.action[idx], self.ret[idx]

    def state_dict(self) -> dict:
        """The filled part of the buffer and its position, for checkpoints."""
        n = self.n
        return {
            "codes": self.codes[:n].copy(),
            "action": self.action[:n].copy(),
            "ret": self.ret[:n].copy(),
            "pos": self.pos,
        }

    def load_state_dict(self, st: dict) -> None:
        n = len(st["action"])
        if n > self.size:
            raise ValueError(f"a replay of {n} decisions does not fit replay_size={self.size}")
        self.codes[:n], self.action[:n], self.ret[:n] = st["codes"], st["action"], st["ret"]
        self.n, self.pos = n, st["pos"] % self.size


class DMCLearner:
    """The Q-network, its optimiser, the replay and the MSE update."""

    def __init__(self, cfg: DMCConfig) -> None:
        self.cfg = cfg
        self.device = resolve_device(cfg.device)
        self.net: nn.Module = QNetwork(make_spec("dmc", cfg.hidden, cfg.pair_hidden)).to(
            self.device
        )
        self.opt = torch.optim.Adam(self.net.parameters(), lr=cfg.learning_rate)
        self.rng = np.random.default_rng(cfg.seed + 17)
        self.replay = Replay(cfg.replay_size, self.net.spec["obs_size"])
        self.precision = resolve_precision(cfg.precision, self.device)

    def settings(self) -> RolloutSettings:
        c = self.cfg
        return RolloutSettings(
            algorithm="dmc",
            spec=self.net.spec,
            num_envs=c.num_envs,
            num_steps=c.num_steps,
            reward="hand",
            rules=dict(c.rules),
            epsilon=c.epsilon,
            snapshot_share=c.snapshot_share,
            bot_share=c.bot_share,
            bots=tuple(c.bots),
        )

    def update(self, batch: dict) -> dict[str, float]:
        c = self.cfg
        self.replay.add(batch["obs"], batch["action"], batch["return"])
        if self.replay.n == 0:
            return {}
        losses, qs = [], []
        for _ in range(c.updates_per_rollout):
            obs, act, ret = self.replay.sample(self.rng, c.batch_size)
            obs_t = torch.from_numpy(obs).to(self.device)
            with autocast(self.precision, self.device):
                q = self.net.q_of(obs_t, torch.from_numpy(act).to(self.device)).float()
            loss = ((q - torch.from_numpy(ret).to(self.device)) ** 2).mean()
            self.opt.zero_grad(set_to_none=True)
            loss.backward()
            nn.utils.clip_grad_norm_(self.net.parameters(), c.max_grad_norm)
            self.opt.step()
            losses.append(loss.item())
            qs.append(q.mean().item())
        return {
            "q_loss": float(np.mean(losses)),
            "q_mean": float(np.mean(qs)),
            "replay_fill": self.replay.n / self.replay.size,
            "gradient_steps": c.updates_per_rollout,
        }

    def state_dict(self) -> dict:
        return {
            "optimizer": self.opt.state_dict(),
            "rng": self.rng.bit_generator.state,
            "replay": self.replay.state_dict(),
        }

    def load_state_dict(self, st: dict) -> None:
        self.opt.load_state_dict(st["optimizer"])
        self.rng.bit_generator.state = st["rng"]
        self.replay.load_state_dict(st["replay"])


def train(cfg: DMCConfig, resume: str | None = None) -> dict:
    """Train with ``cfg`` (resuming a run directory or checkpoint if given); see train_loop."""
    if cfg.reward != "hand":
        raise ValueError("DMC learns from Monte-Carlo returns of hands: reward must be 'hand'")
    seed_everything(cfg.seed)
    torch.set_num_threads(cfg.torch_threads)
    return train_loop(cfg, "dmc", DMCLearner(cfg), resume)
