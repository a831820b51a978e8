"""Stand-ins for contracts that other parts of murlan are gaining while this package is built.

Each is the smallest thing that honours the contract's name and meaning, marked
``TODO(integration)``: when the real one lands, delete the stand-in and import the real name.
Nothing else in murlan_web reaches past these names.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Sequence
from typing import Any

from murlan_env import engine
from murlan_env.cards import CARD_NAMES
from murlan_env.state import State


# TODO(integration): replace with ``from murlan_env.moves import IllegalMove``.
class IllegalMove(ValueError):
    """A person's move that is not legal here; ``str()`` is the reason in plain words."""


# TODO(integration): replace with ``from murlan_env.moves import read_move``.
def read_move(state: State, card_ids: Sequence[int]) -> int:
    """The action id of the cards the seat to act chose (no cards: a pass), dispatching
    between a play and the exchange give-back; raises IllegalMove with the reason.

    Stand-in: ``murlan play``'s input reader already explains illegal plays, so this hands it
    the card names (one implementation of the reasons until ``murlan_env.moves`` lands).
    """
    from murlan_env.play import IllegalInput, TerminalGame

    seat = int(state.to_act[0])
    reader = TerminalGame([None, None, None], seat=seat, rules=state.rules)
    mask = engine.legal_action_mask(state)[0]
    text = " ".join(CARD_NAMES[int(c)] for c in card_ids)
    try:
        action, _ = reader.parse_play(state, mask, text)
    except IllegalInput as err:
        raise IllegalMove(str(err)) from None
    return int(action)


# TODO(integration): drop the signature check once agents.arena.run_arena takes ``progress``.
def run_arena_with_progress(
    specs_or_bots: Sequence[Any],
    *,
    hands: int,
    seed: int,
    rules: Any,
    progress: Callable[[int, int], None],
) -> dict[str, Any]:
    """``agents.arena.run_arena`` with a ``progress(done, total)`` callback where it takes one
    (the arena being rewritten adds it); without it the caller sees no progress until the end.
    """
    from agents.arena import run_arena

    kwargs: dict[str, Any] = {"hands": hands, "seed": seed, "rules": rules}
    if "progress" in inspect.signature(run_arena).parameters:
        kwargs["progress"] = progress
    return run_arena(list(specs_or_bots), **kwargs)


__all__ = ["IllegalMove", "read_move", "run_arena_with_progress"]
