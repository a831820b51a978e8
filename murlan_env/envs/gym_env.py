"""Murlan-v1: Murlan as a single-agent Gymnasium env, and a batched vector env for trainers.

MurlanGymEnv
------------
One learning seat plays a match (or one hand) against three bots. The seat is fixed
(``seat=0..3``) or drawn at every reset (``seat=None``, the default); ``info["seat"]`` says
which. The other seats are played by ``opponents``: one object with the ``Bot`` protocol
(``act(obs, mask, rng) -> actions``, see ``murlan_env.bots.protocol``) for all three, or a
sequence of three, played by the seats after the learner in turn order; the default is
``RandomBot``. Bots act between the learner's turns inside ``step``, so every observation
the learner gets is its own turn to decide (or the end). The game is stepped by
``murlan_env.envs.driver.GameDriver``, as in the AEC env.

- Observation: the same as the AEC env (``murlan_env.env``): ``{"observation": (544,) float32,
  "action_mask": (109,) int8}`` from the learner's seat. The mask is in the observation (not
  in ``info``) so that wrappers and vector envs carry it with the observation; it is all 0 at
  the end of an episode.
- Action: ``Discrete(109)``, the action catalogue of ``murlan_env.game.combos``. An illegal action
  (one the mask forbids) ends the episode at once: ``terminated`` is True, the reward is
  ``illegal_reward`` (default -1) and ``info["illegal_action"]`` holds the action; the game
  is left as it was. This default is the PettingZoo ``TerminateIllegalWrapper`` convention and
  lets the unmasked samples of ``gymnasium.utils.env_checker.check_env`` pass; with
  ``illegal="raise"`` the env raises ``ValueError`` naming the legal actions instead (the AEC
  env always raises).
- Reward: the learner's share of the zero-sum rewards of the AEC env (``reward="hand"``:
  points - 1.5 at each hand end; ``reward="match"``: +1 / -1/3 ... at the match end), summed
  over everything that happened since its previous decision.
- Episode end: ``terminated`` when the match is over (``episode="match"``) or the hand is
  (``episode="hand"``); never truncated.
- Arguments: ``seat``, ``opponents``, ``reward``, ``episode``, ``illegal`` (``"terminate"``
  or ``"raise"``), ``illegal_reward``, ``render_mode`` (``"ansi"`` or ``"human"``) and the
  RULES.md variant flags (``sticky_pass=True`` ...).
  ``reset(options=...)`` takes the AEC env's options (``deal``, ``dealer``, ...) and ``seat``.
- Seeding: ``reset(seed=...)`` seeds deals, the random seat and the bots' choices together.

Registered as ``Murlan-v1`` when ``murlan_env`` is imported: ``gymnasium.make("Murlan-v1",
seat=0)``; ``gymnasium.make_vec("Murlan-v1", num_envs=8)`` runs copies of it in a
``SyncVectorEnv`` (or ``vectorization_mode="async"``).

MurlanVectorEnv
---------------
B self-play games stepped together on the batched engine, a ``gymnasium.vector.VectorEnv``
for trainers that act for every seat: registered as ``MurlanSelfPlay-v1`` for
``gymnasium.make_vec("MurlanSelfPlay-v1", num_envs=B)`` (it has no single-env form). At each
step every game waits for the decision of its seat to act, and one action per game plays it.

- Observation: ``{"observation": (B, 544) float32, "action_mask": (B, 109) int8}``, the single
  env's space batched, from the seat to act in each game (``infos["seat"]``).
- Action: ``MultiDiscrete([109] * B)``, one action id per game; an illegal one raises
  ``ValueError`` naming the game and its legal actions (nothing is stepped).
- Reward: ``(B,)`` float32, the reward of the seat that acted (``infos["acted"]``);
  ``infos["rewards"]`` holds all four seats' ``(B, 4)`` rewards of the step, which is what a
  self-play trainer reads (a hand's end pays every seat, not only the one that ended it).
- Termination: ``episode="match"`` ends an episode at each match end (``infos["hand_over"]``
  marks every hand end, so returns can also be cut per hand while the match goes on);
  ``episode="hand"`` ends every episode after hand 1 of a fresh match. Never truncated.
- Autoreset: ``metadata["autoreset_mode"]`` is ``AutoresetMode.SAME_STEP``: a game whose
  episode ends is dealt anew in the same call, so its returned observation is already the
  first decision of the next episode; ``infos["winners"]`` and ``infos["scores"]`` keep the
  result of the match that just ended. There is no ``final_obs``: an episode ends with no
  decision left to observe and is never truncated, so nothing bootstraps from it.
- Infos: Gymnasium's vector layout, each key an array over the games with its ``_key`` mask:
  ``seat`` (to act now), ``acted``, ``rewards``, ``hand_over``, ``winners``, ``scores``.
- Seeding: ``reset(seed=...)`` restarts the env's ``np.random.Generator`` (the ``seed``
  argument seeds it at construction); the step path has no Python loop over games. The
  batched step itself is ``murlan_env.game.episode.advance``, which the trainers' rollouts
  also play.

Version history
---------------
- Murlan-v1: the observation of murlan_v1 (see ``murlan_env.env``).
- Murlan-v0: first version.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import gymnasium
import numpy as np
from gymnasium.vector import AutoresetMode
from gymnasium.vector.utils import batch_space

from murlan_env.bots.baseline import RandomBot
from murlan_env.bots.protocol import Bot
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
from murlan_env.game.episode import HAND, MATCH, advance, check_modes
from murlan_env.game.state import N_SEATS, State
from murlan_env.game.version import GYM_ID

ENV_ID = GYM_ID


def _opponents(opponents: Bot | Sequence[Bot] | None) -> list[Bot]:
    """Three bots from None (random), one bot or a sequence of three."""
    if opponents is None:
        return [RandomBot()] * 3
    if hasattr(opponents, "act"):
        return [opponents] * 3
    bots = list(opponents)
    if len(bots) != 3 or not all(hasattr(b, "act") for b in bots):
        raise ValueError("opponents is one Bot or a sequence of three (objects with act())")
    return bots


class MurlanGymEnv(gymnasium.Env):
    """One learning seat against three bots; see the module docstring for the reference."""

    metadata = {"name": ENV_ID, "render_modes": RENDER_MODES, "render_fps": 4}

    def __init__(
        self,
        seat: int | None = None,
        opponents: Bot | Sequence[Bot] | None = None,
        *,
        reward: str = HAND,
        episode: str = MATCH,
        illegal: str = "terminate",
        illegal_reward: float = -1.0,
        render_mode: str | None = None,
        **rules_flags: Any,
    ) -> None:
        self.rules, rest = split_options(dict(rules_flags))
        if rest:
            raise TypeError(f"unknown argument(s) {sorted(rest)}")
        check_modes(reward, episode)
        if illegal not in ("terminate", "raise"):
            raise ValueError(f'illegal must be "terminate" or "raise", got {illegal!r}')
        if seat is not None and seat not in range(N_SEATS):
            raise ValueError(f"seat must be 0-3 or None (random), got {seat!r}")
        check_render_mode(render_mode)
        self.fixed_seat = seat
        self.opponents = _opponents(opponents)
        self.reward_mode = reward
        self.episode_mode = episode
        self.illegal = illegal
        self.illegal_reward = float(illegal_reward)
        self.render_mode = render_mode
        self.observation_space = observation_layout.observation_space()
        self.action_space = gymnasium.spaces.Discrete(N_ACTIONS)
        self.seat = 0 if seat is None else seat
        self._driver: GameDriver | None = None
        self._over = False

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        super().reset(seed=seed)
        options = dict(options or {})
        seat = options.pop("seat", self.fixed_seat)
        self.seat = int(self.np_random.integers(N_SEATS)) if seat is None else int(seat)
        state = start_state(self.np_random, self.rules, options)
        self._driver = GameDriver(state, self.np_random, self.reward_mode, self.episode_mode)
        self._over = False
        self._play_bots()
        if self.render_mode == "human":
            self.render()
        return self._observation(), {"seat": self.seat}

    @property
    def state(self) -> State | None:
        """The engine State of the game (a batch of one), or None before ``reset``."""
        return None if self._driver is None else self._driver.state

    def step(self, action: int) -> tuple[dict[str, np.ndarray], float, bool, bool, dict]:
        if self._driver is None:
            raise RuntimeError("call reset() before step()")
        if self._over:
            raise RuntimeError("the episode is over: call reset()")
        mask = self._driver.mask
        index = action_index(action)
        if index is None or not mask[index]:
            if self.illegal == "raise":
                raise illegal_action_error(action, mask, f"seat {self.seat}")
            self._over = True
            info = {"seat": self.seat, "illegal_action": action}
            return self._observation(), self.illegal_reward, True, False, info
        reward = self._apply(index)
        reward += self._play_bots()
        if self.render_mode == "human":
            self.render()
        return self._observation(), reward, self._over, False, {"seat": self.seat}

    def _apply(self, action: int) -> float:
        """Play one decision of the seat to act; returns the learner's reward for it."""
        rewards = self._driver.play(action)
        self._over = self._driver.over
        return 0.0 if rewards is None else float(rewards[self.seat])

    def _play_bots(self) -> float:
        """Let the bots act until it is the learner's turn or the episode is over."""
        reward = 0.0
        driver = self._driver
        while not self._over and driver.to_act != self.seat:
            to_act = driver.to_act
            bot = self.opponents[(to_act - self.seat) % N_SEATS - 1]
            action = driver.bot_action(bot, self.np_random)
            if not 0 <= action < N_ACTIONS or not driver.mask[action]:
                raise illegal_action_error(
                    action, driver.mask, f"bot {bot.name!r} at seat {to_act}"
                )
            reward += self._apply(action)
        return reward

    def _observation(self) -> dict[str, np.ndarray]:
        return self._driver.env_observation(self.seat, acting=not self._over)

    def record(self) -> dict:
        """The murlan-record/1 dict of everything played since the last reset."""
        if self._driver is None:
            raise RuntimeError("record() needs reset() first")
        return self._driver.record()

    def render(self) -> str | None:
        return present(
            self.render_mode, lambda: render_text(self.state) + f"\nlearner: player_{self.seat}"
        )


