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

Some things the observer knows for certain: what this hand's exchange proves about its
partner's cards (``exchange_facts``). Given them, ``sample_hidden_hands`` deals only worlds
consistent with them, uniformly among those, without rejection. The others' moves make a
deal more or less likely but never impossible (passing is always allowed), so they stay with
the likelihoods.

The others need not all play like one model. Given further models (e.g. the rule bot through
``bots.MoveScores``), each other seat is scored under every model and takes the one that
explains its moves this hand best (``best_models``): its moves weigh the worlds under that
model, and that model's bot plays the seat in the search's rollouts
(``murlan_env.bots.search``).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from murlan_env.bots.protocol import ScoringBot, legal_log_probs
from murlan_env.game import engine, observation
from murlan_env.game.cards import N_RANKS
from murlan_env.game.state import N_SEATS, Phase, State, make_state


def sample_hidden_hands(
    obs: np.ndarray,
    rng: np.random.Generator,
    n_worlds: int,
    facts: tuple[np.ndarray, np.ndarray] | None = None,
) -> np.ndarray:
    """(B, W, 4, 15) int8 held cards per seat slot in W sampled worlds per game.

    Slot 0 is the observer's own hand; the unseen cards are dealt uniformly at random among
    slots 1-3, each slot getting as many cards as it holds. Passing never proves anything
    in Murlan (it is always allowed), so a uniform deal is consistent with everything the
    others played. ``facts``: what the observer knows for certain of the others' hands
    (``exchange_facts``): the worlds are dealt uniformly among the deals consistent with
    them, without rejection: the cards known to be held are placed first, the seat barred
    from some ranks takes its other cards from the ranks it may hold, then the rest are dealt.
    """
    seen = observation.decode(obs)
    batch = obs.shape[0]
    out = np.zeros((batch, n_worlds, N_SEATS, N_RANKS), np.int8)
    out[:, :, 0] = seen.my_hand[:, None]
    for g in range(batch):
        unseen = seen.unseen[g].astype(np.int64)
        left = seen.cards_left[g, 1:].astype(np.int64)
        if unseen.sum() != left.sum():
            raise ValueError(
                f"game {g}: {unseen.sum()} unseen cards but the others hold {int(left.sum())}"
            )
        if facts is not None and (facts[0][g].any() or facts[1][g].any()):
            known, barred = facts[0][g, 1:], facts[1][g, 1:]
            out[g, :, 1:] = _deal_with_facts(unseen, left, known, barred, rng, n_worlds, g)
            continue
        tokens = np.repeat(np.arange(N_RANKS), unseen)  # one entry per unseen card: its rank
        order = rng.random((n_worlds, tokens.size)).argsort(axis=1)
        slot_of_position = np.repeat(np.arange(1, N_SEATS), left)  # (U,)
        ranks = tokens[order]  # (W, U) a shuffled deal of the unseen ranks
        worlds = np.broadcast_to(np.arange(n_worlds)[:, None], ranks.shape)
        np.add.at(out[g], (worlds, slot_of_position[None, :], ranks), 1)
    return out


