"""``murlan_env.envs.table.Table``: a person's seat at a table of three bots, shared by
``murlan play`` and ``murlan serve`` (tests/test_web_api.py checks that both give the same match
for the same seed, bots and moves)."""

from __future__ import annotations

import numpy as np
import pytest

from murlan_env.bots.basic import GreedyBot, RandomBot
from murlan_env.envs.table import BotError, Table
from murlan_env.game import engine


class _Illegal:
    name = "cheat"

    def act(self, obs, mask, rng):
        return np.full(len(mask), np.flatnonzero(~mask[0])[0])  # the first illegal action


def _person_plays_greedy(table: Table) -> None:
    state = table.state
    action = int(GreedyBot().act(engine.observe(state), engine.legal_action_mask(state), None)[0])
    table.play(action)


def test_the_bots_play_until_the_person_is_to_act():
    table = Table([RandomBot()] * 3, seat=2, seed=5)
    steps = table.bot_turns()
    assert table.your_turn() or not table.in_hand()
    assert len(steps) == table.decisions
    for before, after in steps:
        assert int(before.to_act[0]) != 2 and after.hand_no[0] == before.hand_no[0]
    with pytest.raises(ValueError):
        table.bot_turn()  # the person's turn


def test_a_snapshot_replays_the_same_match_and_shares_the_bots():
    bots = [RandomBot(), GreedyBot(), RandomBot()]
    table = Table(bots, seat=0, seed=9)
    table.bot_turns()
    saved = table.snapshot()
    assert all(a is b for a, b in zip(saved.players, table.players, strict=True))
    for _ in range(5):
        if not table.in_hand():
            break
        _person_plays_greedy(table)
        table.bot_turns()
    first = table.record()
    for _ in range(5):
        if not saved.in_hand():
            break
        _person_plays_greedy(saved)
        saved.bot_turns()
    assert saved.record() == first  # same deal stream, same bot stream


def test_a_bot_that_chooses_an_illegal_action_is_a_bot_error_and_no_step():
    table = Table([_Illegal(), GreedyBot(), GreedyBot()], seat=0, seed=1)
    while table.in_hand() and table.to_act() != 1:
        if table.your_turn():
            _person_plays_greedy(table)
        else:
            table.bot_turn()
    before = table.state
    with pytest.raises(BotError) as err:
        table.bot_turn()
    assert err.value.seat == 1 and err.value.name == "cheat"
    assert table.state is before
