"""The positions a golden set (``murlan_env.bundle.golden``) is drawn from, and what each shows.

Matches are played to cover the game: hands dealt around a theme (``themed_deal``: bombs,
long straights, both jokers in one hand) and moves that pick a kind of combination first
(so triples, quads, long straights and bombs come up), into a ``Pool`` of candidate
decisions; ``long_matches`` plays matches long enough to reach the high targets, and
``cut_record`` cuts a record just after a picked decision. Each decision is described by
``state_facts`` (the seat to act's view, keyed by the observation's piece names) and tagged
with the situations of ``TAGS`` it shows (``position_tags``), which the set's chooser covers.
"""

from __future__ import annotations

import copy
import dataclasses
from typing import Any

import numpy as np

from murlan_env import records
from murlan_env.game import engine
from murlan_env.game.cards import (
    CARD_NAMES,
    CARD_RANK,
    N_CARDS,
    RANK_SIZE,
    RANKS,
    RED_JOKER,
    format_cards,
)
from murlan_env.game.combos import JOKER_PAIR, KIND, LADDER, LENGTH, PASS, Kind
from murlan_env.game.dealing import deal_sizes
from murlan_env.game.rules import Rules
from murlan_env.game.state import N_SEATS, TARGETS, Phase, State

# Situations each golden set covers when its positions can (tags of ``position_tags``).
TAGS = (
    "choice",
    "exchange",
    "start_duty",
    *(f"target_{t}" for t in TARGETS),
    "finished_seat",
    "passed",
    "sticky_passes",
    "lead",
    *(f"legal_{k.name.lower()}" for k in (Kind.SINGLE, Kind.PAIR, Kind.TRIPLE, Kind.QUAD)),
    *(f"legal_straight_{n}" for n in range(5, 14)),
    "legal_joker_pair",
    "bomb_on_straight",
    "table_quad",
    "top_score_45",
)


# --------------------------------------------------------------------------- facts


def _ranks_text(counts: np.ndarray) -> str:
    return " ".join(RANKS[r] for r in range(len(counts)) for _ in range(int(counts[r])))


def state_facts(state: State) -> dict[str, Any]:
    """The position of game 0 as its seat to act sees it, keyed by observation piece names.

    Cards are written as in RULES.md; ``played`` and ``unseen`` as ranks (suits are not
    observed), one string per seat slot for ``played``; places are 0-based (0 = 1st) or
    None; ``table_action`` 0 and ``table_seat`` None on an empty table; scores uncapped.
    """
    me = int(state.to_act[0])
    slots = [(me + k) % N_SEATS for k in range(N_SEATS)]
    counts = state.counts[0]
    played = state.played[0]
    unseen = RANK_SIZE - counts[me] - played.sum(0)
    table = int(state.table[0])
    ex_last, ex_first = int(state.ex_last[0]), int(state.ex_first[0])
    last_gives, first_gives = int(state.ex_last_gives[0]), int(state.ex_first_gives[0])
    received = gave = None
    if me == ex_first and last_gives >= 0:
        received = CARD_NAMES[last_gives]
        gave = CARD_NAMES[first_gives] if first_gives >= 0 else None
    elif me == ex_last and last_gives >= 0:
        gave = CARD_NAMES[last_gives]
        received = CARD_NAMES[first_gives] if first_gives >= 0 else None
    return {
        "seat": me,
        "my_hand": format_cards(state.cards[0, me]),
        "played": [_ranks_text(played[s]) for s in slots],
        "unseen": _ranks_text(unseen),
        "cards_left": [int(state.n_left[0, s]) for s in slots],
        "table_action": table,
        "table_seat": None if table == PASS else (int(state.table_seat[0]) - me) % N_SEATS,
        "passed": [bool(state.passed[0, s]) for s in slots],
        "places": [None if state.place[0, s] < 0 else int(state.place[0, s]) for s in slots],
        "scores": [int(state.scores[0, s]) for s in slots],
        "target": int(state.target[0]),
        "phase": "exchange" if state.phase[0] == Phase.EXCHANGE else "play",
        "start_duty": bool(state.start_duty[0]),
        "exchange": {"received": received, "gave": gave},
        "rules": state.rules.to_dict(all_flags=True),
    }


