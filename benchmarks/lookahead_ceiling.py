"""What seeing the cards and knowing the opponents are worth against three rule bots.

    python -m benchmarks.lookahead_ceiling --policy hard --deals 100 --worlds 16 --seed 3
    python -m benchmarks.lookahead_ceiling --deals 200 --known 0 0.5 --posterior 16 --rows rule

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

``--known`` adds rows between the two ends, with the rule bot as the model: worlds in which
each hidden card is, with the given probability, placed where it truly is, and the rest are
dealt uniformly into the room left in each hand. They show how strength grows with what the
seat knows of the hidden cards, counted as *misplaced cards* (hidden cards a world puts in
the wrong hand, mean over the worlds of the seat's decisions), the unit in which
``benchmarks/README.md`` reports what a belief from the others' moves knows. ``--posterior``
adds rows whose worlds are what the others' moves this hand say, read with the exact model:
uniform candidates weighed by the rule bot's likelihood of those moves, as the search bot's
belief weighs them (``belief.believed_worlds``), tempered to the given effective size.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from benchmarks.common import true_hidden_hands
from murlan_env.bots import registry
from murlan_env.bots.belief import (
    believed_worlds,
    draw_worlds,
    sample_hidden_hands,
    state_from_observation,
)
from murlan_env.bots.history import HandLogs
from murlan_env.bots.protocol import Bot, MoveScores
from murlan_env.eval.duplicate import mean_ci
from murlan_env.game import engine
from murlan_env.game.cards import N_RANKS
from murlan_env.game.rules import Rules
from murlan_env.game.state import N_SEATS, State


def partly_known_hands(
    true: np.ndarray, known: float, rng: np.random.Generator, n_worlds: int
) -> np.ndarray:
    """(B, W, 4, 15) worlds in which each hidden card of ``true`` (B, 4, 15) keeps its true
    slot with probability ``known``; the others are dealt uniformly into the room left."""
    out = np.zeros((true.shape[0], n_worlds, N_SEATS, N_RANKS), np.int8)
    out[:, :, 0] = true[:, None, 0]
    for g in range(true.shape[0]):
        slot = np.repeat(np.tile(np.arange(1, N_SEATS), N_RANKS), true[g, 1:].T.ravel())
        rank = np.repeat(np.repeat(np.arange(N_RANKS), N_SEATS - 1), true[g, 1:].T.ravel())
        for w in range(n_worlds):
            keep = rng.random(rank.size) < known
            np.add.at(out[g, w], (slot[keep], rank[keep]), 1)
            room = true[g, 1:].sum(1) - out[g, w, 1:].sum(1)
            dealt = rng.permutation(rank[~keep])
            np.add.at(out[g, w], (np.repeat(np.arange(1, N_SEATS), room), dealt), 1)
    return out


def posterior_hands(
    obs: np.ndarray, logs, model: MoveScores, rng, n_worlds: int, candidates: int, min_ess: float
) -> np.ndarray:
    """(B, W, 4, 15) worlds drawn from ``candidates`` uniform ones weighed by how likely
    ``model`` makes the others' moves this hand, tempered to ``min_ess`` effective worlds
    (``belief.believed_worlds``, as the search bot's belief draws them)."""
    pool, weights, _ = believed_worlds(obs, logs, [model], rng, candidates, min_ess)
    return draw_worlds(pool, weights, rng, n_worlds)


def misplaced(worlds: np.ndarray, true: np.ndarray) -> np.ndarray:
    """(B,) hidden cards each world puts in the wrong hand, mean over the worlds."""
    wrong = np.maximum(worlds[:, :, 1:] - true[:, None, 1:], 0)
    return wrong.sum(axis=(2, 3)).mean(1)


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

    def __init__(self, policy: Bot, model: Bot, worlds: int, margin: float, deal=None) -> None:
        """``deal(obs, true, logs, rng, n)``: (B, n, 4, 15) worlds for the decisions of
        ``obs``, given their true hands and hand logs (default: uniform deals)."""
        self.policy, self.model, self.worlds, self.margin = policy, model, worlds, margin
        self.deal = deal or (lambda obs, true, logs, rng, n: sample_hidden_hands(obs, rng, n))
        self.misplaced: list[float] = []  # per decision, for the sampled worlds

    def improve(self, state, me, dec, mask, actions, rng, logs: HandLogs) -> None:
        """Overwrite ``actions[dec]`` where another move scores more than the margin higher."""
        row, cand = np.nonzero(mask[dec])  # every legal move of every decision
        if self.worlds == 0:  # the true deal: the seats keep their real places
            starts = state.index(dec[row])
            own_seat = me[dec[row]]
            repeat = 1
        else:  # sampled worlds: the rebuilt states put the deciding seat at seat 0
            deciding = state.index(dec)
            obs = engine.observe(deciding)
            true = true_hidden_hands(deciding)
            held = self.deal(obs, true, logs.turned(dec, me[dec]), rng, self.worlds)
            self.misplaced.extend(misplaced(held, true))
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
    logs = HandLogs(state.batch_size)
    while not state.hand_over.all():
        mask = engine.legal_action_mask(state)  # empty for a finished hand
        actions = seat_actions(state, mask, me, policy, rule, rng)
        if lookahead is not None:
            dec = np.flatnonzero((state.to_act == me) & (mask.sum(1) > 1))
            if dec.size:
                lookahead.improve(state, me, dec, mask, actions, rng, logs)
        logs.record(state, actions)
        state = engine.step(state, actions.astype(np.int16))
    points = state.points[np.arange(state.batch_size), me].astype(np.float64)
    return points.reshape(-1, N_SEATS).mean(1)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0].replace("\n", " ")
        + " Takes 15-60 minutes a row at 100-200 deals on one core.",
        epilog="example: python -m benchmarks.lookahead_ceiling --deals 100 --worlds 16",
    )
    parser.add_argument("--policy", default="hard", help="bot spec of the policy (default hard)")
    parser.add_argument("--deals", type=int, default=100, help="deals, each played from 4 seats")
    parser.add_argument(
        "--worlds", type=int, default=16, help="worlds per move when sampling (0: skip those rows)"
    )
    parser.add_argument(
        "--known",
        type=float,
        nargs="*",
        default=[],
        metavar="P",
        help="rows whose worlds place each hidden card truly with probability P (rule model)",
    )
    parser.add_argument(
        "--posterior",
        type=float,
        nargs="*",
        default=[],
        metavar="ESS",
        help="rows whose worlds come from the rule bots' posterior, tempered to ESS effective "
        "worlds (1: untempered)",
    )
    parser.add_argument(
        "--candidates", type=int, default=256, help="uniform candidate worlds of the posterior"
    )
    parser.add_argument(
        "--rows",
        choices=("all", "rule"),
        default="all",
        help="rule: of the four standard rows, only the true deal with the rule model",
    )
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    if args.deals < 2 or args.worlds < 0:
        parser.error("--deals must be at least 2 and --worlds at least 0")
    if any(not 0.0 <= p <= 1.0 for p in args.known) or any(e < 1 for e in args.posterior):
        parser.error("--known takes probabilities in [0, 1], --posterior sizes of at least 1")
    if (args.known or args.posterior) and not args.worlds:
        parser.error("--known and --posterior need --worlds above 0")
    policy, rule = registry.make_bot(args.policy), registry.make_bot("rule")
    rule_model = ("rule (exact)", rule)
    models = ((args.policy, policy), rule_model)
    n = args.worlds
    rows = [("true deal", *model, 0, None) for model in models]
    rows += [(f"{n} sampled worlds", *model, n, None) for model in models if n]
    if args.rows == "rule":
        rows = rows[1:2]

    def known_deal(p):
        return lambda obs, true, logs, rng, k: partly_known_hands(true, p, rng, k)

    def posterior_deal(ess):
        scores = MoveScores(rule)
        return lambda obs, true, logs, rng, k: posterior_hands(
            obs, logs, scores, rng, k, args.candidates, ess
        )

    rows += [
        (f"{n} worlds, each hidden card known w.p. {p:g}", *rule_model, n, known_deal(p))
        for p in args.known
    ]
    rows += [
        (
            f"{n} worlds from the rule bots' posterior ({args.candidates} candidates, "
            f"{e:g} effective)",
            *rule_model,
            n,
            posterior_deal(e),
        )
        for e in args.posterior
    ]
    deals = engine.init(np.random.default_rng(args.seed), args.deals, Rules())
    print(f"{args.policy} in one seat against 3 rule bots: hand 1 of {args.deals} deals x 4 seats")
    print("| lookahead on | the others play like | points/hand | gain | misplaced | seconds |")
    print("|---|---|---|---|---|---|")
    start = time.perf_counter()
    bare = points_per_deal(deals, policy, rule, None, args.seed)
    mean, lo, hi = mean_ci(bare)
    took = time.perf_counter() - start
    print(f"| (no lookahead) | | {mean:.3f} [{lo:.3f}, {hi:.3f}] | | | {took:.0f} |", flush=True)
    for where, label, model, worlds, deal in rows:
        start = time.perf_counter()
        look = Lookahead(policy, model, worlds, registry.SEARCH_MARGIN, deal)
        points = points_per_deal(deals, policy, rule, look, args.seed)
        mean, lo, hi = mean_ci(points)
        gain, glo, ghi = mean_ci(points - bare)
        wrong = f"{np.mean(look.misplaced):.2f}" if look.misplaced else "0"
        took = time.perf_counter() - start
        print(
            f"| {where} | {label} | {mean:.3f} [{lo:.3f}, {hi:.3f}] "
            f"| {gain:+.3f} [{glo:+.3f}, {ghi:+.3f}] | {wrong} | {took:.0f} |",
            flush=True,
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
