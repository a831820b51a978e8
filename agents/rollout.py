"""Self-play rollouts on the batched engine, and the workers that run them.

``SelfPlay`` steps ``num_envs`` matches together on ``murlan_env.engine``: one batched forward
pass per step for every game whose seat to act belongs to the learner, bots or frozen
snapshots for the others. A match goes on hand after hand; finished matches are dealt anew.

Per-seat trajectories are kept time-major, (T, B) arrays with the acting seat of each step,
and all bookkeeping is vectorised over games: a backward pass over T carries, for each
(game, seat), the value, advantage and pending reward of that seat's *next* decision. Rewards
arrive at the end of an episode (a hand: ``points - 1.5``; a match: the zero-sum result).

- PPO: GAE, bootstrapping unfinished episodes with the value of each seat's view of the
  final state; only the learner's decisions are returned.
- DMC: Monte-Carlo returns. Decisions whose hand has not ended yet are carried over to the next
  call (up to ``carry_steps`` steps back), so no decision is lost to the window's edge.

Workers share one small interface (``submit(weights, snapshots)`` then ``result()``):
``LocalWorker`` (in this process), ``ProcessWorker`` (a child process: rollouts on one core
while the learner updates on the other) and ``RayWorker`` (a Ray actor).
"""

from __future__ import annotations

import dataclasses
import multiprocessing as mp
import time
from typing import Any, Protocol

import numpy as np
import torch

from agents.networks import build_network, masked_logits, policy_scores
from murlan_env import engine, registry
from murlan_env.engine import N_SEATS, Phase
from murlan_env.rules import Rules

REWARDS = ("hand", "match")


@dataclasses.dataclass
class RolloutSettings:
    """What a worker needs to play: the picklable subset of a trainer's config."""

    algorithm: str  # "ppo" or "dmc": how actions are chosen and what is returned
    spec: dict  # network spec (networks.make_spec)
    num_envs: int  # matches stepped together by this worker
    num_steps: int  # engine steps per collect call
    reward: str = "hand"  # "hand": points - 1.5 per hand; "match": zero-sum match result
    rules: dict = dataclasses.field(default_factory=dict)  # variant flags (Rules.from_dict)
    gamma: float = 1.0  # discount per decision of the same seat
    gae_lambda: float = 0.95  # GAE lambda (PPO)
    epsilon: float = 0.01  # exploration rate (DMC)
    snapshot_share: float = 0.0  # share of games against frozen snapshots of the learner
    bot_share: float = 0.0  # share of games against rule-based bots
    bots: tuple[str, ...] = ("random",)  # bot names for the bot share
    carry_steps: int = 192  # DMC: how far back unfinished hands are kept
    torch_threads: int = 1  # intra-op threads of a process or Ray worker's forward passes


def episode_rewards(state: engine.State, reward: str) -> tuple[np.ndarray, np.ndarray]:
    """(B,) episode ended and (B, 4) zero-sum rewards, right after a step of a full batch."""
    if reward == "hand":
        ended = state.phase >= Phase.HAND_OVER
        return ended, (state.points.astype(np.float32) - 1.5) * ended[:, None]
    ended = state.phase == Phase.MATCH_OVER
    w = state.winners.astype(np.float32)
    share = w / np.maximum(w.sum(1, keepdims=True), 1.0)
    return ended, (share * (4.0 / 3.0) - 1.0 / 3.0) * ended[:, None]


def sample_from_logits(logits: torch.Tensor, rng: np.random.Generator) -> np.ndarray:
    """(B,) actions sampled from masked logits with numpy's rng (reproducible anywhere)."""
    probs = torch.softmax(logits, -1).double().numpy()
    cum = np.cumsum(probs, axis=1)
    u = rng.random(len(cum))[:, None] * cum[:, -1:]
    return np.minimum((cum <= u).sum(1), logits.shape[1] - 1)


