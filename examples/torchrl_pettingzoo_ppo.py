"""Train a masked PPO policy with TorchRL on murlan's PettingZoo AEC env, then play random bots.

TorchRL's ``PettingZooWrapper`` turns the AEC env ``murlan_env.env()`` into a TorchRL env. All
four seats go into one group, ``"players"``, so one shared policy plays every seat (self-play:
murlan's observation is egocentric, so the same network serves each seat). At each step the
group's ``"mask"`` marks the one seat to act and ``"action_mask"`` its legal actions; the actor
samples from a ``MaskedCategorical`` over the network's logits, and only the acting seat's action
reaches the env.

Training alternates between rolling out whole hands (``env.rollout``, one hand per episode:
``episode="hand"``) and TorchRL's ``ClipPPOLoss`` on the decisions of the seats that acted. Every
seat is paid only at the end of the hand (its points minus par), so a decision's return is the
acting seat's hand reward, and its advantage that return minus the critic's value.

    pip install -e ".[examples]"   # sb3-contrib, torchrl, tensordict
    python examples/torchrl_pettingzoo_ppo.py --iterations 60

The script ends by playing the trained policy (greedy) in one seat against three random bots on
unseen seeded boards (``vs_random.py``) and printing its points per hand with a 95% confidence
interval: about 2.5 (par 1.5) after the default 60 iterations of two hands, some 25 s of
training on one CPU core.
"""

from __future__ import annotations

import argparse
import warnings

import numpy as np
import torch
from tensordict import TensorDict
from tensordict.nn import TensorDictModule
from torch import nn
from torchrl.envs.libs.pettingzoo import PettingZooWrapper
from torchrl.modules import MaskedCategorical, ProbabilisticActor, ValueOperator
from torchrl.objectives import ClipPPOLoss
from vs_random import points_vs_random, summary

import murlan_env
from murlan_env.envs.aec import AGENTS
from murlan_env.eval.duplicate import BotResult
from murlan_env.game.combos import N_ACTIONS
from murlan_env.game.observation import SIZE as OBS_SIZE

GROUP = "players"
# The AEC env's observation is {"observation", "action_mask"}; the wrapper moves the mask to
# (GROUP, "action_mask") and keeps the rest under (GROUP, "observation").
OBSERVATION = (GROUP, "observation", "observation")
ACTION_MASK = (GROUP, "action_mask")
ACTION = (GROUP, "action")
LOG_PROB = (GROUP, "action_log_prob")


def make_env(seed: int) -> PettingZooWrapper:
    """The AEC env, one hand per episode, all four seats in one TorchRL group."""
    with warnings.catch_warnings():
        # TorchRL warns on any PettingZoo other than the one it was tested with (1.24.3);
        # tests/test_examples.py checks this example against the installed one.
        warnings.filterwarnings("ignore", "PettingZoo in TorchRL is tested", UserWarning)
        return PettingZooWrapper(
            murlan_env.env(episode="hand"),
            use_mask=True,  # compulsory for AEC envs: marks the seat to act
            group_map={GROUP: list(AGENTS)},
            seed=seed,
        )


def make_modules(hidden: int = 128) -> tuple[ProbabilisticActor, ValueOperator]:
    """Actor (masked categorical over the action catalogue) and critic, reading the observation."""
    logits = nn.Sequential(
        nn.Linear(OBS_SIZE, hidden),
        nn.Tanh(),
        nn.Linear(hidden, hidden),
        nn.Tanh(),
        nn.Linear(hidden, N_ACTIONS),
    )
    actor = ProbabilisticActor(
        TensorDictModule(logits, in_keys=[OBSERVATION], out_keys=[(GROUP, "logits")]),
        in_keys={"logits": (GROUP, "logits"), "mask": ACTION_MASK},
        out_keys=[ACTION],
        distribution_class=MaskedCategorical,
        return_log_prob=True,
        log_prob_key=LOG_PROB,
    )
    value = nn.Sequential(nn.Linear(OBS_SIZE, hidden), nn.Tanh(), nn.Linear(hidden, 1))
    critic = ValueOperator(value, in_keys=[OBSERVATION], out_keys=[(GROUP, "state_value")])
    return actor, critic


def play_hand(env: PettingZooWrapper, actor: ProbabilisticActor) -> TensorDict:
    """Roll out one hand; returns one row per decision, of the seat that made it.

    Each row holds that seat's observation, mask, action, its log-probability and, as
    ``value_target``, the seat's reward for the hand (paid at the last step to every seat).
    """
    with torch.no_grad():
        steps = env.rollout(10_000, actor, break_when_any_done=True)
    acting = steps[GROUP, "mask"]  # (T, 4): the one seat to act at each step
    hand_reward = steps["next", GROUP, "reward"].sum(0)  # (4, 1)
    rows = steps[GROUP][acting].select("observation", "action_mask", "action", "action_log_prob")
    rows.set("value_target", hand_reward[acting.nonzero()[:, 1]])
    return TensorDict({GROUP: rows}, batch_size=rows.batch_size)


def train(
    iterations: int,
    hands_per_iteration: int = 2,
    seed: int = 0,
    epochs: int = 4,
    lr: float = 1e-3,
) -> ProbabilisticActor:
    """Self-play PPO: each iteration plays ``hands_per_iteration`` hands, then ``epochs``
    passes of minibatch updates over their decisions."""
    torch.manual_seed(seed)
    env = make_env(seed)
    actor, critic = make_modules()
    loss = ClipPPOLoss(
        actor, critic, clip_epsilon=0.2, entropy_coeff=0.01, normalize_advantage=True
    )
    loss.set_keys(
        action=ACTION,
        sample_log_prob=LOG_PROB,
        value=(GROUP, "state_value"),
        advantage=(GROUP, "advantage"),
        value_target=(GROUP, "value_target"),
    )
    optimizer = torch.optim.Adam(loss.parameters(), lr=lr)
    for _ in range(iterations):
        batch = torch.cat([play_hand(env, actor) for _ in range(hands_per_iteration)])
        with torch.no_grad():
            critic(batch)
        batch[GROUP, "advantage"] = batch[GROUP, "value_target"] - batch[GROUP, "state_value"]
        for _epoch in range(epochs):
            for minibatch in torch.randperm(len(batch)).split(256):
                losses = loss(batch[minibatch])
                total = losses["loss_objective"] + losses["loss_critic"] + losses["loss_entropy"]
                optimizer.zero_grad()
                total.backward()
                nn.utils.clip_grad_norm_(loss.parameters(), 1.0)
                optimizer.step()
    env.close()
    return actor


def evaluate(actor: ProbabilisticActor, boards: int) -> BotResult:
    """The trained policy, greedy (its most likely legal action), against three random bots."""
    logits = actor.module[0].module  # the plain nn.Sequential: observation -> logits

    def act(observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        with torch.no_grad():
            scores = logits(torch.from_numpy(observations))
        return torch.where(torch.from_numpy(masks), scores, -torch.inf).argmax(-1).numpy()

    return points_vs_random(act, boards=boards)


def main(argv: list[str] | None = None) -> BotResult:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--iterations", type=int, default=60, help="PPO iterations")
    parser.add_argument("--hands", type=int, default=2, help="self-play hands per iteration")
    parser.add_argument("--eval-boards", type=int, default=150, help="boards to evaluate on")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    # A small MLP runs fastest on one thread, and the result is then exactly reproducible.
    torch.set_num_threads(1)
    actor = train(args.iterations, args.hands, args.seed)
    result = evaluate(actor, args.eval_boards)
    print(summary(result))
    return result


if __name__ == "__main__":
    main()
