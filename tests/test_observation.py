"""The observation codec: the layout is declared once, encode and decode are inverses on
every fact a seat may know, and the rules piece follows the variant flags of Rules."""

from __future__ import annotations

import numpy as np
import pytest

from murlan_env.game import engine, observation, observation_layout
from murlan_env.game.cards import CARD_RANK
from murlan_env.game.combos import PASS
from murlan_env.game.observation import PIECES, RULE_FEATURES, SIZE, SLICES
from murlan_env.game.rules import RULE_CHOICES, Rules
from murlan_env.game.state import Phase


def test_pieces_tile_the_vector():
    offset = 0
    for piece in PIECES:
        assert SLICES[piece.name] == slice(offset, offset + piece.size)
        offset += piece.size
    assert offset == SIZE
    assert [row["name"] for row in observation_layout.layout()] == [p.name for p in PIECES]


def test_rule_features_follow_the_rules_flags():
    """One entry per non-default value of every flag, in Rules' order: a new variant value
    appears in the observation without touching the codec."""
    expected = [(f, v) for f, choices in RULE_CHOICES.items() for v in choices[1:]]
    assert list(RULE_FEATURES) == expected
    rules = Rules(sticky_pass=True, tie_rule="leader", start_card="3C")
    flags = observation.rule_flags(rules)
    assert flags.tolist() == [1.0, 0.0, 0.0, 1.0, 1.0, 0.0]
    assert observation.decode(np.broadcast_to(_with_rules(flags), (1, SIZE))).rules() == rules


def _with_rules(flags: np.ndarray) -> np.ndarray:
    obs = np.zeros(SIZE, np.float32)
    obs[SLICES["rules"]] = flags
    return obs


@pytest.mark.parametrize(
    "rules", [Rules(), Rules(sticky_pass=True, joker_pair=True, start_card="3C", tie_rule="leader")]
)
def test_decode_reads_back_what_each_seat_may_know(rules):
    rng = np.random.default_rng(3)
    state = engine.init(rng, 64, rules)
    checked = 0
    for step in range(600):
        if step % 7 == 0:
            for seat in range(4):
                _check_round_trip(state, seat)
                checked += 1
        mask = engine.legal_action_mask(state)
        state = engine.step(state, engine.random_legal_actions(mask, rng), rng=rng)
        state = engine.new_matches(state, state.done, rng)
    assert checked > 300


def _check_round_trip(state: engine.State, seat: int) -> None:
    seen = observation.decode(engine.observe(state, seat))
    slots = (seat + np.arange(4)) % 4
    rows = np.arange(state.batch_size)[:, None]
    counts = state.counts
    np.testing.assert_array_equal(seen.my_hand, counts[:, seat])
    np.testing.assert_array_equal(seen.played, state.played[rows, slots])
    np.testing.assert_array_equal(seen.unseen, counts.sum(1) - counts[:, seat])
    np.testing.assert_array_equal(seen.cards_left, state.n_left[rows, slots])
    np.testing.assert_array_equal(seen.table, state.table)
    on_table = state.table != PASS
    want_slot = np.where(on_table, (state.table_seat - seat) % 4, -1)
    np.testing.assert_array_equal(seen.table_slot, want_slot)
    np.testing.assert_array_equal(seen.passed, state.passed[rows, slots])
    np.testing.assert_array_equal(seen.place, state.place[rows, slots])
    np.testing.assert_array_equal(seen.scores, np.minimum(state.scores[rows, slots], 60))
    np.testing.assert_array_equal(seen.target, state.target)
    np.testing.assert_array_equal(seen.exchanging, state.phase == Phase.EXCHANGE)
    np.testing.assert_array_equal(seen.start_duty, state.start_duty & (state.to_act == seat))
    for b in range(state.batch_size):
        assert seen.rules(b) == state.rules
        given, back = int(state.ex_last_gives[b]), int(state.ex_first_gives[b])
        first, last = int(state.ex_first[b]), int(state.ex_last[b])
        received = gave = -1
        if given >= 0 and seat == first:
            received, gave = CARD_RANK[given], (CARD_RANK[back] if back >= 0 else -1)
        elif given >= 0 and seat == last:
            gave, received = CARD_RANK[given], (CARD_RANK[back] if back >= 0 else -1)
        assert (seen.received[b], seen.gave[b]) == (received, gave)


def test_decode_rejects_vectors_of_another_size():
    with pytest.raises(ValueError, match=str(SIZE)):
        observation.decode(np.zeros((2, SIZE - 1), np.float32))


def test_the_documentation_table_names_every_piece():
    text = observation_layout.table()
    for piece in PIECES:
        assert f"\n{piece.name} " in text


def test_codes_store_observations_without_loss():
    """Every entry is an integer code times its piece's step, so uint8 codes round-trip
    exactly, high scores included."""
    rng = np.random.default_rng(4)
    state = engine.init(rng, 128, Rules(tie_rule="leader"))
    state = state.replace(scores=rng.integers(0, 70, (128, 4)))
    for _ in range(200):
        obs = engine.observe(state, rng.integers(0, 4))
        codes = observation.to_codes(obs)
        assert codes.dtype == np.uint8
        np.testing.assert_array_equal(observation.from_codes(codes), obs)
        state = engine.step(
            state, engine.random_legal_actions(engine.legal_action_mask(state), rng)
        )
        state = engine.next_hand(state, rng)
    assert observation.to_codes(obs)[:, SLICES["scores"]].max() == 60
