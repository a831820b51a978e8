"""Environment adapters over the engine: the PettingZoo AEC env (``aec``), the Gymnasium single
and vector envs (``gym_env``), the per-seat driver they share, and text rendering."""