def gae_advantages(
    seat: np.ndarray,
    learner: np.ndarray,
    value: np.ndarray,
    ended: np.ndarray,
    reward: np.ndarray,
    bootstrap: np.ndarray,
    gamma: float,
    lam: float,
) -> np.ndarray:
    """(T, B) GAE advantages of per-seat trajectories interleaved in time-major arrays.

    ``seat`` (T, B) acting seat, ``learner`` (T, B) whether the decision is the learner's (only
    those form trajectories), ``value`` (T, B), ``ended`` (T, B) an episode ended right after
    step t with ``reward`` (T, B, 4) for every seat, ``bootstrap`` (B, 4) each seat's value
    after the last step. A seat's reward belongs to its last decision before the episode end.
    """
    steps, b = seat.shape
    rows = np.arange(b)
    next_v = bootstrap.astype(np.float32).copy()
    next_adv = np.zeros((b, N_SEATS), np.float32)
    pending = np.zeros((b, N_SEATS), np.float32)
    adv = np.zeros((steps, b), np.float32)
    for t in range(steps - 1, -1, -1):
        e = ended[t]
        if e.any():
            pending[e] = reward[t][e]
            next_v[e] = 0.0
            next_adv[e] = 0.0
        st, lt, v = seat[t], learner[t], value[t]
        delta = pending[rows, st] + gamma * next_v[rows, st] - v
        a = delta + gamma * lam * next_adv[rows, st]
        adv[t] = a
        r, s_lt = rows[lt], st[lt]
        next_v[r, s_lt], next_adv[r, s_lt], pending[r, s_lt] = v[lt], a[lt], 0.0
    return adv


def mc_returns(seat: np.ndarray, ended: np.ndarray, reward: np.ndarray):
    """(T, B) undiscounted return of each decision's episode for its seat, and (T, B) bool
    whether that episode ended within the arrays (otherwise the return is not known yet)."""
    steps, b = seat.shape
    rows = np.arange(b)
    ret_next = np.zeros((b, N_SEATS), np.float32)
    known = np.zeros((b, N_SEATS), bool)
    ret = np.zeros((steps, b), np.float32)
    has = np.zeros((steps, b), bool)
    for t in range(steps - 1, -1, -1):
        e = ended[t]
        if e.any():
            ret_next[e] = reward[t][e]
            known[e] = True
        ret[t] = ret_next[rows, seat[t]]
        has[t] = known[rows, seat[t]]
    return ret, has


