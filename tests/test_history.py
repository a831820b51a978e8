"""The hand's history: logged by the drivers, turned to each seat, replayed by the belief."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import held_by_slot

from murlan_env.bots.baseline import RandomBot
from murlan_env.bots.belief import log_likelihood
from murlan_env.bots.history import HandLogs, uses_history
from murlan_env.eval.duplicate import one_against_three, play_duplicate
from murlan_env.game import engine, observation
from murlan_env.game.combos import COST, N_ACTIONS
from murlan_env.game.engine import Phase
from murlan_env.game.rules import Rules


class _Recorder:
    """A model that scores every move alike and keeps the observations it was shown."""

    name = "recorder"

    def __init__(self) -> None:
        self.seen: list[np.ndarray] = []
        self.choices = 0.0  # sum of log(number of legal moves) over what it scored

    def scores(self, obs: np.ndarray, mask: np.ndarray, rng=None) -> np.ndarray:
        self.seen.append(obs.copy())
        self.choices += float(np.log(mask.sum(1)).sum())
        return np.zeros(mask.shape, np.float32)

    def act(self, obs, mask, rng):
        return engine.random_legal_actions(mask, rng)


def _played_by_slot(log: np.ndarray) -> np.ndarray:
    """(4, 15) the cards each slot played, added up from a log's ``[slot, action]`` rows."""
    played = np.zeros((4, COST.shape[1]), np.int64)
    np.add.at(played, log[:, 0], COST[log[:, 1]])
    return played


def _play_logged(seed: int, rules: Rules, n_games: int = 12, hands: int = 2):
    """Random play with a log; yields (state, what was seen so far per game, logs) at every
    decision of every hand: for each logged move, its actor's observation and number of
    legal moves."""
    rng = np.random.default_rng(seed)
    state = engine.init(rng, n_games, rules)
    logs = HandLogs(n_games)
    seen: list[list[tuple[np.ndarray, int]]] = [[] for _ in range(n_games)]
    for _ in range(hands):
        while (state.phase <= Phase.EXCHANGE).any():
            yield state, seen, logs
            mask = engine.legal_action_mask(state)
            actions = engine.random_legal_actions(mask, rng)
            obs = engine.observe(state)
            for g in np.flatnonzero(state.phase == Phase.PLAY):
                seen[g].append((obs[g], int(mask[g].sum())))
            logs.record(state, actions)
            state = engine.step(state, actions)
        state = engine.next_hand(state, rng)
        logs.clear(np.arange(n_games))
        seen = [[] for _ in range(n_games)]


@pytest.mark.parametrize("rules", [Rules(), Rules(sticky_pass=True, start_card="3C")])
def test_the_replay_in_the_true_deal_shows_each_seat_what_it_saw(rules):
    # Played through the hand's log from the true hands, every later move of the others that
    # was not forced is scored on exactly the observation its seat had then (the exchange
    # piece aside, which the observation does not carry), in hand 1 (start-card duty) and
    # hand 2 (exchange); a forced move has probability 1 and is not shown to the model.
    same = np.ones(observation.SIZE, bool)
    same[observation.SLICES["exchange"]] = False
    checked = 0
    for k, (state, seen, logs) in enumerate(_play_logged(3, rules)):
        if k % 9:
            continue
        for g in np.flatnonzero(state.phase == Phase.PLAY):
            me = int(state.to_act[g])
            (log,) = logs.turned([g], [me])
            model = _Recorder()
            obs = engine.observe(state.index([g]))[0]
            ll = log_likelihood(obs, log, held_by_slot(state.index([g])), model)
            others = [t for t in range(1, len(log)) if log[t, 0] != 0 and seen[g][t][1] > 1]
            assert len(model.seen) == len(others)
            for t, shown in zip(others, model.seen, strict=True):
                np.testing.assert_array_equal(shown[0, same], seen[g][t][0][same])
            # Every move equally likely: each scored move had probability 1 / its choices.
            assert ll[0].sum() == pytest.approx(-model.choices)
            checked += len(others)
    assert checked > 50


