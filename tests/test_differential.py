"""Differential test: the batched engine against the scalar reference (tests/reference.py).

Random matches are played through both, with the same deals and the same concrete cards. At
every decision the seat to act, the phase, the legal set (as rank multisets) and the exact
pieces of the acting seat's observation must agree; after every step the hands, played cards,
table, passes, places and exchange must agree; at every hand end the points, scores, target
and winners. Both full matches (from ``engine.init``) and late-
match positions (``deal_from`` with scores near the target, deals biased toward the rare
exchange cases) are played, under several combinations of variant flags.

Run: ``python -m pytest tests/test_differential.py -q`` (about a minute on one core);
``python -m pytest tests/test_differential.py -m slow`` plays many more games.
"""

from __future__ import annotations

import numpy as np
import pytest

from murlan_env.game import engine
from murlan_env.game.combos import COST
from murlan_env.game.engine import Phase
from murlan_env.game.observation import SLICES
from murlan_env.game.rules import Rules
from tests.reference import Match, rank_of

RULE_SETS = [
    Rules(),
    Rules(sticky_pass=True),
    Rules(joker_pair=True, straight_plus_one=True),
    Rules(tie_rule="leader", start_card="3C"),
    Rules(no_exchange=True, sticky_pass=True),
    Rules(
        sticky_pass=True,
        joker_pair=True,
        straight_plus_one=True,
        tie_rule="leader",
        start_card="3C",
        no_exchange=True,
    ),
]
RULE_IDS = ["default", "sticky", "jokerpair+plus1", "leader+3C", "noexchange+sticky", "all"]

PHASE_NAMES = {
    Phase.PLAY: "play",
    Phase.EXCHANGE: "exchange",
    Phase.HAND_OVER: "hand_over",
    Phase.MATCH_OVER: "match_over",
}
# Rank multiset of every action id, () for pass.
ACTION_RANKS = [tuple(int(r) for r in np.repeat(np.arange(15), c)) for c in COST]


def cards_of(mask: np.ndarray) -> set[int]:
    return {int(c) for c in np.flatnonzero(mask)}


def engine_legal(mask_row: np.ndarray) -> set[tuple[int, ...]]:
    return {ACTION_RANKS[a] for a in np.flatnonzero(mask_row)}


# ------------------------------------------------------------------------ deals


def shuffled_deal(rng: np.random.Generator, dealer: int, fixed=None) -> np.ndarray:
    """(4, 54) bool: one card at a time from the seat after the dealer; ``fixed`` maps a
    seat to a pool its cards are drawn from first (to make rare exchange cases common)."""
    sizes = [14 if (s - dealer) % 4 in (1, 2) else 13 for s in range(4)]
    hands = np.zeros((4, 54), bool)
    free = np.ones(54, bool)
    for seat, pool in (fixed or {}).items():
        pool = np.array([c for c in pool if free[c]])
        take = rng.choice(pool, size=min(sizes[seat], len(pool)), replace=False)
        hands[seat, take] = True
        free[take] = False
    rest = rng.permutation(np.flatnonzero(free))
    i = 0
    for k in range(54):  # deal what is left in dealing order, skipping full hands
        seat = (dealer + 1 + k) % 4
        need = sizes[seat] - hands[seat].sum()
        if need > 0 and i < len(rest):
            hands[seat, rest[i]] = True
            i += 1
    while i < len(rest):  # hands given a short pool still need filling
        seat = next(s for s in range(4) if hands[s].sum() < sizes[s])
        hands[seat, rest[i]] = True
        i += 1
    return hands


LOW = [c for c in range(54) if rank_of(c) <= 7]  # ranks 3-10
HIGH = [c for c in range(54) if rank_of(c) > 7]  # J .. RJ


