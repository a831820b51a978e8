"""Self-play rollouts on the batched engine: what a worker does between two learner updates.

``SelfPlay`` steps ``num_envs`` matches together on ``murlan_env.game.engine``: one batched forward
pass per step for every game whose seat to act belongs to the learner, bots or frozen
snapshots for the others. A match goes on hand after hand; finished matches are dealt anew.
Rewards come from ``murlan_env.game.episode`` (the definition the environments pay): with
``reward="hand"`` an episode is a hand, with ``reward="match"`` a match.

Per-seat trajectories are kept time-major, (T, B) arrays with the acting seat of each step.
What differs between algorithms is handed in as an ``Acting`` object (``RolloutSettings.acting``):
how the learner's network scores a step and picks its moves, and how the window's decisions
become a ``Batch`` (PPO's ``PPOActing``: sampled moves, GAE advantages; DMC's ``DMCActing``:
epsilon-greedy moves, Monte-Carlo returns of finished hands). Only the learner's decisions are
returned, as a ``Batch`` whose arrays a ``sink`` provides: plain arrays in this process, or a
shared-memory slot that the learner reads without a copy (``agents.transport``,
``agents.workers``).

A learner whose network reads the hand so far (``networks.reads_history``) gets it at every
step: the rollout keeps ``HandLogs`` of its games (cleared at each new hand), encodes each
acting seat's view with ``HandLogs.encoded`` (``murlan_env.game.hand_history``'s layout), and
hands it to the learner's and the snapshots' forward passes; the batch keeps it as ``history``.
"""

from __future__ import annotations

import copy
import dataclasses
import enum
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Protocol

import numpy as np
import torch

from agents.networks import autocast, build_network, policy_scores, reads_history
from agents.transport import LocalSink
from murlan_env.bots import registry
from murlan_env.bots.history import HandLogs
from murlan_env.game import engine, episode, hand_history, observation
from murlan_env.game.combos import N_ACTIONS
from murlan_env.game.observation import HIDDEN_SIZE
from murlan_env.game.observation import SIZE as OBS_SIZE
from murlan_env.game.rules import Rules
from murlan_env.game.state import N_SEATS


def _rows(shape: tuple[int, ...], dtype: type, meaning: str) -> Any:
    """A ``Batch`` field: one row per learner decision, of ``shape`` and ``dtype``."""
    return dataclasses.field(
        default=None, metadata={"shape": shape, "dtype": dtype, "doc": meaning}
    )


@dataclasses.dataclass
class Batch:
    """The learner's decisions of a rollout, N rows: what one update reads.

    Each field is declared once with its per-row shape, dtype and meaning (``_rows``); the
    arrays an ``Acting`` fills are its ``fields``, the others stay None. ``batch_shapes`` turns
    the declarations into the layout a sink allocates, and ``stats`` says how the rollout went.
    """

    obs: np.ndarray = _rows((OBS_SIZE,), np.float32, "the acting seat's egocentric observation")
    mask: np.ndarray = _rows((N_ACTIONS,), np.bool_, "legal actions (PPO re-applies it)")
    action: np.ndarray = _rows((), np.int64, "the action taken: an index of the action catalogue")
    logp: np.ndarray = _rows((), np.float32, "log-probability of the action when taken (PPO)")
    value: np.ndarray = _rows((), np.float32, "the critic's value of the decision (PPO)")
    advantage: np.ndarray = _rows((), np.float32, "GAE advantage of the action (PPO)")
    returns: np.ndarray = _rows(
        (), np.float32, "target: advantage + value (PPO), the hand's Monte-Carlo return (DMC)"
    )
    hidden_hands: np.ndarray = _rows(
        (HIDDEN_SIZE,), np.float32, "the other seats' hands, for a privileged critic (PPO)"
    )
    history: np.ndarray = _rows(
        (hand_history.LENGTH, 2),
        hand_history.DTYPE,
        "the hand so far (murlan_env.game.hand_history), for a network that reads it (PPO)",
    )
    stats: dict = dataclasses.field(default_factory=dict)
    """The rollout's counts and rates (``SelfPlay.collect``): decisions, learner_decisions,
    hands, matches, hand_length, points_vs_snapshot, points_vs_bots, seconds, engine_seconds."""

    def arrays(self) -> dict[str, np.ndarray]:
        """The filled arrays by name."""
        names = (f.name for f in dataclasses.fields(self) if f.metadata)
        return {k: getattr(self, k) for k in names if getattr(self, k) is not None}

    def __len__(self) -> int:
        return len(self.action)

    @classmethod
    def concat(cls, batches: list[Batch]) -> Batch:
        """The batches of several workers as one; stats summed (counts), the slowest worker's
        (seconds) or averaged (rates)."""
        if len(batches) == 1:
            return batches[0]
        names = batches[0].arrays()
        arrays = {k: np.concatenate([getattr(b, k) for b in batches]) for k in names}
        stats = {}
        for k in batches[0].stats:
            vals = [b.stats[k] for b in batches]
            if k in ("decisions", "learner_decisions", "hands", "matches"):
                stats[k] = sum(vals)
            elif k in ("seconds", "engine_seconds"):
                stats[k] = max(vals)
            else:
                stats[k] = float(np.nanmean(vals)) if not all(np.isnan(vals)) else float("nan")
        return cls(**arrays, stats=stats)


