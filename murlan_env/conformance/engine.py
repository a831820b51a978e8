"""The engine's state in language-neutral JSON, and vectors that hold another engine to this one.

Another implementation of the rules (the JavaScript engine of ``clients/js``) is held to this
engine only by files this module writes, never by expectations written by hand:

- ``transition_vectors``: single transitions from every phase under every variant: a state
  and a move (or a deal) in, the next state out. The states are independent: the other
  engine loads each one, applies the move and compares what it gets.
- ``lockstep_matches``: whole seeded random matches, one decision after another, with the
  legal actions and the state after each decision, the matches shared among the variants so
  that a run of ``len(VARIANTS)`` matches plays every value of every flag; the other engine
  plays the same moves from the same deals and must agree at every step.

A state as JSON (``state_json``; the schema is ``murlan_env/schemas/transitions.schema.json``)
holds what the rules need and nothing of how this engine stores it: cards as strings per seat
(RULES.md notation, lowest first), ``played`` per seat as ranks, the action id on the table and
the seat that made it (``null`` on an empty table), ``passed`` flags, the seat to act
(``null`` once the hand or match is over), the finish order, points, scores, target, winners,
the exchange of this hand, the phase and every variant flag. A ``start`` transition carries
the rules it deals under. At the end of a hand the state is the one the hand-ending play left
with the hand's results (transitions.schema.json's ``state`` says what each field then holds).

Moves name concrete cards: ``{"action": id, "cards": "7S 7H"}`` ("" for a pass). Half of the
random moves take the cards the engine itself would choose (``engine_cards``, so the other
engine's default choice is checked as well), the other half other suits of the same ranks.
"""

from __future__ import annotations

import functools
from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np

from murlan_env.game import engine
from murlan_env.game.cards import CARD_NAMES, CARD_RANK, N_CARDS, RANKS, format_cards
from murlan_env.game.combos import COST, PASS, action_catalogue
from murlan_env.game.dealing import deal_sizes
from murlan_env.game.rules import Rules
from murlan_env.game.state import N_SEATS, TARGETS, Phase, State

TRANSITIONS_FORMAT = "murlan-transitions/1"
LOCKSTEP_FORMAT = "murlan-lockstep/1"
PHASE_NAMES = {Phase.PLAY: "play", Phase.EXCHANGE: "exchange"}
PHASE_NAMES.update({Phase.HAND_OVER: "hand_over", Phase.MATCH_OVER: "match_over"})

# Every flag alone at its other value, and all of them together.
VARIANTS: tuple[Rules, ...] = (
    Rules(),
    Rules(sticky_pass=True),
    Rules(joker_pair=True),
    Rules(straight_plus_one=True),
    Rules(tie_rule="leader"),
    Rules(start_card="3C"),
    Rules(no_exchange=True),
    Rules(
        sticky_pass=True,
        joker_pair=True,
        straight_plus_one=True,
        tie_rule="leader",
        start_card="3C",
        no_exchange=True,
    ),
)


def _ids(bits: int) -> list[int]:
    value = int(bits)
    return [c for c in range(N_CARDS) if value >> c & 1]


# The card names of each byte of a card set, lowest first: _BYTE_NAMES[k][x] for byte k.
_BYTE_NAMES = [
    [
        [CARD_NAMES[8 * k + i] for i in range(8) if x >> i & 1 and 8 * k + i < N_CARDS]
        for x in range(256)
    ]
    for k in range(7)
]


@functools.lru_cache(maxsize=1 << 14)
def _cards_text(bits: int) -> str:
    """Canonical text of a uint64 card set (format_cards of its ids), by bytes."""
    return " ".join(n for k in range(7) for n in _BYTE_NAMES[k][bits >> (8 * k) & 0xFF])


@functools.lru_cache(maxsize=1 << 14)
def _ranks_bytes(counts: bytes) -> str:
    return " ".join(RANKS[r] for r in range(len(counts)) for _ in range(counts[r]))


def _ranks_text(counts: np.ndarray) -> str:
    return _ranks_bytes(counts.astype(np.uint8).tobytes())


