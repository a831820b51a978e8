"""Card and action sets as uint64 bit sets, and the compiled helpers that read them.

- cards: bit c for card id c; the 52 suited cards form 13 nibbles, one per rank, suits
  S H D C from the low bit; bits 52 and 53 are the jokers.
- actions: two uint64 words, bit a of word a // 64 for action id a.
- masks: (B, A) bool masks are views of (B, MASK_WORDS) uint64 buffers, 8 bool bytes per
  word, zero-padded past the last action, so compiled code writes and counts them a word at
  a time.

The tables here are built once from the static action catalogue (``murlan_env.game.combos``); the
rules (``murlan_env.game.kernels``) and the observation codec use them.
"""

from __future__ import annotations

import numba
import numba.extending
import numpy as np

from murlan_env.game.cards import N_RANKS
from murlan_env.game.combos import COST, N_ACTIONS, PASS

N_WORDS = 2  # uint64 words per action set
assert N_ACTIONS <= 64 * N_WORDS
SUITED = np.uint64((1 << 52) - 1)

jit = numba.njit(cache=True, nogil=True, error_model="numpy")
inline = numba.njit(cache=True, inline="always", error_model="numpy")


def action_words(flags: np.ndarray) -> np.ndarray:
    """(..., A) bool -> (..., 2) uint64 action sets."""
    flags = np.asarray(flags, dtype=bool)
    padded = np.zeros((*flags.shape[:-1], 64 * N_WORDS), bool)
    padded[..., :N_ACTIONS] = flags
    return np.packbits(padded, axis=-1, bitorder="little").view("<u8").astype(np.uint64)


# AFFORD[r, k]: the actions needing at most k cards of rank r. A hand can pay for an action
# when it is in AFFORD[r, count of r] for all 15 ranks.
AFFORD = action_words(COST.T[:, None, :] <= np.arange(5)[None, :, None])  # (15, 5, 2)
# MUST_USE[r]: the actions using a card of rank r (the start-card duty keeps those of its rank).
MUST_USE = action_words(COST.T > 0)  # (15, 2)
# JOKER_BITS[a]: the joker cards action a takes (its jokers are fixed: one card per rank).
JOKER_BITS = (np.where(COST[:, 13] > 0, 1 << 52, 0) | np.where(COST[:, 14] > 0, 1 << 53, 0)).astype(
    np.uint64
)
# Actions' rank spans: COST[a, r] is zero outside RANK_LO[a] <= r < RANK_HI[a].
_uses = COST > 0
RANK_LO = np.where(_uses.any(1), _uses.argmax(1), 0).astype(np.int64)
RANK_HI = np.where(_uses.any(1), N_RANKS - _uses[:, ::-1].argmax(1), 0).astype(np.int64)


def _next_seat_table() -> np.ndarray:
    """(4, 16) int8: the first seat after ``s`` (wrapping round) in a 4-bit seat set, -1 if none."""
    table = np.full((4, 16), -1, np.int8)
    for after in range(4):
        for seats in range(16):
            for k in range(1, 5):
                if seats >> ((after + k) % 4) & 1:
                    table[after, seats] = (after + k) % 4
                    break
    return table


NEXT_SEAT = _next_seat_table()
# Lowest set bit of a nibble: the first suit (S H D C) held of a rank; -1 for none.
FIRST_SUIT = np.array([-1, 0, 1, 0, 2, 0, 1, 0, 3, 0, 1, 0, 2, 0, 1, 0], np.int8)
POPCOUNT4 = np.array([bin(i).count("1") for i in range(16)], np.int8)
MASK_WORDS = (N_ACTIONS + 7) // 8
# BYTE_SPREAD[x]: the 8 bits of byte x as 8 bool bytes.
_spread = np.unpackbits(np.arange(256, dtype=np.uint8)[:, None], axis=1, bitorder="little")
BYTE_SPREAD = np.ascontiguousarray(_spread).view("<u8")[:, 0].astype(np.uint64)
# Byte lanes: ONES has 1 in every byte, HIGHS the top bit of every byte.
ONES = np.uint64(0x0101010101010101)
HIGHS = np.uint64(0x8080808080808080)


