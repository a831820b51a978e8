"""Differential test: the batched engine against the scalar reference (tests/reference.py).

Random matches are played through both, with the same deals and the same concrete cards. At
every decision the seat to act, the phase, the legal set (as rank multisets) and the exact
pieces of the acting seat's observation must agree; after every step the hands, played cards,
table, passes, places and exchange must agree; at every hand end the points, scores, target
and winners. Both full matches (from ``engine.init``) and late-
match positions (``deal_from`` with scores near the target, deals biased toward the rare
exchange cases) are played, under several combinations of variant flags.

Run: ``python -m pytest tests/test_differential.py -q`` (about half a minute on one core);
``python -m pytest tests/test_differential.py -m slow`` plays many more games.
"""

from __future__ import annotations

import numpy as np
import pytest

from murlan_env.game import engine
from murlan_env.game.combos import COST
from murlan_env.game.engine import Phase
from murlan_env.game.observation import SIZE, SLICES
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


def ids_per_row(masks: np.ndarray) -> list[list[int]]:
    """The set entries of each row of a 2-d bool array, in order: one ``np.nonzero`` for all
    rows instead of one call per row."""
    rows, cols = np.nonzero(masks)
    bounds = np.searchsorted(rows, np.arange(len(masks) + 1)).tolist()
    cols = cols.tolist()
    return [cols[bounds[k] : bounds[k + 1]] for k in range(len(masks))]


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


def engine_facts(state: engine.State, games: np.ndarray) -> list[dict]:
    """What ``reference_facts`` states, read from the engine for each of ``games``: every
    field is decoded for all of them at once and handed over as plain Python values."""
    cards = state.cards[games]
    counts = state.counts[games]
    bad = np.flatnonzero((counts != cards.astype(np.int8) @ _CARD_TO_RANK).any((1, 2)))
    assert not len(bad), f"counts disagree with the cards of game {games[bad[0]]}"
    hands = ids_per_row(cards.reshape(-1, 54))
    columns = {
        "phase": [PHASE_NAMES[Phase(p)] for p in state.phase[games].tolist()],
        "to_act": state.to_act[games].tolist(),
        "played": state.played[games].tolist(),
        "place": state.place[games].tolist(),
        "dealer": state.dealer[games].tolist(),
        "hand_no": state.hand_no[games].tolist(),
        "scores": state.scores[games].tolist(),
        "target": state.target[games].tolist(),
        "winners": ids_per_row(state.winners[games]),
        "table": [ACTION_RANKS[a] for a in state.table[games].tolist()],
        "table_seat": state.table_seat[games].tolist(),
        "start_duty": state.start_duty[games].tolist(),
        "passed": [set(seats) for seats in ids_per_row(state.passed[games])],
        "points": state.points[games].tolist(),
        "ex_last_gives": state.ex_last_gives[games].tolist(),
        "ex_first_gives": state.ex_first_gives[games].tolist(),
    }
    facts = [{name: column[k] for name, column in columns.items()} for k in range(len(games))]
    for k, fact in enumerate(facts):
        fact["hands"] = hands[4 * k : 4 * k + 4]
    return facts


def reference_facts(ref: Match) -> dict:
    """Everything observable about the reference match, by the names of ``engine_facts``; the
    pieces that mean something in the current phase only."""
    facts = {"phase": ref.phase}
    if ref.phase in ("play", "exchange"):
        facts["to_act"] = ref.to_act
    facts["hands"] = [sorted(hand) for hand in ref.hands]
    facts["played"] = [per_rank(cards) for cards in ref.played]
    facts["place"] = ref.places()
    facts["dealer"] = ref.dealer
    facts["hand_no"] = ref.hand_no
    facts["scores"] = list(ref.scores)
    facts["target"] = ref.target
    facts["winners"] = sorted(ref.winners)
    if ref.phase == "play":
        facts["table"] = ref.table or ()
        facts["table_seat"] = ref.table_seat
        facts["start_duty"] = ref.start_duty
        facts["passed"] = ref.out_of_trick if ref.rules.sticky_pass else set(ref.passes_in_row)
    if ref.phase in ("hand_over", "match_over"):
        facts["points"] = ref.points
    if ref.exchange is not None:
        facts["ex_last_gives"] = ref.exchange["last_gives"]
        first_gives = ref.exchange["first_gives"]
        facts["ex_first_gives"] = -1 if first_gives is None else first_gives
    return facts


def check_same(state: engine.State, games, refs: list[Match]) -> None:
    """Everything observable about each of ``games`` agrees between engine and reference."""
    games = np.asarray(games)
    for i, got in zip(games.tolist(), engine_facts(state, games), strict=True):
        for name, want in reference_facts(refs[i]).items():
            assert got[name] == want, f"game {i}: {name}: engine {got[name]}, reference {want}"