class SelfPlay:
    """``num_envs`` matches and the learner's (and opponents') networks; see module doc."""

    def __init__(self, settings: RolloutSettings, seed: int) -> None:
        self.s = settings
        self.rng = np.random.default_rng(seed)
        self.rules = Rules.from_dict(settings.rules)
        self.state = engine.init(self.rng, settings.num_envs, self.rules)
        self.net = build_network(settings.spec).eval()
        self.opponent_net = build_network(settings.spec).eval()
        self.bots = [registry.make_bot(n) for n in settings.bots]
        b = settings.num_envs
        self.n_snapshot = int(round(b * settings.snapshot_share))
        self.n_bot = int(round(b * settings.bot_share)) if self.bots else 0
        self.n_self = b - self.n_snapshot - self.n_bot
        self.carry: dict[str, np.ndarray] | None = None
        self.hand_len = np.zeros(b, np.int64)

    # ------------------------------------------------------------------ acting
    def _learner_act(self, obs: np.ndarray, mask: np.ndarray, out: dict, rows: np.ndarray):
        o, m = torch.from_numpy(obs[rows]), torch.from_numpy(mask[rows])
        if self.s.algorithm == "ppo":
            logits, value = self.net.logits_and_value(o)
            logits = masked_logits(logits, m)
            acts = sample_from_logits(logits, self.rng)
            logp = torch.log_softmax(logits, -1).gather(1, torch.from_numpy(acts)[:, None])
            out["logp"][rows] = logp.squeeze(1).numpy()
            out["value"][rows] = value.numpy()
        else:
            q = policy_scores(self.net, o, m)
            acts = q.argmax(-1).numpy()
            explore = self.rng.random(len(rows)) < self.s.epsilon
            if explore.any():
                acts[explore] = engine.random_legal_actions(mask[rows[explore]], self.rng)
        out["action"][rows] = acts

    def _opponent_act(self, obs, mask, actions, rows_snap, rows_bot, bot_of_game):
        if len(rows_snap):
            scores = policy_scores(
                self.opponent_net,
                torch.from_numpy(obs[rows_snap]),
                torch.from_numpy(mask[rows_snap]),
            )
            if self.s.algorithm == "ppo":
                actions[rows_snap] = sample_from_logits(scores, self.rng)
            else:
                actions[rows_snap] = scores.argmax(-1).numpy()
        for k, bot in enumerate(self.bots):
            r = rows_bot[bot_of_game[rows_bot] == k]
            if len(r):
                actions[r] = bot.act(obs[r], mask[r], self.rng)

    # ------------------------------------------------------------------ collecting
    @torch.inference_mode()
    def collect(self, weights: dict, snapshots: list[dict] | None = None) -> dict[str, Any]:
        """Play ``num_steps`` steps with the given learner weights; return learner samples."""
        s, rng = self.s, self.rng
        t_start = time.perf_counter()
        self.net.load_state_dict(weights)
        b, steps = s.num_envs, s.num_steps
        # Who plays what: games [0, n_self) self-play, then snapshots, then bots.
        kind = np.zeros(b, np.int8)
        n_snap = self.n_snapshot if snapshots else 0
        kind[self.n_self : self.n_self + n_snap] = 1
        kind[self.n_self + self.n_snapshot : self.n_self + self.n_snapshot + self.n_bot] = 2
        learner_seat = rng.integers(0, N_SEATS, b)
        if n_snap:
            self.opponent_net.load_state_dict(snapshots[int(rng.integers(len(snapshots)))])
        bot_of_game = rng.integers(0, max(len(self.bots), 1), b)

        obs_size, n_act = s.spec["obs_size"], s.spec["n_actions"]
        buf = {
            "obs": np.zeros((steps, b, obs_size), np.float32),
            "mask": np.zeros((steps, b, n_act), bool),
            "action": np.zeros((steps, b), np.int64),
            "seat": np.zeros((steps, b), np.int8),
            "learner": np.zeros((steps, b), bool),
            "logp": np.zeros((steps, b), np.float32),
            "value": np.zeros((steps, b), np.float32),
            "ended": np.zeros((steps, b), bool),
            "reward": np.zeros((steps, b, N_SEATS), np.float32),
        }
        stats = {"hands": 0, "matches": 0, "learner_points": [0.0, 0.0, 0.0], "games_of": [0, 0, 0]}
        hand_lengths = []
        t_engine = 0.0
        state = self.state
        for t in range(steps):
            t0 = time.perf_counter()
            mask = engine.legal_action_mask(state)
            obs = engine.observe(state)
            seat = state.to_act.copy()
            t_engine += time.perf_counter() - t0
            learner = (kind == 0) | (seat == learner_seat)
            step_out = {k: buf[k][t] for k in ("action", "logp", "value")}
            rows = np.flatnonzero(learner)
            self._learner_act(obs, mask, step_out, rows)
            opp = ~learner
            self._opponent_act(
                obs,
                mask,
                step_out["action"],
                np.flatnonzero(opp & (kind == 1)),
                np.flatnonzero(opp & (kind == 2)),
                bot_of_game,
            )
            buf["obs"][t], buf["mask"][t], buf["seat"][t], buf["learner"][t] = (
                obs,
                mask,
                seat,
                learner,
            )
            t0 = time.perf_counter()
            state = engine.step(state, step_out["action"])
            ended, reward = episode_rewards(state, s.reward)
            buf["ended"][t], buf["reward"][t] = ended, reward
            self.hand_len += 1
            hand_end = state.phase >= Phase.HAND_OVER
            if hand_end.any():
                stats["hands"] += int(hand_end.sum())
                hand_lengths += self.hand_len[hand_end].tolist()
                self.hand_len[hand_end] = 0
                pts = state.points[np.arange(b), learner_seat]
                for k in (1, 2):
                    g = hand_end & (kind == k)
                    stats["learner_points"][k] += float(pts[g].sum())
                    stats["games_of"][k] += int(g.sum())
                over = state.phase == Phase.MATCH_OVER
                stats["matches"] += int(over.sum())
                state = engine.next_hand(state, rng)
                state = engine.new_matches(state, over, rng)
            t_engine += time.perf_counter() - t0
        self.state = state
        if s.algorithm == "ppo":
            out = self._gae(buf, learner_seat, kind)
        else:
            out = self._mc_returns(buf)
        elapsed = time.perf_counter() - t_start
        out["stats"] = {
            "decisions": steps * b,
            "learner_decisions": int(buf["learner"].sum()),
            "hands": stats["hands"],
            "matches": stats["matches"],
            "hand_length": float(np.mean(hand_lengths)) if hand_lengths else float("nan"),
            "points_vs_snapshot": _ratio(stats["learner_points"][1], stats["games_of"][1]),
            "points_vs_bots": _ratio(stats["learner_points"][2], stats["games_of"][2]),
            "seconds": elapsed,
            "engine_seconds": t_engine,
        }
        return out

    def _gae(self, buf, learner_seat, kind) -> dict[str, np.ndarray]:
        s = self.s
        b = buf["action"].shape[1]
        # Bootstrap: each seat's value of the final state, from its own point of view.
        with torch.inference_mode():
            next_v = np.stack(
                [
                    self.net.value(
                        torch.from_numpy(engine.observe(self.state, np.full(b, k, np.int8)))
                    ).numpy()
                    for k in range(N_SEATS)
                ],
                axis=1,
            )
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
        sel = buf["learner"]
        return {
            "obs": buf["obs"][sel],
            "mask": buf["mask"][sel],
            "action": buf["action"][sel],
            "logp": buf["logp"][sel],
            "value": buf["value"][sel],
            "advantage": adv[sel],
            "return": adv[sel] + buf["value"][sel],
        }

    def _mc_returns(self, buf) -> dict[str, np.ndarray]:
        keys = ("obs", "action", "seat", "learner", "ended", "reward")
        new = {k: buf[k] for k in keys}
        new["obs"] = new["obs"].astype(np.float16)  # the carry can be large: half the memory
        new["emitted"] = np.zeros(buf["action"].shape, bool)
        if self.carry is not None:
            new = {k: np.concatenate([self.carry[k], new[k]]) for k in new}
        ret, has = mc_returns(new["seat"], new["ended"], new["reward"])
        sel = new["learner"] & has & ~new["emitted"]
        out = {
            "obs": new["obs"][sel].astype(np.float32),
            "action": new["action"][sel],
            "return": ret[sel],
        }
        new["emitted"] |= has
        keep = max(0, len(new["seat"]) - self.s.carry_steps)
        self.carry = {k: v[keep:] for k, v in new.items()}
        return out


