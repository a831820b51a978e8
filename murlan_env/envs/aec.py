"""murlan_v1: Murlan as a PettingZoo AEC environment (one game over the batched engine).

Description
-----------
Four players shed their cards by beating the play on the table (RULES.md). A match runs
hand after hand until a player wins (or a draw at the capped target). This module is a thin
adapter: every rule lives in ``murlan_env.game.kernels`` behind ``murlan_env.game.engine``; the env
steps one game (a batch of one) through ``murlan_env.envs.driver.GameDriver``.

    >>> import murlan_env
    >>> env = murlan_env.env(sticky_pass=True, reward="match")
    >>> env.reset(seed=0)
    >>> for agent in env.agent_iter():
    ...     obs, reward, terminated, truncated, info = env.last()
    ...     action = None if terminated else int(obs["action_mask"].nonzero()[0][0])
    ...     env.step(action)

Agents
------
``player_0`` .. ``player_3`` are seats 0-3; play goes from seat s to s+1. The agent to act
(``env.agent_selection``) is the engine's seat to act, so turns are not round-robin: passed
or finished players are skipped, and a trick's winner leads again.

Observation
-----------
``{"observation": Box(0, 1, (544,), float32), "action_mask": Box(0, 1, (109,), int8)}``.
The observation is ``murlan_env.game.observation.encode`` from the observing seat's point of view
(egocentric: seat slot 0 is the observer, then the next seats in turn order); it holds only
what that seat may know. Every entry lies in [0, 1].
The layout (``observation.PIECES``; ``observation_layout.table()`` regenerates this table):

    piece        entries  size  meaning
    -----------------------------------
    my_hand      0-59       60  my cards: 15 ranks x 4 thermometer bits
    played       60-299    240  cards each seat slot played this hand: 4 x 60
    unseen       300-359    60  cards neither in my hand nor played (the others'): 15 x 4
    cards_left   360-363     4  cards each seat slot holds, / 15
    table_action 364-472   109  one-hot action id of the play to beat (all 0: empty table)
    table_seat   473-476     4  one-hot seat slot that made the play to beat
    passed       477-480     4  seat slots that passed since the play to beat (sticky: this trick)
    places       481-496    16  finishing place (1st-4th, one-hot) of each seat slot
    scores       497-500     4  match score of each seat slot, / 60, capped at 1
    target       501-504     4  one-hot current target: 21, 31, 41, 51
    phase        505-506     2  one-hot: play, exchange (choosing the card to give back)
    start_duty   507         1  1 when my play must contain the start card
    exchange     508-537    30  rank I received, rank I gave in this hand's exchange
    rules        538-543     6  variant flags: sticky_pass=True, joker_pair=True,
                                straight_plus_one=True, tie_rule=leader, start_card=3C,
                                no_exchange=True

Actions and mask
----------------
``Discrete(109)``: the rank-level action catalogue of ``murlan_env.game.combos`` (0 pass, 1-15
singles, 16-28 pairs, 29-41 triples, 42-54 quads, 55-107 straights, 108 joker pair); the
engine picks the suits. The exchange (the previous 1st player giving a card back, ranked 3 to
10) is an ordinary turn of that player in phase EXCHANGE, taken with the single of the rank to
give. ``action_mask`` is 1 on the legal actions of the agent to act and all 0 for the others.
An illegal action raises ``ValueError`` naming the legal ones (the env is left unchanged):
wrong moves are programming errors here, not something to learn from; wrap the env in
``pettingzoo.utils.wrappers.TerminateIllegalWrapper`` to punish them instead.

Rewards
-------
Zero-sum in both modes (the four rewards of an event add up to 0); ``murlan_env.game.episode``
defines
them for every env and trainer:

- ``reward="hand"`` (default): when a hand ends, every seat gets its points for the hand minus
  1.5, that is 1st +1.5, 2nd +0.5, 3rd -0.5, last -1.5. Nothing else is rewarded.
- ``reward="match"``: when the match ends, the k winners share +1 (each +1/k) and the 4-k
  others share -1 (each -1/(4-k)): a sole winner +1 and the others -1/3 each; a two-way draw
  +1/2 and -1/2; a three-way draw +1/3 and -1; a four-way draw 0. Nothing before the end.

Episode end
-----------
``episode="match"`` (default): the episode ends, for all agents at once (``terminations``
True), when the match is won or drawn; hands follow each other inside the episode (the next
deal comes from the env's seeded generator). ``episode="hand"``: the episode ends after one
hand (hand 1 of a match, or the hand given to ``reset``). There is no truncation.
``reward="match"`` needs ``episode="match"``.

Arguments
---------
``env(**kwargs)`` wraps ``raw_env(**kwargs)`` in ``OrderEnforcing``, PettingZoo's
``OrderEnforcingWrapper`` with its per-decision paths forwarded directly (the same errors for
stepping, observing or rendering before ``reset``). It does not add
``AssertOutOfBoundsWrapper``: the env itself rejects every illegal action, in the action space
or not, with the ``ValueError`` above, and that wrapper's check would cost as much as the rest
of a decision (see benchmarks/engine.py). Keyword arguments:

- the variant flags of RULES.md section 7: ``sticky_pass``, ``joker_pair``,
  ``straight_plus_one``, ``tie_rule``, ``start_card``, ``no_exchange`` (see ``Rules``);
- ``reward``: ``"hand"`` or ``"match"``; ``episode``: ``"match"`` or ``"hand"``;
- ``render_mode``: ``None``, ``"ansi"`` (``render()`` returns the text) or ``"human"`` (the
  text is printed after every step).

``reset(seed=None, options=None)``: a seed makes the whole episode (deals and dealers)
reproducible; without one the env's generator runs on. ``options={"deal": [4 card strings],
"dealer": d}`` starts from that deal (seat s holds ``deal[s]``); for a later hand of a match
also give ``"hand_no"`` (>= 1), ``"previous": (first, last)`` and optionally ``"scores"`` and
``"target"`` (see ``engine.deal_from``). ``env.unwrapped.record()`` returns the
``murlan-record/1`` dict of everything played since the last reset; ``env.unwrapped.state``
is the engine ``State`` (a batch of one). Being an attribute, it replaces
PettingZoo's optional ``state()`` global-state method, which this env does not offer.

Version history
---------------
- murlan_v1: the rules piece of the observation has one entry per non-default value of each
  variant flag, so it also carries ``start_card="3C"``.
- murlan_v0: first version.
"""