# --------------------------------------------------------------------------- vector env


class MurlanVectorEnv(gymnasium.vector.VectorEnv):
    """B self-play games stepped together, autoreset in the same step; see the module doc."""

    metadata = {"autoreset_mode": AutoresetMode.SAME_STEP, "render_modes": []}

    def __init__(
        self,
        num_envs: int,
        *,
        reward: str = HAND,
        episode: str = MATCH,
        seed: int | None = None,
        **rules_flags: Any,
    ) -> None:
        self.rules, rest = split_options(dict(rules_flags))
        if rest:
            raise TypeError(f"unknown argument(s) {sorted(rest)}")
        check_modes(reward, episode)
        if num_envs < 1:
            raise ValueError(f"num_envs must be >= 1, got {num_envs}")
        self.num_envs = num_envs
        self.reward_mode = reward
        self.episode_mode = episode
        self.rng = np.random.default_rng(seed)
        self.single_observation_space = observation_layout.observation_space()
        self.single_action_space = gymnasium.spaces.Discrete(N_ACTIONS)
        self.observation_space = batch_space(self.single_observation_space, num_envs)
        self.action_space = batch_space(self.single_action_space, num_envs)
        self.state: State | None = None
        self._mask: np.ndarray | None = None

    def reset(
        self, *, seed: int | list[int] | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, np.ndarray], dict[str, np.ndarray]]:
        """New matches in every game; a seed restarts the env's generator (options: none)."""
        if seed is not None:
            self.rng = np.random.default_rng(seed)
        self.state = engine.init(self.rng, self.num_envs, self.rules)
        infos = {"seat": self.state.to_act.copy(), "scores": self.state.scores.copy()}
        return self._observation(), _with_masks(infos, self.num_envs)

    def step(
        self, actions: np.ndarray
    ) -> tuple[dict[str, np.ndarray], np.ndarray, np.ndarray, np.ndarray, dict[str, np.ndarray]]:
        """One action per game, for its seat to act; returns Gymnasium's five batched values."""
        if self.state is None:
            raise RuntimeError("call reset() before step()")
        actions = np.asarray(actions).reshape(-1)
        if actions.shape[0] != self.num_envs:
            raise ValueError(f"expected {self.num_envs} actions, got {actions.shape[0]}")
        games = np.arange(self.num_envs)
        legal = self._mask[games, np.clip(actions, 0, N_ACTIONS - 1)]
        legal &= (actions >= 0) & (actions < N_ACTIONS)
        if not legal.all():
            g = int(np.flatnonzero(~legal)[0])
            raise illegal_action_error(actions[g], self._mask[g], f"game {g}")
        acted = self.state.to_act.copy()
        self.state, step = advance(
            self.state, actions, self.rng, reward=self.reward_mode, episode=self.episode_mode
        )
        infos = {
            "seat": self.state.to_act.copy(),
            "acted": acted,
            "rewards": step.rewards,
            "hand_over": step.hand_over,
            "winners": step.winners,
            "scores": step.scores,
        }
        return (
            self._observation(),
            step.rewards[games, acted],
            step.ended,
            np.zeros(self.num_envs, bool),
            _with_masks(infos, self.num_envs),
        )

    def _observation(self) -> dict[str, np.ndarray]:
        self._mask = engine.legal_action_mask(self.state)
        return {"observation": engine.observe(self.state), "action_mask": self._mask.view(np.int8)}


def _with_masks(infos: dict[str, np.ndarray], n: int) -> dict[str, np.ndarray]:
    """Gymnasium's vector info layout: each key's array and ``_key``, the games that have it
    (here all of them)."""
    every = np.ones(n, bool)
    return {**infos, **{f"_{key}": every for key in infos}}


__all__ = ["ENV_ID", "MurlanGymEnv", "MurlanVectorEnv"]
