"""The policies shipped inside the package (one bundle per folder under ``policies_dir()``)
and the difficulty levels that play them (``levels.json`` beside them). The registry
(``murlan_env.bots.registry``) turns a level's name into its bot; this module only reads the
files, so the bundle tools (``files.regenerate_golden``) need no bot to find a policy's levels.
"""

from __future__ import annotations

import json
from importlib import resources
from pathlib import Path

LEVELS_FILE = "levels.json"


def policies_dir() -> Path:
    """The folder of the policies shipped inside the package (one bundle per subfolder)."""
    return Path(str(resources.files("murlan_env.bots") / "policies"))


def levels() -> dict[str, dict]:
    """The difficulty levels shipped with the policies (``policies/levels.json``): name ->
    ``{"policy", "temperature", "mix": [bot, share] | null, "search": rollouts | null,
    "supported_rules": {flag: [values]} (optional: the variants it is measured to play,
    narrowing its policy's), "about"}``; a level with ``search`` searches that many rollouts
    on top of its policy (as ``search:N:BOT``), with its search settings as further fields
    (``search_options``; each optional): ``belief`` (weigh the worlds by the hand's history),
    ``models`` (other bots the seats may play like), ``candidates`` (uniform worlds weighed),
    ``alternative_candidates`` (of those, the ones the other models score), ``min_ess``
    (effective worlds the tempered weights keep), ``min_worlds`` (worlds per candidate move at
    least), ``margin`` (points by which the search must prefer a move to the policy's),
    ``playout_temperature`` (of the policy's moves in the rollouts) and ``arithmetic``
    (``int8``: the belief and the rollouts score with the policy quantised by
    ``murlan_env.bundle.quantize.to_int8``, the search's own move staying float32)."""
    path = policies_dir() / LEVELS_FILE
    if not path.is_file():
        return {}
    return json.loads(path.read_text())


def policy_levels(bundle_dir: str | Path) -> dict[str, dict]:
    """The levels that play the policy in ``bundle_dir`` when it is a shipped policy's
    folder (name -> the level less its ``policy``; what its bot.json carries), else {}."""
    path = Path(bundle_dir).resolve()
    if path.parent != policies_dir().resolve():
        return {}
    return {
        name: {key: value for key, value in level.items() if key != "policy"}
        for name, level in levels().items()
        if level.get("policy") == path.name
    }


def shipped_policies() -> list[str]:
    """Names of the shipped policies (bundles under ``policies_dir()``), sorted."""
    root = policies_dir()
    if not root.is_dir():
        return []
    return sorted(p.name for p in root.iterdir() if (p / "bot.json").is_file())


__all__ = ["LEVELS_FILE", "levels", "policies_dir", "policy_levels", "shipped_policies"]
