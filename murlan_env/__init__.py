"""murlan_env: the Murlan rules engine, environments, records and bots (no torch here)."""

from murlan_env.envs import register_envs
from murlan_env.game.rules import Rules

__version__ = "0.1.0"

register_envs()


def env(**kwargs):
    """The PettingZoo AEC environment in its order-enforcing wrapper (see murlan_env.env)."""
    from murlan_env.envs.aec import env as _env

    return _env(**kwargs)


def raw_env(**kwargs):
    """The unwrapped PettingZoo AEC environment (see murlan_env.env)."""
    from murlan_env.envs.aec import raw_env as _raw_env

    return _raw_env(**kwargs)


__all__ = ["Rules", "env", "raw_env", "__version__"]
