"""The version of the environment contract, written once.

Observations, actions, rewards and rules together make the contract an agent is trained
against; the version bumps when any of them changes behaviour (not on refactors), and every
name that carries it is derived here: the PettingZoo env name (``murlan_v1``, also the
``env_version`` of exported bundles) and the Gymnasium ids (``Murlan-v1``). Kept free of
imports so that ``import murlan_env`` can register the Gymnasium ids cheaply.
"""

from __future__ import annotations

ENV_VERSION = 1
ENV_NAME = f"murlan_v{ENV_VERSION}"
GYM_ID = f"Murlan-v{ENV_VERSION}"
GYM_SELFPLAY_ID = f"MurlanSelfPlay-v{ENV_VERSION}"

__all__ = ["ENV_NAME", "ENV_VERSION", "GYM_ID", "GYM_SELFPLAY_ID"]