def late_match_games(rng: np.random.Generator, n: int, rules: Rules):
    """Positions at hand k >= 1 of a match with scores near the target, plus their setup."""
    deals, dealers, setups = [], [], []
    for _ in range(n):
        dealer = int(rng.integers(4))
        first, last = (int(x) for x in rng.permutation(4)[:2])
        mode = rng.integers(5)
        fixed = {
            0: None,
            1: None,
            2: {first: HIGH},  # the 1st player has nothing ranked 3-10 but what they get
            3: {last: LOW},  # the last player's highest card is low: same-rank give-back
            4: {last: [52, 53]},  # the last player is dealt both jokers
        }[int(mode)]
        deals.append(shuffled_deal(rng, dealer, fixed))
        dealers.append(dealer)
        if rules.tie_rule == "leader":
            target = 21
            scores = rng.integers(12, 26, size=4)
        else:
            target = int(rng.choice([21, 31, 41, 51]))
            scores = target - rng.integers(0, 6, size=4)
        setups.append(
            dict(
                hand_no=int(rng.integers(1, 30)),
                scores=scores,
                target=target,
                previous=(first, last),
            )
        )
    state = engine.deal_from(
        np.array(deals),
        np.array(dealers),
        rules,
        hand_no=np.array([s["hand_no"] for s in setups]),
        scores=np.array([s["scores"] for s in setups]),
        target=np.array([s["target"] for s in setups]),
        previous=[s["previous"] for s in setups],
    )
    return state, setups


# ------------------------------------------------------------------------ syncing


def sync_exchange(state: engine.State, i: int, ref: Match) -> None:
    """Feed the engine's automatic exchange cards to the reference, checking them."""
    if ref.phase == "give_highest":
        assert int(state.ex_last[i]) == ref.exchange["last"]
        assert int(state.ex_first[i]) == ref.exchange["first"]
        ref.give_highest(int(state.ex_last_gives[i]))
        if ref.phase == "give_lowest":
            ref.give_back(int(state.ex_first_gives[i]))
        else:
            assert int(state.ex_first_gives[i]) == -1, "give-back made while it is a choice"
    else:
        assert int(state.ex_last[i]) == -1 and int(state.ex_last_gives[i]) == -1


def check_same(state: engine.State, i: int, ref: Match, cards: np.ndarray | None = None) -> None:
    """Everything observable about game i agrees between engine and reference.

    ``cards``: ``state.cards`` if already decoded (it is the same for every game of a step).
    """
    cards = state.cards if cards is None else cards
    phase = PHASE_NAMES[Phase(int(state.phase[i]))]
    assert phase == ref.phase, (phase, ref.phase)
    if phase in ("play", "exchange"):
        assert int(state.to_act[i]) == ref.to_act
    for s in range(4):
        assert cards_of(cards[i, s]) == ref.hands[s], f"seat {s} hand"
        played = np.bincount([rank_of(c) for c in ref.played[s]], minlength=15)
        assert (state.played[i, s] == played).all(), f"seat {s} played"
    assert (state.counts[i] == cards[i].astype(np.int8) @ _CARD_TO_RANK).all()
    assert list(state.place[i]) == ref.places()
    assert int(state.dealer[i]) == ref.dealer
    assert int(state.hand_no[i]) == ref.hand_no
    assert list(state.scores[i]) == ref.scores
    assert int(state.target[i]) == ref.target
    assert sorted(np.flatnonzero(state.winners[i]).tolist()) == sorted(ref.winners)
    if phase == "play":
        table = ACTION_RANKS[int(state.table[i])]
        assert table == (ref.table or ()), (table, ref.table)
        assert int(state.table_seat[i]) == ref.table_seat
        assert bool(state.start_duty[i]) == ref.start_duty
        passed = ref.out_of_trick if ref.rules.sticky_pass else set(ref.passes_in_row)
        assert set(np.flatnonzero(state.passed[i]).tolist()) == passed
    if phase in ("hand_over", "match_over"):
        assert list(state.points[i]) == ref.points
    if ref.exchange is not None:
        assert int(state.ex_last_gives[i]) == ref.exchange["last_gives"]
        first_gives = ref.exchange["first_gives"]
        assert int(state.ex_first_gives[i]) == (-1 if first_gives is None else first_gives)


_CARD_TO_RANK = np.zeros((54, 15), np.int8)
_CARD_TO_RANK[np.arange(54), [rank_of(c) for c in range(54)]] = 1


def _thermo(counts) -> np.ndarray:
    """Thermometer code of counts per rank: bit k of a rank is set when it has > k cards."""
    return (np.asarray(counts)[:, None] > np.arange(4)).astype(np.float32).ravel()