def batch_shapes(fields: tuple[str, ...], rows: int) -> dict[str, tuple[tuple[int, ...], Any]]:
    """The arrays of a ``Batch`` of ``rows`` decisions with ``fields``: name -> (shape, dtype)."""
    declared = {f.name: f.metadata for f in dataclasses.fields(Batch) if f.metadata}
    return {k: ((rows, *declared[k]["shape"]), declared[k]["dtype"]) for k in fields}


class Acting(Protocol):
    """What an algorithm hands the rollout: how its learner acts, and what it learns from.

    ``SelfPlay`` calls ``scores`` for the learner's rows of a step (no random draws, so it
    can overlap the bots' thinking), then ``choose`` (which draws from ``play.rng`` and writes
    ``play.buf["action"]`` and whatever else it keeps); after the last step, ``finish`` turns
    the window (``play.buf``) into the ``Batch`` arrays, written into ``sink``.
    """

    carry_steps: int  # steps of earlier windows a batch may still return decisions of

    def fields(self, settings: RolloutSettings) -> tuple[str, ...]: ...

    def scores(
        self, play: SelfPlay, obs, mask, hidden_hands, history
    ) -> tuple[torch.Tensor, Any]: ...

    def choose(self, play: SelfPlay, t: int, rows: np.ndarray, scores, extra) -> None: ...

    def snapshot_choose(self, scores: torch.Tensor, rng: np.random.Generator) -> np.ndarray: ...

    def finish(self, play: SelfPlay, sink) -> dict[str, np.ndarray]: ...


@dataclasses.dataclass
class RolloutSettings:
    """What a worker needs to play: the picklable subset of a trainer's config."""

    acting: Acting  # the algorithm's part of a rollout (agents.ppo.PPOActing, agents.dmc...)
    arch: dict  # network architecture (networks.make_arch)
    num_envs: int  # matches stepped together by this worker
    rollout_steps: int  # engine steps per collect call
    reward: str = episode.HAND  # murlan_env.game.episode reward mode (it also names the episode)
    rules: dict = dataclasses.field(default_factory=dict)  # variant flags (Rules.from_dict)
    snapshot_share: float = 0.0  # share of games against frozen snapshots of the learner
    bot_share: float = 0.0  # share of games against bots
    bots: tuple[str, ...] = ("random",)  # bot specs (murlan_env.bots.registry) for the bot share
    torch_threads: int = 1  # intra-op threads of a process or Ray worker's forward passes
    inference: str = "local"  # the learner's forward passes: "local" or an inference "server"
    # The arithmetic of a worker's local forward passes (networks.autocast), as an inference
    # server's: PPO passes its learner's (its rollouts sample, so bf16 logits cost no
    # strength); DMC keeps fp32, since it acts on the argmax of Q-values bf16 would blur.
    precision: str = "fp32"


class Opponents(enum.IntEnum):
    """Who the learner plays in a rollout game (the games of a worker, in this order)."""

    SELF = 0  # self-play: the learner acts for all four seats
    SNAPSHOT = 1  # the learner in one seat, a frozen snapshot of it in the other three
    BOTS = 2  # the learner in one seat, bots in the other three


def privileged(settings: RolloutSettings) -> bool:
    """Whether the learner's critic reads the hidden hands."""
    return settings.arch.get("critic") == "privileged"


def max_rows(settings: RolloutSettings) -> int:
    """The most learner decisions one ``collect`` call can return."""
    return settings.num_envs * (settings.rollout_steps + settings.acting.carry_steps)


def sample_from_logits(logits: torch.Tensor, rng: np.random.Generator) -> np.ndarray:
    """(B,) actions sampled from masked logits with numpy's rng (reproducible anywhere)."""
    probs = torch.softmax(logits, -1).double().numpy()
    cum = np.cumsum(probs, axis=1)
    u = rng.random(len(cum))[:, None] * cum[:, -1:]
    return np.minimum((cum <= u).sum(1), logits.shape[1] - 1)


