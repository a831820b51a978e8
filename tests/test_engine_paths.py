"""The engine computes some things two ways for speed; both ways must always agree.

Legal masks are computed feature-major for large batches and by one broadcast comparison for
small ones; cards are taken with bit operations and exposed as bool masks.
"""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from murlan_env import engine
from murlan_env.cards import RANK_SIZE
from murlan_env.combos import COST
from murlan_env.rules import Rules

hand_counts = st.lists(
    st.tuples(*[st.integers(0, int(n)) for n in RANK_SIZE]), min_size=1, max_size=70
)


@given(hand_counts)
@settings(max_examples=200, deadline=None)
def test_affordable_actions_match_the_definition(hands):
    """An action is affordable when the hand holds at least its cost in every rank."""
    counts = np.array(hands, np.int8)
    expected = (counts[:, None, :] >= COST[None]).all(-1)
    np.testing.assert_array_equal(engine.affordable_actions(counts).T, expected)


def test_small_and_large_batches_give_the_same_masks_through_whole_matches():
    rules = Rules(joker_pair=True, start_card="3C")
    rng = np.random.default_rng(11)
    state = engine.init(rng, 48, rules)
    assert state.batch_size >= engine._FEATURE_MAJOR_FROM
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
    np.testing.assert_array_equal(engine.bits_to_cards(engine.cards_to_bits(cards)), cards)
    state = engine.init(rng, 5)
    np.testing.assert_array_equal(state.replace(cards=state.cards).card_bits, state.card_bits)


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


def test_a_finished_game_never_touches_its_neighbour():
    """Games are stepped through flat (game, seat) indices; a finished game has no seat to
    act (-1), which must not alias the previous game's last seat."""
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
    np.testing.assert_array_equal(
        engine.seat_rows(state.counts, state.to_act)[1], state.counts[1, 3]
    )


def test_lowest_per_nibble_on_every_nibble_value():
    """The first suit held of each rank: checked on all 16 nibble values in every position."""
    from murlan_env.game import _lowest_per_nibble as lowest_int

    values = np.arange(1 << 16, dtype=np.uint64)  # four nibbles, all combinations
    expected = np.zeros_like(values)
    for shift in range(0, 16, 4):
        nibble = (values >> np.uint64(shift)) & np.uint64(0xF)
        low = nibble & (~nibble + np.uint64(1))  # lowest set bit (0 for an empty nibble)
        expected |= (low & np.uint64(0xF)) << np.uint64(shift)
    for shift in (0, 36):  # low ranks and high ranks of the 52-card field
        shifted = values << np.uint64(shift)
        np.testing.assert_array_equal(
            engine._lowest_per_nibble(shifted), expected << np.uint64(shift)
        )
    assert [lowest_int(int(v)) for v in values[::97]] == [int(e) for e in expected[::97]]
