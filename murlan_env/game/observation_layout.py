"""The observation layout described: what the pieces of ``murlan_env.game.observation``
look like from outside the codec.

The environments' Gymnasium space (``observation_space``), the documentation table
(``table``, the one in ``murlan_env.envs.aec``'s docstring), the exported bundle's layout
(``layout``), its hash (``layout_hash``), readable entry names (``entry_name``) and the
entries no decision ever sets (``fixed_entries``, which golden sets cannot make vary) are all
read off ``observation.PIECES``, so none of them can disagree with the codec.
"""

from __future__ import annotations

import hashlib
import json
import textwrap

import gymnasium
import numpy as np

from murlan_env.game import observation
from murlan_env.game.cards import N_RANKS, RANK_SIZE, RANKS
from murlan_env.game.combos import N_ACTIONS, PASS
from murlan_env.game.observation import THERMO
from murlan_env.game.rules import flag_word as _word
from murlan_env.game.state import N_SEATS, TARGETS


def observation_space() -> gymnasium.spaces.Dict:
    """The envs' Dict space: the observation vector and the legal-action mask."""
    return gymnasium.spaces.Dict(
        {
            "observation": gymnasium.spaces.Box(0.0, 1.0, (observation.SIZE,), np.float32),
            "action_mask": gymnasium.spaces.Box(0, 1, (N_ACTIONS,), np.int8),
        }
    )


def table(width: int = 96) -> str:
    """The layout as a fixed-width table (piece, entries, size, meaning), for documentation."""
    head = f"{'piece':<13}{'entries':<9}{'size':>4}  meaning"
    rows = [head, "-" * len(head)]
    for p in observation.PIECES:
        sl = observation.SLICES[p.name]
        span = f"{sl.start}" if p.size == 1 else f"{sl.start}-{sl.stop - 1}"
        lead = f"{p.name:<13}{span:<9}{p.size:>4}  "
        wrapped = textwrap.wrap(p.meaning, width - len(lead)) or [""]
        rows.append(lead + wrapped[0])
        rows.extend(" " * len(lead) + more for more in wrapped[1:])
    return "\n".join(rows)


def layout() -> list[dict]:
    """The layout piece by piece: name, offset, size, meaning, element order and float32
    value (JSON-ready)."""
    return [
        {
            "name": p.name,
            "offset": observation.SLICES[p.name].start,
            "size": p.size,
            "meaning": p.meaning,
            "order": p.order,
            "value": p.value,
        }
        for p in observation.PIECES
    ]


def fixed_entries() -> dict[int, str]:
    """Entries that are 0.0 at every decision of every game, by index, with the reason.

    Golden test sets must make every other entry vary (``murlan_env.bundle.golden``); these
    cannot, whatever the positions.
    """
    fixed: dict[int, str] = {}
    jokers = [r for r in range(N_RANKS) if RANK_SIZE[r] == 1]
    for name, blocks in (("my_hand", 1), ("played", N_SEATS), ("unseen", 1)):
        for block in range(blocks):
            for r in jokers:
                for k in range(1, THERMO):
                    at = observation.SLICES[name].start + N_RANKS * THERMO * block + THERMO * r + k
                    fixed[at] = f"{name}: {RANKS[r]} is one card, so only its bit 0 is used"
    fixed[observation.SLICES["table_action"].start + PASS] = (
        "table_action: pass is never the play to beat"
    )
    fixed[observation.SLICES["table_seat"].start] = (
        "table_seat: a trick ends before the turn comes back to the seat that made its play"
    )
    fixed[observation.SLICES["passed"].start] = (
        "passed: a pass lasts until the next play or the trick's end, both before the "
        "passer's next turn (sticky_pass: the passer is not asked again)"
    )
    for p in range(N_SEATS):
        fixed[observation.SLICES["places"].start + p] = "places: the seat to act still holds cards"
    for s in range(1, N_SEATS):
        for p in (2, 3):
            fixed[observation.SLICES["places"].start + N_SEATS * s + p] = (
                "places: a hand ends when its 3rd seat goes out, so no decision sees a 3rd "
                "or 4th place"
            )
    return dict(sorted(fixed.items()))


def entry_name(index: int) -> str:
    """A readable name of one observation entry, e.g. ``"played[slot 1, rank 7, bit 0]"``."""
    for p in observation.PIECES:
        sl = observation.SLICES[p.name]
        if sl.start <= index < sl.stop:
            i = index - sl.start
            if p.name in ("my_hand", "unseen"):
                return f"{p.name}[rank {RANKS[i // THERMO]}, bit {i % THERMO}]"
            if p.name == "played":
                slot, rest = divmod(i, N_RANKS * THERMO)
                return f"played[slot {slot}, rank {RANKS[rest // THERMO]}, bit {rest % THERMO}]"
            if p.name == "places":
                return f"places[slot {i // N_SEATS}, place {i % N_SEATS + 1}]"
            if p.name == "exchange":
                what = "received" if i < N_RANKS else "gave"
                return f"exchange[{what} {RANKS[i % N_RANKS]}]"
            if p.name == "target":
                return f"target[{TARGETS[i]}]"
            if p.name == "rules":
                flag, value = observation.RULE_FEATURES[i]
                return f"rules[{flag}={_word(value)}]"
            if p.name == "table_action":
                return f"table_action[{i}]"
            return f"{p.name}[{i}]"
    raise IndexError(f"observation entry {index} is outside 0..{observation.SIZE - 1}")


def layout_hash() -> str:
    """sha256 of the pieces' names, offsets and sizes (the meanings are documentation)."""
    text = json.dumps([[p["name"], p["offset"], p["size"]] for p in layout()])
    return hashlib.sha256(text.replace(" ", "").encode()).hexdigest()


__all__ = [
    "observation_space",
    "table",
    "layout",
    "fixed_entries",
    "entry_name",
    "layout_hash",
]
