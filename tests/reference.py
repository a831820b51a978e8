"""A slow, scalar reference implementation of RULES.md sections 1-7: one match, plain Python.

It is written from the rule text alone, independently of ``murlan_env.game.engine`` and
``murlan_env.game.combos`` (only the card notation of ``murlan_env.game.cards`` is shared), so
that the
differential test can hold the batched engine to it. Clarity beats speed here: every rule is
a few lines that read like the sentence they implement.

Representation:
- a card is an id 0..53 (``murlan_env.game.cards``); a hand is a ``set`` of ids;
- a play, at the level of ranks, is a sorted tuple of rank indices (0..14 for ``3 .. 2 BJ RJ``),
  e.g. ``(4, 4)`` for a pair of 7s; ``()`` is a pass;
- seats are 0-3 and play goes from seat s to seat s+1 (mod 4).

Decisions with a choice of concrete card (which suit of a rank) take the card ids as
arguments, so a driver can feed the reference the very cards another implementation used;
the reference checks that those cards were allowed.
"""

from __future__ import annotations

import dataclasses
import functools
from collections import Counter

from murlan_env.game.rules import Rules

N_SEATS = 4
THREE, TEN, KING, ACE, TWO, BJ, RJ = 0, 7, 10, 11, 12, 13, 14
BLACK_JOKER_ID, RED_JOKER_ID = 52, 53
# Straights run along A 2 3 4 5 6 7 8 9 T J Q K A (RULES.md 2): 14 ladder positions.
LADDER = (ACE, TWO, *range(THREE, KING + 1), ACE)
POINTS = (3, 2, 1, 0)
FIRST_TARGET, LAST_TARGET = 21, 51


def rank_of(card: int) -> int:
    """Rank index of a card id: 3..2 are 0..12, BJ 13, RJ 14."""
    if card == BLACK_JOKER_ID:
        return BJ
    if card == RED_JOKER_ID:
        return RJ
    return card // 4


def ranks_of(cards) -> tuple[int, ...]:
    """The rank multiset (sorted tuple) of some cards."""
    return tuple(sorted(rank_of(c) for c in cards))


def start_card_of(rules: Rules) -> int:
    """Card id of the card that opens hand 1: 3S (id 0) or 3C (id 3)."""
    return {"3S": 0, "3C": 3}[rules.start_card]


def deal_sizes(dealer: int) -> list[int]:
    """Dealing starts after the dealer, one card at a time: 54 = 4 * 13 + 2."""
    sizes = [0, 0, 0, 0]
    for i in range(54):
        sizes[(dealer + 1 + i) % N_SEATS] += 1
    return sizes


# ------------------------------------------------------------------------ combinations


@dataclasses.dataclass(frozen=True)
class Shape:
    """What a play is: kind, number of cards and comparison key (rank, or ladder top)."""

    kind: str  # "single", "pair", "triple", "quad", "straight"
    length: int
    key: int


def straight_top(ranks: tuple[int, ...]) -> int | None:
    """Ladder position of the top card of a straight, read as high as possible; else None."""
    n = len(ranks)
    if n < 5 or len(set(ranks)) != n:
        return None
    top = None
    for start in range(len(LADDER) - n + 1):
        window = LADDER[start : start + n]
        if len(set(window)) == n and tuple(sorted(window)) == ranks:
            top = start + n - 1  # later windows are higher: the 13-card one reads 2..A
    return top


def shape_of(ranks: tuple[int, ...], rules: Rules) -> Shape | None:
    """The Shape of a rank multiset, or None if it is not a combination under ``rules``."""
    n = len(ranks)
    if n == 0:
        return None
    if len(set(ranks)) == 1:
        r = ranks[0]
        if n == 1:
            return Shape("single", 1, r)
        # n >= 2 cards of one rank: jokers never pair with themselves (one of each exists).
        if r >= BJ or n > 4:
            return None
        return Shape({2: "pair", 3: "triple", 4: "quad"}[n], n, r)
    if ranks == (BJ, RJ):
        # The joker pair is the highest pair (above the 2s, rank 12) with the variant only.
        return Shape("pair", 2, TWO + 1) if rules.joker_pair else None
    top = straight_top(ranks)
    if top is not None:
        return Shape("straight", n, top)
    return None


