"""The JSON bodies the API accepts, parsed strictly: no unknown fields, no type coercion.

A body that does not fit gets a 422 naming the field and what was wrong (see ``app``).
"""

from __future__ import annotations

from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field, StringConstraints, model_validator

Seed = Annotated[int, Field(ge=0, le=2**63 - 1)]
Spec = Annotated[str, StringConstraints(min_length=1, max_length=200)]
CardName = Annotated[str, StringConstraints(min_length=1, max_length=4)]
RuleFlags = Annotated[
    dict[Annotated[str, StringConstraints(max_length=40)], bool | str], Field(max_length=20)
]


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)


class NewGame(Strict):
    """A match: the three bots in seat order (skipping the person's seat), the person's
    seat, rule flags (``{"sticky_pass": true}``), an optional seed (random if absent) and an
    optional time a move for the search bots (the set-up's "time a move")."""

    bots: Annotated[list[Spec], Field(min_length=3, max_length=3)]
    seat: Annotated[int, Field(ge=0, le=3)] = 0
    rules: RuleFlags = {}
    seed: Seed | None = None
    # The most a search bot (expert, search:N) may think a move, in ms; absent: its whole search.
    budget_ms: Annotated[int, Field(ge=50, le=60_000)] | None = None


class Move(Strict):
    """The person's cards by name (``["7S", "7H"]``); none is a pass."""

    cards: Annotated[list[CardName], Field(max_length=54)]


class Hint(Strict):
    bot: Spec


class OpenReplay(Strict):
    """A record to replay: its JSON ``text`` (an upload) or the ``name`` of a saved one."""

    text: str | None = None
    name: Annotated[str, StringConstraints(max_length=200)] | None = None

    @model_validator(mode="after")
    def one_source(self) -> OpenReplay:
        if (self.text is None) == (self.name is None):
            raise ValueError("give either text (an uploaded record) or name (a saved record)")
        return self


class ReplayAdvice(Strict):
    """A bot's scores at the decision taken from frame ``frame`` (``seed``: its worlds)."""

    frame: Annotated[int, Field(ge=0)]
    bot: Spec
    seed: Seed = 0


class Playable(Strict):
    """Rule flags, to learn which bots of the menu can play them."""

    rules: RuleFlags = {}


# No match lasts this many hands (the target stops rising at 51), so a larger cap means a
# whole match: refused rather than passed on to the arena as a number it cannot hold.
MAX_HANDS = 1000


class NewTournament(Strict):
    """A duplicate tournament: 2-6 bots, ``boards`` seeded boards (each played by every
    lineup as a whole match, or ``max_hands`` hands), seed and rule flags."""

    bots: Annotated[list[Spec], Field(min_length=2, max_length=6)]
    boards: Annotated[int, Field(ge=1, le=1_000_000)] = 4
    max_hands: Annotated[int, Field(ge=1, le=MAX_HANDS)] | None = None
    seed: Seed = 0
    rules: RuleFlags = {}


__all__ = [
    "Hint",
    "MAX_HANDS",
    "Move",
    "NewGame",
    "NewTournament",
    "OpenReplay",
    "Playable",
    "ReplayAdvice",
]