def _finish(place: np.ndarray) -> list[int]:
    return [int(s) for s in np.argsort(place, kind="stable") if place[s] >= 0]


def state_json(state: State, b: int = 0) -> dict[str, Any]:
    """Game ``b`` of ``state`` as language-neutral JSON (see the module docstring)."""
    phase = int(state.phase[b])
    table = int(state.table[b])
    ex_last = int(state.ex_last[b])
    exchange = None
    if ex_last >= 0:
        back = int(state.ex_first_gives[b])
        exchange = {
            "last": ex_last,
            "first": int(state.ex_first[b]),
            "last_gives": CARD_NAMES[int(state.ex_last_gives[b])],
            "first_gives": CARD_NAMES[back] if back >= 0 else None,
        }
    return {
        "rules": state.rules.to_dict(all_flags=True),
        "phase": PHASE_NAMES[Phase(phase)],
        "hand_no": int(state.hand_no[b]),
        "dealer": int(state.dealer[b]),
        "deal": [_cards_text(int(x)) for x in state.deal_bits[b]],
        "hands": [_cards_text(int(x)) for x in state.card_bits[b]],
        "played": [_ranks_text(state.played[b, s]) for s in range(N_SEATS)],
        "exchange": exchange,
        "to_act": int(state.to_act[b]) if phase <= Phase.EXCHANGE else None,
        "table": table,
        "table_seat": int(state.table_seat[b]) if table != PASS else None,
        "passed": [bool(x) for x in state.passed[b]],
        "start_duty": bool(state.start_duty[b]),
        "finish": _finish(state.place[b]),
        "points": [int(x) for x in state.points[b]],
        "scores": [int(x) for x in state.scores[b]],
        "target": int(state.target[b]),
        "winners": [int(s) for s in np.flatnonzero(state.winners[b])],
    }


def random_cards(state: State, b: int, action: int, rng: np.random.Generator) -> list[int]:
    """Concrete cards for the legal ``action`` of game ``b``'s seat to act, suits at random:
    in the exchange any card of the rank but the one just received; in a play any held cards
    of the ranks the action uses, the start card among them while the start-card duty holds."""
    seat = int(state.to_act[b])
    held = _ids(state.card_bits[b, seat])
    if action == PASS:
        return []
    if state.phase[b] == Phase.EXCHANGE:
        rank = action - 1
        received = int(state.ex_last_gives[b])
        return [int(rng.choice([c for c in held if CARD_RANK[c] == rank and c != received]))]
    out: list[int] = []
    start = state.rules.start_card_id
    for r in np.flatnonzero(COST[action]):
        of_rank = [c for c in held if CARD_RANK[c] == r]
        need = int(COST[action, r])
        if state.start_duty[b] and CARD_RANK[start] == r:
            out.append(start)
            of_rank.remove(start)
            need -= 1
        out += [int(c) for c in rng.choice(of_rank, size=need, replace=False)]
    return sorted(out)


def _move(action: int, cards: Sequence[int], engine_cards: np.ndarray) -> dict[str, Any]:
    """A move as the vectors write it (the legal actions are added by the caller)."""
    return {
        "action": int(action),
        "cards": format_cards(cards),
        "engine_cards": format_cards(np.flatnonzero(engine_cards)),
    }


def _deal_text(hands_bits: np.ndarray) -> list[str]:
    return [_cards_text(int(x)) for x in hands_bits]