from __future__ import annotations

from typing import Any

import gymnasium
import numpy as np
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers
from pettingzoo.utils.env_logger import EnvLogger

from murlan_env.envs.driver import (
    GameDriver,
    action_index,
    illegal_action_error,
    split_options,
    start_state,
)
from murlan_env.envs.render import RENDER_MODES, check_render_mode, present, render_text
from murlan_env.game import engine, observation_layout
from murlan_env.game.combos import N_ACTIONS
from murlan_env.game.episode import HAND, MATCH, check_modes
from murlan_env.game.state import N_SEATS
from murlan_env.game.version import ENV_NAME

AGENTS: tuple[str, ...] = tuple(f"player_{seat}" for seat in range(N_SEATS))
SEAT_OF = {agent: seat for seat, agent in enumerate(AGENTS)}


# --------------------------------------------------------------------------- the env


class MurlanAECEnv(AECEnv):
    """Murlan for four PettingZoo agents; see the module docstring for the reference."""

    metadata = {"name": ENV_NAME, "render_modes": RENDER_MODES, "is_parallelizable": False}

    def __init__(
        self,
        *,
        reward: str = HAND,
        episode: str = MATCH,
        render_mode: str | None = None,
        **rules_flags: Any,
    ) -> None:
        super().__init__()
        self.rules, rest = split_options(dict(rules_flags))
        if rest:
            raise TypeError(f"unknown argument(s) {sorted(rest)}")
        check_modes(reward, episode)
        check_render_mode(render_mode)
        self.reward_mode = reward
        self.episode_mode = episode
        self.render_mode = render_mode
        self.possible_agents = list(AGENTS)
        self._obs_space = observation_layout.observation_space()
        self._act_space = gymnasium.spaces.Discrete(N_ACTIONS)
        self.observation_spaces = {a: self._obs_space for a in self.possible_agents}
        self.action_spaces = {a: self._act_space for a in self.possible_agents}
        self._rng: np.random.Generator | None = None
        self._driver: GameDriver | None = None
        self._bot_rng: np.random.Generator | None = None

    def observation_space(self, agent: str) -> gymnasium.spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> gymnasium.spaces.Space:
        return self.action_spaces[agent]

    # ------------------------------------------------------------------ reset / step

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        if seed is not None or self._rng is None:
            self._rng = np.random.default_rng(seed)
        state = start_state(self._rng, self.rules, options)
        self._driver = GameDriver(state, self._rng, self.reward_mode, self.episode_mode)
        self._bot_rng = self._rng.spawn(1)[0]  # spawning leaves the deals' stream as it is
        self.agents = list(self.possible_agents)
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos = {a: {} for a in self.agents}
        self.agent_selection = AGENTS[self._driver.to_act]
        if self.render_mode == "human":
            self.render()

    def step(self, action: int | None) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        driver = self._driver
        index = action_index(action)
        if index is None or not driver.mask[index]:
            raise illegal_action_error(action, driver.mask, agent)
        self._cumulative_rewards[agent] = 0.0
        self._clear_rewards()
        seat_rewards = driver.play(index)
        if seat_rewards is not None:
            for seat, a in enumerate(AGENTS):
                self.rewards[a] = float(seat_rewards[seat])
            if driver.over:
                self.terminations = {a: True for a in self.agents}
        if not self.terminations[agent]:
            self.agent_selection = AGENTS[driver.to_act]
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        acting = agent == self.agent_selection and not self.terminations.get(agent, True)
        return self._driver.env_observation(SEAT_OF[agent], acting)

    def bot_action(self, bot, rng: np.random.Generator | None = None) -> int:
        """The action ``bot`` (``murlan_env.bots``, e.g. ``make_bot("expert")``) chooses for
        the agent to act, given what murlan's own arena gives it: the hand so far for a bot
        that reads it (``expert``'s belief weighs its worlds by it; ``bot.act`` on the
        observation alone deals them uniformly) and the match's record for a bot in another
        process. ``rng``: the bot's random draws (default: the env's generator)."""
        if self._driver is None:
            raise RuntimeError("bot_action() needs reset() first")
        return self._driver.bot_action(bot, self._bot_rng if rng is None else rng)

    @property
    def state(self) -> engine.State | None:
        """The engine State of the game (a batch of one), or None before ``reset``."""
        return None if self._driver is None else self._driver.state

    # ------------------------------------------------------------------ records, rendering

    def record(self) -> dict:
        """The murlan-record/1 dict of everything played since the last reset."""
        if self._driver is None:
            raise RuntimeError("record() needs reset() first")
        return self._driver.record()

    def render(self) -> str | None:
        return present(self.render_mode, lambda: render_text(self.state))

    def close(self) -> None:
        pass


