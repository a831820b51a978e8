"""Tiny deterministic bots and fixed boards whose duplicate results are traced by hand.

Two boards, each one hand (hand 1, dealer 3, so seats 0 and 1 hold 14 cards) dealt in rank
blocks: every card of a higher block beats every card of a lower one, and no play but
singles is ever made. ``Passer`` passes whenever it may and leads its lowest single;
``Beater`` leads its lowest single and beats a single with its lowest higher single.
"""

from __future__ import annotations

import numpy as np

from murlan_env.game.combos import PASS
from murlan_env.game.dealing import parse_deal

SINGLES = slice(1, 16)  # action ids of the singles 3 .. RJ


def quads(ranks: str) -> str:
    return " ".join(f"{r}{s}" for r in ranks.split() for s in "SHDC")


# Board 0: blocks in play order from the 3S holder (seat 2): seats 2 < 3 < 0 < 1.
BOARD_0 = [
    "9D 9C " + quads("T J Q"),
    quads("K A 2") + " BJ RJ",
    quads("3 4 5") + " 6S",
    "6H 6D 6C " + quads("7 8") + " 9S 9H",
]
# Board 1: the 3S holder is seat 0, then seats 1 (top block), 2, 3.
BOARD_1 = [
    quads("3 4 5") + " 6S 6H",
    quads("K A 2") + " BJ RJ",
    "6D 6C " + quads("7 8") + " 9S 9H 9D",
    "9C " + quads("T J Q"),
]
DEALER = 3

# Finishing order (seats, 1st to 4th) of each board with the Passer (P) in seat s and Beaters
# in the others, traced by hand. A trick ends when all other holders pass; whoever then leads
# a block no one still holding can beat plays it out alone.
#
# Board 0 (3S in seat 2; blocks 2 < 3 < 0 < 1):
#   P0: 2:3 3:6 0:pass 1:K, all pass -> 1 out. 2:3 3:6, 0 and 2 pass -> 3 out, then 0, then 2.
#   P1: 2:3 3:6 0:9, all pass -> 0 out. 1 (P) leads out. 2:3 3:6, 2 passes -> 3 out; 2 last.
#   P2: 2:3 3:6 0:9 1:K -> 1 out. 2:3 3:6 0:9 -> 0 out. 2:3 3:6 -> 3 out; 2 last.
#   P3: 2:3 3:pass 0:9 1:K -> 1 out. 2:3 3:pass 0:9 -> 0 out. 2 leads, 3 passes -> 2 out.
# Board 1 (3S in seat 0; blocks 0 < 2 < 3, seat 1 top):
#   P0: 0:3 1:K -> 1 out. 2:6 3:9 -> 3 out. 0 leads, 2 beats 6, 0 passes -> 2 out; 0 last.
#   P1: 0:3 1:pass 2:6 3:9 -> 3 out. 0:3 1:pass 2:6 -> 2 out. 0 leads, 1 passes -> 0 out.
#   P2: 0:3 1:K -> 1 out. 2:6 3:9 -> 3 out. 0 leads, 2 passes -> 0 out; 2 last.
#   P3: 0:3 1:K -> 1 out. 2 leads, 3 passes, 0 cannot beat -> 2 out. 3 leads out; 0 last.
ORDERS = {
    0: {0: [1, 3, 0, 2], 1: [0, 1, 3, 2], 2: [1, 0, 3, 2], 3: [1, 0, 2, 3]},
    1: {0: [1, 3, 2, 0], 1: [3, 2, 0, 1], 2: [1, 3, 0, 2], 3: [1, 2, 3, 0]},
}
# The Passer's points per hand on each board, over its four seats: (1+2+0+0)/4 and (0+0+0+1)/4.
PASSER_POINTS = {0: 0.75, 1: 0.25}


def block_deals(board: int, hand: int) -> tuple[int, np.ndarray]:
    """The fixed boards as a ``murlan_env.eval.duplicate`` deal source (hand 1 only)."""
    if hand != 0:
        raise AssertionError("the fixed boards have one hand")
    return DEALER, parse_deal([BOARD_0, BOARD_1][board])[0]


class Passer:
    name = "passer"

    def act(self, obs, mask, rng):
        return np.where(mask[:, PASS], PASS, mask.argmax(1))


class Beater:
    name = "beater"

    def act(self, obs, mask, rng):
        singles = mask[:, SINGLES]
        return np.where(singles.any(1), 1 + singles.argmax(1), PASS)