class _Matches:
    """B seeded random matches played side by side, one decision per game per round; each
    round yields, per game that moved, (game, kind, payload, batch before, batch after)."""

    def __init__(self, rng: np.random.Generator, batch: int, rules: Rules) -> None:
        self.rng = rng
        self.state = engine.init(rng, batch, rules)

    def rounds(self) -> Iterator[list[tuple[int, str, dict, dict, dict]]]:
        rng = self.rng
        while True:
            state = self.state
            over = np.flatnonzero(state.phase == Phase.HAND_OVER)
            if over.size:
                deal = engine.random_deal(rng, (state.dealer + 1) % N_SEATS)
                after = engine.next_hand(state, hands=deal)
                self.state = after
                yield [
                    (
                        int(b),
                        "next_hand",
                        {"deal": [format_cards(d) for d in deal[b]]},
                        state,
                        after,
                    )
                    for b in over
                ]
                continue
            waiting = np.flatnonzero(state.phase <= Phase.EXCHANGE)
            if not waiting.size:
                return
            mask = engine.legal_action_mask(state)
            actions = engine.random_legal_actions(mask, rng)
            chosen = engine.choose_cards(state, actions)
            cards = np.zeros((state.batch_size, N_CARDS), bool)
            moves = {}
            for b in waiting:
                ids = (
                    list(np.flatnonzero(chosen[b]))
                    if rng.random() < 0.5
                    else random_cards(state, b, int(actions[b]), rng)
                )
                cards[b, ids] = True
                moves[b] = _move(int(actions[b]), ids, chosen[b])
                moves[b]["legal"] = [int(a) for a in np.flatnonzero(mask[b])]
            after = engine.step(state, actions, cards=cards)
            self.state = after
            yield [(int(b), "move", moves[b], state, after) for b in waiting]


def _crafted_deal(rng: np.random.Generator, dealer: int, seat: int, theme: str) -> np.ndarray:
    """(4, 54) bool: a random deal for ``dealer`` in which ``seat`` holds both jokers
    (``theme="jokers"``) or only cards above 10 (``"high"``: an automatic give-back)."""
    sizes = deal_sizes(dealer)
    order = list(rng.permutation(N_CARDS))
    if theme == "jokers":
        mine = [52, 53] + [c for c in order if c < 52][: sizes[seat] - 2]
    else:
        mine = [c for c in order if c >= 32][: sizes[seat]]
    rest = [c for c in order if c not in mine]
    hands = np.zeros((N_SEATS, N_CARDS), bool)
    hands[seat, mine] = True
    for s in range(N_SEATS):
        if s != seat:
            hands[s, rest[: sizes[s]]] = True
            rest = rest[sizes[s] :]
    return hands


def _crafted(rng: np.random.Generator, rules: Rules, n: int) -> list[dict]:
    """Hand starts a random match seldom reaches, ``n`` pairs: the previous last seat dealt
    both jokers (no exchange), the previous 1st seat dealt nothing of rank 3-10 (the
    give-back is automatic)."""
    out: list[dict] = []
    for _ in range(n):
        dealer = int(rng.integers(N_SEATS))
        first, last = (int(x) for x in rng.choice(N_SEATS, 2, replace=False))
        scores = rng.integers(0, 50, N_SEATS)
        for theme, seat in (("jokers", last), ("high", first)):
            hands = _crafted_deal(rng, dealer, seat, theme)
            state = engine.deal_from(
                hands[None], dealer, rules, hand_no=1, scores=scores, previous=(first, last)
            )
            out.append(
                {
                    "kind": "start",
                    "start": {
                        "rules": rules.to_dict(all_flags=True),
                        "dealer": dealer,
                        "deal": [format_cards(h) for h in hands],
                        "hand_no": 1,
                        "scores": [int(x) for x in scores],
                        "target": TARGETS[0],
                        "previous": {"first": first, "last": last},
                    },
                    "next": state_json(state),
                }
            )
    return out


def _end_at_targets(
    rng: np.random.Generator, state: State, b: int, action: int, cards: np.ndarray
) -> list[dict]:
    """The hand-ending move of game ``b`` again, from every target with scores one hand
    short of it, so the target rises, a match is won or drawn."""
    out = []
    for target in TARGETS:
        scores = target - rng.integers(0, 4, N_SEATS)
        sub = state.index([b]).replace(scores=scores[None], target=np.array([target]))
        after = engine.step(sub, [action], cards=cards[None])
        move = _move(action, np.flatnonzero(cards), engine.choose_cards(sub, [action])[0])
        move["legal"] = [int(a) for a in np.flatnonzero(engine.legal_action_mask(sub)[0])]
        out.append(
            {"kind": "move", "state": state_json(sub), "move": move, "next": state_json(after)}
        )
    return out