@numba.extending.intrinsic
def _ctpop(typingctx, x):
    """LLVM's population count (one POPCNT instruction where the CPU has it)."""
    if x != numba.types.uint64:
        return None

    def codegen(context, builder, signature, args):
        return builder.ctpop(args[0])

    return numba.types.uint64(numba.types.uint64), codegen


@inline
def popcount(x):
    """Set bits of a uint64."""
    return np.int64(_ctpop(np.uint64(x)))


@inline
def lowest_bit_index(x):
    """Index of the lowest set bit of a nonzero uint64."""
    return popcount((x & (~x + np.uint64(1))) - np.uint64(1))


@inline
def rank_count(bits, rank):
    """Cards of ``rank`` in a card set."""
    if rank < 13:
        return np.int64(POPCOUNT4[(bits >> np.uint64(4 * rank)) & np.uint64(0xF)])
    return np.int64((bits >> np.uint64(39 + rank)) & np.uint64(1))  # rank 13: bit 52, 14: bit 53


@inline
def first_card_of_rank(bits, rank):
    """The first card (suit order S H D C) of ``rank`` in a card set that holds one."""
    if rank < 13:
        return np.int64(4 * rank + FIRST_SUIT[(bits >> np.uint64(4 * rank)) & np.uint64(0xF)])
    return np.int64(39 + rank)


@inline
def spread_words(w0, w1, row):
    """Write the action set (w0, w1) into ``row`` (MASK_WORDS,) uint64 as bool bytes."""
    for j in range(8):
        row[j] = BYTE_SPREAD[(w0 >> np.uint64(8 * j)) & np.uint64(0xFF)]
    for j in range(MASK_WORDS - 8):
        row[8 + j] = BYTE_SPREAD[(w1 >> np.uint64(8 * j)) & np.uint64(0xFF)]


@jit
def pick_legal(mask_words, uniform, out):
    """Fill ``out`` (B,) with the legal action at position floor(u * n_legal) among each
    game's legal actions in id order (PASS where none is legal).

    ``mask_words`` (B, MASK_WORDS) uint64 is the mask as bool bytes, zero-padded.
    """
    for b in range(mask_words.shape[0]):
        row = mask_words[b]
        n = 0
        for j in range(row.shape[0]):
            n += popcount(row[j])
        out[b] = PASS
        if n == 0:
            continue
        k = int(uniform[b] * n)
        j = 0
        c = popcount(row[0])
        while k >= c:  # the word holding the k-th legal action
            k -= c
            j += 1
            c = popcount(row[j])
        # Byte i of row[j] * ONES counts the legal actions in bytes 0..i (at most 8, so no
        # carries); the top bit of byte i of ``past`` is set once that count exceeds k.
        past = (row[j] * ONES + np.uint64(0x80 - (k + 1)) * ONES) & HIGHS
        out[b] = 8 * j + lowest_bit_index(past) // 8


def mask_words(mask: np.ndarray) -> np.ndarray:
    """(B, MASK_WORDS) uint64: a (B, A) bool mask as zero-padded words of bool bytes (the
    mask's own buffer when it is a view of such words, else a padded copy)."""
    base = mask.base
    if (
        mask.dtype == bool
        and isinstance(base, np.ndarray)
        and base.dtype == np.uint64
        and base.shape == (mask.shape[0], MASK_WORDS)
        and base.flags.c_contiguous
        and mask.strides == (8 * MASK_WORDS, 1)
        and mask.ctypes.data == base.ctypes.data
    ):
        return base
    words = np.zeros((mask.shape[0], MASK_WORDS), np.uint64)
    words.view(bool)[:, :N_ACTIONS] = mask
    return words


__all__ = [
    "AFFORD",
    "JOKER_BITS",
    "MASK_WORDS",
    "MUST_USE",
    "NEXT_SEAT",
    "action_words",
    "first_card_of_rank",
    "lowest_bit_index",
    "mask_words",
    "pick_legal",
    "popcount",
    "rank_count",
    "spread_words",
]