def _one_hot(n: int, i: int | None) -> np.ndarray:
    out = np.zeros(n, np.float32)
    if i is not None:
        out[i] = 1.0
    return out


def reference_observation(ref: Match, me: int) -> dict[str, np.ndarray]:
    """The exact pieces of seat ``me``'s observation, from the reference match, following the
    layout documented in ``observation.PIECES`` (slot k is the k-th seat after ``me``). The
    scaled pieces (cards_left, scores) are left out: their scale is a choice, not a rule."""
    slots = [(me + k) % 4 for k in range(4)]

    def per_rank(cards):
        return np.bincount([rank_of(c) for c in cards], minlength=15)

    mine = per_rank(ref.hands[me])
    played = [per_rank(ref.played[s]) for s in slots]
    unseen = _PACK - mine - sum(played)
    table = None if ref.table is None else _ACTION_OF_RANKS[ref.table]
    if ref.rules.sticky_pass:
        passed = ref.out_of_trick
    else:
        passed = set(ref.passes_in_row)
    places = ref.places()
    exchange = np.zeros((2, 15), np.float32)
    ex = ref.exchange
    if ex is not None and me in (ex["first"], ex["last"]):
        got, gave = (
            ("last_gives", "first_gives") if me == ex["first"] else ("first_gives", "last_gives")
        )
        for row, key in ((0, got), (1, gave)):
            if ex[key] is not None:
                exchange[row, rank_of(ex[key])] = 1.0
    r = ref.rules
    return {
        "my_hand": _thermo(mine),
        "played": np.concatenate([_thermo(p) for p in played]),
        "unseen": _thermo(unseen),
        "table_action": _one_hot(len(ACTION_RANKS), table),
        "table_seat": _one_hot(4, slots.index(ref.table_seat) if ref.table_seat >= 0 else None),
        "passed": np.array([s in passed for s in slots], np.float32),
        "places": np.concatenate(
            [_one_hot(4, places[s] if places[s] >= 0 else None) for s in slots]
        ),
        "target": _one_hot(4, (21, 31, 41, 51).index(ref.target)),
        "phase": _one_hot(2, {"play": 0, "exchange": 1}.get(ref.phase)),
        "start_duty": np.array([ref.start_duty and ref.to_act == me], np.float32),
        "exchange": exchange.ravel(),
        "rules": np.array(
            [
                r.sticky_pass,
                r.joker_pair,
                r.straight_plus_one,
                r.tie_rule == "leader",
                r.start_card == "3C",
                r.no_exchange,
            ],
            np.float32,
        ),
    }


_PACK = np.array([4] * 13 + [1, 1])
_ACTION_OF_RANKS = {ranks: a for a, ranks in enumerate(ACTION_RANKS)}


def check_observation(obs_row: np.ndarray, ref: Match, me: int) -> None:
    for name, want in reference_observation(ref, me).items():
        got = obs_row[SLICES[name]]
        assert np.array_equal(got, want), f"observation piece {name!r} of seat {me}"