class SelfPlay:
    """``num_envs`` matches and the learner's (and opponents') networks; see module doc."""

    def __init__(
        self, settings: RolloutSettings, seed: int | np.random.SeedSequence, policy=None
    ) -> None:
        """``policy``: what answers the learner's forward passes instead of a local copy of
        the network (an ``agents.inference.RemotePolicy``)."""
        self.s = settings
        self.rng = np.random.default_rng(seed)
        self.rules = Rules.from_dict(settings.rules)
        self.state = engine.init(self.rng, settings.num_envs, self.rules)
        self.net = build_network(settings.arch).eval() if policy is None else policy
        self.opponent_net = build_network(settings.arch).eval()
        self.bots = [registry.make_bot(n) for n in settings.bots]
        self._bot_thread: ThreadPoolExecutor | None = None  # started by the first bot move
        b = settings.num_envs
        self.n_snapshot = int(round(b * settings.snapshot_share))
        self.n_bot = int(round(b * settings.bot_share)) if self.bots else 0
        self.n_self = b - self.n_snapshot - self.n_bot
        self.carry: dict[str, np.ndarray] | None = None
        self.hand_len = np.zeros(b, np.int64)
        t = settings.rollout_steps
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
            self.buf["hidden_hands"] = np.zeros((t, b, HIDDEN_SIZE), np.float32)
        self.logs: HandLogs | None = None  # the hands so far, for a network that reads them
        if reads_history(settings.arch):
            self.logs = HandLogs(b)
            self.buf["history"] = np.zeros((t, b, hand_history.LENGTH, 2), hand_history.DTYPE)

    # ------------------------------------------------------------------ acting
    def _networks(self, t: int, rows: np.ndarray, rows_snap: np.ndarray) -> tuple:
        """The forward passes of a step: the learner's outputs on ``rows`` and the
        snapshot's scores on ``rows_snap`` (no random draws, so they can overlap the bots)."""
        buf = self.buf
        o, m = torch.from_numpy(buf["obs"][t, rows]), torch.from_numpy(buf["mask"][t, rows])
        hands, history = buf.get("hidden_hands"), buf.get("history")
        hands = None if hands is None else torch.from_numpy(hands[t, rows])
        learner_history = None if history is None else torch.from_numpy(history[t, rows])
        snap = None
        with autocast(self.s.precision):
            scores, extra = self.s.acting.scores(self, o, m, hands, learner_history)
            if len(rows_snap):
                snap = policy_scores(
                    self.opponent_net,
                    torch.from_numpy(buf["obs"][t, rows_snap]),
                    torch.from_numpy(buf["mask"][t, rows_snap]),
                    None if history is None else torch.from_numpy(history[t, rows_snap]),
                ).float()
        return (scores.float(), extra if extra is None else extra.float()), snap

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
        (scores, extra), snap = self._networks(t, rows, rows_snap)
        if bots is not None:
            bots.result()
        self.s.acting.choose(self, t, rows, scores, extra)
        if snap is not None:
            self.buf["action"][t, rows_snap] = self.s.acting.snapshot_choose(snap, self.rng)

    # ------------------------------------------------------------------ collecting
    @torch.inference_mode()
    def collect(self, weights: dict, snapshots: list[dict] | None = None, sink=None) -> Batch:
        """Play ``rollout_steps`` steps with the given learner weights; return the learner's
        decisions (arrays from ``sink``, default plain arrays) and the rollout's stats."""
        s, rng, buf = self.s, self.rng, self.buf
        t_start = time.perf_counter()
        self.net.load_state_dict(weights)
        b, steps = s.num_envs, s.rollout_steps
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
            if "hidden_hands" in buf:
                observation.encode_hidden(state, out=buf["hidden_hands"][t])
            seat = state.to_act.copy()
            if self.logs is not None:
                buf["history"][t] = self.logs.encoded(np.arange(b), seat)
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
            if self.logs is not None:
                self.logs.record(state, buf["action"][t])
            # Matches go on hand after hand; the reward mode names where returns are cut.
            state, step = episode.advance(
                state, buf["action"][t], rng, reward=s.reward, donate=True
            )
            t_engine += time.perf_counter() - t0
            buf["ended"][t] = episode.ended(step, s.reward)
            buf["reward"][t] = step.rewards
            self.hand_len += 1
            hand_end = step.hand_over
            if self.logs is not None:
                self.logs.clear(np.flatnonzero(hand_end))
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
        arrays = s.acting.finish(self, sink or LocalSink())
        return Batch(**arrays, stats={
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
        })  # fmt: skip

    # ------------------------------------------------------------------ resuming
    def get_state(self) -> dict:
        """What a resumed run needs to go on exactly: the generator, games and carry."""
        return {
            "rng": self.rng.bit_generator.state,
            "state": self.state.copy(),
            "carry": self.carry,
            "hand_len": self.hand_len.copy(),
            "logs": copy.deepcopy(self.logs),
        }

    def set_state(self, st: dict) -> None:
        self.rng.bit_generator.state = st["rng"]
        self.state, self.carry, self.hand_len = st["state"].copy(), st["carry"], st["hand_len"]
        if self.logs is not None:
            self.logs = copy.deepcopy(st["logs"])


def _ratio(total: float, n: int) -> float:
    return total / n if n else float("nan")


__all__ = [
    "Acting",
    "Batch",
    "Opponents",
    "RolloutSettings",
    "SelfPlay",
    "batch_shapes",
    "max_rows",
    "privileged",
    "sample_from_logits",
]
