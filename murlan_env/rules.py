"""Rules: the variant flags of RULES.md section 7 as one frozen, hashable value."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

_CHOICES: dict[str, tuple[Any, ...]] = {
    "sticky_pass": (False, True),
    "joker_pair": (False, True),
    "straight_plus_one": (False, True),
    "tie_rule": ("raise", "leader"),
    "start_card": ("3S", "3C"),
    "no_exchange": (False, True),
}


class RulesError(ValueError):
    """An unknown variant flag or a value it does not take."""


@dataclasses.dataclass(frozen=True)
class Rules:
    """Variant flags; the defaults are the standard game of RULES.md."""

    sticky_pass: bool = False
    """A player who passes sits out the rest of the trick."""
    joker_pair: bool = False
    """BJ+RJ form a pair, the highest pair (not a bomb)."""
    straight_plus_one: bool = False
    """A straight is beaten only by the same length one ladder step higher."""
    tie_rule: str = "raise"
    """"raise": targets 21/31/41/51 with draws at 51; "leader": unique top score >= 21 wins."""
    start_card: str = "3S"
    """The card that must open hand 1 of a match: "3S" or "3C"."""
    no_exchange: bool = False
    """No card exchange in any hand; the previous last player leads."""

    def __post_init__(self) -> None:
        for field in dataclasses.fields(self):
            value = getattr(self, field.name)
            allowed = _CHOICES[field.name]
            # bool is a subclass of int: insist on the exact type so 1 is not taken for True.
            if not any(type(value) is type(a) and value == a for a in allowed):
                raise RulesError(f"rule {field.name!r} takes one of {list(allowed)}, got {value!r}")

    @classmethod
    def from_dict(cls, flags: Mapping[str, Any] | None) -> Rules:
        """Rules from a mapping of flags (absent flags take their defaults)."""
        flags = dict(flags or {})
        unknown = sorted(set(flags) - set(_CHOICES))
        if unknown:
            raise RulesError(f"unknown rule flag(s) {unknown}; known flags: {list(_CHOICES)}")
        return cls(**flags)

    def to_dict(self, *, all_flags: bool = False) -> dict[str, Any]:
        """The flags as a dict; by default only those that differ from the standard game."""
        out = {}
        for field in dataclasses.fields(self):
            value = getattr(self, field.name)
            if all_flags or value != field.default:
                out[field.name] = value
        return out

    @property
    def start_card_id(self) -> int:
        """Card id of the start card (3S is 0, 3C is 3)."""
        return 0 if self.start_card == "3S" else 3


RULE_CHOICES = _CHOICES