# The tags of what is legal, and (A, len(_LEGAL_TAGS)) 0/1 the actions that show each.
_LEGAL_TAGS = [
    *(f"legal_{k.name.lower()}" for k in (Kind.SINGLE, Kind.PAIR, Kind.TRIPLE, Kind.QUAD)),
    *(f"legal_straight_{n}" for n in range(5, 14)),
    "legal_joker_pair",
]
_LEGAL_TAG_ACTIONS = np.stack(
    [
        *(KIND == k for k in (Kind.SINGLE, Kind.PAIR, Kind.TRIPLE, Kind.QUAD)),
        *((KIND == Kind.STRAIGHT) & (LENGTH == n) for n in range(5, 14)),
        np.arange(len(KIND)) == JOKER_PAIR,
    ],
    axis=1,
).astype(np.int16)


def batch_tags(state: State, mask: np.ndarray) -> np.ndarray:
    """(B, len(TAGS)) bool: the situations of ``TAGS`` each game's decision is (``mask``:
    the (B, A) legal actions)."""
    t = {name: k for k, name in enumerate(TAGS)}
    out = np.zeros((state.batch_size, len(TAGS)), bool)
    table = state.table.astype(np.intp)
    on_table = table != PASS
    exchanging = state.phase == Phase.EXCHANGE
    out[:, t["choice"]] = mask.sum(1) > 1
    out[:, t["exchange"]] = exchanging
    out[:, t["start_duty"]] = state.start_duty
    for target in TARGETS:
        out[:, t[f"target_{target}"]] = state.target == target
    out[:, t["finished_seat"]] = (state.place >= 0).any(1)
    passed = state.passed.any(1)
    out[:, t["sticky_passes" if state.rules.sticky_pass else "passed"]] = passed
    out[:, t["lead"]] = ~on_table & ~exchanging
    legal = (mask.astype(np.int16) @ _LEGAL_TAG_ACTIONS) > 0  # (B, _LEGAL_TAGS) some is legal
    out[:, [t[name] for name in _LEGAL_TAGS]] = legal
    quad_legal = legal[:, _LEGAL_TAGS.index("legal_quad")]
    out[:, t["bomb_on_straight"]] = on_table & (KIND[table] == Kind.STRAIGHT) & quad_legal
    out[:, t["table_quad"]] = on_table & (KIND[table] == Kind.QUAD)
    out[:, t["top_score_45"]] = state.scores.max(1) >= 45
    return out


def position_tags(state: State, mask: np.ndarray) -> list[str]:
    """The situations of ``TAGS`` a decision (game 0 of ``state``, legal ``mask`` (A,)) is."""
    row = batch_tags(state, np.asarray(mask, bool).reshape(1, -1))[0]
    return [name for name, on in zip(TAGS, row, strict=True) if on]


# --------------------------------------------------------------------------- playing


# Weight of each kind of play (by kind and length) in ``_kind_first_actions``: rare and long
# combinations first, so that they reach the table.
_GROUP = KIND.astype(np.int16) * 16 + LENGTH
_GROUP_WEIGHT = np.where(
    KIND == Kind.STRAIGHT,
    3.0 ** (LENGTH - 4),
    np.where(KIND == Kind.QUAD, 8, np.where(KIND == Kind.TRIPLE, 2, 1)),
).astype(np.float64)
# (A, groups) 0/1: the group of each action; the weight of each group (one per kind and length)
_GROUP_ONE_HOT = (_GROUP[:, None] == np.arange(_GROUP.max() + 1)).astype(np.int16)
_WEIGHT_OF_GROUP = np.zeros(_GROUP.max() + 1)
_WEIGHT_OF_GROUP[_GROUP] = _GROUP_WEIGHT
_IN_GROUP = _GROUP_ONE_HOT.T.astype(bool)  # (groups, A): the actions of each group


