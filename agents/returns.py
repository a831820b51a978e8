"""Returns of per-seat trajectories interleaved in time-major (T, B) rollout arrays.

In a rollout the four seats of a game take turns, so step t of game b belongs to seat
``seat[t, b]``. Each seat's decisions form its own trajectory; a backward pass over T
carries, per (game, seat), what that seat's *next* decision needs (its value, advantage and
the reward pending since it last acted). Rewards arrive at the end of an episode for every
seat at once: ``reward[t, b]`` holds the four seats' rewards when the episode ended right
after step t (``ended[t, b]``), and belongs to each seat's last decision before that end.

Compiled with numba: the loop over T is sequential, the loop over games is not worth
vectorising at these sizes.
"""

from __future__ import annotations

import numba
import numpy as np

N_SEATS = 4
_jit = numba.njit(cache=True, nogil=True)


@_jit
def _gae(seat, learner, value, ended, reward, bootstrap, gamma, lam, adv):
    steps, batch = seat.shape
    next_v = bootstrap.astype(np.float32)
    next_adv = np.zeros((batch, N_SEATS), np.float32)
    pending = np.zeros((batch, N_SEATS), np.float32)
    for t in range(steps - 1, -1, -1):
        for b in range(batch):
            if ended[t, b]:
                for s in range(N_SEATS):
                    pending[b, s] = reward[t, b, s]
                    next_v[b, s] = 0.0
                    next_adv[b, s] = 0.0
            s = seat[t, b]
            delta = pending[b, s] + gamma * next_v[b, s] - value[t, b]
            a = delta + gamma * lam * next_adv[b, s]
            adv[t, b] = a
            if learner[t, b]:
                next_v[b, s] = value[t, b]
                next_adv[b, s] = a
                pending[b, s] = 0.0


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
    """(T, B) float32 GAE advantages of the learner's decisions (other entries unused).

    ``seat`` (T, B) acting seat, ``learner`` (T, B) whether the decision is the learner's
    (only those form trajectories), ``value`` (T, B) the learner's value estimates,
    ``ended`` (T, B) an episode ended right after step t with ``reward`` (T, B, 4), and
    ``bootstrap`` (B, 4) each seat's value after the last step.
    """
    adv = np.zeros(seat.shape, np.float32)
    _gae(
        np.ascontiguousarray(seat, np.int8),
        np.ascontiguousarray(learner, np.bool_),
        np.ascontiguousarray(value, np.float32),
        np.ascontiguousarray(ended, np.bool_),
        np.ascontiguousarray(reward, np.float32),
        np.ascontiguousarray(bootstrap, np.float32),
        np.float32(gamma),
        np.float32(lam),
        adv,
    )
    return adv


@_jit
def _mc(seat, ended, reward, ret, known_out):
    steps, batch = seat.shape
    ret_next = np.zeros((batch, N_SEATS), np.float32)
    known = np.zeros((batch, N_SEATS), np.bool_)
    for t in range(steps - 1, -1, -1):
        for b in range(batch):
            if ended[t, b]:
                for s in range(N_SEATS):
                    ret_next[b, s] = reward[t, b, s]
                    known[b, s] = True
            s = seat[t, b]
            ret[t, b] = ret_next[b, s]
            known_out[t, b] = known[b, s]


def mc_returns(seat: np.ndarray, ended: np.ndarray, reward: np.ndarray):
    """(T, B) undiscounted return of each decision's episode for its seat, and (T, B) bool
    whether that episode ended within the arrays (otherwise the return is not known yet)."""
    ret = np.zeros(seat.shape, np.float32)
    known = np.zeros(seat.shape, np.bool_)
    _mc(
        np.ascontiguousarray(seat, np.int8),
        np.ascontiguousarray(ended, np.bool_),
        np.ascontiguousarray(reward, np.float32),
        ret,
        known,
    )
    return ret, known


__all__ = ["gae_advantages", "mc_returns"]
