"""Train Stable-Baselines3-contrib's MaskablePPO on Murlan-v1 and check it beats random bots.

The learner plays one seat (drawn at every reset) against three random bots on the Gymnasium env
``Murlan-v1``, one hand per episode, rewarded with its points minus par at the end of the hand.
Murlan-v1's observation is a Dict ``{"observation", "action_mask"}``; ``MaskSplit`` hands the
vector to the policy and keeps the mask for ``action_masks()``, the method MaskablePPO looks for
on the env (sb3-contrib's ``ActionMasker`` wrapper is the other way to give it).

    pip install -e ".[examples]"   # sb3-contrib, torchrl, tensordict
    python examples/sb3_maskable_ppo.py --steps 20000

The script ends by playing the trained policy (greedy) in one seat against three random bots on
unseen seeded boards (``vs_random.py``) and printing its points per hand with a 95% confidence
interval: about 2.6 (par 1.5) after the default 20,000 learner decisions, some 20 s of training
on one CPU core. ``--save PATH`` saves the model.
"""

from __future__ import annotations

import argparse

import gymnasium
import numpy as np
import torch
from sb3_contrib import MaskablePPO
from vs_random import points_vs_random, summary

import murlan_env  # noqa: F401  (importing it registers Murlan-v1)
from murlan_env.eval.duplicate import BotResult


class MaskSplit(gymnasium.ObservationWrapper):
    """Murlan-v1 with the observation vector as the observation and the mask behind
    ``action_masks()``, the interface of sb3-contrib's maskable algorithms."""

    def __init__(self, env: gymnasium.Env) -> None:
        super().__init__(env)
        self.observation_space = env.observation_space["observation"]
        self._mask: np.ndarray | None = None

    def observation(self, observation: dict) -> np.ndarray:
        self._mask = observation["action_mask"].astype(bool)
        return observation["observation"]

    def action_masks(self) -> np.ndarray:
        """(109,) bool legal actions of the latest observation."""
        return self._mask


def make_env() -> gymnasium.Env:
    """One random seat against three random bots, one hand per episode."""
    return MaskSplit(gymnasium.make("Murlan-v1", episode="hand"))


def train(steps: int, seed: int = 0) -> MaskablePPO:
    """MaskablePPO on ``make_env()`` for ``steps`` learner decisions."""
    model = MaskablePPO(
        "MlpPolicy",
        make_env(),
        n_steps=1024,
        batch_size=256,
        n_epochs=4,
        learning_rate=1e-3,
        gamma=1.0,  # one reward, at the end of the hand: no reason to discount it
        ent_coef=0.01,
        policy_kwargs={"net_arch": [128, 128]},
        seed=seed,
        verbose=0,
    )
    return model.learn(total_timesteps=steps)


def evaluate(model: MaskablePPO, boards: int) -> BotResult:
    """The trained policy, greedy, against three random bots on unseen seeded boards."""

    def act(observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        actions, _ = model.predict(observations, action_masks=masks, deterministic=True)
        return actions

    return points_vs_random(act, boards=boards)


def main(argv: list[str] | None = None) -> BotResult:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=20_000, help="learner decisions to train")
    parser.add_argument("--eval-boards", type=int, default=150, help="boards to evaluate on")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--save", metavar="PATH", help="save the trained model (a .zip)")
    args = parser.parse_args(argv)
    # A small MLP runs fastest on one thread, and the result is then exactly reproducible.
    torch.set_num_threads(1)
    model = train(args.steps, args.seed)
    if args.save:
        model.save(args.save)
    result = evaluate(model, args.eval_boards)
    print(summary(result))
    return result


if __name__ == "__main__":
    main()
