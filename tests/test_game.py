"""Lockstep test: the single-game fast path (murlan_env.game.Game) against the batched engine.

Random matches are played through a batch of the engine and one ``Game`` per batch game,
with the same actions. Before every decision the legal masks and the observations from all
four seats must be identical; after every decision the whole state (``Game.to_state()``)
must equal the engine's, field by field. Full matches and late-match positions (rare
exchanges, target raises, wins and draws) are played under mixed variant flags; the engine
itself is checked against the scalar reference in test_differential.py.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from murlan_env import engine
from murlan_env.engine import Phase
from murlan_env.game import Game, take_bits
from murlan_env.rules import Rules
from tests.test_differential import RULE_IDS, RULE_SETS, late_match_games

FIELDS = [f.name for f in dataclasses.fields(engine.State) if f.name != "rules"]


def assert_same_state(game: Game, state: engine.State, i: int, where: str) -> None:
    mine = game.to_state()
    assert mine.rules == state.rules
    for name in FIELDS:
        got, want = getattr(mine, name)[0], getattr(state, name)[i]
        # Comparing raw bytes checks dtype and shape too (all fields are fixed-size), and is
        # far cheaper than assert_array_equal, which only runs to explain a difference.
        if got.tobytes() != want.tobytes() or got.dtype != want.dtype:
            np.testing.assert_array_equal(got, want, err_msg=f"{where}: {name}")
            raise AssertionError(f"{where}: {name} dtype {got.dtype} != {want.dtype}")


def play_lockstep(rules: Rules, seed: int, batch: int, late: bool, max_hands: int) -> dict:
    """Drive engine and Games together; returns counts of what was covered."""
    rng = np.random.default_rng(seed)
    state = late_match_games(rng, batch, rules)[0] if late else engine.init(rng, batch, rules)
    games = [Game.from_state(state, i) for i in range(batch)]
    seen = {"decisions": 0, "exchanges": 0, "hands": 0, "matches": 0}
    first_hand = state.hand_no.copy()
    for _ in range(max_hands * 200):
        waiting = np.flatnonzero(state.phase <= Phase.EXCHANGE)
        if not len(waiting):
            break
        mask = engine.legal_action_mask(state)
        observations = [engine.observe(state, np.full(batch, seat)) for seat in range(4)]
        for i in range(batch):
            if not np.array_equal(games[i].legal_mask(), mask[i]):
                np.testing.assert_array_equal(games[i].legal_mask(), mask[i], err_msg=f"mask {i}")
            for seat in range(4):
                got = games[i].observe(seat)
                if got.tobytes() != observations[seat][i].tobytes():
                    np.testing.assert_array_equal(got, observations[seat][i], f"obs {i} {seat}")
        actions = engine.random_legal_actions(mask, rng)
        seen["exchanges"] += int((state.phase[waiting] == Phase.EXCHANGE).sum())
        state = engine.step(state, actions)
        for i in waiting:
            games[i].step(int(actions[i]))
            assert_same_state(games[i], state, i, f"game {i} after action {actions[i]}")
        seen["decisions"] += len(waiting)
        seen["hands"] += int((state.phase[waiting] >= Phase.HAND_OVER).sum())
        seen["matches"] += int((state.phase[waiting] == Phase.MATCH_OVER).sum())
        over = np.flatnonzero(state.phase == Phase.HAND_OVER)
        if len(over):
            if (state.hand_no - first_hand).max() + 1 >= max_hands:
                break
            state = engine.next_hand(state, rng)
            for i in over:
                games[i] = Game.from_state(state, i)
    return seen


@pytest.mark.parametrize("rules", RULE_SETS, ids=RULE_IDS)
def test_game_matches_engine_late_match(rules):
    seen = play_lockstep(rules, seed=21, batch=12, late=True, max_hands=20)
    assert seen["hands"] >= 12 and seen["matches"] >= 6, seen
    if not rules.no_exchange:
        assert seen["exchanges"] > 0, seen


@pytest.mark.parametrize("rules", RULE_SETS[:3], ids=RULE_IDS[:3])
def test_game_matches_engine_full_match(rules):
    seen = play_lockstep(rules, seed=7, batch=3, late=False, max_hands=60)
    assert seen["matches"] == 3, seen


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(2))
@pytest.mark.parametrize("rules", RULE_SETS, ids=RULE_IDS)
def test_game_matches_engine_many(rules, seed):
    """Thousands of matches: 128 late-match and 64 whole matches per (rules, seed)."""
    play_lockstep(rules, seed=300 + seed, batch=128, late=True, max_hands=60)
    seen = play_lockstep(rules, seed=400 + seed, batch=64, late=False, max_hands=80)
    assert seen["matches"] == 64, seen


def test_round_trip_through_state():
    state = engine.init(np.random.default_rng(3), 5, Rules(sticky_pass=True))
    for i in range(5):
        assert_same_state(Game.from_state(state, i), state, i, f"game {i}")


def test_take_bits_matches_engine_on_every_action():
    """The suits chosen for each action, with and without the start-card duty."""
    rng = np.random.default_rng(0)
    hands = engine.cards_to_bits(rng.random((200, 54)) < 0.6)
    start = Rules().start_card_id
    for duty in (False, True):
        for action in range(1, engine.N_ACTIONS):
            actions = np.full(len(hands), action)
            want = engine.take_bits(hands, actions, np.full(len(hands), duty), start)
            got = [take_bits(int(h), action, duty, 1 << start) for h in hands]
            assert got == [int(w) for w in want], (action, duty)
