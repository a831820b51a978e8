"""A trained checkpoint as a bot: ``ckpt:PATH`` wherever a bot name is accepted.

``murlan_env.registry`` finds this kind through the ``murlan.bots`` entry point (see
pyproject.toml), so ``murlan play --bots ckpt:runs/x`` works without murlan_env importing
torch. The bot plays the argmax of the policy's masked scores.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch

from agents.networks import load_policy, policy_scores


class PolicyBot:
    """A trained torch policy (``agents.networks.load_policy`` contract): argmax of its scores."""

    def __init__(self, policy: Any, name: str) -> None:
        self.policy = policy
        self.name = name

    def act(self, obs: np.ndarray, mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        with torch.inference_mode():
            scores = policy_scores(self.policy, torch.as_tensor(obs), torch.as_tensor(mask))
        return scores.argmax(-1).numpy().astype(np.int64)


def from_spec(path: str) -> PolicyBot:
    """The ``ckpt:PATH`` bot: a checkpoint file or a run directory."""
    if not path:
        raise ValueError("ckpt: needs a checkpoint file or run directory, e.g. ckpt:runs/quick")
    return PolicyBot(load_policy(path), name=f"ckpt:{path}")
