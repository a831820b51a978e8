"""Rules: the variant flags of RULES.md section 7 as one frozen, hashable value.

On the command line every tool writes them the same way, ``FLAG=VALUE`` pairs separated by
commas (``--rules sticky_pass=true,start_card=3C``); ``Rules.parse`` reads that syntax and
``Rules.text`` writes it.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
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

    @classmethod
    def parse(cls, text: str | Sequence[str] | None) -> Rules:
        """Rules from ``"FLAG=VALUE,FLAG=VALUE"`` (or several such strings, e.g. repeated
        command-line options). Booleans are ``true``/``false``; names and values are
        case-insensitive. Raises RulesError naming the valid flags and values."""
        if text is None:
            return cls()
        items = [text] if isinstance(text, str) else list(text)
        flags: dict[str, Any] = {}
        for item in (part.strip() for chunk in items for part in chunk.split(",")):
            if not item:
                continue
            key, sep, value = (x.strip() for x in item.partition("="))
            if not sep or not key or not value:
                raise RulesError(f"write rule flags as FLAG=VALUE, got {item!r}; {_SYNTAX}")
            flag = key.lower()
            if flag not in _CHOICES:
                raise RulesError(f"unknown rule flag {key!r}; {_SYNTAX}")
            by_text = {_word(choice).lower(): choice for choice in _CHOICES[flag]}
            if value.lower() not in by_text:
                allowed = " or ".join(_word(c) for c in _CHOICES[flag])
                raise RulesError(f"rule {flag} takes {allowed}, got {value!r}")
            flags[flag] = by_text[value.lower()]
        return cls(**flags)

    def text(self) -> str:
        """The flags that differ from the standard game in ``parse``'s syntax ("" if none)."""
        return ",".join(f"{k}={_word(v)}" for k, v in self.to_dict().items())

    @property
    def start_card_id(self) -> int:
        """Card id of the start card (3S is 0, 3C is 3)."""
        return 0 if self.start_card == "3S" else 3


def _word(value: Any) -> str:
    """A flag value as the command line writes it: true/false for booleans."""
    return str(value).lower() if isinstance(value, bool) else str(value)


_SYNTAX = "flags: " + ", ".join(
    f"{flag}={'|'.join(_word(c) for c in choices)}" for flag, choices in _CHOICES.items()
)
RULE_CHOICES = _CHOICES
# A flag value as the command line and the bundle manifest write it ("true", "leader", "3C").
flag_word = _word