def pick_actions(mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Random legal actions, most games preferring to play over passing (shorter hands)."""
    plays = mask.copy()
    plays[:, 0] &= ~mask[:, 1:].any(1)
    prefer_play = rng.random(mask.shape[0]) < 0.75
    return engine.random_legal_actions(np.where(prefer_play[:, None], plays, mask), rng)


def random_cards(state: engine.State, actions: np.ndarray, rng: np.random.Generator):
    """(B, 54) bool: random concrete cards for each waiting game's action (any suits)."""
    out = np.zeros((state.batch_size, 54), bool)
    for i in np.flatnonzero(state.phase <= Phase.EXCHANGE):
        hand = set(cards_of(state.cards[i, state.to_act[i]]))
        if state.phase[i] == Phase.EXCHANGE:
            hand.discard(int(state.ex_last_gives[i]))
        chosen = []
        if state.start_duty[i]:
            start = state.rules.start_card_id
            chosen.append(start)
            hand.discard(start)
        need = COST[actions[i]].astype(int).copy()
        for c in chosen:
            need[rank_of(c)] -= 1
        for r in range(15):
            pool = sorted(c for c in hand if rank_of(c) == r)
            if need[r] > 0:
                chosen.extend(rng.choice(pool, size=need[r], replace=False).tolist())
        out[i, chosen] = True
    return out


# ------------------------------------------------------------------------ driver


def play_and_compare(rules: Rules, seed: int, batch: int, late: bool, max_hands: int = 60):
    """Play ``batch`` matches through engine and reference; returns (decisions, hands, ended)."""
    rng = np.random.default_rng(seed)
    refs = [Match(rules) for _ in range(batch)]
    if late:
        state, setups = late_match_games(rng, batch, rules)
    else:
        state, setups = engine.init(rng, batch, rules), [{} for _ in range(batch)]
    for i, ref in enumerate(refs):
        deal = [cards_of(state.deal[i, s]) for s in range(4)]
        ref.start_hand(deal, int(state.dealer[i]), **setups[i])
        sync_exchange(state, i, ref)
        check_same(state, i, ref)
    decisions = hands = 0
    for _ in range(max_hands * 400):
        waiting = np.flatnonzero(state.phase <= Phase.EXCHANGE)
        if not len(waiting):
            break
        mask = engine.legal_action_mask(state)
        assert not mask[state.phase > Phase.EXCHANGE].any()
        obs = engine.observe(state)
        for i in waiting:
            assert engine_legal(mask[i]) == refs[i].legal(), f"legal set of game {i}"
            check_observation(obs[i], refs[i], refs[i].to_act)
        actions = pick_actions(mask, rng)
        cards = random_cards(state, actions, rng) if rng.random() < 0.3 else None
        before = state
        state = engine.step(state, actions, cards)
        decisions += len(waiting)
        cards_now, last_cards = state.cards, state.last_cards
        for i in waiting:
            ref = refs[i]
            assert int(state.last_seat[i]) == ref.to_act
            assert int(state.last_action[i]) == int(actions[i])
            if before.phase[i] == Phase.EXCHANGE:
                given = int(state.ex_first_gives[i])
                assert rank_of(given) == ACTION_RANKS[actions[i]][0]
                if cards is not None:
                    assert cards_of(cards[i]) == {given}
                ref.act({given})
            else:
                used = cards_of(last_cards[i])
                assert tuple(sorted(rank_of(c) for c in used)) == ACTION_RANKS[actions[i]]
                if cards is not None:
                    assert used == cards_of(cards[i])
                ref.act(used)
            check_same(state, i, ref, cards_now)
        over = np.flatnonzero(state.phase == Phase.HAND_OVER)
        hands += int((state.phase[waiting] >= Phase.HAND_OVER).sum())
        if len(over):
            state = engine.next_hand(state, rng)
            for i in over:
                ref = refs[i]
                ref.start_hand([cards_of(state.deal[i, s]) for s in range(4)])
                sync_exchange(state, i, ref)
                check_same(state, i, ref)
            if state.hand_no.max() >= max_hands:
                break
    ended = int(state.done.sum())
    return decisions, hands, ended


@pytest.mark.parametrize("rules", RULE_SETS, ids=RULE_IDS)
def test_engine_matches_reference_late_match(rules):
    """Late-match positions: exchanges incl. rare cases, target rises, wins and draws."""
    decisions, hands, ended = play_and_compare(rules, seed=11, batch=40, late=True, max_hands=40)
    assert hands >= 40 and ended >= 20, (hands, ended)


@pytest.mark.parametrize("rules", RULE_SETS[:3], ids=RULE_IDS[:3])
def test_engine_matches_reference_full_match(rules):
    """Whole matches from engine.init: random dealer, hand-1 opening duty, rotation."""
    decisions, hands, ended = play_and_compare(rules, seed=5, batch=12, late=False, max_hands=60)
    assert ended == 12


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(2))
@pytest.mark.parametrize("rules", RULE_SETS, ids=RULE_IDS)
def test_engine_matches_reference_many(rules, seed):
    """Thousands of matches: each (rules, seed) plays 128 late-match and 64 full matches."""
    play_and_compare(rules, seed=1000 + seed, batch=128, late=True, max_hands=60)
    _, _, ended = play_and_compare(rules, seed=2000 + seed, batch=64, late=False, max_hands=80)
    assert ended == 64
