"""The contract section of a bundle's ``bot.json``, generated from the engine's own tables.

What an encoder and a move chooser must do (the observation layout, the action catalogue, the
exchange, which cards an action plays, the decision) and the fingerprints (hashes) that tie a
bundle to the installed engine. ``murlan_env.bundle.manifest`` writes it into every bot.json and
renders it for the docs.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

import numpy as np

from murlan_env.game import observation, observation_layout
from murlan_env.game.cards import RANKS
from murlan_env.game.combos import LENGTH, N_ACTIONS, SINGLE_OF_RANK, action_catalogue
from murlan_env.game.rules import RULE_CHOICES

OUTPUT_NAME = "scores"
F32_MIN = float(np.finfo(np.float32).min)
# The give-back of the exchange: the single ids of ranks 3..10 (RULES.md 5).
GIVE_BACK_RANKS = tuple(range(RANKS.index("T") + 1))
GIVE_BACK_IDS = tuple(int(SINGLE_OF_RANK[r]) for r in GIVE_BACK_RANKS)


# --------------------------------------------------------------------------- fingerprints


def canonical_json(value: Any) -> str:
    """The text the bundle hashes are taken of: JSON with sorted object keys, no spaces
    (separators "," and ":"), ASCII only."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=True)


def layout_rows() -> list[list]:
    """What the observation hash covers: ``[[name, offset, size], ...]`` in layout order."""
    return [[p["name"], p["offset"], p["size"]] for p in observation_layout.layout()]


def layout_hash() -> str:
    """sha256 of ``canonical_json(layout_rows())`` (= ``observation_layout.layout_hash()``)."""
    return hashlib.sha256(canonical_json(layout_rows()).encode()).hexdigest()


def action_catalogue_hash() -> str:
    """sha256 of ``canonical_json(combos.action_catalogue())`` (rows ``{id, kind, ranks}``)."""
    return hashlib.sha256(canonical_json(action_catalogue()).encode()).hexdigest()


# --------------------------------------------------------------------------- the contract


def _rank_list(ranks) -> str:
    return " ".join(RANKS[r] for r in ranks)


def contract() -> dict[str, Any]:
    """What an encoder and a move chooser must do, generated from the engine's own tables."""
    give_back = _rank_list(GIVE_BACK_RANKS)
    return {
        "observation": {
            "size": observation.SIZE,
            "dtype": "float32",
            "sha256": layout_hash(),
            "hash_of": (
                "sha256 of the UTF-8 text of the JSON array [[name, offset, size], ...] of the "
                "pieces in layout order, no spaces: " + canonical_json(layout_rows())
            ),
            "slots": (
                "egocentric seat slots: slot k is seat (me + k) mod 4, where me is the seat "
                "to act; slot 0 is the seat to act, then the next seats in turn order. Seats "
                "that have gone out keep their slots (nothing is skipped)"
            ),
            "ranks": "rank index r = 0..14: " + " ".join(RANKS),
            "pieces": observation_layout.layout(),
            "fixed_entries": {str(i): why for i, why in observation_layout.fixed_entries().items()},
        },
        "actions": {
            "count": N_ACTIONS,
            "sha256": action_catalogue_hash(),
            "hash_of": (
                "sha256 of the canonical JSON (sorted keys, no spaces, ASCII) of the rows "
                '{"id", "kind", "ranks"} of the table below, e.g. the first row '
                + canonical_json(action_catalogue()[0])
            ),
            "columns": (
                "id; kind: pass, single, pair, triple, quad (a bomb), straight; ranks: the "
                "ranks it plays (straights in ladder order, A low or high); cards: how many"
            ),
            "table": [{**row, "cards": int(LENGTH[row["id"]])} for row in action_catalogue()],
            "legal": (
                "a play is legal when the hand holds the cards of its ranks and it beats the "
                "play on the table (RULES.md 3, with the variant flags of 7); on an empty "
                "table any play but pass; pass is legal on a non-empty table only; the joker "
                f"pair (id {N_ACTIONS - 1}) only with joker_pair. Under the start duty only "
                "plays that contain the start card's rank are legal"
            ),
        },
        "exchange": {
            "ids": list(GIVE_BACK_IDS),
            "ranks": give_back,
            "meaning": (
                "in phase exchange the previous hand's 1st player gives back one card: action "
                f"id 1 + r gives back a card of rank r ({give_back}); no other id is legal"
            ),
            "legal": (
                "id 1 + r is legal when the player holds a card of rank r other than the card "
                "just received (another card of the received card's rank may go back)"
            ),
            "automatic": (
                "the last player's highest card (its first suit in S H D C order) goes to the "
                "1st player before the decision; a 1st player holding no card ranked "
                f"{give_back} besides the one received gives back the lowest other card "
                "without a decision; then the last player leads. A last player dealt both jokers "
                "makes no exchange and the 1st player leads; with no_exchange no hand has one"
            ),
        },
        "cards": {
            "order": (
                "cards are ordered by rank (3 4 5 6 7 8 9 T J Q K A 2 BJ RJ), then by suit "
                "S H D C: 3S 3H 3D 3C 4S ... 2C BJ RJ (card id 4 * rank + suit for 3S-2C, "
                "BJ 52, RJ 53); lowest means first in this order"
            ),
            "play": (
                "an action names ranks; the cards played are, for each rank it uses, the "
                "first cards of that rank in the suit order S H D C that the hand holds; BJ "
                "and RJ are themselves"
            ),
            "start_card": (
                "while the start duty holds (hand 1's first play, start_duty = 1), the start "
                "card (3S, or 3C with start_card=3C) is taken first, then the rank's other "
                "cards in suit order"
            ),
            "give_back": (
                "the exchange action of rank r gives the first card of rank r in suit order "
                "S H D C other than the card just received"
            ),
            "automatic": (
                "the automatic give to the 1st player is the last player's highest card: "
                "of its highest rank, the first suit in S H D C order (a joker is itself); "
                "the automatic give-back is the 1st player's lowest card other than the one "
                "received (that player then holds no card ranked "
                f"{give_back} besides it)"
            ),
            "written": (
                "records (murlan-record/1) write a play's cards lowest first, except a "
                "straight, written in ladder order (the order of its ranks in the action "
                "table, e.g. AS 2H 3D 4C 5S); golden positions' cards are written lowest "
                "first; both separate cards by one space, and a pass is the empty string"
            ),
        },
        "decision": {
            "inputs": [
                {"name": "obs", "dtype": "float32", "shape": ["batch", observation.SIZE]},
                {"name": "mask", "dtype": "bool", "shape": ["batch", N_ACTIONS]},
            ],
            "outputs": [{"name": OUTPUT_NAME, "dtype": "float32", "shape": ["batch", N_ACTIONS]}],
            "rule": (
                "the move is the argmax of scores over the legal actions (mask true); the "
                f"model scores illegal actions {F32_MIN!r} (float32's minimum); ties go to "
                "the lowest action id. A row with no legal action has no move"
            ),
        },
        "rules": {
            "flags": {flag: list(values) for flag, values in RULE_CHOICES.items()},
            "meaning": "RULES.md section 7; the first value of each flag is the standard game",
        },
    }


__all__ = [
    "F32_MIN",
    "GIVE_BACK_IDS",
    "GIVE_BACK_RANKS",
    "OUTPUT_NAME",
    "action_catalogue_hash",
    "canonical_json",
    "contract",
    "layout_hash",
    "layout_rows",
]
