"""Engine invariants over random play: cards conserved, a legal action whenever a decision is
due, observations that leak nothing hidden, determinism from the seed; plus hypothesis
properties (legal sets of arbitrary hands and tables agree with the scalar reference).
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from murlan_env.game import engine
from murlan_env.game.cards import CARD_NAMES, CARD_TO_RANK, RANK_SIZE
from murlan_env.game.combos import N_ACTIONS, RANKS_TEXT, beats_matrix
from murlan_env.game.engine import Phase
from murlan_env.game.observation import SIZE, SLICES
from murlan_env.game.rules import Rules
from tests import reference
from tests.conftest import full_deal, legal, play, position, ranks

RULE_SETS = [
    Rules(),
    Rules(sticky_pass=True, joker_pair=True),
    Rules(straight_plus_one=True, tie_rule="leader", start_card="3C", no_exchange=True),
]


def random_states(rules: Rules, seed: int, batch: int = 24, max_steps: int = 4000):
    """Yield (state, mask) before every step of random matches until all are over."""
    rng = np.random.default_rng(seed)
    state = engine.init(rng, batch, rules)
    for _ in range(max_steps):
        if state.done.all():
            return
        mask = engine.legal_action_mask(state)
        yield state, mask
        state = engine.step(state, engine.random_legal_actions(mask, rng))
        state = engine.next_hand(state, rng)


@pytest.mark.parametrize("rules", RULE_SETS, ids=["default", "sticky+jp", "others"])
def test_cards_conserved_and_a_legal_action_while_waiting(rules):
    """Hands + played cards = the 54-card pack in every game at every step; the seat to act
    always has a legal action (and the leader a play); finished games have none."""
    steps = 0
    for state, mask in random_states(rules, seed=1):
        steps += 1
        cards = state.cards
        assert (cards.sum(1) <= 1).all(), "a card held by two seats"
        assert (state.counts == (cards.astype(np.int8) @ CARD_TO_RANK)).all()
        total = state.counts.sum(1) + state.played.sum(1)  # (B, 15)
        in_play = state.phase != Phase.MATCH_OVER
        assert (total[in_play] == RANK_SIZE).all()
        assert (total.sum(1)[in_play] == 54).all()
        waiting = state.phase <= Phase.EXCHANGE
        assert mask[waiting].any(1).all(), "no legal action for the seat to act"
        assert not mask[~waiting].any()
        leading = waiting & (state.table == 0) & (state.phase == Phase.PLAY)
        assert not mask[leading, 0].any(), "a leader may pass"
        holds = state.counts.sum(2)[np.arange(state.batch_size), state.to_act] > 0
        assert holds[waiting].all(), "a seat without cards is asked to act"
    assert steps > 100


def _permute_hidden(state: engine.State, observer: np.ndarray, rng) -> engine.State:
    """The same state, but the cards of the seats other than ``observer`` shuffled among
    them (each keeping its number of cards), and so is the deal; the exchange cards are
    changed for games where the observer took no part in the exchange."""
    cards, deal = state.cards.copy(), state.deal.copy()
    ex_last_gives, ex_first_gives = state.ex_last_gives.copy(), state.ex_first_gives.copy()
    for i in range(state.batch_size):
        others = [s for s in range(4) if s != observer[i]]
        for arr in (cards, deal):
            pool = rng.permutation(np.flatnonzero(arr[i, others].any(0)))
            sizes = arr[i, others].sum(1)
            arr[i, others] = False
            for s, chunk in zip(others, np.split(pool, np.cumsum(sizes)[:-1]), strict=True):
                arr[i, s, chunk] = True
        if observer[i] not in (state.ex_last[i], state.ex_first[i]):
            for gives in (ex_last_gives, ex_first_gives):
                if gives[i] >= 0:
                    gives[i] = rng.integers(54)
    return state.replace(
        cards=cards, deal=deal, ex_last_gives=ex_last_gives, ex_first_gives=ex_first_gives
    )


@pytest.mark.parametrize("rules", RULE_SETS, ids=["default", "sticky+jp", "others"])
def test_observations_leak_no_hidden_cards(rules):
    """An observation is unchanged when the cards it cannot see are dealt differently
    among the other seats; it shows the observer's own hand exactly."""
    rng = np.random.default_rng(7)
    checked = moved = 0
    for k, (state, _) in enumerate(random_states(rules, seed=2, batch=12)):
        if k % 15:
            continue
        for seat in range(4):
            seats = np.full(state.batch_size, seat, np.int8)
            obs = engine.observe(state, seats)
            assert obs.shape == (state.batch_size, SIZE) and obs.dtype == np.float32
            permuted = _permute_hidden(state, seats, rng)
            moved += int((permuted.cards != state.cards).any(2).any(1).sum())
            other = engine.observe(permuted, seats)
            assert np.array_equal(obs, other), "the observation depends on hidden cards"
            mine = obs[:, SLICES["my_hand"]].reshape(-1, 15, 4).sum(2)
            assert np.array_equal(mine, state.counts[:, seat])
            checked += 1
        assert np.array_equal(engine.observe(state), engine.observe(state, state.to_act))
    assert checked > 20 and moved > 5 * checked  # the hidden cards really moved


