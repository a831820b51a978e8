"""The weights a run starts from (``init_from``): a fine-tune's start.

``init_from`` names one of three things, and ``load_weights`` copies what it holds into the
run's network:

- a checkpoint (file or run directory) of the same network: every weight, as saved;
- a checkpoint of the same network without a history encoder, into a network with one (a
  *grown* start): every weight the two share, the trunk's first layer widened by zero columns
  for the encoder's summary, the encoder as initialised. The zero columns make the grown
  network score every position exactly as the checkpoint's does, so the run starts at the old
  policy's strength and learns what the history adds from there;
- a bundle directory (``murlan export``'s output, such as a shipped level's policy under
  ``murlan_env/bots/policies``): the policy's dense layers from its float32 model into the
  trunk and the policy head, grown as above for a history network. A bundle holds no value
  head, so the value head keeps its initial weights: pair such a start with PPO's
  ``critic_warmup``, which trains the value head alone before the policy moves.

Anything else (another width, algorithm or critic) raises ``CheckpointError`` in one line
naming both networks.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import torch
from torch import nn

from agents.checkpoint import Checkpoint, CheckpointError
from agents.checkpoint import load as load_checkpoint

HISTORY_KEYS = ("history", "history_hidden", "history_length")
FIRST_LAYER = "trunk.net.0.weight"  # the trunk's first layer: the observation, then the summary


def without_history(arch: dict) -> dict:
    """``arch`` less its history encoder's keys: the network a grown start may come from."""
    return {k: v for k, v in arch.items() if k not in HISTORY_KEYS}


def grown(net: nn.Module, weights: dict[str, torch.Tensor]) -> dict[str, torch.Tensor]:
    """``net``'s state dict with ``weights`` (a history-free network's, or part of one) copied
    in: the trunk's first layer takes them in its first columns (the observation's) and zeros
    in the rest (the history summary's); what ``weights`` lacks keeps ``net``'s values."""
    state = net.state_dict()
    for name, value in weights.items():
        if name not in state:
            raise CheckpointError(f"the starting weights hold {name}, which this network lacks")
        if name == FIRST_LAYER and value.shape != state[name].shape:
            widened = torch.zeros_like(state[name])
            widened[:, : value.shape[1]] = value
            value = widened
        if value.shape != state[name].shape:
            raise CheckpointError(
                f"the starting weights' {name} is {tuple(value.shape)}, this network's "
                f"{tuple(state[name].shape)}"
            )
        state[name] = value.to(state[name].dtype)
    return state


def bundle_weights(bundle_dir: str | Path, arch: dict) -> dict[str, torch.Tensor]:
    """The trunk's and the policy head's weights of a bundle's float32 model, named as
    ``ActorCritic``'s, checked against ``arch`` (less its history keys)."""
    from murlan_env.bundle.manifest import BundleManifest
    from murlan_env.bundle.plain_weights import dense_layers

    manifest = BundleManifest.load(bundle_dir)
    policy = dict(manifest.policy)
    want = without_history(arch)
    if {k: want.get(k) for k in policy} != policy or want.get("critic", "shared") != "shared":
        raise CheckpointError(
            f"{bundle_dir} holds the policy {policy}, but this run builds {arch}; set the "
            "config's hidden to the bundle's"
        )
    layers, _, _ = dense_layers(Path(bundle_dir) / manifest.model("float32").file)
    names = [f"trunk.net.{2 * i}" for i in range(len(layers) - 1)] + ["policy_head"]
    weights = {}
    for name, layer in zip(names, layers, strict=True):
        weights[f"{name}.weight"] = torch.from_numpy(np.array(layer["weight"], np.float32))
        weights[f"{name}.bias"] = torch.from_numpy(np.array(layer["bias"], np.float32))
    return weights


def load_weights(net: nn.Module, path: str | Path | Checkpoint) -> str:
    """Copy the starting weights ``path`` names (see the module docstring) into ``net``;
    returns how they were taken, for the run's log. Raises FileNotFoundError or
    CheckpointError (also for a bundle that does not check, with the bundle's reason)."""
    from murlan_env.bundle.manifest import MANIFEST_FILE, BundleError
    from murlan_env.bundle.plain_weights import PlainWeightsError

    if not isinstance(path, Checkpoint) and (Path(path) / MANIFEST_FILE).is_file():
        if net.arch.get("algorithm") != "ppo":
            raise CheckpointError(f"{path} is a bundle: only a PPO network starts from one")
        try:
            weights = bundle_weights(path, net.arch)
        except (BundleError, PlainWeightsError) as e:
            raise CheckpointError(str(e)) from None
        net.load_state_dict(grown(net, weights), strict=True)
        return f"the policy of the bundle {path} (value head fresh)"
    ckpt = load_checkpoint(path)
    if ckpt.arch == net.arch:
        net.load_state_dict(ckpt.model, strict=True)
        return f"the weights of {ckpt.path}"
    if "history" in net.arch and ckpt.arch == without_history(net.arch):
        net.load_state_dict(grown(net, ckpt.model), strict=True)
        return f"the weights of {ckpt.path}, grown by a history encoder"
    raise CheckpointError(
        f"{ckpt.path} holds the network {ckpt.arch}, but this run builds "
        f"{net.arch}; set the config's hidden (and critic, history) to the checkpoint's"
    )


__all__ = ["bundle_weights", "grown", "load_weights", "without_history"]
