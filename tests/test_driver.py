"""GameDriver: one game stepped with its record and rewards (shared by the single-game envs)."""

from __future__ import annotations

import numpy as np
import pytest

from murlan_env import records
from murlan_env.envs.driver import GameDriver
from murlan_env.game import engine
from murlan_env.game.rules import Rules


def play_episode(driver: GameDriver, rng: np.random.Generator) -> list[np.ndarray]:
    paid = []
    while not driver.over:
        assert driver.mask.any()
        rewards = driver.play(int(rng.choice(np.flatnonzero(driver.mask))))
        if rewards is not None:
            paid.append(rewards)
    assert not driver.mask.any()
    return paid


def test_one_hand_episode_pays_points_once_and_records_it():
    rng = np.random.default_rng(2)
    driver = GameDriver(engine.init(rng, 1), rng, reward="hand", episode="hand")
    paid = play_episode(driver, rng)
    assert len(paid) == 1
    assert sorted(paid[0].tolist()) == [-1.5, -0.5, 0.5, 1.5]
    record = driver.record()
    assert len(record["hands"]) == 1 and records.validate(record).valid


def test_match_episode_pays_the_result_at_the_end_only():
    rng = np.random.default_rng(3)
    driver = GameDriver(engine.init(rng, 1, Rules(sticky_pass=True)), rng, reward="match")
    paid = play_episode(driver, rng)
    assert len(paid) >= 7  # one payment per hand, and 3 points a hand at most to reach 21
    assert all(not p.any() for p in paid[:-1])
    assert abs(float(paid[-1].sum())) < 1e-6 and paid[-1].max() > 0
    assert driver.state.done[0]
    record = driver.record()
    assert len(record["hands"]) == len(paid) and records.validate(record).valid
    assert record["winners"] == np.flatnonzero(driver.state.winners[0]).tolist()


def test_bad_construction_is_refused():
    rng = np.random.default_rng(0)
    with pytest.raises(ValueError, match="one game"):
        GameDriver(engine.init(rng, 2), rng)
    with pytest.raises(ValueError, match="needs episode"):
        GameDriver(engine.init(rng, 1), rng, reward="match", episode="hand")


def test_states_read_from_the_driver_stay_as_they_were():
    """The driver updates its game in place (donated steps), except a state someone read:
    that one is copied before the next step writes."""
    rng = np.random.default_rng(4)
    start = engine.init(rng, 1)
    kept = start.copy()
    driver = GameDriver(start, rng)
    seen = []
    while not driver.over and len(seen) < 300:
        state = driver.state
        seen.append((state, state.data.copy()))
        driver.play(int(rng.choice(np.flatnonzero(driver.mask))))
    np.testing.assert_array_equal(start.data, kept.data)  # the caller's state is not touched
    for state, data in seen:
        np.testing.assert_array_equal(state.data, data)
    assert len({id(s.data) for s, _ in seen}) > 1
