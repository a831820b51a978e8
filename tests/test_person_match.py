"""``murlan_env.envs.person_match.PersonMatch``: a person's match against three bots, shared by
``murlan play`` and ``murlan serve`` (tests/test_web_api.py checks that both give the same match
for the same seed, bots and moves)."""

from __future__ import annotations

import numpy as np
import pytest

from murlan_env.bots.baseline import GreedyBot, RandomBot
from murlan_env.envs.person_match import BotError, PersonMatch
from murlan_env.game import engine


class _Illegal:
    name = "cheat"

    def act(self, obs, mask, rng):
        return np.full(len(mask), np.flatnonzero(~mask[0])[0])  # the first illegal action


def _person_plays_greedy(match: PersonMatch) -> None:
    state = match.state
    action = int(GreedyBot().act(engine.observe(state), engine.legal_action_mask(state), None)[0])
    match.play(action)


def test_the_bots_play_until_the_person_is_to_act():
    match = PersonMatch([RandomBot()] * 3, seat=2, seed=5)
    steps = match.bot_turns()
    assert match.your_turn() or not match.in_hand()
    assert len(steps) == match.decisions
    for before, after in steps:
        assert int(before.to_act[0]) != 2 and after.hand_no[0] == before.hand_no[0]
    with pytest.raises(ValueError):
        match.bot_turn()  # the person's turn


def test_a_snapshot_replays_the_same_match_and_shares_the_bots():
    bots = [RandomBot(), GreedyBot(), RandomBot()]
    match = PersonMatch(bots, seat=0, seed=9)
    match.bot_turns()
    saved = match.snapshot()
    assert all(a is b for a, b in zip(saved.players, match.players, strict=True))
    for _ in range(5):
        if not match.in_hand():
            break
        _person_plays_greedy(match)
        match.bot_turns()
    first = match.record()
    for _ in range(5):
        if not saved.in_hand():
            break
        _person_plays_greedy(saved)
        saved.bot_turns()
    assert saved.record() == first  # same deal stream, same bot stream


def test_a_bot_that_chooses_an_illegal_action_is_a_bot_error_and_no_step():
    match = PersonMatch([_Illegal(), GreedyBot(), GreedyBot()], seat=0, seed=1)
    while match.in_hand() and match.to_act() != 1:
        if match.your_turn():
            _person_plays_greedy(match)
        else:
            match.bot_turn()
    before = match.state
    with pytest.raises(BotError) as err:
        match.bot_turn()
    assert err.value.seat == 1 and err.value.name == "cheat"
    assert match.state is before


def test_the_record_names_its_players_and_readers_may_ignore_them():
    """The record's optional ``players``: "you" at the person's seat, each bot by its name; the
    validator ignores the key (RULES.md 8: other keys are ignored), and a malformed one is no
    fault, only not read."""
    from murlan_env import records
    from murlan_env.schemas import validator

    match = PersonMatch([RandomBot(), GreedyBot(), RandomBot()], seat=1, seed=3)
    match.bot_turns()
    _person_plays_greedy(match)
    record = match.record()
    assert record["players"] == ["random", "you", "greedy", "random"]
    assert records.players(record) == record["players"]
    assert records.validate(record).valid and validator("record").is_valid(record)
    for bad in (["you"], ["you", "", "a", "b"], "you, a, b, c", [1, 2, 3, 4]):
        broken = {**record, "players": bad}
        assert records.players(broken) is None
        assert records.validate(broken).valid and not validator("record").is_valid(broken)
    with pytest.raises(ValueError, match="players names the 4 seats"):
        records.Recorder(match.state, players=["you", "hard"])