def test_logs_turn_to_the_seat_and_match_what_it_saw_played():
    for state, _, logs in _play_logged(5, Rules()):
        waiting = np.flatnonzero(state.phase == Phase.PLAY)
        facts = observation.decode(engine.observe(state.index(waiting)))
        for i, log in enumerate(logs.turned(waiting, state.to_act[waiting])):
            np.testing.assert_array_equal(_played_by_slot(log), facts.played[i])
            assert ((log[:, 1] >= 0) & (log[:, 1] < N_ACTIONS)).all()


def test_a_log_that_does_not_fit_the_observation_is_refused():
    positions = _play_logged(7, Rules(), n_games=1)
    for _ in range(12):
        state, _, logs = next(positions)
    (log,) = logs.turned([0], state.to_act[:1])
    obs = engine.observe(state)[0]
    true = held_by_slot(state.index([0]))
    wrong = log.copy()
    wrong[-1, 0] = (wrong[-1, 0] + 1) % 4  # the last move made by the wrong seat
    with pytest.raises(ValueError, match="does not fit"):
        log_likelihood(obs, wrong, true, _Recorder())


class _Spy(RandomBot):
    """A random bot that reads the hand's history and keeps what it was given."""

    uses_history = True

    def __init__(self) -> None:
        super().__init__()
        self.calls: list[tuple[np.ndarray, list[np.ndarray]]] = []

    def act(self, obs, mask, rng, history=None):
        self.calls.append((obs.copy(), history))
        return super().act(obs, mask, rng)


def test_duplicate_play_gives_history_readers_their_hands_so_far():
    spy = _Spy()
    assert uses_history(spy) and not uses_history(RandomBot())
    play_duplicate([spy, RandomBot()], 3, lineups=one_against_three(), seed=1, max_hands=2)
    assert spy.calls
    openings = 0
    for obs, history in spy.calls:
        facts = observation.decode(obs)
        assert len(history) == obs.shape[0]
        for i, log in enumerate(history):
            np.testing.assert_array_equal(_played_by_slot(log), facts.played[i])
            openings += len(log) == 0
    assert openings > 0  # hands' first moves see an empty log: hand 2's was cleared


def _check_spied(spy: _Spy) -> int:
    """Every history the spy was given fits what its observation says was played; the number
    of hand openings it saw (an empty history)."""
    openings = 0
    for obs, history in spy.calls:
        facts = observation.decode(obs)
        assert len(history) == obs.shape[0] == 1
        np.testing.assert_array_equal(_played_by_slot(history[0]), facts.played[0])
        openings += len(history[0]) == 0
    return openings


def _drive(env, choose) -> list[int | None]:
    """Play ``env`` (a PettingZoo AEC env, reset) to its end with ``choose(env)``; the actions."""
    played = []
    for _ in env.agent_iter():
        _, _, terminated, truncated, _ = env.last()
        action = None if terminated or truncated else choose(env)
        played.append(action)
        env.step(action)
    return played


def test_the_pettingzoo_env_gives_bots_their_hand_so_far():
    from murlan_env.envs import aec

    spy = _Spy()
    env = aec.env(episode="match")
    env.reset(seed=3)
    played = _drive(env, lambda e: e.unwrapped.bot_action(spy))
    assert len(spy.calls) > 40
    assert _check_spied(spy) >= 2  # each hand starts with an empty history
    # The bot draws from a generator of its own: the same moves stepped directly meet the
    # same deals, so the two matches' records are the same.
    again = aec.env(episode="match")
    again.reset(seed=3)
    moves = iter(played)
    _drive(again, lambda e: next(moves))
    assert again.unwrapped.record() == env.unwrapped.record()


def test_the_gymnasium_env_gives_history_readers_among_its_opponents_their_hand_so_far():
    import gymnasium

    spy = _Spy()
    env = gymnasium.make("Murlan-v1", seat=0, opponents=spy, episode="match")
    obs, _ = env.reset(seed=4)
    rng = np.random.default_rng(0)
    over = False
    while not over:
        legal = np.flatnonzero(obs["action_mask"])
        obs, _, over, _, _ = env.step(int(rng.choice(legal)))
    assert len(spy.calls) > 40
    assert _check_spied(spy) >= 2
