"""Cards and ranks: encodings, parsing and formatting in the notation of RULES.md section 1.

A card is an integer id in ``0..53``: ``rank * 4 + suit`` for the 52 suited cards (ranks
``3..2`` are ``0..12``, suits ``S H D C`` are ``0..3``), then ``52`` for the black joker and
``53`` for the red joker, whose ranks are ``13`` and ``14``. Ids therefore sort by rank, then
suit, which is the order writers use.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

RANKS: tuple[str, ...] = (
    "3",
    "4",
    "5",
    "6",
    "7",
    "8",
    "9",
    "T",
    "J",
    "Q",
    "K",
    "A",
    "2",
    "BJ",
    "RJ",
)
SUITS: tuple[str, ...] = ("S", "H", "D", "C")
N_RANKS = 15
N_SUITED_RANKS = 13
N_CARDS = 54
BLACK_JOKER = 52
RED_JOKER = 53

# Rank indices by name, e.g. RANK["A"] == 11.
RANK: dict[str, int] = {name: i for i, name in enumerate(RANKS)}

# (54,) int8: rank of each card id.
CARD_RANK = np.array([c // 4 for c in range(52)] + [13, 14], dtype=np.int8)
# (54,) int8: suit of each card id, -1 for the jokers.
CARD_SUIT = np.array([c % 4 for c in range(52)] + [-1, -1], dtype=np.int8)
# (54, 15) int8: one-hot rank of each card, so ``cards @ CARD_TO_RANK`` counts cards per rank.
CARD_TO_RANK = np.zeros((N_CARDS, N_RANKS), dtype=np.int8)
CARD_TO_RANK[np.arange(N_CARDS), CARD_RANK] = 1
# (15,) int8: how many cards of each rank the pack holds.
RANK_SIZE = CARD_TO_RANK.sum(0).astype(np.int8)

CARD_NAMES: tuple[str, ...] = tuple(
    [RANKS[c // 4] + SUITS[c % 4] for c in range(52)] + ["BJ", "RJ"]
)
_CARD_ID: dict[str, int] = {name: i for i, name in enumerate(CARD_NAMES)}


class CardError(ValueError):
    """A string that is not a card or a list of cards in RULES.md notation."""


def parse_card(text: str) -> int:
    """Card id of one card name; accepts ``10`` for ``T`` and any letter case."""
    name = text.strip().upper()
    if name.startswith("10"):
        name = "T" + name[2:]
    try:
        return _CARD_ID[name]
    except KeyError:
        raise CardError(
            f"unknown card {text!r}: write rank then suit, e.g. 3S, TD, AH, 2C, "
            "or BJ / RJ for the jokers"
        ) from None


def parse_cards(text: str) -> list[int]:
    """Card ids of a space-separated list such as ``"3S 3D"``; ``""`` is the empty list (a pass).

    Raises CardError on an unknown card or a card named twice.
    """
    if not isinstance(text, str):
        raise CardError(f"expected a string of cards, got {type(text).__name__}")
    ids = [parse_card(tok) for tok in text.split()]
    if len(set(ids)) != len(ids):
        dup = next(CARD_NAMES[c] for c in ids if ids.count(c) > 1)
        raise CardError(f"card {dup} is named twice in {text!r}")
    return ids


def format_cards(cards: Iterable[int] | np.ndarray) -> str:
    """Canonical string of a set of cards, lowest first; accepts ids or a (54,) bool mask."""
    arr = np.asarray(cards)
    if arr.dtype == bool:
        if arr.shape != (N_CARDS,):
            raise ValueError(f"a card mask has shape (54,), got {arr.shape}")
        ids = np.flatnonzero(arr)
    else:
        ids = np.sort(arr.astype(np.int64).ravel())
    return " ".join(CARD_NAMES[int(c)] for c in ids)


def cards_to_mask(cards: Iterable[int]) -> np.ndarray:
    """(54,) bool mask of a collection of card ids."""
    mask = np.zeros(N_CARDS, dtype=bool)
    mask[list(cards)] = True
    return mask


def parse_hand(text: str) -> np.ndarray:
    """(54,) bool mask of a hand written as a card string."""
    return cards_to_mask(parse_cards(text))


def rank_counts(cards: np.ndarray) -> np.ndarray:
    """Cards per rank, (..., 15) int8, of (..., 54) bool card masks."""
    cards = np.asarray(cards, dtype=bool)
    lead = cards.shape[:-1]
    out = np.empty((*lead, N_RANKS), np.int8)
    # The 4 suit flags of a rank read as one 32-bit word: multiplying by 0x01010101 adds its
    # bytes into the top byte, much faster than an integer matrix product.
    suits = np.ascontiguousarray(cards[..., :52]).reshape(*lead, 13, 4).view(np.uint32)[..., 0]
    out[..., :13] = (suits * np.uint32(0x01010101)) >> np.uint32(24)
    out[..., 13:] = cards[..., 52:]
    return out
