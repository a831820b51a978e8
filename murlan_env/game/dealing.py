"""Dealing (RULES.md 5): who gets how many cards, random deals, and deals given as text.

The dealer deals all 54 cards one at a time from the seat after them, so those two seats get
14 cards and the others 13. Random deals shuffle with the caller's ``np.random.Generator``
(one uniform draw per card, argsorted), so a seed fixes every deal.
"""

from __future__ import annotations

import numpy as np

from murlan_env.game import kernels
from murlan_env.game.cards import N_CARDS, parse_hand
from murlan_env.game.state import N_SEATS, bits_to_cards


def deal_sizes(dealer: int) -> list[int]:
    """Cards each seat is dealt: the two seats after the dealer get 14, the others 13."""
    return [14 if (seat - dealer) % N_SEATS in (1, 2) else 13 for seat in range(N_SEATS)]


def random_deal_bits(rng: np.random.Generator, dealer: np.ndarray) -> np.ndarray:
    """(B, 4) uint64 card sets: shuffled packs dealt one card at a time after each dealer."""
    order = rng.random((dealer.shape[0], N_CARDS)).argsort(axis=1)  # card at each position
    out = np.empty((dealer.shape[0], N_SEATS), np.uint64)
    kernels.deal_order_to_bits(order, np.ascontiguousarray(dealer, np.int8), out)
    return out


def random_deal(rng: np.random.Generator, dealer: np.ndarray) -> np.ndarray:
    """(B, 4, 54) bool: ``random_deal_bits`` as card masks."""
    return bits_to_cards(random_deal_bits(rng, dealer))


def parse_deal(hands) -> np.ndarray:
    """(B, 4, 54) bool from 4 card strings (one game), B lists of 4 strings, or a bool array."""
    if isinstance(hands, np.ndarray) and hands.dtype == bool:
        arr = hands
    else:
        games = [hands] if isinstance(hands[0], str) else hands
        arr = np.array([[parse_hand(h) for h in game] for game in games], dtype=bool)
    if arr.ndim == 2:
        arr = arr[None]
    if arr.shape[1:] != (N_SEATS, N_CARDS):
        raise ValueError(f"a deal has 4 hands of 54-card masks, got shape {arr.shape}")
    return arr


def check_deal(hands: np.ndarray, dealer: np.ndarray) -> None:
    """Raise ValueError unless each game's hands are a true 54-card deal for its dealer."""
    per_card = hands.sum(1)
    if (per_card != 1).any():
        game = int(np.flatnonzero((per_card != 1).any(1))[0])
        raise ValueError(f"game {game}: the hands must hold each of the 54 cards exactly once")
    for game, (sizes, d) in enumerate(zip(hands.sum(2), dealer, strict=True)):
        expected = deal_sizes(int(d))
        if list(sizes) != expected:
            raise ValueError(
                f"game {game}: dealer {int(d)} deals {expected} cards to seats 0-3, "
                f"got {list(sizes)}"
            )


__all__ = ["check_deal", "deal_sizes", "parse_deal", "random_deal", "random_deal_bits"]
