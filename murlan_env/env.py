"""murlan_v0: Murlan as a PettingZoo AEC environment (one game over the batched engine).

Description
-----------
Four players shed their cards by beating the play on the table (RULES.md). A match runs
hand after hand until a player wins (or a draw at the capped target). This module is a thin
adapter: every rule lives in ``murlan_env.engine``; the env steps one game through
``murlan_env.driver.GameDriver`` and the engine's single-game fast path, ``murlan_env.game``.

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
``{"observation": Box(0, high, (543,), float32), "action_mask": Box(0, 1, (109,), int8)}``.
The observation is ``engine.observe`` from the observing seat's point of view (egocentric:
seat slot 0 is the observer, then the next seats in turn order); it holds only what that seat
may know. Every entry lies in [0, 1].
The layout (``engine.OBS_PIECES``; ``observation_table()`` regenerates this table):

    piece        entries  size  meaning
    -----------------------------------
    my_hand      0-59       60  my cards: 15 ranks x 4 thermometer bits
    played       60-299    240  cards each seat slot has played this hand: 4 x (15 x 4)
    unseen       300-359    60  cards neither in my hand nor played (held by the others): 15 x 4
    cards_left   360-363     4  cards each seat slot holds, / 15 (15: a 1st player mid-exchange)
    table_action 364-472   109  one-hot action id of the play to beat (all 0: empty table)
    table_seat   473-476     4  one-hot seat slot that made the play to beat
    passed       477-480     4  seat slots that passed since the play to beat (sticky: since the
                                trick began)
    places       481-496    16  finishing place (1st-4th, one-hot) of each seat slot, 0 while
                                playing
    scores       497-500     4  match score of each seat slot, / 60, capped at 1
    target       501-504     4  one-hot current target: 21, 31, 41, 51
    phase        505-506     2  one-hot: play, exchange (choosing the card to give back)
    start_duty   507         1  1 when my play must contain the start card
    exchange     508-537    30  rank I received, rank I gave in this hand's exchange: 2 x 15 one-hot
    rules        538-542     5  variant flags: sticky_pass, joker_pair, straight_plus_one,
                                tie_rule=leader, no_exchange

Actions and mask
----------------
``Discrete(109)``: the rank-level action table of ``murlan_env.combos`` (0 pass, 1-15
singles, 16-28 pairs, 29-41 triples, 42-54 quads, 55-107 straights, 108 joker pair); the
engine picks the suits. The exchange (the previous 1st player giving a card back, ranked 3 to
10) is an ordinary turn of that player in phase EXCHANGE, taken with the single of the rank to
give. ``action_mask`` is 1 on the legal actions of the agent to act and all 0 for the others.
An illegal action raises ``ValueError`` naming the legal ones (the env is left unchanged):
wrong moves are programming errors here, not something to learn from; wrap the env in
``pettingzoo.utils.wrappers.TerminateIllegalWrapper`` to punish them instead.

Rewards
-------
Zero-sum in both modes (the four rewards of an event add up to 0):

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
is the engine ``State`` (a batch of one, built when read). Being an attribute, it replaces
PettingZoo's optional ``state()`` global-state method, which this env does not offer.

Version history
---------------
- murlan_v0: first version.
"""

from __future__ import annotations

import sys
import textwrap
import types
from collections.abc import Callable
from typing import Any

import gymnasium
import numpy as np
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers
from pettingzoo.utils.env_logger import EnvLogger

from murlan_env import engine
from murlan_env.cards import CARD_NAMES, format_cards
from murlan_env.combos import N_ACTIONS, describe
from murlan_env.driver import (
    GameDriver,
    check_modes,
    hand_rewards,
    match_rewards,
)
from murlan_env.engine import N_SEATS, OBS_PIECES, OBS_SIZE, Phase
from murlan_env.rules import RULE_CHOICES, Rules

