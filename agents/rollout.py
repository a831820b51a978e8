"""Self-play rollouts on the batched engine: what a worker does between two learner updates.

``SelfPlay`` steps ``num_envs`` matches together on ``murlan_env.game.engine``: one batched forward
pass per step for every game whose seat to act belongs to the learner, bots or frozen
snapshots for the others. A match goes on hand after hand; finished matches are dealt anew.
Rewards come from ``murlan_env.game.episode`` (the definition the environments pay): with
``reward="hand"`` an episode is a hand, with ``reward="match"`` a match.

Per-seat trajectories are kept time-major, (T, B) arrays with the acting seat of each step;
``agents.returns`` turns them into GAE advantages (PPO, bootstrapping unfinished episodes
with each seat's value of the final state) or Monte-Carlo returns (DMC: decisions whose hand
has not ended yet are carried over to the next call, up to ``carry_steps`` steps back, so no
decision is lost to the window's edge). Only the learner's decisions are returned, written
into arrays that a ``sink`` provides: plain arrays in this process, or a shared-memory slot
that the learner reads without a copy (``agents.transport``, ``agents.workers``).
"""

from __future__ import annotations

import dataclasses
import enum
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import numpy as np
import torch

from agents.networks import build_network, masked_logits, policy_scores
from agents.returns import gae_advantages, mc_returns
from agents.transport import LocalSink
from murlan_env.bots import registry
from murlan_env.game import engine, episode, observation
from murlan_env.game.combos import N_ACTIONS
from murlan_env.game.observation import HIDDEN_SIZE
from murlan_env.game.observation import SIZE as OBS_SIZE
from murlan_env.game.rules import Rules
from murlan_env.game.state import N_SEATS


@dataclasses.dataclass
class RolloutSettings:
    """What a worker needs to play: the picklable subset of a trainer's config."""

    algorithm: str  # "ppo" or "dmc": how actions are chosen and what is returned
    spec: dict  # network spec (networks.make_spec)
    num_envs: int  # matches stepped together by this worker
    num_steps: int  # engine steps per collect call
    reward: str = episode.HAND  # murlan_env.game.episode reward mode (it also names the episode)
    rules: dict = dataclasses.field(default_factory=dict)  # variant flags (Rules.from_dict)
    gamma: float = 1.0  # discount per decision of the same seat
    gae_lambda: float = 0.95  # GAE lambda (PPO)
    epsilon: float = 0.01  # exploration rate (DMC)
    snapshot_share: float = 0.0  # share of games against frozen snapshots of the learner
    bot_share: float = 0.0  # share of games against bots
    bots: tuple[str, ...] = ("random",)  # bot specs (murlan_env.bots.registry) for the bot share
    carry_steps: int = 192  # DMC: how far back unfinished hands are kept
    torch_threads: int = 1  # intra-op threads of a process or Ray worker's forward passes
    inference: str = "local"  # the learner's forward passes: "local" or an inference "server"


class Opponents(enum.IntEnum):
    """Who the learner plays in a rollout game (the games of a worker, in this order)."""

    SELF = 0  # self-play: the learner acts for all four seats
    SNAPSHOT = 1  # the learner in one seat, a frozen snapshot of it in the other three
    BOTS = 2  # the learner in one seat, bots in the other three


def privileged(settings: RolloutSettings) -> bool:
    """Whether the learner's critic reads the hidden hands."""
    return settings.spec.get("critic") == "privileged"


def batch_spec(settings: RolloutSettings, rows: int) -> dict[str, tuple[tuple[int, ...], Any]]:
    """The arrays of a batch of ``rows`` learner decisions: name -> (shape, dtype)."""
    if settings.algorithm == "dmc":
        return {
            "obs": ((rows, OBS_SIZE), np.float32),
            "action": ((rows,), np.int64),
            "return": ((rows,), np.float32),
        }
    spec = {
        "obs": ((rows, OBS_SIZE), np.float32),
        "mask": ((rows, N_ACTIONS), np.bool_),
        "action": ((rows,), np.int64),
        "logp": ((rows,), np.float32),
        "value": ((rows,), np.float32),
        "advantage": ((rows,), np.float32),
        "return": ((rows,), np.float32),
    }
    if privileged(settings):
        spec["hidden"] = ((rows, HIDDEN_SIZE), np.float32)
    return spec