_RANK_OF = [rank_of(c) for c in range(54)]
_CARD_TO_RANK = np.zeros((54, 15), np.int8)
_CARD_TO_RANK[np.arange(54), _RANK_OF] = 1


def per_rank(cards) -> list[int]:
    """Number of cards of each rank 0..14 among ``cards``."""
    counts = [0] * 15
    for c in cards:
        counts[_RANK_OF[c]] += 1
    return counts


def reference_observation(ref: Match, me: int) -> tuple[list[list[int]], dict[str, list[int]]]:
    """The exact pieces of seat ``me``'s observation, from the reference match, following the
    layout documented in ``observation.PIECES`` (slot k is the k-th seat after ``me``): the
    thermometer pieces (my_hand, played, unseen: bit k of rank r, entry 4r + k, is set when
    the rank has more than k cards) as their cards per rank, six rows of 15 (my hand, the
    four slots' played cards, the unseen cards), and every other piece, 0/1, by its
    entries that are 1. The scaled pieces (cards_left, scores) are left out: their scale is a
    choice, not a rule."""
    slots = [(me + k) % 4 for k in range(4)]
    mine = per_rank(ref.hands[me])
    played = [per_rank(ref.played[s]) for s in slots]
    seen = [sum(of_rank) for of_rank in zip(mine, *played, strict=True)]
    unseen = [pack - n for pack, n in zip(_PACK, seen, strict=True)]
    if ref.rules.sticky_pass:
        passed = ref.out_of_trick
    else:
        passed = set(ref.passes_in_row)
    places = ref.places()
    exchange = []  # row 0: the card received, row 1: the card given, 15 ranks a row
    ex = ref.exchange
    if ex is not None and me in (ex["first"], ex["last"]):
        got, gave = (
            ("last_gives", "first_gives") if me == ex["first"] else ("first_gives", "last_gives")
        )
        for row, key in ((0, got), (1, gave)):
            if ex[key] is not None:
                exchange.append(15 * row + rank_of(ex[key]))
    r = ref.rules
    flags = [
        r.sticky_pass,
        r.joker_pair,
        r.straight_plus_one,
        r.tie_rule == "leader",
        r.start_card == "3C",
        r.no_exchange,
    ]
    phase = {"play": 0, "exchange": 1}.get(ref.phase)
    return [mine, *played, unseen], {
        "table_action": [] if ref.table is None else [_ACTION_OF_RANKS[ref.table]],
        "table_seat": [slots.index(ref.table_seat)] if ref.table_seat >= 0 else [],
        "passed": [k for k, s in enumerate(slots) if s in passed],
        "places": [4 * k + places[s] for k, s in enumerate(slots) if places[s] >= 0],
        "target": [(21, 31, 41, 51).index(ref.target)],
        "phase": [] if phase is None else [phase],
        "start_duty": [0] if ref.start_duty and ref.to_act == me else [],
        "exchange": exchange,
        "rules": [i for i, flag in enumerate(flags) if flag],
    }


_PACK = [4] * 13 + [1, 1]
_ACTION_OF_RANKS = {ranks: a for a, ranks in enumerate(ACTION_RANKS)}
# The exact pieces, in the order of reference_observation, laid end to end.
EXACT_PIECES = [name for name in SLICES if name not in ("cards_left", "scores")]
EXACT_COLUMNS = np.concatenate([np.arange(SIZE)[SLICES[name]] for name in EXACT_PIECES])
_EXACT_AT, _at = {}, 0
for _name in EXACT_PIECES:
    _EXACT_AT[_name] = slice(_at, _at + SLICES[_name].stop - SLICES[_name].start)
    _at = _EXACT_AT[_name].stop


def check_observations(obs: np.ndarray, games: np.ndarray, refs: list[Match]) -> None:
    """Each of ``games``' observation (rows of ``obs``, for the seat to act) has exactly the
    exact pieces of ``reference_observation``: the expected rows are written as one array and
    compared in one call; on a mismatch the first differing game and piece are named."""
    got = obs[games][:, EXACT_COLUMNS]
    want = np.zeros_like(got)
    rows, cols, counts = [], [], []
    for k, i in enumerate(games.tolist()):
        per_rank_rows, hot_pieces = reference_observation(refs[i], refs[i].to_act)
        counts.append(per_rank_rows)
        for name, hot in hot_pieces.items():
            at = _EXACT_AT[name].start
            rows.extend([k] * len(hot))
            cols.extend([at + h for h in hot])
    # (games, 6 rows, 15 ranks, 4 bits): the thermometer pieces, which lie end to end
    assert EXACT_PIECES[:3] == ["my_hand", "played", "unseen"]
    thermo = np.asarray(counts)[..., None] > np.arange(4)
    want[:, _EXACT_AT["my_hand"].start : _EXACT_AT["unseen"].stop] = thermo.reshape(len(games), -1)
    want[rows, cols] = 1.0
    if np.array_equal(got, want):
        return
    k = int(np.flatnonzero((got != want).any(1))[0])
    i, me = int(games[k]), refs[int(games[k])].to_act
    for name in EXACT_PIECES:
        piece = _EXACT_AT[name]
        if not np.array_equal(got[k, piece], want[k, piece]):
            raise AssertionError(
                f"observation piece {name!r} of seat {me} in game {i}: engine "
                f"{got[k, piece].tolist()}, reference sets {np.flatnonzero(want[k, piece])}"
            )


