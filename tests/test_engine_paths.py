"""The engine's compiled bit-set loops (murlan_env/game/kernels.py) against plain definitions.

Legal masks are built from per-rank action sets, written as bool bytes in padded words that
the random pick reads back; cards are bit sets exposed as bool masks. Each is checked here
against the obvious NumPy statement of the same thing.
"""

import pickle

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from murlan_env.game import engine
from murlan_env.game.bitsets import mask_words
from murlan_env.game.cards import RANK_SIZE
from murlan_env.game.combos import COST, beats_matrix
from murlan_env.game.rules import Rules
from murlan_env.game.state import (
    FIELD_NAMES,
    STATE_DTYPE,
    bits_to_cards,
    cards_to_bits,
    upgraded_records,
)

hand_counts = st.lists(
    st.tuples(*[st.integers(0, int(n)) for n in RANK_SIZE]), min_size=1, max_size=70
)


@given(hand_counts, st.data())
@settings(max_examples=200, deadline=None)
def test_legal_masks_match_the_definition(hands, data):
    """Legal = the hand can pay for the action, it beats the table, and under the start-card
    duty it uses the start card's rank (CONTRIBUTING.md: broadcasting over the table)."""
    rules = data.draw(st.sampled_from([Rules(), Rules(joker_pair=True, straight_plus_one=True)]))
    counts = np.array(hands, np.int8)
    n = len(counts)
    table = np.array(
        data.draw(st.lists(st.integers(0, engine.N_ACTIONS - 1), min_size=n, max_size=n)), np.int16
    )
    duty = np.array(data.draw(st.lists(st.booleans(), min_size=n, max_size=n)))
    state = engine.init(np.random.default_rng(0), n, rules)
    cards = np.zeros((n, 54), bool)  # each hand's counts as cards, lowest suits first
    for r in range(13):
        cards[:, 4 * r : 4 * r + 4] = np.arange(4) < counts[:, r : r + 1]
    cards[:, 52:] = counts[:, 13:] > 0
    state = state.replace(
        cards=np.repeat(cards[:, None], 4, axis=1),
        table=table,
        start_duty=duty,
        phase=np.zeros(n, np.int8),
    )
    expected = (counts[:, None, :] >= COST[None]).all(-1) & beats_matrix(rules)[table]
    expected[duty] &= COST[:, 0] > 0
    np.testing.assert_array_equal(engine.legal_action_mask(state), expected)


def test_a_games_mask_does_not_depend_on_its_batch():
    rules = Rules(joker_pair=True, start_card="3C")
    rng = np.random.default_rng(11)
    state = engine.init(rng, 48, rules)
    while not state.done.all():
        large = engine.legal_action_mask(state)
        for start in range(0, 48, 8):
            small = engine.legal_action_mask(state.index(slice(start, start + 8)))
            np.testing.assert_array_equal(small, large[start : start + 8])
        state = engine.step(state, engine.random_legal_actions(large, rng))
        state = engine.next_hand(state, rng)


def test_card_bit_sets_round_trip():
    rng = np.random.default_rng(0)
    cards = rng.random((50, 4, 54)) < 0.5
    np.testing.assert_array_equal(bits_to_cards(cards_to_bits(cards)), cards)
    state = engine.init(rng, 5)
    np.testing.assert_array_equal(state.replace(cards=state.cards).card_bits, state.card_bits)


def test_pickled_states_survive_a_change_of_the_state_schema():
    """Checkpoints pickle the games in progress: records saved under an older schema (a field
    since removed, one not yet added) load field by field into this version's schema."""
    rng = np.random.default_rng(4)
    state = engine.init(rng, 6)
    state = engine.step(state, engine.random_legal_actions(engine.legal_action_mask(state), rng))
    again = pickle.loads(pickle.dumps(state))
    np.testing.assert_array_equal(again.data, state.data)
    assert again.rules == state.rules and again.data is not state.data

    kept = [name for name in FIELD_NAMES if name != "last_bits"]
    older = np.dtype([(n, state.data.dtype[n]) for n in kept] + [("gone", np.int32)])
    saved = np.zeros(6, older)
    for name in kept:
        saved[name] = state.data[name]
    restore, _ = state.__reduce__()  # what unpickling a State saved then would call
    restored = restore(state.rules, saved).data
    assert restored.dtype == STATE_DTYPE
    for name in kept:
        np.testing.assert_array_equal(restored[name], state.data[name])
    assert (restored["last_bits"] == 0).all()  # added since: its blank value

    retyped = np.zeros(6, [("scores", np.int64, (4,))])
    with pytest.raises(ValueError, match="'scores'"):
        upgraded_records(retyped)