AGENTS: tuple[str, ...] = tuple(f"player_{seat}" for seat in range(N_SEATS))
SEAT_OF = {agent: seat for seat, agent in enumerate(AGENTS)}
RENDER_MODES = ["ansi", "human"]


def observation_high(rules: Rules) -> np.ndarray:
    """(OBS_SIZE,) float32 upper bound of each observation entry: 1 under every rule set."""
    del rules  # the engine scales every piece into [0, 1]
    return np.ones(OBS_SIZE, np.float32)


def observation_table(width: int = 96) -> str:
    """The observation layout as the fixed-width table of this module's docstring."""
    head = f"{'piece':<13}{'entries':<9}{'size':>4}  meaning"
    rows = [head, "-" * len(head)]
    offset = 0
    for name, size, meaning in OBS_PIECES:
        span = f"{offset}" if size == 1 else f"{offset}-{offset + size - 1}"
        lead = f"{name:<13}{span:<9}{size:>4}  "
        wrapped = textwrap.wrap(meaning, width - len(lead)) or [""]
        rows.append(lead + wrapped[0])
        rows.extend(" " * len(lead) + more for more in wrapped[1:])
        offset += size
    return "\n".join(rows)


def observation_space(rules: Rules) -> gymnasium.spaces.Dict:
    """The Dict observation space shared by the AEC and Gymnasium envs."""
    high = observation_high(rules)
    return gymnasium.spaces.Dict(
        {
            "observation": gymnasium.spaces.Box(0.0, high, (OBS_SIZE,), np.float32),
            "action_mask": gymnasium.spaces.Box(0, 1, (N_ACTIONS,), np.int8),
        }
    )


def split_options(kwargs: dict[str, Any]) -> tuple[Rules, dict[str, Any]]:
    """Split env keyword arguments into the Rules and the rest (raising on unknown names)."""
    flags = {k: kwargs.pop(k) for k in list(kwargs) if k in RULE_CHOICES}
    return Rules.from_dict(flags), kwargs


def illegal_action_error(action: Any, mask: np.ndarray, who: str) -> ValueError:
    """The ValueError for an illegal action, naming the legal ones."""
    legal = ", ".join(f"{a} ({describe(a)})" for a in np.flatnonzero(mask))
    return ValueError(f"action {action!r} is not legal for {who}; legal actions: {legal}")


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


def start_state(rng: np.random.Generator, rules: Rules, options: dict | None) -> engine.State:
    """A new game (batch of one): random, or from ``options["deal"]`` (see ``reset``).

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


# --------------------------------------------------------------------------- rendering


def render_text(state: engine.State, game: int = 0) -> str:
    """A plain-text picture of one game: scores, hands, the table and the last decision."""
    s = state.index(np.array([game]))
    phase = Phase(int(s.phase[0]))
    lines = [
        f"hand {int(s.hand_no[0]) + 1}, dealer player_{int(s.dealer[0])}, "
        f"scores {s.scores[0].tolist()}, target {int(s.target[0])}, {phase.name.lower()}"
    ]
    if s.ex_last[0] >= 0:
        back = int(s.ex_first_gives[0])
        lines.append(
            f"exchange: player_{int(s.ex_last[0])} gave {CARD_NAMES[int(s.ex_last_gives[0])]}, "
            f"player_{int(s.ex_first[0])} gave back {CARD_NAMES[back] if back >= 0 else '...'}"
        )
    places = ("1st", "2nd", "3rd", "4th")
    for seat in range(N_SEATS):
        mark = ">" if phase < Phase.HAND_OVER and s.to_act[0] == seat else " "
        place = int(s.place[0, seat])
        status = places[place] if place >= 0 else ("passed" if s.passed[0, seat] else "")
        cards = format_cards(s.cards[0, seat]) or "-"
        lines.append(f"{mark} player_{seat} ({int(s.counts[0, seat].sum()):2d}) {cards}  {status}")
    if s.table_seat[0] >= 0:
        lines.append(f"table: {describe(int(s.table[0]))} by player_{int(s.table_seat[0])}")
    else:
        lines.append("table: empty")
    if s.last_seat[0] >= 0:
        what = format_cards(s.last_cards[0]) or "pass"
        lines.append(f"last: player_{int(s.last_seat[0])} {what}")
    if s.winners[0].any():
        lines.append("winners: " + ", ".join(f"player_{w}" for w in np.flatnonzero(s.winners[0])))
    return "\n".join(lines)


def record_of(driver: GameDriver | None) -> dict:
    """``record()`` of the single-game envs: the driver's record, an error before reset."""
    if driver is None:
        raise RuntimeError("record() needs reset() first")
    return driver.record()


