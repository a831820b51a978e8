"""A trained checkpoint as a bot: ``ckpt:PATH`` wherever a bot name is accepted.

``murlan_env.bots.registry`` finds this kind through the ``murlan.bots`` entry point (see
pyproject.toml), so ``murlan play --bots ckpt:runs/x`` works without murlan_env importing
torch. The bot plays the argmax of the policy's masked scores, under the rules it was trained
under only (its checkpoint's config ``rules``), as an exported bundle plays only its
``supported_rules``: a command asked for other rules refuses it in one line.

A policy that reads the hand so far (``agents.networks.reads_history``) makes a bot with a
true ``uses_history``: drivers that keep ``HandLogs`` (duplicate play, so the arena and the
trainers' evaluation, ``murlan play``, the web game) hand it each game's log, which it encodes
with ``murlan_env.game.hand_history.from_rows``. A driver that keeps no logs (a rollout's
opponent bots, a search's imagined worlds) cannot play it: it refuses to act without them.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch

from agents.checkpoint import load as load_checkpoint
from agents.networks import load_policy, policy_scores, reads_history
from murlan_env.game import hand_history
from murlan_env.game.rules import Rules


class TorchPolicyBot:
    """A trained torch policy (``agents.networks.load_policy`` contract): argmax of its scores.

    ``rules``: the rules it was trained under, the only ones it plays (``rules_conflict``, read
    by ``murlan_env.bots.registry.rules_conflict``); None plays any."""

    strict_rules = True

    def __init__(self, policy: Any, name: str, rules: Rules | None = None) -> None:
        self.policy = policy
        self.name = name
        self.rules = rules
        self.uses_history = reads_history(getattr(policy, "arch", {}))

    def rules_conflict(self, rules: Rules) -> str | None:
        """Why this bot does not play ``rules`` (None when it does)."""
        if self.rules is None or rules == self.rules:
            return None
        return (
            f"it was trained under {self.rules.text() or 'the standard rules'} (its checkpoint's "
            "config); train one under these rules"
        )

    def scores(
        self,
        obs: np.ndarray,
        mask: np.ndarray,
        rng: np.random.Generator | None = None,
        history: list[np.ndarray] | None = None,
    ) -> np.ndarray:
        """(B, A) float32: the policy's masked scores (PPO's logits, DMC's Q-values), illegal
        actions at float32's lowest value; the bot plays their argmax (``rng``: unused).
        ``history``: each game's ``[slot, action]`` rows (``HandLogs.turned``), required by
        a policy that reads them and ignored by one that does not."""
        obs = torch.as_tensor(np.asarray(obs, np.float32))
        mask = torch.as_tensor(np.asarray(mask, bool))
        encoded = None
        if self.uses_history:
            if history is None:
                raise ValueError(
                    f"{self.name} reads the hand so far, and this driver keeps no hand logs: "
                    "play it where the logs are kept (duplicate play, the arena, murlan play)"
                )
            encoded = torch.from_numpy(hand_history.from_rows(history))
        with torch.inference_mode():
            return policy_scores(self.policy, obs, mask, encoded).numpy()

    def act(
        self,
        obs: np.ndarray,
        mask: np.ndarray,
        rng: np.random.Generator,
        history: list[np.ndarray] | None = None,
    ) -> np.ndarray:
        return self.scores(obs, mask, history=history).argmax(-1).astype(np.int64)


def int8_policy_bot(policy: Any, name: str):
    """``policy`` exported to ONNX and quantised to int8 (``murlan_env.bundle.quantize.to_int8``),
    as a bot with scores run by onnxruntime (``murlan_env.bots.policy.ModelBot``): about a
    third of the CPU time a row, for a search that scores many rows; not for play that must
    match the float32 model."""
    import tempfile
    from pathlib import Path

    from agents.export import export_onnx, refuse_history
    from murlan_env.bots.policy import ModelBot
    from murlan_env.bundle.quantize import to_int8

    refuse_history(policy)
    with tempfile.TemporaryDirectory() as tmp:  # the session has the model once loaded
        model = Path(tmp) / "policy.onnx"
        export_onnx(policy.eval(), model)
        to_int8(model, model.with_suffix(".int8.onnx"))
        return ModelBot(model.with_suffix(".int8.onnx"), name)


def from_spec(path: str) -> TorchPolicyBot:
    """The ``ckpt:PATH`` bot: a checkpoint file or a run directory."""
    if not path:
        raise ValueError("ckpt: needs a checkpoint file or run directory, e.g. ckpt:runs/quick")
    ckpt = load_checkpoint(path)  # read once: the policy and the rules it was trained under
    rules = Rules.from_dict((ckpt.config or {}).get("rules"))
    return TorchPolicyBot(load_policy(ckpt), name=f"ckpt:{path}", rules=rules)
