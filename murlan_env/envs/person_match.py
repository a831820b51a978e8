"""A match for a person against three bots: the seeded set-up, the bots' turns, the record.

``murlan play`` (the terminal) and ``murlan serve`` (the browser) both seat a person against
three bots, and a seed, the bots and the person's moves must give the same match in both. This
is that match once, without any input or output: a deal stream and a bot stream spawned from
the seed, bots acting through ``act_with_history`` (with the hand so far, for bots that read
it) and the engine choosing the cards of their rank-level actions, the record kept as the
match goes. The caller asks the person for moves and shows what happened; each step returns
the states before and after it, which is all a front end needs to describe it.

``snapshot`` copies the match (sharing the bots), so a front end can take back a person's move
when a bot fails on the turns that follow it.
"""

from __future__ import annotations

import copy
from collections.abc import Sequence

import numpy as np

from murlan_env import records
from murlan_env.bots.history import HandLogs, act_with_history
from murlan_env.bots.protocol import Bot
from murlan_env.game import engine
from murlan_env.game.rules import Rules
from murlan_env.game.state import Phase, State

PERSON = "you"  # the person's seat in a record's players


class BotError(RuntimeError):
    """A bot failed on its turn (raised, or chose an illegal action); ``seat`` says whose."""

    def __init__(self, seat: int, name: str, why: str) -> None:
        super().__init__(f"the bot at seat {seat} ({name}) failed on its turn: {why}")
        self.seat = seat
        self.name = name
        self.why = why


class PersonMatch:
    """One match: the person at ``seat``, ``bots`` (three) at the other seats in seat order.

    ``start``: a game to begin from (a batch of one, e.g. ``engine.deal_from``) instead of the
    seeded first deal; later hands are dealt from the seed's deal stream.
    """

    def __init__(
        self,
        bots: Sequence[Bot],
        *,
        seat: int = 0,
        rules: Rules | None = None,
        seed: int = 0,
        start: State | None = None,
    ) -> None:
        if len(bots) != 3:
            raise ValueError(f"a person plays against 3 bots, got {len(bots)} bots")
        if not 0 <= seat <= 3:
            raise ValueError(f"the person's seat is 0-3, got {seat}")
        self.seat = seat
        self.seed = seed
        self.rules = rules or Rules()
        self.players: list[Bot | None] = list(bots)
        self.players.insert(seat, None)
        self.deal_rng, self.bot_rng = np.random.default_rng(seed).spawn(2)
        self.state = engine.init(self.deal_rng, 1, self.rules) if start is None else start
        self.logs = HandLogs(1)  # the hand so far, for bots that read it
        # who plays each seat, as the record names them: the person "you", a bot by its name
        self.names = [PERSON if b is None else b.name for b in self.players]
        self.recorder = records.Recorder(self.state, players=self.names)
        self.decisions = 0  # decisions taken so far in the match (the person's and the bots')

    # ----------------------------------------------------------------- where we are

    def in_hand(self) -> bool:
        """Whether the hand waits for a decision (a play or the exchange give-back)."""
        return int(self.state.phase[0]) <= Phase.EXCHANGE

    def to_act(self) -> int:
        return int(self.state.to_act[0])

    def your_turn(self) -> bool:
        """Whether the hand waits for the person."""
        return self.in_hand() and self.to_act() == self.seat

    def hand_over(self) -> bool:
        return int(self.state.phase[0]) == Phase.HAND_OVER

    def match_over(self) -> bool:
        return int(self.state.phase[0]) == Phase.MATCH_OVER

    # ----------------------------------------------------------------- steps

    def play(self, action: int, cards: np.ndarray | None = None) -> tuple[State, State]:
        """The person's decision (``cards``: the (54,) bool cards they chose, None to let the
        engine choose); the states before and after. The caller checks legality first
        (``moves.read_move``)."""
        if not self.your_turn():
            raise ValueError("it is not the person's turn")
        return self._step(action, None if cards is None else cards[None])

    def bot_turn(self) -> tuple[State, State]:
        """One decision of the bot to act; the states before and after (BotError if it fails,
        and then no step is taken)."""
        if not self.in_hand() or self.your_turn():
            raise ValueError("it is not a bot's turn")
        seat = self.to_act()
        bot = self.players[seat]
        mask = engine.legal_action_mask(self.state)
        obs = engine.observe(self.state)
        try:
            actions = act_with_history(
                bot, obs, mask, self.bot_rng, self.logs, [0], [seat], self.recorder
            )
            action = int(actions[0])
        except Exception as err:  # any failure of a bot is the match's BotError
            raise BotError(seat, bot.name, f"{type(err).__name__}: {err}") from err
        if not 0 <= action < mask.shape[1] or not mask[0, action]:
            raise BotError(seat, bot.name, f"it chose the illegal action {action}")
        return self._step(action, None)

    def bot_turns(self) -> list[tuple[State, State]]:
        """The bots' decisions until the person is to act or the hand is over."""
        steps = []
        while self.in_hand() and not self.your_turn():
            steps.append(self.bot_turn())
        return steps

    def next_hand(self) -> State:
        """Deal the next hand once this one is over; its first state."""
        if not self.hand_over():
            raise ValueError("the hand is not over")
        self.state = engine.next_hand(self.state, self.deal_rng)
        self.logs.clear([0])
        self.recorder.update(self.state)
        return self.state

    def record(self) -> dict:
        """The match so far as a murlan-record/1 object."""
        return self.recorder.record(0)

    def snapshot(self) -> PersonMatch:
        """A copy of the match to go back to (the bots are shared, not copied)."""
        memo = {id(bot): bot for bot in self.players if bot is not None}
        return copy.deepcopy(self, memo)

    def _step(self, action: int, given: np.ndarray | None) -> tuple[State, State]:
        before = self.state
        self.logs.record(before, np.array([action]))
        self.state = engine.step(before, np.array([action]), given)
        self.recorder.update(self.state)
        self.decisions += 1
        return before, self.state


__all__ = ["BotError", "PersonMatch"]
