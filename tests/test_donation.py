"""Donated steps (``donate=True``) write into the donated state's arrays instead of copying.

They must give exactly the states the pure functions give, and never change a state that
shares arrays with the donated one (states made from it earlier, slices, replaced copies).
"""

import copy

import numpy as np

from murlan_env.game import engine
from murlan_env.game.engine import Phase
from murlan_env.game.rules import Rules
from murlan_env.game.state import FIELD_NAMES

FIELDS = FIELD_NAMES


def snapshot(state: engine.State) -> dict:
    return {name: getattr(state, name).copy() for name in FIELDS}


def assert_state_equals(state: engine.State, expected: dict, where: str) -> None:
    for name in FIELDS:
        np.testing.assert_array_equal(getattr(state, name), expected[name], err_msg=where + name)


def play(state, rng, steps, donate, restart_rules):
    """Random play with next hands dealt in the step and finished matches restarted."""
    for _ in range(steps):
        mask = engine.legal_action_mask(state)
        state = engine.step(state, engine.random_legal_actions(mask, rng), rng=rng, donate=donate)
        over = np.flatnonzero(state.phase == Phase.MATCH_OVER)
        if over.size:
            fresh = engine.init(rng, over.size, restart_rules)
            state = engine.replace_games(state, over, fresh, donate=donate)
    return state


def test_donated_play_gives_the_pure_states():
    rules = Rules(tie_rule="leader", sticky_pass=True)  # short matches: restarts happen
    start = engine.init(np.random.default_rng(0), 32, rules)
    pure_rng, donated_rng = np.random.default_rng(5), np.random.default_rng(5)
    pure, donated = start, play(start, donated_rng, 0, True, rules)
    for _ in range(30):
        pure = play(pure, pure_rng, 20, False, rules)
        donated = play(donated, donated_rng, 20, True, rules)
        assert_state_equals(donated, snapshot(pure), "")
    assert pure.hand_no.max() > 2


def test_donation_leaves_states_that_share_arrays_alone():
    """Earlier states, a slice and a replaced copy keep their values while states they share
    arrays with are consumed by donated steps, hand ends, restarts and next_hand."""
    rules = Rules(tie_rule="leader")
    rng = np.random.default_rng(1)
    s0 = engine.init(rng, 16, rules)
    s1 = engine.step(s0, engine.random_legal_actions(engine.legal_action_mask(s0), rng))
    sliced = s1.index(slice(2, 10))
    replaced = s1.replace(target=np.full(16, 31, np.int16))
    copied = copy.copy(s1)
    kept = {
        name: (st, snapshot(st))
        for name, st in [("s0", s0), ("slice", sliced), ("replaced", replaced), ("copy", copied)]
    }

    def check(consumed):
        for name, (state, values) in kept.items():
            if name not in consumed:
                assert_state_equals(state, values, f"{name}: ")

    play(s1, np.random.default_rng(2), 300, True, rules)
    check(())
    play(replaced, np.random.default_rng(3), 300, True, rules)
    check(("replaced",))
    ended = sliced
    while not (ended.phase == Phase.HAND_OVER).any():
        mask = engine.legal_action_mask(ended)
        ended = engine.step(ended, engine.random_legal_actions(mask, rng))
    engine.next_hand(ended, rng, donate=True)
    check(("replaced",))
    play(copied, np.random.default_rng(4), 300, True, rules)
    check(("replaced", "copy"))


def test_donated_step_reuses_the_arrays_it_owns():
    """The point of donating: a state made by a step owns its records, and a donated step
    writes into them instead of copying."""
    rng = np.random.default_rng(4)
    state = engine.init(rng, 64)
    state = engine.step(state, engine.random_legal_actions(engine.legal_action_mask(state), rng))
    before = state.data
    after = engine.step(
        state, engine.random_legal_actions(engine.legal_action_mask(state), rng), donate=True
    )
    assert after.data is before and after.owns() and not state.owns()
    pure = engine.step(after, engine.random_legal_actions(engine.legal_action_mask(after), rng))
    assert pure.data is not after.data and after.owns()


def test_donating_a_parent_leaves_its_children_alone():
    """A pure step's result shares the arrays the step did not write (dealer, deal, ...)
    with its input; donating the input afterwards must not write into them."""
    rules = Rules(tie_rule="leader")
    rng = np.random.default_rng(6)
    parent = engine.init(rng, 16, rules)
    child = engine.step(parent, engine.random_legal_actions(engine.legal_action_mask(parent), rng))
    values = snapshot(child)
    play(parent, np.random.default_rng(7), 300, True, rules)
    assert_state_equals(child, values, "child: ")


def test_new_matches_equals_replacing_games_with_init():
    """new_matches draws as init does; pure or donated, mask or indices, the same state."""
    rules = Rules(joker_pair=True)
    state = play(
        engine.init(np.random.default_rng(8), 24, rules), np.random.default_rng(9), 80, False, rules
    )
    games = np.zeros(24, bool)
    games[[1, 5, 6, 20]] = True
    want = engine.replace_games(state, games, engine.init(np.random.default_rng(10), 4, rules))
    for which, donate in ((games, False), (np.flatnonzero(games), False), (games, True)):
        source = copy.deepcopy(state) if donate else state
        got = engine.new_matches(source, which, np.random.default_rng(10), donate=donate)
        assert_state_equals(got, snapshot(want), f"{donate}: ")
    assert engine.new_matches(state, np.zeros(24, bool), np.random.default_rng(0)) is state