def raw_env(**kwargs: Any) -> MurlanAECEnv:
    """The unwrapped murlan_v1 AEC environment (keyword arguments: see the module docstring)."""
    return MurlanAECEnv(**kwargs)


def _forwarded(name: str) -> property:
    """A read-only attribute of the wrapped env, an AttributeError before ``reset``."""

    def get(self):
        if not self._has_reset:
            raise AttributeError(f"{name} cannot be accessed before reset")
        return getattr(self.env, name)

    return property(get, doc=f"The wrapped env's ``{name}``.")


class OrderEnforcing(wrappers.OrderEnforcingWrapper):
    """PettingZoo's OrderEnforcingWrapper, with its hot paths forwarded directly.

    The inherited ``last()`` runs on the wrapper and reaches each attribute it reads through
    two ``__getattr__`` levels, which cost as much as the rest of a decision. Here ``last``
    and ``step`` go straight to the env and the attributes read at every decision are plain
    properties, with the same checks and errors as the base class.
    """

    agents = _forwarded("agents")
    agent_selection = _forwarded("agent_selection")
    rewards = _forwarded("rewards")
    terminations = _forwarded("terminations")
    truncations = _forwarded("truncations")
    infos = _forwarded("infos")

    def last(self, observe: bool = True):
        if not self._has_reset:
            EnvLogger.error_observe_before_reset()
        return self.env.last(observe)

    def step(self, action) -> None:
        if not self._has_reset:
            EnvLogger.error_step_before_reset()
        self._has_updated = True
        if not self.env.agents:
            EnvLogger.warn_step_after_terminated_truncated()
        else:
            self.env.step(action)


def env(**kwargs: Any) -> AECEnv:
    """murlan_v1 in PettingZoo's order-enforcing wrapper (see the module docstring)."""
    return OrderEnforcing(raw_env(**kwargs))


__all__ = ["AGENTS", "ENV_NAME", "MurlanAECEnv", "OrderEnforcing", "env", "raw_env"]