def _ratio(total: float, n: int) -> float:
    return total / n if n else float("nan")


# ---------------------------------------------------------------------- workers


class Worker(Protocol):
    """Runs ``SelfPlay.collect`` somewhere: ``submit`` starts it, ``result`` waits for it."""

    def submit(self, weights: dict, snapshots: list[dict]) -> None: ...

    def result(self) -> dict[str, Any]: ...

    def close(self) -> None: ...


class LocalWorker:
    """Rollouts in this process (the learner waits while they run)."""

    def __init__(self, settings: RolloutSettings, seed: int) -> None:
        self.selfplay = SelfPlay(settings, seed)
        self._job: tuple | None = None

    def submit(self, weights: dict, snapshots: list[dict]) -> None:
        self._job = (weights, snapshots)

    def result(self) -> dict[str, Any]:
        job, self._job = self._job, None
        return self.selfplay.collect(*job)

    def close(self) -> None:
        pass

    def get_state(self) -> dict:
        return _selfplay_state(self.selfplay)

    def set_state(self, st: dict) -> None:
        _set_selfplay_state(self.selfplay, st)


def _selfplay_state(sp: SelfPlay) -> dict:
    return {
        "rng": sp.rng.bit_generator.state,
        "state": sp.state,
        "carry": sp.carry,
        "hand_len": sp.hand_len,
    }


def _set_selfplay_state(sp: SelfPlay, st: dict) -> None:
    sp.rng.bit_generator.state = st["rng"]
    sp.state, sp.carry, sp.hand_len = st["state"], st["carry"], st["hand_len"]


def _weights_numpy(weights: dict) -> dict:
    return {k: v.detach().cpu().numpy() for k, v in weights.items()}


def _weights_torch(weights: dict) -> dict:
    return {k: torch.from_numpy(np.asarray(v)) for k, v in weights.items()}


def _process_main(conn, settings: RolloutSettings, seed: int) -> None:
    torch.set_num_threads(settings.torch_threads)
    selfplay = SelfPlay(settings, seed)
    while True:
        msg = conn.recv()
        if msg is None:
            break
        cmd, payload = msg
        if cmd == "collect":
            w, snaps = payload
            conn.send(selfplay.collect(_weights_torch(w), [_weights_torch(x) for x in snaps]))
        elif cmd == "get_state":
            conn.send(_selfplay_state(selfplay))
        elif cmd == "set_state":
            _set_selfplay_state(selfplay, payload)
            conn.send(True)
    conn.close()


