"""How good `expert`'s belief is, what its moves cost, and what a sharper one could buy.

    python -m benchmarks.belief quality --deals 100 --seed 7
    python -m benchmarks.belief profile --positions 24 --seed 7
    python -m benchmarks.belief speed --positions 24 --seed 7
    python -m benchmarks.belief headroom --swaps 0 4 --boards 8 --seeds 100 101 102 \
        --paired paired.npz

``quality``: fixed positions from real play: ``hard`` in one seat against three rule bots
(each deal from every seat), every decision of its first two hands where it has a choice.
On each position the belief of the ``expert`` level (1,024 uniform candidate worlds weighed by
how well the policy or the rule bot, seat by seat, explains the others' moves; 256 candidates
for the rule bot) is computed, and the table gives: the tempering (the beta that keeps 32
effective worlds) and the effective number of worlds 1 / sum(w^2) before and after it; and
the belief's quality as the per-card cross-entropy of the true hidden hands (bits per hidden
card, from the weighted worlds' card-by-seat marginals mixed with 1% of the uniform ones so
that no card gets probability 0) and the hidden cards a world misplaces (the unit of
``lookahead_ceiling.py``), for uniform weights, today's tempered weights and the plain
likelihoods. The same rows with the candidates dealt consistent with this hand's exchange
(``belief.exchange_facts``) follow, on the positions where the observer knows such facts.

``profile``: where an ``expert`` move's time goes (``cProfile``, one position at a time as
a game asks): dealing worlds, the belief's likelihoods (the policy's and the rule bot's), the
rollouts.

``speed``: ``expert``'s CPU seconds a move with its belief and rollouts in float32 and in
int8 (the level's ``arithmetic``: the model of ``murlan_env.bundle.quantize.to_int8``, as the
labeller runs it), position by position in turn.

``headroom``: ``expert`` handed the true deal as every world of its search, with ``k``
random swaps of a card between two other seats in each world (``SearchBot``'s ``deal``; the
belief still picks each seat's model, on 256 candidates as ``expert``'s does), in one seat
against three rule bots on the first hand of the same duplicate boards as
``benchmarks/strength.py paired``, paired board by board against ``expert``'s hand-1 points
that that script saved (``--paired``; the boards are ``--boards`` per seed of ``--seeds``,
as its chunks were; ``--skip`` the saved boards before them). The true deal is found by
matching the seat's cards at the deal against the boards' deals.
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import time

import numpy as np

from benchmarks.common import ci_text, expert_in, paired_ci_text, true_hidden_hands
from murlan_env.bots import registry
from murlan_env.bots.belief import (
    exchange_facts,
    sample_hidden_hands,
    tempered_weights,
    tempering,
    world_log_likelihoods,
)
from murlan_env.bots.history import HandLogs, act_with_history
from murlan_env.eval.duplicate import (
    mean_ci,
    one_against_three,
    play_duplicate,
    seeded_deals,
)
from murlan_env.game import engine, observation
from murlan_env.game.cards import N_RANKS
from murlan_env.game.rules import Rules
from murlan_env.game.state import N_SEATS, Phase

SMOOTHING = 0.01  # share of the uniform marginals mixed into a belief's card-by-seat marginals


def play_positions(deals: int, seed: int, player, others, hands: int = 2) -> dict:
    """The decisions with a choice of ``player`` in one seat (every seat of every deal in
    turn) against ``others``, over the first ``hands`` hands: observations, the hand's logs,
    the true hands by slot and the hand number (0-based)."""
    rng = np.random.default_rng(seed)
    state = engine.init(rng, deals, Rules())
    state = state.index(np.repeat(np.arange(deals), N_SEATS))
    me = np.tile(np.arange(N_SEATS), deals)
    logs = HandLogs(state.batch_size)
    out = {"obs": [], "logs": [], "true": [], "hand": []}
    while ((state.hand_no < hands) & (state.phase != Phase.MATCH_OVER)).any():
        mask = engine.legal_action_mask(state)
        obs = engine.observe(state)
        games = np.arange(state.batch_size)
        actions = np.asarray(others.act(obs, mask, rng), np.int64)
        mine = np.flatnonzero(state.to_act == me)
        if mine.size:
            actions[mine] = act_with_history(
                player, obs[mine], mask[mine], rng, logs, games[mine], me[mine]
            )
        chose = mine[
            (state.phase[mine] == Phase.PLAY)
            & (mask[mine].sum(1) > 1)
            & (state.hand_no[mine] < hands)
        ]
        if chose.size:
            out["obs"].append(obs[chose])
            out["logs"] += logs.turned(chose, me[chose])
            out["true"].append(true_hidden_hands(state.index(chose)))
            out["hand"].append(state.hand_no[chose].astype(np.int64))
        logs.record(state, actions)
        before = state.hand_no.copy()
        state = engine.step(state, actions.astype(np.int16), rng=rng)
        logs.clear(np.flatnonzero(state.hand_no != before))
    return {k: v if k == "logs" else np.concatenate(v) for k, v in out.items()}


def uniform_marginals(obs: np.ndarray) -> np.ndarray:
    """(B, 3, 15) the card-by-seat marginals of a uniform deal: a hidden card of any rank lies
    with each other seat in proportion to the cards it holds."""
    left = observation.decode(obs).cards_left[:, 1:].astype(np.float64)  # (B, 3)
    share = left / np.maximum(left.sum(1, keepdims=True), 1)
    return np.repeat(share[:, :, None], N_RANKS, 2)


def marginal_bits(p: np.ndarray, true: np.ndarray, obs: np.ndarray) -> np.ndarray:
    """(B,) bits per hidden card of the true hands (B, 4, 15) under card-by-seat marginals
    ``p`` (B, 3, 15): the chance that a hidden card of each rank lies with each other seat,
    mixed with SMOOTHING of the uniform marginals so that no card gets probability 0."""
    unseen = observation.decode(obs).unseen.astype(np.float64)  # (B, 15)
    p = (1 - SMOOTHING) * p + SMOOTHING * uniform_marginals(obs)
    hidden = true[:, 1:].astype(np.float64)
    return -(hidden * np.log2(np.where(hidden > 0, p, 1.0))).sum((1, 2)) / unseen.sum(1)


def card_entropy(pool, weights, true, obs) -> tuple[np.ndarray, np.ndarray]:
    """(B,) bits per hidden card of the true hands under the weighted worlds' card-by-seat
    marginals (``marginal_bits``), and (B,) the hidden cards a world misplaces, weighted
    mean."""
    unseen = observation.decode(obs).unseen.astype(np.float64)  # (B, 15)
    share = np.einsum("bk,bksr->bsr", weights, pool[:, :, 1:].astype(np.float64))
    bits = marginal_bits(share / np.maximum(unseen[:, None], 1), true, obs)
    wrong = np.abs(pool[:, :, 1:] - true[:, None, 1:]).sum((2, 3)) / 2  # (B, K)
    return bits, (weights * wrong).sum(1)


def measure(pos, rows, models, rng, candidates, alternatives, min_ess, facts, batch=16):
    """Per position of ``rows``: beta, effective worlds before and after tempering, and the
    (bits, misplaced) pairs under uniform, tempered and plain weights; seconds per position."""
    keys = ("beta", "ess_plain", "ess_tempered")
    out = {k: [] for k in keys} | {w: [] for w in ("uniform", "tempered", "plain")}
    start = time.perf_counter()
    for at in range(0, rows.size, batch):
        idx = rows[at : at + batch]
        obs, logs, true = pos["obs"][idx], [pos["logs"][i] for i in idx], pos["true"][idx]
        known = exchange_facts(obs, logs) if facts else None
        pool = sample_hidden_hands(obs, rng, candidates, known)
        log_lik, _ = world_log_likelihoods(obs, logs, pool, models, alternatives)
        plain = np.stack([tempered_weights(ll, 1.0) for ll in log_lik])
        tempered = np.stack([tempered_weights(ll, min_ess) for ll in log_lik])
        out["beta"] += [tempering(ll, min_ess) for ll in log_lik]
        out["ess_plain"] += list(1 / (plain**2).sum(1))
        out["ess_tempered"] += list(1 / (tempered**2).sum(1))
        flat = np.full(pool.shape[:2], 1 / candidates)
        for name, w in (("uniform", flat), ("tempered", tempered), ("plain", plain)):
            out[name].append(np.stack(card_entropy(pool, w, true, obs), 1))
    seconds = (time.perf_counter() - start) / max(rows.size, 1)
    return {k: np.asarray(v) if k in keys else np.concatenate(v) for k, v in out.items()}, seconds


def quality(args) -> None:
    hard, rule = registry.make_bot("hard"), registry.make_bot("rule")
    expert = registry.make_bot("expert")
    models = [expert.belief, *(scores for scores, _ in expert.alternatives)]
    pos = play_positions(args.deals, args.seed, hard, rule)
    n = len(pos["hand"])
    if args.positions:
        n = min(n, args.positions)
    rows = np.random.default_rng(args.seed).permutation(len(pos["hand"]))[:n]
    rows.sort()
    print(f"{n} positions: hard's decisions with a choice against 3 rule bots, hands 1-2 of ")
    print(f"{args.deals} deals x 4 seats (seed {args.seed}); {expert.belief_candidates} candidates")
    rng = np.random.default_rng(args.seed + 1)
    common = (models, rng, expert.belief_candidates, expert.alternative_candidates)
    base, took = measure(pos, rows, *common, expert.belief_min_ess, facts=False)
    print(f"belief: {took:.3f} s a position (batches of 16, this machine)")
    print("| positions | n | beta (median) | ESS plain (median) | ESS tempered (median) |")
    print("|---|---|---|---|---|")
    hand = pos["hand"][rows]
    for label, sel in (("hand 1", hand == 0), ("hand 2", hand == 1), ("all", hand >= 0)):
        cells = [np.median(base[k][sel]) for k in ("beta", "ess_plain", "ess_tempered")]
        print(f"| {label} | {sel.sum()} | {cells[0]:.3f} | {cells[1]:.1f} | {cells[2]:.1f} |")
    print()
    print("| positions | weights | bits per hidden card | misplaced cards |")
    print("|---|---|---|---|")
    for label, sel in (("hand 1", hand == 0), ("hand 2", hand == 1), ("all", hand >= 0)):
        for w in ("uniform", "tempered", "plain"):
            bits, wrong = mean_ci(base[w][sel, 0]), mean_ci(base[w][sel, 1])
            print(f"| {label} | {w} | {ci_text(bits)} | {ci_text(wrong)} |")
    least, barred = exchange_facts(pos["obs"][rows], [pos["logs"][i] for i in rows])
    with_facts = np.flatnonzero(least.any((1, 2)) | barred.any((1, 2)))
    if not with_facts.size:
        return
    facts, _ = measure(pos, rows[with_facts], *common, expert.belief_min_ess, facts=True)
    print()
    print(f"{with_facts.size} positions where the exchange proves facts (paired differences)")
    print("| weights | bits: uniform deals | bits: with facts | change | misplaced: change |")
    print("|---|---|---|---|---|")
    for w in ("uniform", "tempered", "plain"):
        a, b = base[w][with_facts], facts[w]
        print(
            f"| {w} | {ci_text(mean_ci(a[:, 0]))} | {ci_text(mean_ci(b[:, 0]))} "
            f"| {paired_ci_text(b[:, 0], a[:, 0])} "
            f"| {paired_ci_text(b[:, 1], a[:, 1])} |"
        )


PARTS = {
    "dealing worlds": ("bots/belief.py", "sample_hidden_hands"),
    "belief likelihoods": ("bots/belief.py", "log_likelihoods"),
    "  of which the policy": ("bots/policy.py", "scores"),
    "  of which the rule bot": ("bots/protocol.py", "scores"),
    "rollouts": ("search.py", "rollout_hand"),
}


def profile(args) -> None:
    expert, hard, rule = (registry.make_bot(s) for s in ("expert", "hard", "rule"))
    pos = play_positions(max(4, args.positions // 8), args.seed, hard, rule, hands=1)
    rows = np.random.default_rng(args.seed).permutation(len(pos["hand"]))[: args.positions]
    rng = np.random.default_rng(args.seed)
    prof = cProfile.Profile()
    start = time.perf_counter()
    for i in rows:
        obs = pos["obs"][i : i + 1]
        mask = engine.legal_action_mask(_state_of(obs))
        prof.runcall(expert.act, obs, mask, rng, history=[pos["logs"][i]])
    total = time.perf_counter() - start
    stats = pstats.Stats(prof).stats
    print(
        f"expert, {rows.size} positions (hand 1) one at a time: {total / rows.size:.3f} s a "
        "move (under the profiler)"
    )
    print("| part | share of the move's time |\n|---|---|")
    whole = sum(v[2] for v in stats.values())
    for label, (file, func) in PARTS.items():
        by_belief = label.startswith("  of which")  # only the calls scoring the others' moves
        cum = sum(
            ct
            for (path, _, name), (_, _, _, ct, callers) in stats.items()
            if name == func
            and path.endswith(file)
            and (not by_belief or any(c[2] == "log_likelihoods" for c in callers))
        )
        print(f"| {label} | {cum / whole:.0%} |")


def speed(args) -> None:
    """``expert``'s CPU time a move, float32 against its policy in int8 (belief and rollouts;
    the policy's own move, the prior, stays float32), one position at a time, in turn."""
    hard, rule = (registry.make_bot(s) for s in ("hard", "rule"))
    bots = {"float32": expert_in("float32"), "int8 belief and rollouts": expert_in("int8")}
    pos = play_positions(max(4, args.positions // 8), args.seed, hard, rule, hands=1)
    rows = np.random.default_rng(args.seed).permutation(len(pos["hand"]))[: args.positions]
    took = {name: [] for name in bots}
    same = 0
    for i in rows:
        obs = pos["obs"][i : i + 1]
        mask = engine.legal_action_mask(_state_of(obs))
        moves = []
        for name, bot in bots.items():
            start = time.process_time()
            moves.append(bot.act(obs, mask, np.random.default_rng(i), history=[pos["logs"][i]]))
            took[name].append(time.process_time() - start)
        same += int(moves[0][0] == moves[1][0])
    print(f"expert's CPU seconds a move, {rows.size} positions (hand 1), one at a time")
    print("| arithmetic | median | ratio to float32 | same move |\n|---|---|---|---|")
    base = np.median(took["float32"])
    for name, t in took.items():
        print(f"| {name} | {np.median(t):.3f} | {np.median(t) / base:.2f} | {same}/{rows.size} |")


def _state_of(obs):
    from murlan_env.bots.belief import state_from_observation

    return state_from_observation(obs, observation.decode(obs).my_hand[:, None].repeat(4, 1))


def swapped(true: np.ndarray, k: int, rng: np.random.Generator, n: int) -> np.ndarray:
    """(n, 4, 15) copies of one true deal (4, 15), each with ``k`` random swaps of a card
    between two of slots 1-3 (a card of each chosen uniformly among the slot's cards)."""
    out = np.repeat(true[None], n, axis=0).astype(np.int8)
    for w in range(n):
        for _ in range(k):
            have = np.flatnonzero(out[w, 1:].sum(1) > 0) + 1
            if have.size < 2:
                break
            a, b = rng.choice(have, 2, replace=False)
            ra = rng.choice(N_RANKS, p=out[w, a] / out[w, a].sum())
            rb = rng.choice(N_RANKS, p=out[w, b] / out[w, b].sum())
            out[w, a, ra] -= 1
            out[w, b, rb] -= 1
            out[w, a, rb] += 1
            out[w, b, ra] += 1
    return out


class TrueDeal:
    """A ``SearchBot`` ``deal``: worlds that are the true first-hand deal with ``k`` swaps.

    The deal is found from the seat's cards at the deal (held plus played) among ``deals``
    (each board's (4, 15) counts), which holds for the first hand (no exchange)."""

    def __init__(self, deals: list[np.ndarray], k: int) -> None:
        self.k = k
        self.index = {}
        for d in deals:
            for seat in range(N_SEATS):
                self.index[d[seat].tobytes()] = (d, seat)
        self.misplaced: list[float] = []

    def __call__(self, obs, rng, n):
        seen = observation.decode(obs)
        out = np.zeros((obs.shape[0], n, N_SEATS, N_RANKS), np.int8)
        for g in range(obs.shape[0]):
            dealt = (seen.my_hand[g] + seen.played[g, 0]).astype(np.int8)
            deal, seat = self.index[dealt.tobytes()]
            slots = (seat + np.arange(N_SEATS)) % N_SEATS
            true = deal[slots] - seen.played[g]
            out[g] = swapped(true, self.k, rng, n)
            self.misplaced.append(float(np.abs(out[g, :, 1:] - true[1:]).sum((1, 2)).mean() / 2))
        return out


def counts_of(cards: np.ndarray) -> np.ndarray:
    """(4, 15) int8 rank counts of a (4, 54) bool deal."""
    out = np.zeros((N_SEATS, N_RANKS), np.int8)
    out[:, :13] = cards[:, :52].reshape(N_SEATS, 13, 4).sum(2)
    out[:, 13:] = cards[:, 52:]
    return out


def headroom(args) -> None:
    saved = np.load(args.paired)["bot0_hand1"][args.skip :] if args.paired else None
    print(
        f"expert given the true deal with k swaps, hand 1 of {args.boards} boards x "
        f"{len(args.seeds)} seeds (seeds {args.seeds}), one seat against 3 rule bots"
    )
    print("| k swaps | misplaced cards | points/hand | gain over expert (paired) | s/board |")
    print("|---|---|---|---|---|")
    for k in args.swaps:
        start = time.perf_counter()
        points, misplaced = [], []
        for seed in args.seeds:
            source = seeded_deals(seed)
            deals = [counts_of(source(b, 0)[1]) for b in range(args.boards)]
            deal = TrueDeal(deals, k)
            bot = registry.make_bot("expert")
            bot.deal = deal
            # The belief only picks each seat's model here, from the first candidates alone:
            # as many as the rule bot is scored on give the same choice at a quarter the cost.
            bot.belief_candidates = bot.alternative_candidates
            bot.name = f"expert+true-deal/{k}"
            result = play_duplicate(
                [bot, registry.make_bot("rule")],
                args.boards,
                lineups=one_against_three(),
                seed=seed,
                max_hands=1,
            )
            points.append(result.board_points()[:, 0])
            misplaced += deal.misplaced
        points = np.concatenate(points)
        gain = "" if saved is None else paired_ci_text(points, saved[: points.size])
        took = (time.perf_counter() - start) / points.size
        print(
            f"| {k} | {np.mean(misplaced):.2f} | {ci_text(mean_ci(points))} | {gain} "
            f"| {took:.0f} |",
            flush=True,
        )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0].replace("\n", " ")
        + " Takes: quality about 0.4 s a position, profile and speed seconds a position, "
        "headroom 5-40 s a board (one core)."
    )
    sub = parser.add_subparsers(dest="what", required=True)
    q = sub.add_parser("quality", help="the belief on fixed positions")
    q.add_argument("--deals", type=int, default=100, help="deals, each played from 4 seats")
    q.add_argument("--positions", type=int, default=0, help="at most this many (0: all)")
    q.add_argument("--seed", type=int, default=7)
    p = sub.add_parser("profile", help="where an expert move's time goes")
    p.add_argument("--positions", type=int, default=24)
    p.add_argument("--seed", type=int, default=7)
    s = sub.add_parser("speed", help="expert's move time, float32 against int8")
    s.add_argument("--positions", type=int, default=24)
    s.add_argument("--seed", type=int, default=7)
    h = sub.add_parser("headroom", help="expert given the true deal with k swaps")
    h.add_argument("--swaps", type=int, nargs="+", default=[0, 2, 4, 8])
    h.add_argument("--boards", type=int, default=8, help="boards per seed")
    h.add_argument("--seeds", type=int, nargs="+", default=[100, 101, 102])
    h.add_argument("--paired", default=None, help="strength.py paired --save file to pair with")
    h.add_argument(
        "--skip", type=int, default=0, help="boards of --paired before the first of --seeds"
    )
    args = parser.parse_args(argv)
    if getattr(args, "deals", 1) < 1 or getattr(args, "boards", 1) < 1:
        parser.error("--deals and --boards must be positive")
    if getattr(args, "swaps", None) and min(args.swaps) < 0:
        parser.error("--swaps must be at least 0")
    run = {"quality": quality, "profile": profile, "speed": speed, "headroom": headroom}
    run[args.what](args)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