def pick_actions(mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Random legal actions, most games preferring to play over passing (shorter hands)."""
    plays = mask.copy()
    plays[:, 0] &= ~mask[:, 1:].any(1)
    prefer_play = rng.random(mask.shape[0]) < 0.75
    return engine.random_legal_actions(np.where(prefer_play[:, None], plays, mask), rng)


def random_cards(state: engine.State, actions: np.ndarray, rng: np.random.Generator):
    """(B, 54) bool: random concrete cards for each waiting game's action (any suits)."""
    out = np.zeros((state.batch_size, 54), bool)
    waiting = np.flatnonzero(state.phase <= Phase.EXCHANGE)
    held = ids_per_row(state.cards[waiting, state.to_act[waiting]])
    for i, hand in zip(waiting.tolist(), held, strict=True):
        hand = set(hand)
        if state.phase[i] == Phase.EXCHANGE:
            hand.discard(int(state.ex_last_gives[i]))
        chosen = []
        if state.start_duty[i]:
            start = state.rules.start_card_id
            chosen.append(start)
            hand.discard(start)
        need = COST[actions[i]].astype(int)
        for c in chosen:
            need[rank_of(c)] -= 1
        for r in np.flatnonzero(need > 0).tolist():
            pool = sorted(c for c in hand if rank_of(c) == r)
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
    deals = ids_per_row(state.deal.reshape(-1, 54))
    for i, ref in enumerate(refs):
        ref.start_hand(deals[4 * i : 4 * i + 4], int(state.dealer[i]), **setups[i])
        sync_exchange(state, i, ref)
    check_same(state, np.arange(batch), refs)
    decisions = hands = 0
    for _ in range(max_hands * 400):
        waiting = np.flatnonzero(state.phase <= Phase.EXCHANGE)
        if not len(waiting):
            break
        mask = engine.legal_action_mask(state)
        assert not mask[state.phase > Phase.EXCHANGE].any()
        for i, legal in zip(waiting.tolist(), ids_per_row(mask[waiting]), strict=True):
            got = {ACTION_RANKS[a] for a in legal}
            assert got == refs[i].legal(), f"legal set of game {i}: engine {got}"
        check_observations(engine.observe(state), waiting, refs)
        actions = pick_actions(mask, rng)
        cards = random_cards(state, actions, rng) if rng.random() < 0.3 else None
        was_exchange = (state.phase[waiting] == Phase.EXCHANGE).tolist()
        state = engine.step(state, actions, cards)
        decisions += len(waiting)
        last_seats = state.last_seat[waiting].tolist()
        last_actions = state.last_action[waiting].tolist()
        given_back = state.ex_first_gives[waiting].tolist()
        used_cards = ids_per_row(state.last_cards[waiting])
        asked_cards = ids_per_row(cards[waiting]) if cards is not None else None
        for k, i in enumerate(waiting.tolist()):
            ref, action = refs[i], int(actions[i])
            assert last_seats[k] == ref.to_act, f"game {i}: last seat"
            assert last_actions[k] == action, f"game {i}: last action"
            if was_exchange[k]:
                given = given_back[k]
                assert rank_of(given) == ACTION_RANKS[action][0], f"game {i}: give-back rank"
                if cards is not None:
                    assert asked_cards[k] == [given], f"game {i}: give-back card"
                ref.act({given})
            else:
                used = used_cards[k]
                assert tuple(sorted(rank_of(c) for c in used)) == ACTION_RANKS[action], (
                    f"game {i}: cards played {used} for action {action}"
                )
                if cards is not None:
                    assert used == asked_cards[k], f"game {i}: cards asked for"
                ref.act(used)
        check_same(state, waiting, refs)
        over = np.flatnonzero(state.phase == Phase.HAND_OVER)
        hands += int((state.phase[waiting] >= Phase.HAND_OVER).sum())
        if len(over):
            state = engine.next_hand(state, rng)
            deals = ids_per_row(state.deal[over].reshape(-1, 54))
            for k, i in enumerate(over.tolist()):
                refs[i].start_hand(deals[4 * k : 4 * k + 4])
                sync_exchange(state, i, refs[i])
            check_same(state, over, refs)
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