def max_rows(settings: RolloutSettings) -> int:
    """The most learner decisions one ``collect`` call can return."""
    steps = settings.num_steps + (settings.carry_steps if settings.algorithm == "dmc" else 0)
    return settings.num_envs * steps


def sample_from_logits(logits: torch.Tensor, rng: np.random.Generator) -> np.ndarray:
    """(B,) actions sampled from masked logits with numpy's rng (reproducible anywhere)."""
    probs = torch.softmax(logits, -1).double().numpy()
    cum = np.cumsum(probs, axis=1)
    u = rng.random(len(cum))[:, None] * cum[:, -1:]
    return np.minimum((cum <= u).sum(1), logits.shape[1] - 1)


class SelfPlay:
    """``num_envs`` matches and the learner's (and opponents') networks; see module doc."""

    def __init__(self, settings: RolloutSettings, seed: int, policy=None) -> None:
        """``policy``: what answers the learner's forward passes instead of a local copy of
        the network (an ``agents.inference.RemotePolicy``)."""
        self.s = settings
        self.rng = np.random.default_rng(seed)
        self.rules = Rules.from_dict(settings.rules)
        self.state = engine.init(self.rng, settings.num_envs, self.rules)
        self.net = build_network(settings.spec).eval() if policy is None else policy
        self.opponent_net = build_network(settings.spec).eval()
        self.bots = [registry.make_bot(n) for n in settings.bots]
        self._bot_thread: ThreadPoolExecutor | None = None  # started by the first bot move
        b = settings.num_envs
        self.n_snapshot = int(round(b * settings.snapshot_share))
        self.n_bot = int(round(b * settings.bot_share)) if self.bots else 0
        self.n_self = b - self.n_snapshot - self.n_bot
        self.carry: dict[str, np.ndarray] | None = None
        self.hand_len = np.zeros(b, np.int64)
        t = settings.num_steps
        self.buf = {
            "obs": np.zeros((t, b, OBS_SIZE), np.float32),
            "mask": np.zeros((t, b, N_ACTIONS), bool),
            "action": np.zeros((t, b), np.int64),
            "seat": np.zeros((t, b), np.int8),
            "learner": np.zeros((t, b), bool),
            "logp": np.zeros((t, b), np.float32),
            "value": np.zeros((t, b), np.float32),
            "ended": np.zeros((t, b), bool),
            "reward": np.zeros((t, b, N_SEATS), np.float32),
        }
        if privileged(settings):
            self.buf["hidden"] = np.zeros((t, b, HIDDEN_SIZE), np.float32)

    # ------------------------------------------------------------------ acting
    def _networks(self, t: int, rows: np.ndarray, rows_snap: np.ndarray) -> tuple:
        """The forward passes of a step: the learner's outputs on ``rows`` and the
        snapshot's scores on ``rows_snap`` (no random draws, so they can overlap the bots)."""
        buf = self.buf
        o, m = torch.from_numpy(buf["obs"][t, rows]), torch.from_numpy(buf["mask"][t, rows])
        if self.s.algorithm == "ppo":
            hidden = torch.from_numpy(buf["hidden"][t, rows]) if "hidden" in buf else None
            logits, value = self.net.logits_and_value(o, hidden)
            learner = (masked_logits(logits, m), value)
        else:
            learner = (policy_scores(self.net, o, m), None)
        snap = None
        if len(rows_snap):
            snap = policy_scores(
                self.opponent_net,
                torch.from_numpy(buf["obs"][t, rows_snap]),
                torch.from_numpy(buf["mask"][t, rows_snap]),
            )
        return learner, snap

    def _learner_choose(self, t: int, rows: np.ndarray, scores, value) -> None:
        buf = self.buf
        if self.s.algorithm == "ppo":
            acts = sample_from_logits(scores, self.rng)
            logp = torch.log_softmax(scores, -1).gather(1, torch.from_numpy(acts)[:, None])
            buf["logp"][t, rows] = logp.squeeze(1).numpy()
            buf["value"][t, rows] = value.numpy()
        else:
            acts = scores.argmax(-1).numpy()
            explore = self.rng.random(len(rows)) < self.s.epsilon
            if explore.any():
                acts[explore] = engine.random_legal_actions(buf["mask"][t, rows[explore]], self.rng)
        buf["action"][t, rows] = acts

    def _snapshot_choose(self, t: int, rows: np.ndarray, scores) -> None:
        if self.s.algorithm == "ppo":
            self.buf["action"][t, rows] = sample_from_logits(scores, self.rng)
        else:
            self.buf["action"][t, rows] = scores.argmax(-1).numpy()

    def _bots_act(self, t: int, rows_bot: np.ndarray, bot_of_game: np.ndarray) -> None:
        obs, mask, actions = self.buf["obs"][t], self.buf["mask"][t], self.buf["action"][t]
        for k, bot in enumerate(self.bots):
            r = rows_bot[bot_of_game[rows_bot] == k]
            if len(r):
                actions[r] = bot.act(obs[r], mask[r], self.rng)

    def _act(self, t: int, rows: np.ndarray, rows_snap, rows_bot, bot_of_game) -> None:
        """Every seat to act at step ``t`` chooses: the learner's rows, the snapshots' and
        the bots'.

        The bots think in a second thread while this one runs the networks: torch lets go of
        the GIL in its kernels, so on two cores the rule bot's Python and the forward passes
        overlap. Only the bots draw from the generator meanwhile; the learner and the
        snapshots draw after them, in a fixed order, so a seed replays exactly.
        """
        bots = None
        if len(rows_bot):
            if self._bot_thread is None:
                self._bot_thread = ThreadPoolExecutor(1, thread_name_prefix="murlan-bots")
            bots = self._bot_thread.submit(self._bots_act, t, rows_bot, bot_of_game)
        (scores, value), snap = self._networks(t, rows, rows_snap)
        if bots is not None:
            bots.result()
        self._learner_choose(t, rows, scores, value)
        if snap is not None:
            self._snapshot_choose(t, rows_snap, snap)

    # ------------------------------------------------------------------ collecting
    @torch.inference_mode()
    def collect(
        self, weights: dict, snapshots: list[dict] | None = None, sink=None
    ) -> dict[str, Any]:
        """Play ``num_steps`` steps with the given learner weights; return the learner's
        samples (arrays from ``sink``, default plain arrays) and ``"stats"``."""
        s, rng, buf = self.s, self.rng, self.buf
        t_start = time.perf_counter()
        self.net.load_state_dict(weights)
        b, steps = s.num_envs, s.num_steps
        # Who plays what: games [0, n_self) self-play, then snapshots, then bots.
        kind = np.full(b, Opponents.SELF, np.int8)
        n_snap = self.n_snapshot if snapshots else 0
        kind[self.n_self : self.n_self + n_snap] = Opponents.SNAPSHOT
        kind[self.n_self + self.n_snapshot : self.n_self + self.n_snapshot + self.n_bot] = (
            Opponents.BOTS
        )
        learner_seat = rng.integers(0, N_SEATS, b)
        if n_snap:
            self.opponent_net.load_state_dict(snapshots[int(rng.integers(len(snapshots)))])
        bot_of_game = rng.integers(0, max(len(self.bots), 1), b)
        stats = {
            "hands": 0,
            "matches": 0,
            "learner_points": dict.fromkeys(Opponents, 0.0),
            "games_of": dict.fromkeys(Opponents, 0),
        }
        hand_lengths = []
        t_engine = 0.0
        state = self.state
        for t in range(steps):
            t0 = time.perf_counter()
            mask = engine.legal_action_mask(state)
            observation.encode(state, out=buf["obs"][t])
            if "hidden" in buf:
                observation.encode_hidden(state, out=buf["hidden"][t])
            seat = state.to_act.copy()
            t_engine += time.perf_counter() - t0
            learner = (kind == Opponents.SELF) | (seat == learner_seat)
            buf["mask"][t], buf["seat"][t], buf["learner"][t] = mask, seat, learner
            opp = ~learner
            self._act(
                t,
                np.flatnonzero(learner),
                np.flatnonzero(opp & (kind == Opponents.SNAPSHOT)),
                np.flatnonzero(opp & (kind == Opponents.BOTS)),
                bot_of_game,
            )
            t0 = time.perf_counter()
            # Matches go on hand after hand; the reward mode names where returns are cut.
            state, step = episode.advance(
                state, buf["action"][t], rng, reward=s.reward, donate=True
            )
            t_engine += time.perf_counter() - t0
            buf["ended"][t] = episode.ended(step, s.reward)
            buf["reward"][t] = step.rewards
            self.hand_len += 1
            hand_end = step.hand_over
            if hand_end.any():
                stats["hands"] += int(hand_end.sum())
                hand_lengths += self.hand_len[hand_end].tolist()
                self.hand_len[hand_end] = 0
                pts = step.points[np.arange(b), learner_seat]
                for k in (Opponents.SNAPSHOT, Opponents.BOTS):
                    g = hand_end & (kind == k)
                    stats["learner_points"][k] += float(pts[g].sum())
                    stats["games_of"][k] += int(g.sum())
                stats["matches"] += int(step.done.sum())
        self.state = state
        sink = sink or LocalSink()
        out = self._gae(sink) if s.algorithm == "ppo" else self._mc_returns(sink)
        out["stats"] = {
            "decisions": steps * b,
            "learner_decisions": int(buf["learner"].sum()),
            "hands": stats["hands"],
            "matches": stats["matches"],
            "hand_length": float(np.mean(hand_lengths)) if hand_lengths else float("nan"),
            "points_vs_snapshot": _ratio(
                stats["learner_points"][Opponents.SNAPSHOT], stats["games_of"][Opponents.SNAPSHOT]
            ),
            "points_vs_bots": _ratio(
                stats["learner_points"][Opponents.BOTS], stats["games_of"][Opponents.BOTS]
            ),
            "seconds": time.perf_counter() - t_start,
            "engine_seconds": t_engine,
        }
        return out

    def _gae(self, sink) -> dict[str, np.ndarray]:
        s, buf = self.s, self.buf
        b = s.num_envs
        # Bootstrap: each seat's value of the final state, from its own point of view.
        next_v = np.zeros((b, N_SEATS), np.float32)
        for k in range(N_SEATS):
            obs = torch.from_numpy(observation.encode(self.state, k))
            hidden = None
            if "hidden" in buf:
                hidden = torch.from_numpy(observation.encode_hidden(self.state, k))
            next_v[:, k] = self.net.value(obs, hidden).numpy()
        adv = gae_advantages(
            buf["seat"],
            buf["learner"],
            buf["value"],
            buf["ended"],
            buf["reward"],
            next_v,
            s.gamma,
            s.gae_lambda,
        )
        sel = buf["learner"].reshape(-1)
        out = sink.arrays(batch_spec(s, int(sel.sum())))
        for name in ("obs", "mask", "action", "logp", "value", "hidden"):
            if name in out:
                arr = buf[name]
                np.compress(sel, arr.reshape(sel.size, *arr.shape[2:]), axis=0, out=out[name])
        np.compress(sel, adv.reshape(-1), out=out["advantage"])
        np.add(out["advantage"], out["value"], out=out["return"])
        return out

    def _mc_returns(self, sink) -> dict[str, np.ndarray]:
        # Copies: the carry outlives this call, and the buffers are refilled by the next one.
        keys = ("action", "seat", "learner", "ended", "reward")
        new = {k: self.buf[k].copy() for k in keys}
        new["obs"] = observation.to_codes(self.buf["obs"])  # the carry is large: uint8 codes
        new["emitted"] = np.zeros(new["action"].shape, bool)
        if self.carry is not None:
            new = {k: np.concatenate([self.carry[k], new[k]]) for k in new}
        ret, has = mc_returns(new["seat"], new["ended"], new["reward"])
        sel = (new["learner"] & has & ~new["emitted"]).reshape(-1)
        out = sink.arrays(batch_spec(self.s, int(sel.sum())))
        observation.from_codes(new["obs"].reshape(sel.size, OBS_SIZE)[sel], out=out["obs"])
        np.compress(sel, new["action"].reshape(-1), out=out["action"])
        np.compress(sel, ret.reshape(-1), out=out["return"])
        new["emitted"] |= has
        keep = max(0, len(new["seat"]) - self.s.carry_steps)
        self.carry = {k: v[keep:] for k, v in new.items()}
        return out

    # ------------------------------------------------------------------ resuming
    def get_state(self) -> dict:
        """What a resumed run needs to go on exactly: the generator, games and carry."""
        return {
            "rng": self.rng.bit_generator.state,
            "state": self.state.copy(),
            "carry": self.carry,
            "hand_len": self.hand_len.copy(),
        }

    def set_state(self, st: dict) -> None:
        self.rng.bit_generator.state = st["rng"]
        self.state, self.carry, self.hand_len = st["state"].copy(), st["carry"], st["hand_len"]


def _ratio(total: float, n: int) -> float:
    return total / n if n else float("nan")


__all__ = [
    "Opponents",
    "RolloutSettings",
    "SelfPlay",
    "batch_spec",
    "max_rows",
    "privileged",
    "sample_from_logits",
]
