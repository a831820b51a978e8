"""One game played decision by decision, with its record and rewards: what the single-game
environments share.

The PettingZoo AEC env and the Gymnasium single-agent env both step one game at a time.
``GameDriver`` does that part once: it steps the game through the engine (a batch of one:
the same compiled rules as every batch), logs every decision to a ``Recorder``, pays the
rewards of ``murlan_env.game.episode`` at each hand's end, keeps the hand so far for bots that
read it (``murlan_env.bots.history``; ``bot_action``), deals the next hand from the env's
generator while the episode goes on, and keeps the legal mask of the seat to act. The envs
add their API on top: agents and dicts for PettingZoo, the learner's seat and its opponents
for Gymnasium. The helpers below (starting states from ``reset`` options, checking actions)
are the envs' shared vocabulary.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from murlan_env.bots.history import HandLogs, act_with_history
from murlan_env.game import engine, observation
from murlan_env.game.combos import N_ACTIONS, describe
from murlan_env.game.episode import HAND, MATCH, check_modes, rewards
from murlan_env.game.rules import RULE_CHOICES, Rules
from murlan_env.game.state import N_SEATS, Phase, State
from murlan_env.records import Recorder

_PLAY = int(Phase.PLAY)
_EXCHANGE = int(Phase.EXCHANGE)
_HAND_OVER = int(Phase.HAND_OVER)
_MATCH_OVER = int(Phase.MATCH_OVER)


# --------------------------------------------------------------------------- env helpers


def split_options(kwargs: dict[str, Any]) -> tuple[Rules, dict[str, Any]]:
    """Split env keyword arguments into the Rules and the rest (raising on unknown flags)."""
    flags = {k: kwargs.pop(k) for k in list(kwargs) if k in RULE_CHOICES}
    return Rules.from_dict(flags), kwargs


def start_state(rng: np.random.Generator, rules: Rules, options: dict | None) -> State:
    """A new game (batch of one): random, or from ``options["deal"]`` (the envs' ``reset``).

    Option keys other than deal, dealer, hand_no, previous, scores and target are ignored, as
    Gymnasium and PettingZoo expect of ``reset`` options.
    """
    options = options or {}
    if "deal" not in options:
        return engine.init(rng, 1, rules)
    deal = options["deal"]
    if isinstance(deal, str) or len(deal) != N_SEATS:
        raise ValueError("options['deal'] is a list of 4 card strings, one per seat")
    later = {k: options[k] for k in ("hand_no", "previous", "scores", "target") if k in options}
    return engine.deal_from(list(deal), options.get("dealer", 0), rules, **later)


def action_index(action: Any) -> int | None:
    """``action`` as an action id, or None when it is not an integer in the action space.

    Integers of any kind are accepted (Python, NumPy, 0-d integer arrays), as
    ``Discrete.contains`` does; floats, strings and None are not.
    """
    if isinstance(action, np.ndarray) and action.shape == () and action.dtype.kind in "iu":
        action = action.item()
    if isinstance(action, int | np.integer) and 0 <= action < N_ACTIONS:
        return int(action)
    return None


def illegal_action_error(action: Any, mask: np.ndarray, who: str) -> ValueError:
    """The ValueError for an illegal action, naming the legal ones."""
    legal = ", ".join(f"{a} ({describe(a)})" for a in np.flatnonzero(mask))
    return ValueError(f"action {action!r} is not legal for {who}; legal actions: {legal}")


# --------------------------------------------------------------------------- the driver


class GameDriver:
    """Steps one game from ``state`` (a batch of one) until the episode ends.

    ``reward`` and ``episode`` are the env options of the same names (see
    ``murlan_env.game.episode``); ``rng`` deals the following hands of a match.
    """

    def __init__(
        self,
        state: State,
        rng: np.random.Generator,
        reward: str = HAND,
        episode: str = MATCH,
    ) -> None:
        check_modes(reward, episode)
        if state.batch_size != 1:
            raise ValueError(f"GameDriver plays one game, got a batch of {state.batch_size}")
        self.rng = rng
        self.reward_mode = reward
        self.episode_mode = episode
        state = state.copy()  # stepped in place (donated) from here on
        self.recorder = Recorder(state)
        self.logs = HandLogs(1)  # the hand so far, for bots that read it
        self.over = bool(state.done[0])  # the episode is over
        self._use(state)

    @property
    def state(self) -> State:
        """The engine State of the game (a batch of one); it stays as it is when the game
        goes on (the next step copies it instead of updating it in place)."""
        self._state.disown()
        return self._state

    @property
    def to_act(self) -> int:
        """The seat whose decision it is."""
        return self._to_act

    def observe(self, seat: int) -> np.ndarray:
        """(OBS_SIZE,) float32 observation from ``seat``."""
        return observation.encode(self._state, seat)[0]

    def env_observation(self, seat: int, acting: bool) -> dict[str, np.ndarray]:
        """The envs' ``{"observation", "action_mask"}`` from ``seat``: the mask is the legal
        actions (int8) when ``acting``, else all 0."""
        mask = self.mask.view(np.int8).copy() if acting else np.zeros(N_ACTIONS, np.int8)
        return {"observation": self.observe(seat), "action_mask": mask}

    def play(self, action: int) -> np.ndarray | None:
        """Apply a legal action of the seat to act (not checked here).

        Returns the (4,) float32 rewards of the seats when this decision ends a hand (under
        ``reward="match"``, zeros unless it also ends the match), else None. ``over`` turns
        True when the episode ends; otherwise a finished hand is followed by the next deal.
        """
        exchange = self._phase == _EXCHANGE
        if self._phase == _PLAY:
            self.logs.add(0, self._to_act, action)
        state = engine.step(self._state, np.array([action]), donate=True)
        game = state.data[0]
        hand_no = int(game["hand_no"])
        self.recorder.add_decision(
            0, hand_no, int(game["last_seat"]), action, exchange, int(game["last_bits"])
        )
        if game["phase"] < _HAND_OVER:
            self._use(state)
            return None
        self.recorder.add_hand_end(0, hand_no, game["place"].tolist(), game["points"].tolist())
        paid = rewards(state, self.reward_mode)[0]
        if game["phase"] == _MATCH_OVER or self.episode_mode == HAND:
            self.over = True
        else:
            state = engine.next_hand(state, self.rng, donate=True)
            self.recorder.add_hand_start(state)
            self.logs.clear(np.zeros(1, np.int64))
        self._use(state)
        return paid

    def bot_action(self, bot, rng: np.random.Generator) -> int:
        """The action ``bot`` chooses for the seat to act, given what murlan's own drivers give
        a bot (``murlan_env.bots.history``): the hand so far when it reads it, the match's
        record when it reads that. Not checked for legality here."""
        seat = self._to_act
        if getattr(bot, "uses_match", False):
            self.recorder.sync(self._state)
        obs = self.observe(seat)[None]
        actions = act_with_history(
            bot, obs, self.mask[None], rng, self.logs, [0], [seat], self.recorder
        )
        return int(np.asarray(actions).reshape(-1)[0])

    def record(self) -> dict:
        """The murlan-record/1 dict of everything played so far."""
        self.recorder.sync(self._state)
        return self.recorder.record(game=0)

    def _use(self, state: State) -> None:
        self._state = state
        game = state.data[0]
        self._phase = int(game["phase"])
        self._to_act = int(game["to_act"])
        self.mask = engine.legal_action_mask(state)[0]


__all__ = [
    "GameDriver",
    "action_index",
    "illegal_action_error",
    "split_options",
    "start_state",
]