def _deal_with_facts(unseen, left, least, barred, rng, n_worlds, game) -> np.ndarray:
    """(W, 3, 15) the unseen cards dealt to slots 1-3 uniformly among the deals where each
    slot holds at least ``least`` (3, 15) and, where ``barred``, no more than that.

    Cards are distinct, so with the known cards placed and one slot barred from some ranks,
    every choice of that slot's other cards among the ranks it may hold leaves as many ways
    to deal the rest: drawing its cards first, then dealing the rest uniformly, is uniform.
    """
    rest = unseen - least.sum(0)
    room = left - least.sum(1)
    if (rest < 0).any() or (room < 0).any():
        raise ValueError(f"game {game}: the facts do not fit the observation")
    tokens = np.repeat(np.arange(N_RANKS), rest)
    keys = rng.random((n_worlds, tokens.size))
    capped = np.flatnonzero(barred[:, tokens].any(1))
    if capped.size > 1:
        raise ValueError(f"game {game}: facts bar ranks from more than one seat")
    order = keys.argsort(axis=1)
    sizes = room
    slots = np.arange(N_SEATS - 1)
    if capped.size:
        c = int(capped[0])
        may = ~barred[c, tokens]
        if may.sum() < room[c]:
            raise ValueError(f"game {game}: the facts do not fit the observation")
        # The barred seat's cards: the first room[c] of its allowed cards in a random order.
        allowed_first = np.where(may, keys, keys + 2.0).argsort(axis=1)
        mine, others = allowed_first[:, : room[c]], allowed_first[:, room[c] :]
        others = np.take_along_axis(others, rng.random(others.shape).argsort(axis=1), axis=1)
        order = np.concatenate([mine, others], axis=1)
        slots = np.concatenate([[c], np.delete(slots, c)])
        sizes = room[slots]
    slot_of_position = np.repeat(slots, sizes)
    ranks = tokens[order]
    out = np.zeros((n_worlds, N_SEATS - 1, N_RANKS), np.int8)
    out += least.astype(np.int8)
    worlds = np.broadcast_to(np.arange(n_worlds)[:, None], ranks.shape)
    np.add.at(out, (worlds, slot_of_position[None, :], ranks), 1)
    return out