def test_observation_shows_exchange_only_to_its_two_seats():
    """RULES.md 5: the exchanged cards are known to the 1st and last players only."""
    state = play(position(["5S", "", "", "9S"], 0, place={1: 0, 2: 1}), "5")
    assert int(state.phase[0]) == Phase.HAND_OVER
    state = engine.next_hand(state, hands=engine.parse_deal(full_deal(1, s0="BJ")))
    assert (int(state.ex_first[0]), int(state.ex_last[0])) == (1, 3)
    piece = SLICES["exchange"]
    for seat in range(4):
        seen = engine.observe(state, np.array([seat]))[0, piece]
        assert seen.any() == (seat in (1, 3)), seat


def _play_out(rules: Rules, seed: int):
    trajectory = []
    state = None
    for state, mask in random_states(rules, seed=seed, batch=8, max_steps=600):
        trajectory.append(np.concatenate([state.to_act, state.table, mask.sum(1)]))
    return state, np.stack(trajectory)


def test_same_seed_same_match():
    """Determinism from user seeds: the same seed replays the same matches exactly."""
    a, acts_a = _play_out(Rules(), 5)
    b, acts_b = _play_out(Rules(), 5)
    c, _ = _play_out(Rules(), 6)
    assert np.array_equal(a.data, b.data)
    assert np.array_equal(acts_a, acts_b)
    assert not np.array_equal(a.deal, c.deal)


# ---------------------------------------------------------------------------- hypothesis

_TABLE_CHOICES = list(range(1, N_ACTIONS))


@settings(max_examples=100, deadline=None)
@given(
    hand=st.sets(st.integers(0, 53), min_size=1, max_size=13),
    table=st.sampled_from([0, *_TABLE_CHOICES]),
    joker_pair=st.booleans(),
    plus_one=st.booleans(),
)
def test_any_hand_on_any_table_matches_reference(hand, table, joker_pair, plus_one):
    """Property: for an arbitrary hand and play to beat, the engine's legal set is the
    reference's (``()`` is pass)."""
    rules = Rules(joker_pair=joker_pair, straight_plus_one=plus_one)
    if not beats_matrix(rules)[0, table] and table:
        table = 1  # the joker pair does not exist without its variant
    hand_text = " ".join(CARD_NAMES[c] for c in sorted(hand))
    spare = [CARD_NAMES[c] for c in range(54) if c not in hand][:3]
    table_text = RANKS_TEXT[table] if table else ""
    state = position([hand_text, *spare], 0, rules, table=table_text)
    want = reference.legal_plays(hand, ranks(table_text) if table else None, rules)
    assert legal(state) == want


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), dealer=st.integers(0, 3), start_3c=st.booleans())
def test_any_deal_starts_with_the_start_card_holder(seed, dealer, start_3c):
    """Property: in hand 1 the holder of the start card leads and must play it."""
    rules = Rules(start_card="3C" if start_3c else "3S")
    deal = engine.random_deal(np.random.default_rng(seed), np.array([dealer]))
    state = engine.deal_from(deal, dealer, rules)
    start = rules.start_card_id
    assert state.cards[0, state.to_act[0], start]
    mask = engine.legal_action_mask(state)[0]
    assert all(0 in p for p in legal(state)) and mask.any()