class ProcessWorker:
    """Rollouts in a child process, so they overlap with the learner's update."""

    def __init__(self, settings: RolloutSettings, seed: int) -> None:
        ctx = mp.get_context("spawn")  # fork after torch has started threads can deadlock
        self.conn, child = ctx.Pipe()
        self.proc = ctx.Process(target=_process_main, args=(child, settings, seed), daemon=True)
        self.proc.start()

    def submit(self, weights: dict, snapshots: list[dict]) -> None:
        self.conn.send(
            ("collect", (_weights_numpy(weights), [_weights_numpy(x) for x in snapshots]))
        )

    def result(self) -> dict[str, Any]:
        return self.conn.recv()

    def get_state(self) -> dict:
        self.conn.send(("get_state", None))
        return self.conn.recv()

    def set_state(self, st: dict) -> None:
        self.conn.send(("set_state", st))
        self.conn.recv()

    def close(self) -> None:
        if self.proc.is_alive():
            self.conn.send(None)
            self.proc.join(timeout=10)


class RayWorker:
    """Rollouts in a Ray actor (``--ray-address``/``RAY_ADDRESS``); the learner stays here."""

    def __init__(self, settings: RolloutSettings, seed: int) -> None:
        import ray

        actor_cls = ray.remote(num_cpus=1)(_RayActor)
        self.actor = actor_cls.remote(settings, seed)
        self._ref = None

    def submit(self, weights: dict, snapshots: list[dict]) -> None:
        self._ref = self.actor.collect.remote(
            _weights_numpy(weights), [_weights_numpy(x) for x in snapshots]
        )

    def result(self) -> dict[str, Any]:
        import ray

        ref, self._ref = self._ref, None
        return ray.get(ref)

    def get_state(self) -> dict:
        import ray

        return ray.get(self.actor.get_state.remote())

    def set_state(self, st: dict) -> None:
        import ray

        ray.get(self.actor.set_state.remote(st))

    def close(self) -> None:
        import ray

        ray.kill(self.actor)


class _RayActor:
    def __init__(self, settings: RolloutSettings, seed: int) -> None:
        torch.set_num_threads(settings.torch_threads)
        self.selfplay = SelfPlay(settings, seed)

    def collect(self, weights, snapshots):
        return self.selfplay.collect(
            _weights_torch(weights), [_weights_torch(x) for x in snapshots]
        )

    def get_state(self):
        return _selfplay_state(self.selfplay)

    def set_state(self, st):
        _set_selfplay_state(self.selfplay, st)


def make_workers(
    settings: RolloutSettings, kind: str, n: int, seed: int, ray_address: str | None = None
) -> list:
    """``n`` workers of ``kind`` ("local", "process" or "ray"), seeded ``seed``, ``seed+1``, ..."""
    if kind == "local":
        return [LocalWorker(settings, seed + i) for i in range(n)]
    if kind == "process":
        return [ProcessWorker(settings, seed + i) for i in range(n)]
    if kind == "ray":
        import ray

        if not ray.is_initialized():
            ray.init(address=ray_address, include_dashboard=False, log_to_driver=False)
        return [RayWorker(settings, seed + i) for i in range(n)]
    raise ValueError(f"unknown worker kind {kind!r}: local, process or ray")


def merge_batches(batches: list[dict[str, Any]]) -> dict[str, Any]:
    """Concatenate worker results; stats are summed (counts) or averaged (rates)."""
    if len(batches) == 1:
        return batches[0]
    out = {k: np.concatenate([b[k] for b in batches]) for k in batches[0] if k != "stats"}
    stats = {}
    for k in batches[0]["stats"]:
        vals = [b["stats"][k] for b in batches]
        if k in ("decisions", "learner_decisions", "hands", "matches"):
            stats[k] = sum(vals)
        elif k in ("seconds", "engine_seconds"):
            stats[k] = max(vals)
        else:
            stats[k] = float(np.nanmean(vals)) if not all(np.isnan(vals)) else float("nan")
    out["stats"] = stats
    return out
