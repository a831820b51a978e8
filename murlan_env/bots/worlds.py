"""The worlds a search plays in: the hidden cards dealt among the other seats, and a belief
over those deals from how the others have played this hand.

A *world* gives every other seat a hand: the cards the observing seat cannot see (``unseen``
in its observation) dealt among them, each seat getting exactly the number of cards it holds
(``cards_left``). ``sample_hidden_hands`` deals them uniformly. A bot sees ``(obs, mask)``, so
``state_from_observation`` rebuilds an engine ``State`` from the decoded observation
(``murlan_env.game.observation.decode``) and a world, with ``murlan_env.game.state.make_state``.
Rebuilt states have the observing seat at seat 0 (the observation is egocentric) and cover
the current hand only.

With a ``belief`` model (a bot with scores, e.g. the trained policy) and the hand's history
(``murlan_env.bots.history``), the worlds are not dealt uniformly: ``believed_worlds`` plays
``candidates`` uniform worlds through the hand so far, scores the others' moves by the model
(``log_likelihoods``), and weighs each world by how well it explains what the others did. The
likelihoods are tempered until the weights keep an effective sample size of ``min_ess``
worlds (``tempered_weights``): the untempered weights fall on two or three worlds, and a
search on so few overfits them. ``draw_worlds`` draws a search's worlds by those weights.

The others need not all play like one model. Given further models (e.g. the rule bot through
``bots.MoveScores``), each other seat is scored under every model and takes the one that
explains its moves this hand best (``best_models``): its moves weigh the worlds under that
model, and that model's bot plays the seat in the search's rollouts
(``murlan_env.bots.search``).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from murlan_env.bots.basic import ScoringBot, legal_log_probs
from murlan_env.game import engine, observation
from murlan_env.game.cards import N_RANKS
from murlan_env.game.state import N_SEATS, Phase, State, make_state


def sample_hidden_hands(obs: np.ndarray, rng: np.random.Generator, n_worlds: int) -> np.ndarray:
    """(B, W, 4, 15) int8 held cards per seat slot in W sampled worlds per game.

    Slot 0 is the observer's own hand; the unseen cards are dealt uniformly at random among
    slots 1-3, each slot getting as many cards as it holds. Passing never proves anything
    in Murlan (it is always allowed), so a uniform deal is consistent with everything seen.
    """
    seen = observation.decode(obs)
    batch = obs.shape[0]
    out = np.zeros((batch, n_worlds, N_SEATS, N_RANKS), np.int8)
    out[:, :, 0] = seen.my_hand[:, None]
    for g in range(batch):
        unseen = seen.unseen[g]
        left = seen.cards_left[g, 1:].astype(np.int64)
        tokens = np.repeat(np.arange(N_RANKS), unseen)  # one entry per unseen card: its rank
        if tokens.size != left.sum():
            raise ValueError(
                f"game {g}: {tokens.size} unseen cards but the others hold {int(left.sum())}"
            )
        order = rng.random((n_worlds, tokens.size)).argsort(axis=1)
        slot_of_position = np.repeat(np.arange(1, N_SEATS), left)  # (U,)
        ranks = tokens[order]  # (W, U) a shuffled deal of the unseen ranks
        worlds = np.broadcast_to(np.arange(n_worlds)[:, None], ranks.shape)
        np.add.at(out[g], (worlds, slot_of_position[None, :], ranks), 1)
    return out


def _cards_from_counts(held: np.ndarray) -> np.ndarray:
    """(n, 4, 54) bool concrete cards for held counts (n, 4, 15): suits S H D C in seat order.

    Seat 0 takes the lowest suits of each rank, so it holds the 3 of spades whenever it
    holds a 3 (the start card when the observer has the start-card duty).
    """
    n = held.shape[0]
    counts = held[:, :, :13].astype(np.int64)
    upto = np.cumsum(counts, axis=1)
    start = upto - counts
    suit = np.arange(4)
    taken = (suit >= start[..., None]) & (suit < upto[..., None])  # (n, 4, 13, 4)
    cards = np.zeros((n, N_SEATS, 54), bool)
    cards[:, :, :52] = taken.reshape(n, N_SEATS, 52)
    cards[:, :, 52:] = held[:, :, 13:] > 0
    return cards


def state_from_observation(obs: np.ndarray, held: np.ndarray) -> State:
    """Engine states for observations (B, OBS_SIZE) with hidden hands filled in.

    ``held`` is (B, 4, 15) int cards per seat slot (slot 0 must match the observer's hand),
    e.g. one world of ``sample_hidden_hands``. The observer sits at seat 0 and is to act.
    What the observation does not carry (dealer, hand number, who swapped cards in this
    hand's exchange) is left at neutral values that do not affect how the hand plays on, so
    observing the rebuilt state gives the same vector except the ``exchange`` piece.
    """
    seen = observation.decode(obs)
    held = np.asarray(held, np.int8)
    if (held[:, 0] != seen.my_hand).any():
        raise ValueError("slot 0 of the hidden hands must be the observer's own hand")
    if len(np.unique(seen.rule_flags, axis=0)) > 1:
        raise ValueError("the observations must share their rules")
    cards = _cards_from_counts(held)
    return make_state(
        seen.rules(0),
        obs.shape[0],
        cards=cards,
        deal=cards,
        played=seen.played,
        phase=np.where(seen.exchanging, Phase.EXCHANGE, Phase.PLAY),
        to_act=0,
        table=seen.table,
        table_seat=seen.table_slot,
        passed=seen.passed,
        place=seen.place,
        start_duty=seen.start_duty,
        hand_no=np.where(seen.start_duty, 0, 1),
        dealer=N_SEATS - 1,
        scores=seen.scores,
        target=seen.target,
    )


def log_likelihood(obs: np.ndarray, log: np.ndarray, held: np.ndarray, model: ScoringBot):
    """(W, 4) float64 log-probability of each slot's moves so far this hand, in W worlds:
    ``log_likelihoods`` for one observation (OBS_SIZE,), its log and its worlds (W, 4, 15)."""
    return log_likelihoods(obs[None], [log], np.asarray(held)[None], model)[0]


def log_likelihoods(
    obs: np.ndarray, logs: Sequence[np.ndarray], held: np.ndarray, model: ScoringBot
) -> np.ndarray:
    """(B, W, 4) float64 log-probability of each slot's moves so far this hand, in W worlds
    of each of B games.

    ``obs`` is (B, OBS_SIZE), ``logs`` each game's hand so far as (n, 2) ``[slot, action]``
    rows (``murlan_env.bots.history``) and ``held`` (B, W, 4, 15) held cards per slot in each
    world (slot 0 the observer's). Each world's hands at the hand's start (held now plus
    played) are played through its game's log on the engine, the worlds of every game
    stepping together, and every move of slots 1-3 is scored by softmax(model's scores) over
    its legal moves, in one call of the model per step for every game and world; slot 0's
    column stays 0 (the observer's own moves say nothing about the others' cards). The hand's
    opening move is not scored: a start-card duty may have bound it, and the observation does
    not say whether one did.
    """
    seen = observation.decode(obs)
    held = np.asarray(held)
    n_games, n_worlds = held.shape[:2]
    out = np.zeros((n_games, n_worlds, N_SEATS))
    logs = [np.asarray(log, np.int64).reshape(-1, 2) for log in logs]
    length = np.array([len(log) for log in logs], np.int64)
    games = np.flatnonzero(length >= 2)  # a hand of one move has nothing to score
    if not games.size:
        return out
    if len(np.unique(seen.rule_flags[games], axis=0)) > 1:
        raise ValueError("the observations must share their rules")
    start = (held[games] + seen.played[games][:, None]).astype(np.int8)
    cards = _cards_from_counts(start.reshape(-1, N_SEATS, N_RANKS))
    row_game = np.repeat(games, n_worlds)  # (R,) the game of each row, worlds in order
    row_world = np.tile(np.arange(n_worlds), games.size)
    state = make_state(
        seen.rules(int(games[0])),
        row_game.size,
        cards=cards,
        deal=cards,
        phase=Phase.PLAY,
        to_act=np.array([logs[g][0, 0] for g in row_game], np.int8),
        scores=seen.scores[row_game],
        target=seen.target[row_game],
        hand_no=1,
        dealer=N_SEATS - 1,
    )
    moves = np.zeros((n_games, int(length.max()), 2), np.int64)
    for g in games:
        moves[g, : length[g]] = logs[g]
    for t in range(int(length.max())):
        if t:  # games whose log is played through leave the batch
            keep = length[row_game] > t
            if not keep.all():
                row_game, row_world, state = row_game[keep], row_world[keep], state.index(keep)
        slot, action = moves[row_game, t, 0], moves[row_game, t, 1]
        mask = engine.legal_action_mask(state)
        rows = np.arange(row_game.size)
        if (state.to_act != slot).any() or not mask[rows, action].all():
            bad = int(row_game[(state.to_act != slot) | ~mask[rows, action]][0])
            raise ValueError(f"move {t} of game {bad}'s log does not fit the observation")
        # A world where the move was forced (its only legal move) has its log-probability 0,
        # so the model scores only the worlds where the seat had a choice.
        chose = np.flatnonzero((mask.sum(1) > 1) & (slot > 0)) if t else rows[:0]
        if len(chose):
            obs_t, mask_t = engine.observe(state.index(chose)), mask[chose]
            log_p = legal_log_probs(model.scores(obs_t, mask_t), mask_t)
            out[row_game[chose], row_world[chose], slot[chose]] += log_p[
                np.arange(chose.size), action[chose]
            ]
        state = engine.step(state, action.astype(np.int16), donate=True)
    return out


def best_models(log_liks: np.ndarray) -> np.ndarray:
    """(4,) for each slot, the index of the model that explains its moves best.

    ``log_liks`` is (M, W, 4): each of M models' ``log_likelihood`` in the same W uniform
    worlds. A model's evidence for a slot is the mean over the worlds of the likelihood of
    that slot's moves (the probability of what it did, the hidden cards unknown); the slot
    takes the model with the most, the first on ties (so with no moves to go on, model 0).
    """
    top = log_liks.max(axis=1, keepdims=True)
    evidence = top[:, 0] + np.log(np.exp(log_liks - top).mean(axis=1))  # (M, 4)
    return np.argmax(evidence, axis=0)


def tempered_weights(log_lik: np.ndarray, min_ess: float) -> np.ndarray:
    """(K,) weights proportional to exp(beta * log_lik), summing to 1, with the largest beta in
    [0, 1] whose effective sample size 1 / sum(w^2) is at least ``min_ess`` (beta 1 when the
    plain likelihoods keep that many)."""

    def weights(beta: float) -> np.ndarray:
        w = np.exp(beta * (log_lik - log_lik.max()))
        return w / w.sum()

    def ess(beta: float) -> float:
        return 1.0 / float((weights(beta) ** 2).sum())

    if ess(1.0) >= min_ess:
        return weights(1.0)
    low, high = 0.0, 1.0
    for _ in range(30):
        mid = (low + high) / 2
        low, high = (mid, high) if ess(mid) >= min_ess else (low, mid)
    return weights(low)


def believed_worlds(
    obs: np.ndarray,
    logs: list[np.ndarray],
    models: Sequence[ScoringBot],
    rng: np.random.Generator,
    candidates: int,
    min_ess: float,
    alternative_candidates: int | None = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``candidates`` uniform worlds per game (B, K, 4, 15), their weights (B, K) and the
    model of each slot (B, 4).

    Each slot's moves so far are scored under every model of ``models`` and the slot takes
    the one that explains them best (``best_models``; with one model, that one). A world's
    weight is its likelihood of every slot's moves under the slot's model, tempered to keep
    ``min_ess`` effective worlds (``tempered_weights``); the weights sum to 1 per game.

    ``alternative_candidates``: the models after the first are scored on only this many of
    the candidates (the first ones: uniform draws like the rest), and where a slot takes one
    of them the weights fall on those candidates alone. A bot without scores (the rule bot
    through ``bots.MoveScores``) costs far more per world than a policy's batched forward pass.
    """
    pool = sample_hidden_hands(obs, rng, candidates)
    weights = np.zeros(pool.shape[:2])
    which = np.zeros((obs.shape[0], N_SEATS), np.int64)
    few = candidates if alternative_candidates is None else min(alternative_candidates, candidates)
    # Every game's worlds are scored together: one call of each model per step of the logs.
    firsts = log_likelihoods(obs, logs, pool, models[0])  # (B, K, 4)
    others = [log_likelihoods(obs, logs, pool[:, :few], m) for m in models[1:]]
    for g in range(obs.shape[0]):
        first = firsts[g]
        log_liks = np.stack([first[:few], *(o[g] for o in others)])
        which[g] = best_models(log_liks)
        if not which[g].any():
            weights[g] = tempered_weights(first.sum(1), min_ess)
            continue
        chosen = np.take_along_axis(log_liks, which[g][None, None, :], axis=0)[0]  # (few, 4)
        weights[g, :few] = tempered_weights(chosen.sum(1), min_ess)
    return pool, weights, which


def draw_worlds(
    pool: np.ndarray, weights: np.ndarray, rng: np.random.Generator, n_worlds: int
) -> np.ndarray:
    """(B, n_worlds, 4, 15) worlds drawn with replacement from each game's candidates ``pool``
    (B, K, 4, 15) by its ``weights`` (B, K), as ``believed_worlds`` returns them."""
    picks = np.stack([rng.choice(len(w), size=n_worlds, p=w) for w in weights])
    return pool[np.arange(len(pool))[:, None], picks]


__all__ = [
    "believed_worlds",
    "best_models",
    "draw_worlds",
    "log_likelihood",
    "log_likelihoods",
    "sample_hidden_hands",
    "state_from_observation",
    "tempered_weights",
]