def test_random_legal_actions_are_legal_and_uniform_at_both_batch_sizes():
    rng = np.random.default_rng(3)
    for batch in (8, 40_000):
        mask = np.zeros((batch, engine.N_ACTIONS), bool)
        mask[:, [0, 5, 60, 108]] = True
        picks = engine.random_legal_actions(mask, rng)
        assert mask[np.arange(batch), picks].all()
        if batch > 1000:
            share = np.bincount(picks, minlength=engine.N_ACTIONS)[[0, 5, 60, 108]] / batch
            np.testing.assert_allclose(share, 0.25, atol=0.01)
    assert (engine.random_legal_actions(np.zeros((3, engine.N_ACTIONS), bool), rng) == 0).all()


def test_random_picks_read_engine_masks_and_copies_alike():
    """An engine mask is read in place as words; any other bool array is copied into words
    first. The same draws must pick the same actions either way."""
    rng = np.random.default_rng(4)
    state = engine.init(rng, 300, Rules(joker_pair=True))
    for _ in range(40):
        mask = engine.legal_action_mask(state)
        assert mask_words(mask) is mask.base  # read in place
        picks = engine.random_legal_actions(mask, np.random.default_rng(7))
        for other in (mask.copy(), np.asfortranarray(mask), mask[::-1][::-1]):
            np.testing.assert_array_equal(
                engine.random_legal_actions(other, np.random.default_rng(7)), picks
            )
        waiting = mask.any(1)
        assert mask[waiting, picks[waiting]].all()
        assert (picks[~waiting] == engine.PASS).all()
        state = engine.step(state, picks, rng=rng)


def test_random_legal_actions_rejects_a_mask_of_the_wrong_shape():
    with pytest.raises(ValueError, match="mask"):
        engine.random_legal_actions(np.ones((4, 50), bool), np.random.default_rng(0))


def test_a_finished_game_never_touches_its_neighbour():
    """Each game is stepped on its own record; a finished game's seat to act (-1 here) must
    not reach into the previous game's last seat."""
    rng = np.random.default_rng(5)
    state = engine.init(rng, 2)
    state = state.replace(
        to_act=np.array([3, -1], np.int8),
        phase=np.array([engine.Phase.PLAY, engine.Phase.HAND_OVER], np.int8),
        start_duty=np.array([False, False]),
    )
    mask = engine.legal_action_mask(state)
    assert not mask[1].any()
    action = int(np.flatnonzero(mask[0])[-1])  # the highest legal play of seat 3
    after = engine.step(state, np.array([action, 0]))
    played = int(COST[action].sum())
    assert after.n_left[0, 3] == state.n_left[0, 3] - played
    np.testing.assert_array_equal(after.counts[0, 3], state.counts[0, 3] - COST[action])
    assert after.card_bits[0, 3] != state.card_bits[0, 3]
    for name in ("card_bits", "counts", "played", "n_left"):
        np.testing.assert_array_equal(getattr(after, name)[1], getattr(state, name)[1])


def test_step_rejects_action_ids_outside_the_table_for_waiting_games_only():
    """The compiled step indexes tables by action id: an id outside 0-108 is an error for a
    game that waits for a decision, and ignored (like any action) for one that does not."""
    state = engine.init(np.random.default_rng(2), 2)
    state = state.replace(phase=np.array([engine.Phase.PLAY, engine.Phase.MATCH_OVER], np.int8))
    for bad in (-1, engine.N_ACTIONS, 10**6):
        with pytest.raises(ValueError, match="game 0: action"):
            engine.step(state, np.array([bad, 0]))
    legal = int(np.flatnonzero(engine.legal_action_mask(state)[0])[0])
    after = engine.step(state, np.array([legal, -1]))
    assert after.last_action[0] == legal
    np.testing.assert_array_equal(after.card_bits[1], state.card_bits[1])


def test_step_with_rng_deals_the_next_hand_as_next_hand_does():
    """step(state, a, rng=rng) == next_hand(step(state, a), rng), field for field, through
    exchanges, raised targets and finished matches (which stay finished)."""
    for rules in (Rules(), Rules(sticky_pass=True, tie_rule="leader", start_card="3C")):
        fused_rng, split_rng = np.random.default_rng(9), np.random.default_rng(9)
        fused = split = engine.init(np.random.default_rng(1), 64, rules)
        hands_dealt = 0
        while not fused.done.all():
            mask = engine.legal_action_mask(fused)
            actions = engine.random_legal_actions(mask, np.random.default_rng(hands_dealt))
            ended = engine.step(split, actions)
            hands_dealt += int((ended.phase == engine.Phase.HAND_OVER).sum())
            fused = engine.step(fused, actions, rng=fused_rng)
            split = engine.next_hand(ended, split_rng)
            for name in FIELD_NAMES:
                np.testing.assert_array_equal(
                    getattr(fused, name), getattr(split, name), err_msg=name
                )
        assert hands_dealt > 64  # every match went past its first hand