def exchange_facts(
    obs: np.ndarray, logs: Sequence[np.ndarray] | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """(B, 4, 15) int8 cards each slot surely holds, and (B, 4, 15) bool ranks of which it
    surely holds no more than that: what this hand's exchange proves about the others.

    Only certain facts, none a guess from how a seat played. The observer who took part in
    the exchange knows its partner received the card it gave: the partner holds a card of
    that rank unless it has played one. The previous last player gave its highest card, so
    when the observer was the previous 1st, the last held nothing higher at the deal: no
    card ranked above the one it gave, except the one the observer gave back. The last
    player leads the hand (its first entry in ``logs``); where the logs are missing, the
    observation says who took part only in a match's second hand (the scores are then hand
    1's points: 3 for the 1st, 0 for the last). Nothing is known of seats that did not take
    part, nor of the 1st when the last cannot tell who that was.
    """
    seen = observation.decode(obs)
    batch = obs.shape[0]
    least = np.zeros((batch, N_SEATS, N_RANKS), np.int8)
    barred = np.zeros((batch, N_SEATS, N_RANKS), bool)
    got, gave, scores = seen.received, seen.gave, seen.scores.astype(np.int64)
    for g in np.flatnonzero((got >= 0) & (gave >= 0)):
        second_hand = scores[g].sum() == 6 and sorted(scores[g]) == [0, 1, 2, 3]
        log = None if logs is None else np.asarray(logs[g]).reshape(-1, 2)
        if log is not None:
            last = int(log[0, 0]) if len(log) else 0  # the previous last player leads
        elif second_hand:
            last = int(np.flatnonzero(scores[g] == 0)[0])
        else:
            continue
        if last:  # the observer was the 1st and gave back ``gave`` to the last
            partner = last
            barred[g, last, got[g] + 1 :] = True
        elif second_hand:  # the observer was the last and gave its highest to the 1st
            partner = int(np.flatnonzero(scores[g] == 3)[0])
        else:
            continue
        # (Where the card given back outranks the last's highest, the last holds exactly it,
        # unless played: barred with that least.)
        least[g, partner, gave[g]] = max(0, 1 - int(seen.played[g, partner, gave[g]]))
    return least, barred


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


def tempering(log_lik: np.ndarray, min_ess: float) -> float:
    """The largest beta in [0, 1] whose weights exp(beta * log_lik) keep an effective sample
    size 1 / sum(w^2) of at least ``min_ess`` (1 when the plain likelihoods keep that many);
    ``log_lik`` (K,) may hold -inf for worlds ruled out."""

    def ess(beta: float) -> float:
        return 1.0 / float((_weights(log_lik, beta) ** 2).sum())

    if ess(1.0) >= min_ess:
        return 1.0
    low, high = 0.0, 1.0
    for _ in range(30):
        mid = (low + high) / 2
        low, high = (mid, high) if ess(mid) >= min_ess else (low, mid)
    return low


def _weights(log_lik: np.ndarray, beta: float) -> np.ndarray:
    finite = np.isfinite(log_lik)
    w = np.zeros(log_lik.shape)
    w[finite] = np.exp(beta * (log_lik[finite] - log_lik[finite].max()))
    return w / w.sum()


def tempered_weights(log_lik: np.ndarray, min_ess: float) -> np.ndarray:
    """(K,) weights proportional to exp(beta * log_lik), summing to 1, with beta
    ``tempering(log_lik, min_ess)``."""
    return _weights(log_lik, tempering(log_lik, min_ess))


def believed_worlds(
    obs: np.ndarray,
    logs: list[np.ndarray],
    models: Sequence[ScoringBot],
    rng: np.random.Generator,
    candidates: int,
    min_ess: float,
    alternative_candidates: int | None = None,
    facts: tuple[np.ndarray, np.ndarray] | None = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``candidates`` uniform worlds per game (B, K, 4, 15), their weights (B, K) and the
    model of each slot (B, 4).

    A world's weight is its likelihood under ``world_log_likelihoods``, tempered to keep
    ``min_ess`` effective worlds (``tempered_weights``); the weights sum to 1 per game.
    ``facts``: the candidates are dealt consistent with them (``sample_hidden_hands``).
    """
    pool = sample_hidden_hands(obs, rng, candidates, facts)
    log_lik, which = world_log_likelihoods(obs, logs, pool, models, alternative_candidates)
    weights = np.stack([tempered_weights(ll, min_ess) for ll in log_lik])
    return pool, weights, which


def world_log_likelihoods(
    obs: np.ndarray,
    logs: list[np.ndarray],
    pool: np.ndarray,
    models: Sequence[ScoringBot],
    alternative_candidates: int | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """(B, K) log-likelihood of the others' moves so far in each world of ``pool`` (B, K, 4,
    15), and (B, 4) the model of each slot.

    Each slot's moves are scored under every model of ``models`` and the slot takes the one
    that explains them best (``best_models``; with one model, that one); a world's
    log-likelihood is the sum over the slots under their models. ``alternative_candidates``:
    the models after the first are scored on only this many of the worlds (the first ones:
    uniform draws like the rest), and where a slot takes one of them the others are left out
    (-inf). A bot without scores (the rule bot through ``bots.MoveScores``) costs far more
    per world than a policy's batched forward pass.
    """
    n_games, candidates = pool.shape[:2]
    log_lik = np.zeros((n_games, candidates))
    which = np.zeros((n_games, N_SEATS), np.int64)
    few = candidates if alternative_candidates is None else min(alternative_candidates, candidates)
    # Every game's worlds are scored together: one call of each model per step of the logs.
    firsts = log_likelihoods(obs, logs, pool, models[0])  # (B, K, 4)
    others = [log_likelihoods(obs, logs, pool[:, :few], m) for m in models[1:]]
    for g in range(n_games):
        first = firsts[g]
        log_liks = np.stack([first[:few], *(o[g] for o in others)])
        which[g] = best_models(log_liks)
        if not which[g].any():
            log_lik[g] = first.sum(1)
            continue
        chosen = np.take_along_axis(log_liks, which[g][None, None, :], axis=0)[0]  # (few, 4)
        log_lik[g, :few] = chosen.sum(1)
        log_lik[g, few:] = -np.inf
    return log_lik, which


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
    "exchange_facts",
    "log_likelihood",
    "log_likelihoods",
    "sample_hidden_hands",
    "state_from_observation",
    "tempered_weights",
    "tempering",
    "world_log_likelihoods",
]
