"""Self-play PPO with action masking: one actor-critic shared by all four seats.

Reading order: the config; ``PPOActing``, PPO's part of a rollout (how the learner picks its
moves, and the GAE advantages of its decisions at the end); the loss; the learner (network,
optimiser, the update over a ``Batch``); ``train``. Rollouts (``agents.rollout``) play
thousands of matches together on the batched engine; the observation is egocentric, so one
network serves every seat, and each seat's decisions form its own trajectory for GAE. The
legal-action mask is stored with every sample and re-applied when log-probabilities are
recomputed in the update. A share of games can be played against frozen past snapshots and
rule-based bots (the opponent pool), which keeps the policy from chasing its own tail and
measures progress against fixed opponents as it trains.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import torch
from torch import nn

from agents import seeds
from agents.config import ConfigError, SelfPlayConfig, check_at_least, check_share
from agents.minibatches import gradient_steps, shuffled
from agents.networks import (
    ActorCritic,
    autocast,
    make_arch,
    masked_logits,
    reads_history,
    resolve_precision,
    time_learner_step,
)
from agents.returns import gae_advantages
from agents.rollout import (
    Batch,
    RolloutSettings,
    batch_shapes,
    privileged,
    sample_from_logits,
)
from agents.training import log, resolve_device, train_loop
from murlan_env.game import observation
from murlan_env.game.state import N_SEATS

CRITICS = ("shared", "privileged")
LR_FLOOR = 0.05  # anneal_lr's floor: the learning rate never falls below this share of its start


@dataclasses.dataclass
class PPOConfig(SelfPlayConfig):
    """PPO's settings: its own keys here, in the order the trainer reads them (the rollout
    window, the returns, the optimiser, the loss, the critic, the warm start).

    The keys PPO shares with DMC come from ``agents.config``, each documented there:
    ``SelfPlayConfig`` (the budget ``total_decisions``, ``num_envs``, the opponent pool, the
    workers, the device and precision, the loop's rhythm), ``RunConfig`` (name, seed,
    folder), ``RulesConfig``, ``NetworkConfig`` (``hidden``) and ``EvalConfig``. A preset may
    set any of these keys and no other (docs/config.md lists them all, per trainer).
    """

    rollout_steps: int = 32
    """Engine steps per rollout: each worker returns num_envs * rollout_steps decisions (every
    seat's), and PPO updates once on the learner's decisions among them."""
    gamma: float = 1.0
    """Discount per decision of the same seat (1: the hand's points count in full)."""
    gae_lambda: float = 0.95
    """GAE lambda: bias/variance trade-off of the advantages."""
    learning_rate: float = 3e-4
    """Adam's learning rate at the start (Adam's eps is 1e-5); the warm start's too."""
    anneal_lr: bool = True
    """Decay the learning rate linearly with the run's decisions, on the line from
    learning_rate at the start to 0 at total_decisions, but never below 5% of learning_rate
    (LR_FLOOR: reached at 95% of the budget, then kept); false: learning_rate throughout."""
    update_epochs: int = 3
    """Passes over each rollout batch."""
    minibatch_size: int = 4096
    """Learner decisions per gradient step. Fixed, so the number of gradient steps per
    decision stays the same however many workers (or games per worker) feed the batch."""
    max_grad_norm: float = 0.5
    """Gradient norm clipping."""
    clip_coef: float = 0.2
    """PPO ratio clipping."""
    ent_coef: float = 0.01
    """Entropy bonus weight."""
    vf_coef: float = 0.5
    """Value loss weight."""
    norm_adv: bool = True
    """Normalise advantages per minibatch."""
    critic: str = "shared"
    """"shared": the value head sits on the policy's trunk; "privileged": a critic of its own
    that also sees the other seats' hands (training only; play uses the policy alone)."""
    critic_hidden: list = dataclasses.field(default_factory=lambda: [256, 256])
    """Widths of the privileged critic's layers."""
    critic_warmup: int = 0
    """Decisions at the start of a run in which only the critic learns (the value head, and a
    privileged critic's layers): the policy, its trunk and any history encoder keep their
    weights. For a start whose value head is fresh, as from a bundle (``init_from``: a bundle
    holds no value head), so the policy's first updates follow a critic that has learnt the
    returns, not a random one. 0: the policy learns from the first update."""
    imitate: str = ""
    """Warm start: a bot spec whose play the policy (and critic) first learn from
    demonstrations before RL starts (agents.imitation); "" starts from scratch."""
    imitate_decisions: int = 500_000
    """Demonstrated decisions for the warm start."""
    imitate_epochs: int = 4
    """Passes over the demonstrations."""

    def check_values(self) -> None:
        super().check_values()
        check_at_least(self, 1, "rollout_steps", "update_epochs", "minibatch_size")
        check_at_least(self, 1, "critic_hidden")
        check_at_least(self, 0, "learning_rate", "max_grad_norm", "clip_coef")
        check_at_least(self, 0, "imitate_decisions", "imitate_epochs", "critic_warmup")
        check_share(self, "gamma", "gae_lambda")
        if self.critic not in CRITICS:
            raise ConfigError(f"critic must be one of {list(CRITICS)}, got {self.critic!r}")
        if self.init_from and self.imitate:
            raise ConfigError("init_from and imitate both choose the starting weights: set one")
        if self.history != "none" and self.imitate:
            raise ConfigError(
                "imitate's demonstrations hold no hand history yet: set history: none to warm "
                "start, or imitate: '' to train the history encoder from scratch"
            )
        if self.history != "none" and self.inference == "server":
            raise ConfigError(
                'the inference server does not carry the hand history yet: set inference: "local"'
                " with history"
            )


def annealed_lr(cfg: PPOConfig, step: int) -> float:
    """The learning rate of the update at ``step`` decisions (this batch's included) under
    ``anneal_lr``: ``learning_rate * max(1 - step / total_decisions, LR_FLOOR)``, linear
    towards 0 at ``total_decisions`` but floored at ``LR_FLOOR`` (5%) of its start."""
    return max(1.0 - step / cfg.total_decisions, LR_FLOOR) * cfg.learning_rate


@dataclasses.dataclass(frozen=True)
class PPOActing:
    """PPO's part of a rollout (``agents.rollout.Acting``): the learner samples its move from
    the masked policy and keeps its log-probability and value; the window ends in GAE
    advantages, bootstrapping each unfinished episode with each seat's value of the last state.
    """

    gamma: float = 1.0  # discount per decision of the same seat
    gae_lambda: float = 0.95  # GAE lambda
    carry_steps: int = 0  # every decision of the window is returned at once

    def fields(self, settings: RolloutSettings) -> tuple[str, ...]:
        names = ("obs", "mask", "action", "logp", "value", "advantage", "returns")
        names = (*names, "hidden_hands") if privileged(settings) else names
        return (*names, "history") if reads_history(settings.arch) else names

    def scores(self, play, obs, mask, hidden_hands, history):
        if history is None:  # (an inference server's RemotePolicy takes no history)
            return play.net.rollout_scores(obs, mask, hidden_hands)
        return play.net.rollout_scores(obs, mask, hidden_hands, history)

    def choose(self, play, t: int, rows: np.ndarray, scores, value) -> None:
        buf = play.buf
        acts = sample_from_logits(scores, play.rng)
        logp = torch.log_softmax(scores, -1).gather(1, torch.from_numpy(acts)[:, None])
        buf["logp"][t, rows] = logp.squeeze(1).numpy()
        buf["value"][t, rows] = value.numpy()
        buf["action"][t, rows] = acts

    def snapshot_choose(self, scores: torch.Tensor, rng: np.random.Generator) -> np.ndarray:
        return sample_from_logits(scores, rng)

    def finish(self, play, sink) -> dict[str, np.ndarray]:
        """GAE advantages (``agents.returns``) and returns of the learner's decisions."""
        buf, b = play.buf, play.s.num_envs
        # Bootstrap: each seat's value of the final state, from its own point of view.
        next_v = np.zeros((b, N_SEATS), np.float32)
        for k in range(N_SEATS):
            obs = torch.from_numpy(observation.encode(play.state, k))
            hands = None
            if "hidden_hands" in buf:
                hands = torch.from_numpy(observation.encode_hidden(play.state, k))
            if play.logs is None:
                next_v[:, k] = play.net.value(obs, hands).numpy()
            else:
                history = torch.from_numpy(play.logs.encoded(np.arange(b), np.full(b, k)))
                next_v[:, k] = play.net.value(obs, hands, history).numpy()
        adv = gae_advantages(
            buf["seat"],
            buf["learner"],
            buf["value"],
            buf["ended"],
            buf["reward"],
            next_v,
            self.gamma,
            self.gae_lambda,
        )
        sel = buf["learner"].reshape(-1)
        out = sink.arrays(batch_shapes(self.fields(play.s), int(sel.sum())))
        for name in ("obs", "mask", "action", "logp", "value", "hidden_hands", "history"):
            if name in out:
                arr = buf[name]
                np.compress(sel, arr.reshape(sel.size, *arr.shape[2:]), axis=0, out=out[name])
        np.compress(sel, adv.reshape(-1), out=out["advantage"])
        np.add(out["advantage"], out["value"], out=out["returns"])
        return out


def ppo_loss(
    logits: torch.Tensor,
    value: torch.Tensor,
    mask: torch.Tensor,
    action: torch.Tensor,
    old_logp: torch.Tensor,
    advantage: torch.Tensor,
    ret: torch.Tensor,
    *,
    clip: float,
    ent_coef: float,
    vf_coef: float,
) -> tuple[torch.Tensor, dict[str, float]]:
    """PPO's clipped surrogate, value and entropy loss of one minibatch, and its statistics.

    ``logits`` are the network's unmasked logits: the stored ``mask`` is re-applied, so
    illegal actions get no probability and no gradient. Where the probability ratio has left
    ``[1 - clip, 1 + clip]`` in the direction the advantage favours, the clipped term is
    constant and that sample pushes the policy no further.
    """
    logits = masked_logits(logits, mask)
    logp_all = torch.log_softmax(logits, -1)
    logp = logp_all.gather(1, action[:, None]).squeeze(1)
    # softmax, not logp_all.exp(): on a CPU, exp of the illegal entries' huge negative
    # log-probabilities takes a slow path that costs many times softmax's own.
    probs = torch.softmax(logits, -1)
    entropy = -(probs * torch.where(mask, logp_all, 0.0)).sum(-1).mean()
    log_ratio = logp - old_logp
    ratio = log_ratio.exp()
    pg = torch.max(-advantage * ratio, -advantage * ratio.clamp(1 - clip, 1 + clip))
    pg_loss = pg.mean()
    v_loss = 0.5 * ((value - ret) ** 2).mean()
    loss = pg_loss - ent_coef * entropy + vf_coef * v_loss
    with torch.no_grad():
        parts = {
            "policy": pg_loss.item(),
            "value": v_loss.item(),
            "entropy": entropy.item(),
            # KL(old || new) estimated from the samples, as CleanRL logs it: old_approx_kl is
            # the plain -log ratio, approx_kl the lower-variance (ratio - 1) - log ratio.
            "old_approx_kl": float((-log_ratio).mean()),
            "approx_kl": float(((ratio - 1) - log_ratio).mean()),
            "clipfrac": float(((ratio - 1).abs() > clip).float().mean()),
        }
    return loss, parts


def explained_variance(value: np.ndarray, returns: np.ndarray) -> float:
    """``1 - Var(returns - value) / Var(returns)`` (CleanRL's ``losses/explained_variance``):
    the share of the returns' variance the critic's rollout values account for (1: all of
    it; 0 or below: no better than a constant); NaN when the returns do not vary."""
    var = np.var(returns) if len(returns) else 0.0
    return float("nan") if var == 0 else float(1 - np.var(returns - value) / var)


class PPOLearner:
    """The network, its optimiser and the clipped-surrogate update."""

    def __init__(self, cfg: PPOConfig) -> None:
        self.cfg = cfg
        self.device = resolve_device(cfg.device)
        arch = make_arch(
            "ppo",
            cfg.hidden,
            critic=cfg.critic,
            critic_hidden=cfg.critic_hidden,
            history=cfg.history,
            history_hidden=cfg.history_hidden,
        )
        self.net: nn.Module = ActorCritic(arch).to(self.device)
        self.precision, self.precision_why = resolve_precision(
            cfg.precision,
            self.device,
            lambda precision: time_learner_step(
                self.net, cfg.minibatch_size, precision, self.device
            ),
        )
        self.opt = torch.optim.Adam(self.net.parameters(), lr=cfg.learning_rate, eps=1e-5)
        self.rng = seeds.generator(cfg.seed, "learner")

    def settings(self) -> RolloutSettings:
        c = self.cfg
        return RolloutSettings(
            acting=PPOActing(gamma=c.gamma, gae_lambda=c.gae_lambda),
            arch=self.net.arch,
            num_envs=c.num_envs,
            rollout_steps=c.rollout_steps,
            reward=c.reward,
            rules=dict(c.rules),
            snapshot_share=c.snapshot_share,
            bot_share=c.bot_share,
            bots=tuple(c.bots),
            precision=self.precision,
        )

    def update(self, batch: Batch, step: int) -> dict[str, float]:
        """Train on ``batch``; ``step`` counts the run's decisions with this batch's.

        Returns what the loop logs under ``losses/`` (CleanRL's names): ``policy``,
        ``value``, ``entropy``, ``approx_kl``, ``old_approx_kl`` and ``clipfrac`` averaged
        over the minibatches (``ppo_loss``), the ``learning_rate`` it trained at, the
        ``explained_variance`` of the batch's returns by the rollout's values, and
        ``gradient_steps``. The statistics are read off tensors the update computes anyway:
        they draw no random numbers and change nothing the update does.
        """
        c = self.cfg
        if c.anneal_lr:  # else Adam keeps the rate it was built with (or resumed at)
            for g in self.opt.param_groups:
                g["lr"] = annealed_lr(c, step)
        dev = self.device
        obs = torch.from_numpy(batch.obs).to(dev)
        mask = torch.from_numpy(batch.mask).to(dev)
        act = torch.from_numpy(batch.action).to(dev)
        old_logp = torch.from_numpy(batch.logp).to(dev)
        adv_all = torch.from_numpy(batch.advantage).to(dev)
        ret = torch.from_numpy(batch.returns).to(dev)
        hands, history = batch.hidden_hands, batch.history
        hands = None if hands is None else torch.from_numpy(hands).to(dev)
        history = None if history is None else torch.from_numpy(history).to(dev)

        def loss(rows: np.ndarray) -> tuple[torch.Tensor, dict[str, float]]:
            idx = torch.from_numpy(rows).to(dev)

            def pick(t: torch.Tensor) -> torch.Tensor:  # t[idx]'s rows, several times faster
                return t.index_select(0, idx)

            with autocast(self.precision, dev):
                logits, value = self.net.logits_and_value(
                    pick(obs),
                    None if hands is None else pick(hands),
                    None if history is None else pick(history),
                )
            adv = pick(adv_all)
            if c.norm_adv and len(idx) > 1:
                adv = (adv - adv.mean()) / (adv.std() + 1e-8)
            return ppo_loss(
                logits.float(), value.float(), pick(mask), pick(act), pick(old_logp), adv,
                pick(ret), clip=c.clip_coef, ent_coef=c.ent_coef, vf_coef=c.vf_coef,
            )  # fmt: skip

        rows = shuffled(self.rng, len(act), c.minibatch_size, c.update_epochs)
        frozen = self.policy_parameters() if step <= c.critic_warmup else ()
        out = gradient_steps(self.opt, rows, loss, c.max_grad_norm, frozen)
        out["learning_rate"] = self.opt.param_groups[0]["lr"]
        out["explained_variance"] = explained_variance(batch.value, batch.returns)
        return out

    def policy_parameters(self) -> list[nn.Parameter]:
        """Every parameter but the critic's (the value head, a privileged critic's layers):
        what ``critic_warmup`` keeps still."""
        critic = ("value_head.", "critic.")
        return [p for name, p in self.net.named_parameters() if not name.startswith(critic)]

    def state_dict(self) -> dict:
        return {"optimizer": self.opt.state_dict(), "rng": self.rng.bit_generator.state}

    def load_state_dict(self, st: dict) -> None:
        self.opt.load_state_dict(st["optimizer"])
        self.rng.bit_generator.state = st["rng"]


def train(cfg: PPOConfig, resume: str | None = None) -> dict:
    """Train with ``cfg`` (resuming a run directory or checkpoint if given); see train_loop."""
    seeds.seed_everything(cfg.seed)
    torch.set_num_threads(cfg.torch_threads)
    learner = PPOLearner(cfg)
    if cfg.imitate and not resume:
        warm_start(learner)
    return train_loop(cfg, "ppo", learner, resume)


def warm_start(learner: PPOLearner) -> dict[str, float]:
    """Fit the learner's policy and critic to demonstrations of ``cfg.imitate``."""
    from agents.imitation import demonstrations, pretrain
    from murlan_env.game.rules import Rules

    c = learner.cfg
    log.info(f"warm start: {c.imitate_decisions:,} decisions of {c.imitate!r}")
    demos = demonstrations(
        c.imitate,
        c.imitate_decisions,
        rules=Rules.from_dict(c.rules),
        reward=c.reward,
        seed=seeds.derive(c.seed, "demonstrations"),
    )
    stats = pretrain(
        learner.net,
        demos,
        epochs=c.imitate_epochs,
        minibatch_size=c.minibatch_size,
        learning_rate=c.learning_rate,
        seed=seeds.derive(c.seed, "imitation"),
        precision=learner.precision,
        device=learner.device,
    )
    log.info(
        f"warm start: the policy agrees with {c.imitate!r} on {stats['agreement']:.1%} of decisions"
    )
    return stats