def beats(new: Shape, old: Shape, rules: Rules) -> bool:
    """Whether ``new`` may be played on ``old`` (RULES.md 3 and the straight_plus_one variant)."""
    if new.kind == "quad":
        return old.kind != "quad" or new.key > old.key
    if old.kind == "quad":
        return False
    if new.kind != old.kind or new.length != old.length:
        return False
    if new.kind == "straight" and rules.straight_plus_one:
        return new.key == old.key + 1
    return new.key > old.key


@functools.cache
def all_rank_plays(rules: Rules) -> dict[tuple[int, ...], Shape]:
    """Every combination of RULES.md 2 (plus the joker pair with its variant) and its Shape.

    Cached per rules: it is the same list for every hand.
    """
    plays = set()
    for r in range(15):
        for n in range(1, 5):
            plays.add((r,) * n)
    plays.add((BJ, RJ))
    for n in range(5, 14):
        for start in range(len(LADDER) - n + 1):
            plays.add(tuple(sorted(LADDER[start : start + n])))
    shapes = {p: shape_of(p, rules) for p in sorted(plays)}
    return {p: shape for p, shape in shapes.items() if shape is not None}


def plays_in_hand(hand, rules: Rules) -> set[tuple[int, ...]]:
    """Every combination the cards ``hand`` can form, as rank multisets."""
    have = Counter(rank_of(c) for c in hand)
    found = {(r,) * n for r, k in have.items() for n in range(1, k + 1)}
    found.add((BJ, RJ))
    for start in range(len(LADDER)):  # runs of held, distinct ranks along the ladder
        run: list[int] = []
        for pos in range(start, len(LADDER)):
            rank = LADDER[pos]
            if not have[rank] or rank in run:
                break
            run.append(rank)
            if len(run) >= 5:
                found.add(tuple(sorted(run)))
    valid = all_rank_plays(rules)
    return {p for p in found if p in valid and all(have[r] >= p.count(r) for r in p)}


def legal_plays(hand, table: tuple[int, ...] | None, rules: Rules, must_hold_rank=None):
    """Legal rank-level plays of ``hand`` on ``table`` (None: empty table, the seat leads).

    The leader plays any combination and cannot pass; otherwise pass is always allowed and
    plays must beat the table. ``must_hold_rank``: hand 1's opening play contains that rank.
    """
    return _legal_plays(frozenset(hand), table, rules, must_hold_rank)


@functools.lru_cache(maxsize=4096)
def _legal_plays(hand: frozenset[int], table, rules: Rules, must_hold_rank) -> frozenset:
    """``legal_plays`` of a frozen hand, cached: a decision asks for its legal set twice (to
    compare it, then to check the play made), and a pure function may answer from a cache."""
    mine = plays_in_hand(hand, rules)
    if table is None:
        legal = mine
    else:
        shapes = all_rank_plays(rules)
        legal = {p for p in mine if beats(shapes[p], shapes[table], rules)} | {()}
    if must_hold_rank is not None:
        legal = {p for p in legal if must_hold_rank in p}
    return frozenset(legal)


# ------------------------------------------------------------------------ a match