def _kind_first_actions(mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """(B,) random legal actions, drawn by kind of play first (pass, single, pair, triple,
    quad, straight of each length; weighted by ``_GROUP_WEIGHT``), then uniformly within
    it, so rare combinations come up far more often than under uniform play."""
    out = np.zeros(mask.shape[0], np.int16)
    present = (mask.astype(np.int16) @ _GROUP_ONE_HOT) > 0  # (B, groups) kinds of play legal
    for b in np.flatnonzero(present.any(1)):
        groups = np.flatnonzero(present[b])
        weights = _WEIGHT_OF_GROUP[groups]
        # rng.choice(len(groups), p=weights / weights.sum()) without its checks of p: the same
        # one uniform draw against the same cumulative sums, so the same pick
        cdf = (weights / weights.sum()).cumsum()
        cdf /= cdf[-1]
        pick = groups[cdf.searchsorted(rng.random(), side="right")]
        within = np.flatnonzero(mask[b] & _IN_GROUP[pick])
        out[b] = within[rng.integers(len(within))]
    return out


def themed_deal(
    rng: np.random.Generator, dealer: int, first: int = -1, last: int = -1
) -> np.ndarray:
    """(4, 54) bool: a deal for ``dealer`` that often holds what uniform deals almost never
    give, so that golden matches reach such positions. One of: a uniform deal; quads for two
    or three seats; a straight of 8 to 13 cards for one seat (after a hand whose ``first``
    and ``last`` seats are known: for the last player, who leads, with RJ to give in the
    exchange); a last player without cards above J-A and a 1st player without cards below
    J, which makes rare exchange cards."""
    sizes = deal_sizes(dealer)
    theme = rng.integers(4) if first >= 0 else rng.integers(3)
    groups: dict[int, list[int]] = {}
    avoid: dict[int, set[int]] = {}
    seats = rng.permutation(N_SEATS)
    if theme == 1:
        ranks = rng.choice(13, size=int(rng.integers(2, 4)), replace=False)
        for seat, r in zip(seats, ranks, strict=False):
            groups[int(seat)] = [4 * int(r) + s for s in range(4)]
    elif theme == 2:
        length = int(rng.integers(5, 14))
        top = int(rng.integers(length - 1, 14)) if length < 13 else 13
        ladder = LADDER[top - length + 1 : top + 1]
        run = [4 * r + int(rng.integers(4)) for r in ladder]
        seat = last if last >= 0 else int(seats[0])
        # the last player leads after the exchange, where RJ is what goes
        groups[seat] = [*run, RED_JOKER][-sizes[seat] :] if last >= 0 else run
        # no card of the ranks beside the run, so that the run is the seat's longest
        beside = {LADDER[p] for p in (top - length, top + 1) if 0 <= p < len(LADDER)}
        avoid[seat] = beside - set(ladder)
    elif theme == 3:
        high = RANKS.index("J") + int(rng.integers(3))  # the last player's highest rank
        low = [int(c) for c in rng.permutation(4 * (high + 1))]
        groups[last] = low[: sizes[last]]
        top = [c for c in rng.permutation(N_CARDS) if c >= 4 * RANKS.index("J")]
        groups[first] = [int(c) for c in top if c not in groups[last]][: sizes[first]]
    taken = {c for cards in groups.values() for c in cards}
    rest = [int(c) for c in rng.permutation(N_CARDS) if c not in taken]
    out = np.zeros((N_SEATS, N_CARDS), bool)
    for seat in sorted(range(N_SEATS), key=lambda s: s not in avoid):
        cards = groups.get(seat, [])
        fits = [c for c in rest if CARD_RANK[c] not in avoid.get(seat, ())]
        cards = cards + fits[: sizes[seat] - len(cards)]
        out[seat, cards] = True
        rest = [c for c in rest if c not in set(cards)]
    return out


# The phases as ints for the loops below: numpy compares an array with an IntEnum member only
# after probing the member for its array protocols, which costs more than the comparison.
_PLAY, _EXCHANGE, _HAND_OVER, _MATCH_OVER = (int(p) for p in Phase)


@dataclasses.dataclass
class Pool:
    """Matches played for a golden set and the decisions in them that may be picked."""

    records: list[dict] = dataclasses.field(default_factory=list)
    # one row per candidate decision: (match, hand, plays, exchange)
    labels: list[tuple[int, int, int, bool]] = dataclasses.field(default_factory=list)
    nonzero: list[np.ndarray] = dataclasses.field(default_factory=list)  # (n, SIZE) bool
    tags: list[np.ndarray] = dataclasses.field(default_factory=list)  # (n, len(TAGS)) bool

    def play(self, state, rng, act, deal, keep=None) -> None:
        """Play the matches of ``state`` to their end: ``act(mask, rng)`` chooses the moves,
        ``deal(state)`` deals the next hands; decisions where ``keep(state)`` (B,) holds (all
        by default) become candidates. Only the matches with a candidate are kept."""
        first = len(self.records)
        recorder = records.Recorder(state)
        plays = np.zeros(state.batch_size, np.int64)
        used = np.zeros(state.batch_size, bool)
        while not (state.phase == _MATCH_OVER).all():
            over = state.phase == _HAND_OVER
            if over.any():
                state = deal(state)
                plays[over] = 0
                recorder.update(state)
                continue
            mask = engine.legal_action_mask(state)
            waiting = state.phase <= _EXCHANGE
            rows = np.flatnonzero(waiting & (True if keep is None else keep(state)))
            if rows.size:
                sub = state.index(rows)
                self.nonzero.append(engine.observe(sub) != 0)
                self.tags.append(batch_tags(sub, mask[rows]))
                exchanging = state.phase[rows] == _EXCHANGE
                for g, h, k, x in zip(
                    rows, state.hand_no[rows], plays[rows], exchanging, strict=True
                ):
                    self.labels.append((first + int(g), int(h), int(k), bool(x)))
                used[rows] = True
            playing = state.phase == _PLAY
            state = engine.step(state, act(mask, rng))
            plays[playing] += 1
            recorder.update(state)
        self.records.extend(recorder.record(g) if used[g] else None for g in range(len(used)))


def play_matches(pool: Pool, rules: Rules, n: int, rng: np.random.Generator) -> None:
    """Add ``n`` whole matches under ``rules`` from ``themed_deal`` deals, played by
    ``_kind_first_actions``, to ``pool``."""
    dealer = rng.integers(0, N_SEATS, size=n)
    deals = np.stack([themed_deal(rng, int(d)) for d in dealer])

    def deal(state: State) -> State:
        dealer = (state.dealer + 1) % N_SEATS
        place = state.place
        hands = np.zeros((state.batch_size, N_SEATS, N_CARDS), bool)
        for g in np.flatnonzero(state.phase == Phase.HAND_OVER):
            first, last = int(np.argmax(place[g] == 0)), int(np.argmax(place[g]))
            hands[g] = themed_deal(rng, int(dealer[g]), first, last)
        return engine.next_hand(state, hands=hands)

    pool.play(engine.deal_from(deals, dealer, rules), rng, _kind_first_actions, deal)


def long_matches(pool: Pool, rules: Rules, rng: np.random.Generator, n: int = 2000) -> None:
    """Add to ``pool`` the decisions at the highest targets (41, 51) of ``n`` matches of
    uniform random play. Under the raise rule fewer than 2% of matches get to 41, so they
    are found by playing many (a few seconds)."""
    if rules.tie_rule != "raise":
        return
    pool.play(
        engine.init(rng, n, rules),
        rng,
        engine.random_legal_actions,
        lambda state: engine.next_hand(state, rng),
        keep=lambda state: state.target >= TARGETS[2],
    )


def cut_record(record: dict, hand: int, plays: int, exchange: bool) -> dict:
    """A finished match's ``record`` cut just before a decision (the decision before play
    number ``plays`` of ``hand``, or before its give-back when ``exchange``), its last hand
    left unfinished as murlan-record/1 allows. Works on the JSON alone, so that only the
    cut record has to be replayed."""
    rules = Rules.from_dict(record["rules"])
    out = copy.deepcopy(record)
    hands = out["hands"][: hand + 1]
    last = hands[-1]
    full = record["hands"][hand]["plays"]
    kept = 0 if exchange else plays
    if exchange:
        last["exchange"]["first_gives"] = None
    last["plays"] = last["plays"][:kept]
    out_at = {seat: i for i, (seat, cards) in enumerate(full) if cards}  # last play of each
    last["finish"] = [s for s in record["hands"][hand]["finish"][:3] if out_at[s] < kept]
    last["points"] = None
    scores = np.zeros((1, N_SEATS), np.int16)
    target = np.array([TARGETS[0]], np.int16)
    for done in hands[:-1]:
        scores += np.asarray(done["points"], np.int16)
        target, _ = engine.match_result(scores, target, rules)
    out["hands"] = hands
    out["scores"] = [int(x) for x in scores[0]]
    out["target"] = int(target[0])
    out["winners"] = []
    return out


__all__ = [
    "TAGS",
    "Pool",
    "batch_tags",
    "cut_record",
    "long_matches",
    "play_matches",
    "position_tags",
    "state_facts",
    "themed_deal",
]