def transition_vectors(
    rng: np.random.Generator,
    matches: int = 2,
    keep: float = 0.05,
    crafted: int = 3,
    variants: Sequence[Rules] = VARIANTS,
) -> dict[str, Any]:
    """Transition vectors from ``matches`` seeded random matches under each variant: every
    match start, hand start (``next_hand``), exchange decision and hand-ending move, a
    fraction ``keep`` of the other plays, hand ends replayed next to every target, and
    ``crafted`` pairs of rare hand starts per variant (both jokers, automatic give-back)."""
    vectors: list[dict] = []
    for rules in variants:
        game = _Matches(rng, matches, rules)
        for b in range(matches):
            vectors.append(_start_vector(game.state, b))
        for rnd in game.rounds():
            for b, kind, payload, before, after in rnd:
                if kind == "next_hand":
                    vectors.append(
                        {
                            "kind": kind,
                            "state": state_json(before, b),
                            "deal": payload["deal"],
                            "next": state_json(after, b),
                        }
                    )
                    continue
                ended = after.phase[b] >= Phase.HAND_OVER
                if before.phase[b] == Phase.EXCHANGE or ended or rng.random() < keep:
                    vectors.append(
                        {
                            "kind": "move",
                            "state": state_json(before, b),
                            "move": payload,
                            "next": state_json(after, b),
                        }
                    )
        vectors += _crafted(rng, rules, crafted)
        vectors += _hand_ends(rng, rules, crafted)
    return {"format": TRANSITIONS_FORMAT, "actions": action_catalogue(), "transitions": vectors}


def _start_vector(state: State, b: int) -> dict:
    """The match start of game ``b`` as a ``start`` transition (rules, dealer and deal in)."""
    return {
        "kind": "start",
        "start": {
            "rules": state.rules.to_dict(all_flags=True),
            "dealer": int(state.dealer[b]),
            "deal": _deal_text(state.deal_bits[b]),
        },
        "next": state_json(state, b),
    }


def _hand_ends(rng: np.random.Generator, rules: Rules, n: int) -> list[dict]:
    """Hand-ending moves of ``n`` random hands replayed next to every target."""
    out: list[dict] = []
    state = engine.init(rng, n, rules)
    while (state.phase <= Phase.EXCHANGE).any():
        mask = engine.legal_action_mask(state)
        actions = engine.random_legal_actions(mask, rng)
        cards = engine.choose_cards(state, actions)
        after = engine.step(state, actions, cards=cards)
        for b in np.flatnonzero((state.phase <= Phase.EXCHANGE) & (after.phase >= Phase.HAND_OVER)):
            out += _end_at_targets(rng, state, int(b), int(actions[b]), cards[b])
        state = after
    return out


def lockstep_matches(
    rng: np.random.Generator, matches: int, variants: Sequence[Rules] = VARIANTS, batch: int = 16
) -> Iterator[dict[str, Any]]:
    """Whole seeded random matches, ``matches`` in all, the variants in turn: each a dict
    with the rules, the match start (rules, dealer, deal, state) and its events in order, a
    ``move`` (legal actions, the move, the state after) or a ``next_hand`` (deal, state after).

    The matches are shared out among the variants in batches of at most ``batch`` (one batch
    plays one set of rules), as evenly as that allows: with at least one match per variant,
    every value of every flag is played (``VARIANTS``), 8 matches being one per variant."""
    done = 0
    v = 0
    per_variant = min(batch, -(-matches // len(variants)))
    while done < matches:
        rules = variants[v % len(variants)]
        v += 1
        n = min(per_variant, matches - done)
        game = _Matches(rng, n, rules)
        logs = [
            {
                "format": LOCKSTEP_FORMAT,
                "rules": rules.to_dict(all_flags=True),
                "start": _start_vector(game.state, b)["start"],
                "state": state_json(game.state, b),
                "events": [],
            }
            for b in range(n)
        ]
        for rnd in game.rounds():
            for b, kind, payload, _, after in rnd:
                logs[b]["events"].append({"kind": kind, **payload, "next": state_json(after, b)})
        yield from logs
        done += n


__all__ = [
    "LOCKSTEP_FORMAT",
    "TRANSITIONS_FORMAT",
    "VARIANTS",
    "lockstep_matches",
    "random_cards",
    "state_json",
    "transition_vectors",
]