class Match:
    """One match, hand after hand; phases "give_highest", "give_lowest" (automatic exchange
    moves), "exchange" (the 1st player's give-back choice), "play", "hand_over", "match_over".
    """

    def __init__(self, rules: Rules | None = None) -> None:
        self.rules = rules or Rules()
        self.scores = [0, 0, 0, 0]
        self.target = FIRST_TARGET
        self.winners: list[int] = []
        self.hand_no = -1
        self.dealer = -1
        self.phase = "none"
        self.hands: list[set[int]] = [set(), set(), set(), set()]
        self.points: list[int] | None = None
        self.finish: list[int] = []  # seats in finishing order
        self.previous: tuple[int, int] | None = None  # (1st, last) of the last finished hand
        self.exchange: dict | None = None

    # ------------------------------------------------------------- dealing and exchange

    def start_hand(
        self,
        deal,
        dealer: int | None = None,
        *,
        hand_no=None,
        scores=None,
        target=None,
        previous=None,
    ) -> None:
        """Begin the next hand with ``deal`` (4 sets of card ids, before any exchange).

        The dealer moves one seat from the last hand's unless given (hand 1 of a match, or
        a position built mid-match with ``hand_no``, ``scores``, ``target``, ``previous``).
        """
        assert self.phase in ("none", "hand_over"), self.phase
        if hand_no is not None:
            self.hand_no = hand_no
            self.scores = list(scores) if scores is not None else self.scores
            self.target = target if target is not None else self.target
            self.previous = tuple(previous) if previous is not None else None
        else:
            self.hand_no += 1
        if dealer is None:
            dealer = (self.dealer + 1) % N_SEATS
        self.dealer = dealer
        deal = [set(h) for h in deal]
        assert sorted(c for h in deal for c in h) == list(range(54)), "not a 54-card deal"
        assert [len(h) for h in deal] == deal_sizes(dealer), "wrong deal sizes for the dealer"
        self.deal = [set(h) for h in deal]
        self.hands = deal
        self.played: list[list[int]] = [[], [], [], []]
        self.finish = []
        self.points = None
        self.table: tuple[int, ...] | None = None
        self.table_seat = -1
        self.passes_in_row: list[int] = []  # default rule: seats that passed since the last play
        self.out_of_trick: set[int] = set()  # sticky_pass: seats that passed this trick
        self.exchange = None
        self.start_duty = self.hand_no == 0
        if self.start_duty:
            start = start_card_of(self.rules)
            self.to_act = next(s for s in range(N_SEATS) if start in self.hands[s])
            self.phase = "play"
            return
        first, last = self.previous
        if self.rules.no_exchange:
            self.to_act, self.phase = last, "play"
        elif {BLACK_JOKER_ID, RED_JOKER_ID} <= self.hands[last]:
            self.to_act, self.phase = first, "play"  # both jokers: no exchange, 1st leads
        else:
            self.exchange = {"last": last, "first": first, "last_gives": None, "first_gives": None}
            self.phase = "give_highest"

    def highest_options(self) -> set[int]:
        """Cards the previous last player may give: any card of their highest rank."""
        hand = self.hands[self.exchange["last"]]
        top = max(rank_of(c) for c in hand)
        return {c for c in hand if rank_of(c) == top}

    def give_highest(self, card: int | None = None) -> None:
        """The last player's automatic gift (``card`` picks the suit; default lowest id)."""
        assert self.phase == "give_highest"
        options = self.highest_options()
        card = min(options) if card is None else card
        assert card in options, f"card {card} is not among the highest {options}"
        ex = self.exchange
        self.hands[ex["last"]].remove(card)
        self.hands[ex["first"]].add(card)
        ex["last_gives"] = card
        if self.give_back_ranks():
            self.phase, self.to_act = "exchange", ex["first"]
        else:
            self.phase = "give_lowest"

    def give_back_ranks(self) -> set[int]:
        """Ranks 3-10 the 1st player may give back: any card but the very one received."""
        ex = self.exchange
        return {
            rank_of(c)
            for c in self.hands[ex["first"]] - {ex["last_gives"]}
            if THREE <= rank_of(c) <= TEN
        }

    def lowest_options(self) -> set[int]:
        """With nothing ranked 3-10 to give back: any card of the lowest other rank."""
        ex = self.exchange
        rest = self.hands[ex["first"]] - {ex["last_gives"]}
        low = min(rank_of(c) for c in rest)
        return {c for c in rest if rank_of(c) == low}

    def give_back(self, card: int) -> None:
        """The 1st player's give-back (a choice in phase "exchange", automatic otherwise)."""
        ex = self.exchange
        if self.phase == "exchange":
            assert card != ex["last_gives"], "the card just received cannot go back"
            assert card in self.hands[ex["first"]] and THREE <= rank_of(card) <= TEN
        else:
            assert self.phase == "give_lowest"
            assert card in self.lowest_options()
        self.hands[ex["first"]].remove(card)
        self.hands[ex["last"]].add(card)
        ex["first_gives"] = card
        self.phase, self.to_act = "play", ex["last"]

    # ------------------------------------------------------------- play

    def holders(self) -> list[int]:
        return [s for s in range(N_SEATS) if self.hands[s]]

    def legal(self) -> frozenset[tuple[int, ...]]:
        """Legal rank-level decisions of the seat to act (``()`` is pass)."""
        if self.phase == "exchange":
            return frozenset((r,) for r in self.give_back_ranks())
        if self.phase != "play":
            return frozenset()
        must = THREE if self.start_duty else None
        return legal_plays(self.hands[self.to_act], self.table, self.rules, must)

    def act(self, cards) -> None:
        """The seat to act plays ``cards`` (card ids; empty to pass) or gives one card back."""
        cards = set(cards)
        if self.phase == "exchange":
            assert len(cards) == 1
            self.give_back(cards.pop())
            return
        assert self.phase == "play", self.phase
        seat = self.to_act
        assert cards <= self.hands[seat], "cards not in the hand"
        ranks = ranks_of(cards)
        assert ranks in self.legal(), f"illegal play {ranks}"
        if self.start_duty:
            assert start_card_of(self.rules) in cards, "the opening play must hold the start card"
            self.start_duty = False
        if ranks:
            self.hands[seat] -= cards
            self.played[seat].extend(sorted(cards))
            self.table, self.table_seat = ranks, seat
            self.passes_in_row = []
            if not self.hands[seat]:
                self.finish.append(seat)  # out: the next free place
        else:
            self.passes_in_row.append(seat)
            self.out_of_trick.add(seat)
        holders = self.holders()
        if len(holders) == 1:
            self._end_hand(holders[0])
            return
        others = set(holders) - {self.table_seat}
        passed = self.out_of_trick if self.rules.sticky_pass else set(self.passes_in_row)
        if others <= passed:  # the trick ends; its last player (or the next holder) leads
            owner = self.table_seat
            self.to_act = owner if self.hands[owner] else self._next(owner, set(holders))
            self.table, self.table_seat = None, -1
            self.passes_in_row, self.out_of_trick = [], set()
        else:
            asked = set(holders) - self.out_of_trick if self.rules.sticky_pass else set(holders)
            self.to_act = self._next(seat, asked)

    @staticmethod
    def _next(seat: int, eligible: set[int]) -> int:
        for k in range(1, N_SEATS + 1):
            if (seat + k) % N_SEATS in eligible:
                return (seat + k) % N_SEATS
        raise AssertionError("nobody to act")

    def _end_hand(self, last_seat: int) -> None:
        self.finish.append(last_seat)
        self.points = [0, 0, 0, 0]
        for place, seat in enumerate(self.finish):
            self.points[seat] = POINTS[place]
            self.scores[seat] += POINTS[place]
        self.previous = (self.finish[0], self.finish[3])
        self._match_result()
        self.phase = "match_over" if self.winners else "hand_over"

    def _match_result(self) -> None:
        """RULES.md 6, or the ``leader`` tie rule of RULES.md 7."""
        scores = self.scores
        top = max(scores)
        if self.rules.tie_rule == "leader":
            if top >= FIRST_TARGET and scores.count(top) == 1:
                self.winners = [scores.index(top)]
            return
        reached = [s for s in range(N_SEATS) if scores[s] >= self.target]
        if len(reached) == 1:
            self.winners = reached
        elif len(reached) >= 2:
            if self.target < LAST_TARGET:
                self.target += 10
            else:
                self.winners = [s for s in range(N_SEATS) if scores[s] == top]

    def places(self) -> list[int]:
        """Finishing place 0-3 of each seat, -1 while still holding cards."""
        out = [-1, -1, -1, -1]
        for place, seat in enumerate(self.finish):
            out[seat] = place
        return out
