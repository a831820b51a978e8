"""Deep Monte-Carlo (DouZero's method): Q(s, a) regressed on Monte-Carlo returns.

Reading order: the config; ``DMCActing``, DMC's part of a rollout (epsilon-greedy moves, the
Monte-Carlo returns of finished hands); the replay; the learner (network, update); ``train``.
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

from agents import seeds
from agents.config import (
    ConfigError,
    SelfPlayConfig,
    check_at_least,
    check_no_history,
    check_share,
)
from agents.minibatches import gradient_steps
from agents.networks import (
    QNetwork,
    autocast,
    make_arch,
    resolve_precision,
    time_learner_step,
)
from agents.returns import mc_returns
from agents.rollout import Batch, RolloutSettings, batch_shapes
from agents.training import resolve_device, train_loop
from murlan_env.game import engine, observation
from murlan_env.game.observation import SIZE as OBS_SIZE
from murlan_env.game.observation import from_codes, to_codes


@dataclasses.dataclass
class DMCConfig(SelfPlayConfig):
    """DMC's settings: its own keys here; the keys it shares with PPO (the budget, games per
    worker, opponents, workers, device, run, rules, trunk, evaluation) come from
    ``agents.config``'s parts, each documented there."""

    rollout_steps: int = 32
    """Engine steps per rollout (each worker returns num_envs * rollout_steps decisions, and
    the learner's decisions of hands that ended go to the replay)."""
    learning_rate: float = 3e-4
    """Adam's learning rate (constant)."""
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

    def check_values(self) -> None:
        super().check_values()
        check_at_least(self, 1, "rollout_steps", "pair_hidden", "replay_size", "batch_size")
        check_at_least(self, 1, "updates_per_rollout")
        check_at_least(self, 0, "learning_rate")
        check_share(self, "epsilon")
        check_no_history(self, "DMC")
        if self.reward != "hand":
            raise ConfigError(
                f"DMC learns from Monte-Carlo returns of hands: reward must be 'hand', "
                f"got {self.reward!r}"
            )


@dataclasses.dataclass(frozen=True)
class DMCActing:
    """DMC's part of a rollout (``agents.rollout.Acting``): the learner plays its best Q-value,
    or with probability ``epsilon`` a uniform legal move; each decision's target is its seat's
    return of the hand, known once the hand ends. Decisions whose hand has not ended are
    carried over to the next window, up to ``carry_steps`` steps back, so none is lost to the
    window's edge."""

    epsilon: float = 0.01  # exploration rate
    carry_steps: int = 192  # how far back unfinished hands are kept

    def fields(self, settings: RolloutSettings) -> tuple[str, ...]:
        return ("obs", "action", "returns")

    def scores(self, play, obs, mask, hidden, history):
        return play.net.rollout_scores(obs, mask, hidden)  # DMC reads no history (config)

    def choose(self, play, t: int, rows: np.ndarray, scores, extra) -> None:
        acts = scores.argmax(-1).numpy()
        explore = play.rng.random(len(rows)) < self.epsilon
        if explore.any():
            acts[explore] = engine.random_legal_actions(
                play.buf["mask"][t, rows[explore]], play.rng
            )
        play.buf["action"][t, rows] = acts

    def snapshot_choose(self, scores: torch.Tensor, rng: np.random.Generator) -> np.ndarray:
        return scores.argmax(-1).numpy()

    def finish(self, play, sink) -> dict[str, np.ndarray]:
        """Monte-Carlo returns of the decisions whose hand has ended (``play.carry`` keeps
        the rest for the next window)."""
        # Copies: the carry outlives this call, and the buffers are refilled by the next one.
        keys = ("action", "seat", "learner", "ended", "reward")
        new = {k: play.buf[k].copy() for k in keys}
        new["obs"] = observation.to_codes(play.buf["obs"])  # the carry is large: uint8 codes
        new["emitted"] = np.zeros(new["action"].shape, bool)
        if play.carry is not None:
            new = {k: np.concatenate([play.carry[k], new[k]]) for k in new}
        ret, has = mc_returns(new["seat"], new["ended"], new["reward"])
        sel = (new["learner"] & has & ~new["emitted"]).reshape(-1)
        out = sink.arrays(batch_shapes(self.fields(play.s), int(sel.sum())))
        observation.from_codes(new["obs"].reshape(sel.size, OBS_SIZE)[sel], out=out["obs"])
        np.compress(sel, new["action"].reshape(-1), out=out["action"])
        np.compress(sel, ret.reshape(-1), out=out["returns"])
        new["emitted"] |= has
        keep = max(0, len(new["seat"]) - self.carry_steps)
        play.carry = {k: v[keep:] for k, v in new.items()}
        return out


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
        self.net: nn.Module = QNetwork(make_arch("dmc", cfg.hidden, cfg.pair_hidden)).to(
            self.device
        )
        self.opt = torch.optim.Adam(self.net.parameters(), lr=cfg.learning_rate)
        self.rng = seeds.generator(cfg.seed, "learner")
        self.replay = Replay(cfg.replay_size, self.net.arch["obs_size"])
        self.precision, self.precision_why = resolve_precision(
            cfg.precision,
            self.device,
            lambda precision: time_learner_step(self.net, cfg.batch_size, precision, self.device),
        )

    def settings(self) -> RolloutSettings:
        c = self.cfg
        return RolloutSettings(
            acting=DMCActing(epsilon=c.epsilon),
            arch=self.net.arch,
            num_envs=c.num_envs,
            rollout_steps=c.rollout_steps,
            reward="hand",
            rules=dict(c.rules),
            snapshot_share=c.snapshot_share,
            bot_share=c.bot_share,
            bots=tuple(c.bots),
        )

    def update(self, batch: Batch, step: int) -> dict[str, float]:
        """Add ``batch`` to the replay and regress on samples of it (``step``: unused)."""
        c = self.cfg
        self.replay.add(batch.obs, batch.action, batch.returns)
        if self.replay.n == 0:
            return {}

        def loss(sample) -> tuple[torch.Tensor, dict[str, float]]:
            obs, act, ret = (torch.from_numpy(x).to(self.device) for x in sample)
            with autocast(self.precision, self.device):
                q = self.net.q_of(obs, act).float()
            value = ((q - ret) ** 2).mean()
            return value, {"q_loss": value.item(), "q_mean": q.mean().item()}

        samples = (self.replay.sample(self.rng, c.batch_size) for _ in range(c.updates_per_rollout))
        out = gradient_steps(self.opt, samples, loss, c.max_grad_norm)
        return {**out, "replay_fill": self.replay.n / self.replay.size}

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
    seeds.seed_everything(cfg.seed)
    torch.set_num_threads(cfg.torch_threads)
    return train_loop(cfg, "dmc", DMCLearner(cfg), resume)