def present(render_mode: str | None, text: Callable[[], str]) -> str | None:
    """``render()`` of the single-game envs: the text for "ansi", printed for "human"."""
    if render_mode is None:
        gymnasium.logger.warn("render() called without a render_mode (use 'ansi' or 'human')")
        return None
    if render_mode == "human":
        print(text() + "\n")
        return None
    return text()


# --------------------------------------------------------------------------- the env


class MurlanAECEnv(AECEnv):
    """Murlan for four PettingZoo agents; see the module docstring for the reference."""

    metadata = {"name": "murlan_v0", "render_modes": RENDER_MODES, "is_parallelizable": False}

    def __init__(
        self,
        *,
        reward: str = "hand",
        episode: str = "match",
        render_mode: str | None = None,
        **rules_flags: Any,
    ) -> None:
        super().__init__()
        self.rules, rest = split_options(dict(rules_flags))
        if rest:
            raise TypeError(f"unknown argument(s) {sorted(rest)}")
        check_modes(reward, episode)
        if render_mode is not None and render_mode not in RENDER_MODES:
            raise ValueError(
                f"render_mode must be one of {RENDER_MODES} or None, got {render_mode!r}"
            )
        self.reward_mode = reward
        self.episode_mode = episode
        self.render_mode = render_mode
        self.possible_agents = list(AGENTS)
        self._obs_space = observation_space(self.rules)
        self._act_space = gymnasium.spaces.Discrete(N_ACTIONS)
        self.observation_spaces = {a: self._obs_space for a in self.possible_agents}
        self.action_spaces = {a: self._act_space for a in self.possible_agents}
        self._rng: np.random.Generator | None = None
        self._driver: GameDriver | None = None

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

    @property
    def state(self) -> engine.State | None:
        """The engine State of the game (a batch of one), or None before ``reset``."""
        return None if self._driver is None else self._driver.state

    # ------------------------------------------------------------------ records, rendering

    def record(self) -> dict:
        """The murlan-record/1 dict of everything played since the last reset."""
        return record_of(self._driver)

    def render(self) -> str | None:
        return present(self.render_mode, lambda: render_text(self.state))

    def close(self) -> None:
        pass


def raw_env(**kwargs: Any) -> MurlanAECEnv:
    """The unwrapped murlan_v0 AEC environment (keyword arguments: see the module docstring)."""
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
    """murlan_v0 in PettingZoo's order-enforcing wrapper (see the module docstring)."""
    return OrderEnforcing(raw_env(**kwargs))


__all__ = [
    "AGENTS",
    "MurlanAECEnv",
    "OrderEnforcing",
    "observation_high",
    "env",
    "hand_rewards",
    "match_rewards",
    "observation_space",
    "observation_table",
    "raw_env",
    "render_text",
]


class _CallableModule(types.ModuleType):
    """Lets ``murlan_env.env(...)`` build an env even after this module has been imported.

    Importing the submodule ``murlan_env.env`` sets the package attribute ``env`` to the module,
    hiding the ``murlan_env.env()`` factory of ``murlan_env/__init__.py``; calling the module
    calls the factory, so both spellings keep working in any import order.
    """

    def __call__(self, **kwargs: Any) -> AECEnv:
        return env(**kwargs)


sys.modules[__name__].__class__ = _CallableModule
