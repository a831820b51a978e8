"""Environment adapters over the engine: the PettingZoo AEC env (``aec``), the Gymnasium single
and vector envs (``gym_env``), the per-seat driver they share, and text rendering.

``register_envs`` registers the Gymnasium ids; ``import murlan_env`` calls it, as Gymnasium's
own environment packages do, so ``gymnasium.make("Murlan-v1")`` works after it. Registration
stores entry-point strings only: the env modules are imported when an env is made.
"""

from __future__ import annotations

from murlan_env.game.version import GYM_ID, GYM_SELFPLAY_ID


def register_envs() -> None:
    """Register ``Murlan-v1`` (one learner against bots; ``gymnasium.make`` and ``make_vec``)
    and ``MurlanSelfPlay-v1`` (B self-play games on the batched engine; ``make_vec`` only)."""
    import gymnasium

    if GYM_ID not in gymnasium.registry:
        gymnasium.register(id=GYM_ID, entry_point="murlan_env.envs.gym_env:MurlanGymEnv")
    if GYM_SELFPLAY_ID not in gymnasium.registry:
        gymnasium.register(
            id=GYM_SELFPLAY_ID, vector_entry_point="murlan_env.envs.gym_env:MurlanVectorEnv"
        )


__all__ = ["register_envs"]
