"""What seeing the cards and knowing the opponents are worth against three rule bots.

    python benchmarks/lookahead_ceiling.py --policy hard --deals 100 --worlds 16 --seed 3

A policy plays one seat against three rule bots: hand 1 of each deal, every seat, the same
deals in every row. A one-move lookahead then helps it: at each of its decisions with a
choice, every legal move is played out to the end of the hand, with the policy in its own
seat and a *model* bot in the other three, and the policy's move stands unless another one
scores more than ``registry.SEARCH_MARGIN`` points higher (on average over the worlds). The
rows cross two questions. Where the lookahead plays its moves out: in the *true deal* (it
sees every hand, a cheat that bounds what card inference could give) or in *worlds sampled*
from what the seat sees (hidden cards dealt uniformly, as the search bot does). Whom it
assumes in the other seats: the policy itself (what ``search:N:POLICY`` assumes) or the rule
bot (an exact model: the rule bot is deterministic). Points per hand (par 1.5) with a 95% CI
over deals, and the gain over the bare policy, paired deal by deal.
"""

from __future__ import annotations

import argparse
import sys
import time

import numpy as np

from murlan_env import engine, registry
from murlan_env.bots import Bot
from murlan_env.duplicate import mean_ci
from murlan_env.rules import Rules
from murlan_env.search import sample_hidden_hands, state_from_observation
from murlan_env.state import N_SEATS, State


def seat_actions(state: State, mask, own_seat: np.ndarray, own: Bot, others: Bot, rng):
    """(B,) the move of the seat to act (``mask``: its legal moves): ``own`` where it is
    ``own_seat``, else ``others``."""
    obs = engine.observe(state)
    actions = np.asarray(others.act(obs, mask, rng), np.int64)
    mine = state.to_act == own_seat
    if mine.any():
        actions[mine] = own.act(obs[mine], mask[mine], rng)
    return actions


def play_out(state: State, own_seat: np.ndarray, own: Bot, others: Bot, rng) -> np.ndarray:
    """(B,) the points ``own_seat`` scores when the hand is played to its end."""
    state = state.copy()
    while not state.hand_over.all():
        mask = engine.legal_action_mask(state)
        actions = seat_actions(state, mask, own_seat, own, others, rng)
        state = engine.step(state, actions.astype(np.int16), donate=True)
    return state.points[np.arange(state.batch_size), own_seat].astype(np.float64)


class Lookahead:
    """Chooses among the legal moves of the decisions ``dec`` by playing each one out."""

    def __init__(self, policy: Bot, model: Bot, worlds: int, margin: float) -> None:
        self.policy, self.model, self.worlds, self.margin = policy, model, worlds, margin

    def improve(self, state, me, dec, mask, actions, rng) -> None:
        """Overwrite ``actions[dec]`` where another move scores more than the margin higher."""
        row, cand = np.nonzero(mask[dec])  # every legal move of every decision
        if self.worlds == 0:  # the true deal: the seats keep their real places
            starts = state.index(dec[row])
            own_seat = me[dec[row]]
            repeat = 1
        else:  # sampled worlds: the rebuilt states put the deciding seat at seat 0
            obs = engine.observe(state.index(dec))
            held = sample_hidden_hands(obs, rng, self.worlds)
            repeat = self.worlds
            rows = np.repeat(row, repeat)
            worlds = np.tile(np.arange(repeat), row.size)
            starts = state_from_observation(obs[rows], held[rows, worlds])
            own_seat = np.zeros(rows.size, np.int64)
        starts = engine.step(starts, np.repeat(cand, repeat).astype(np.int16))
        value = play_out(starts, own_seat, self.policy, self.model, rng)
        value = value.reshape(row.size, repeat).mean(1)
        for k in range(dec.size):
            here = row == k
            current = value[here][cand[here] == actions[dec[k]]][0]
            if value[here].max() > current + self.margin:
                actions[dec[k]] = cand[here][value[here].argmax()]


def points_per_deal(deals: State, policy: Bot, rule: Bot, lookahead, seed: int) -> np.ndarray:
    """(deals,) the policy's mean points over the four seats, hand 1, against rule bots."""
    rng = np.random.default_rng(seed)
    state = deals.index(np.repeat(np.arange(deals.batch_size), N_SEATS))
    me = np.tile(np.arange(N_SEATS), deals.batch_size)
    while not state.hand_over.all():
        mask = engine.legal_action_mask(state)  # empty for a finished hand
        actions = seat_actions(state, mask, me, policy, rule, rng)
        if lookahead is not None:
            dec = np.flatnonzero((state.to_act == me) & (mask.sum(1) > 1))
            if dec.size:
                lookahead.improve(state, me, dec, mask, actions, rng)
        state = engine.step(state, actions.astype(np.int16))
    points = state.points[np.arange(state.batch_size), me].astype(np.float64)
    return points.reshape(-1, N_SEATS).mean(1)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0],
        epilog="example: python benchmarks/lookahead_ceiling.py --deals 100 --worlds 16",
    )
    parser.add_argument("--policy", default="hard", help="bot spec of the policy (default hard)")
    parser.add_argument("--deals", type=int, default=100, help="deals, each played from 4 seats")
    parser.add_argument(
        "--worlds", type=int, default=16, help="worlds per move when sampling (0: skip those rows)"
    )
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    if args.deals < 2 or args.worlds < 0:
        parser.error("--deals must be at least 2 and --worlds at least 0")
    policy, rule = registry.make_bot(args.policy), registry.make_bot("rule")
    deals = engine.init(np.random.default_rng(args.seed), args.deals, Rules())
    rows = [("true deal", 0)]
    if args.worlds:
        rows.append((f"{args.worlds} sampled worlds", args.worlds))
    print(f"{args.policy} in one seat against 3 rule bots: hand 1 of {args.deals} deals x 4 seats")
    print("| lookahead on | assuming the others play like | points/hand | gain | seconds |")
    print("|---|---|---|---|---|")
    start = time.perf_counter()
    bare = points_per_deal(deals, policy, rule, None, args.seed)
    mean, lo, hi = mean_ci(bare)
    took = time.perf_counter() - start
    print(f"| (no lookahead) | | {mean:.3f} [{lo:.3f}, {hi:.3f}] | | {took:.0f} |", flush=True)
    for where, worlds in rows:
        for label, model in ((args.policy, policy), ("rule (exact)", rule)):
            start = time.perf_counter()
            look = Lookahead(policy, model, worlds, registry.SEARCH_MARGIN)
            points = points_per_deal(deals, policy, rule, look, args.seed)
            mean, lo, hi = mean_ci(points)
            gain, glo, ghi = mean_ci(points - bare)
            took = time.perf_counter() - start
            print(
                f"| {where} | {label} | {mean:.3f} [{lo:.3f}, {hi:.3f}] "
                f"| {gain:+.3f} [{glo:+.3f}, {ghi:+.3f}] | {took:.0f} |",
                flush=True,
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
