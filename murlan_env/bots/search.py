"""Determinised Monte-Carlo search: a bot that looks ahead by playing the hand out many times.

For each decision the bot samples *worlds*: the cards it cannot see (``unseen`` in its
observation) dealt at random among the other seats, each seat getting exactly the number of
cards it holds (``cards_left``). Every candidate move is then played in every world and the
hand is rolled out to its end with a fast rule of thumb (``rollout_actions``) for all four
seats; the move with the best mean hand points (3/2/1/0) is chosen. All worlds x candidates
of all games in the batch step together on the batched engine, and every candidate is
scored on the same worlds (common random numbers), so differences between moves are not
drowned by the luck of the sampled deal.

The bot sees ``(obs, mask)``, so ``state_from_observation`` rebuilds an engine
``State`` from the decoded observation (``murlan_env.game.observation.decode``) and a guess of the
hidden hands, with ``murlan_env.game.state.make_state``. Rebuilt states have the observing seat
at seat 0
(the observation is egocentric) and cover the current hand only: the search values moves
by this hand's points, not by the match.

With a ``belief`` model (a bot with scores, e.g. the trained policy) and the hand's history
(``murlan_env.bots.history``: the drivers that keep it pass it to ``act``), the worlds are not dealt
uniformly: ``belief_candidates`` uniform worlds are each played through the hand so far, the
others' moves are scored by the model (``log_likelihood``), and the search's worlds are drawn
from them in proportion to how well they explain what the others did. The likelihoods are
tempered until the weights keep an effective sample size of ``belief_min_ess`` worlds: the
untempered weights fall on two or three worlds, and a search on so few overfits them.

The others need not all play like one model. Given ``alternatives`` (other models, e.g. the
rule bot through ``bots.MoveScores``), each other seat is scored under every model and takes
the one that explains its moves this hand best (``best_models``): its moves weigh the worlds
under that model, and that model's bot plays the seat in the rollouts.
"""

from __future__ import annotations

import math
import time
from collections.abc import Sequence

import numpy as np

from murlan_env.bots.basic import Bot, ScoringBot, legal_log_probs
from murlan_env.game import engine, observation
from murlan_env.game.cards import N_CARDS, N_RANKS
from murlan_env.game.combos import JOKER_PAIR, KEY, KIND, LENGTH, N_ACTIONS, PASS, Kind
from murlan_env.game.state import N_SEATS, Phase, State, make_state

# --------------------------------------------------------------------------- worlds


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


# --------------------------------------------------------------------------- rollout policy

# (A,) how reluctant the rule of thumb is to play each action: roughly the rank it spends.
# Longer combinations come a little earlier (they shed more cards per turn), bombs and the
# joker pair come last: they are kept to win a trick that matters.
_PRIORITY = KEY.astype(np.float32)
_is_straight = KIND == Kind.STRAIGHT
_PRIORITY[_is_straight] = KEY[_is_straight] - 1.0 - 0.3 * LENGTH[_is_straight]  # ladder -> rank
_PRIORITY[KIND == Kind.PAIR] -= 0.5
_PRIORITY[KIND == Kind.TRIPLE] -= 1.0
_PRIORITY[KIND == Kind.QUAD] += 100.0
_PRIORITY[JOKER_PAIR] = 50.0
_PRIORITY[PASS] = np.inf
# Following with anything ranked 2 or higher (or a bomb) waits until someone is close to out.
_SPEND_HIGH = 12.0
_CLOSE_TO_OUT = 4
_SINGLE = slice(1, 1 + N_RANKS)
_PAIR = slice(16, 29)


def rollout_actions(
    state: State, mask: np.ndarray, rng: np.random.Generator, epsilon: float = 0.1
) -> np.ndarray:
    """(B,) a fast rule-of-thumb action per game, for rollouts (sees the true state).

    Lead the cheapest combination; follow with the cheapest play that beats the table, but
    pass rather than spend a 2, a joker or a bomb unless some seat is close to going out.
    Singles and pairs that would break a bigger group cost extra. With probability
    ``epsilon`` a uniformly random legal action instead, so rollouts are not all alike.
    """
    batch = state.batch_size
    rows = np.arange(batch)
    counts = state.counts
    hand = counts[rows, state.to_act]  # (B, 15)
    cost = np.where(mask, _PRIORITY, np.float32(np.inf))  # PASS is inf already
    cost[:, _SINGLE] += 4.0 * (hand > 1)
    cost[:, _PAIR] += 3.0 * (hand[:, :13] > 2)
    best = cost.argmin(1)
    best_cost = cost[rows, best]
    left = counts.sum(2)  # (B, 4)
    someone_close = ((left > 0) & (left <= _CLOSE_TO_OUT)).any(1)
    leading = state.table == PASS
    play = np.isfinite(best_cost) & (leading | (best_cost < _SPEND_HIGH) | someone_close)
    actions = np.where(play, best, PASS).astype(np.int16)
    if epsilon > 0:
        explore = rng.random(batch) < epsilon
        if explore.any():
            actions[explore] = engine.random_legal_actions(mask[explore], rng)
    # A game whose mask is empty (not waiting) gets PASS, which the engine ignores.
    return np.where(mask.any(1), actions, PASS).astype(np.int16)


def rollout_hand(
    state: State,
    rng: np.random.Generator,
    epsilon: float = 0.1,
    playout: Bot | None = None,
    seat_playouts: tuple[Sequence[Bot], np.ndarray] | None = None,
) -> np.ndarray:
    """(B, 4) hand points of every game played out to the end of its hand, every seat by
    ``playout`` (a bot acting on each seat's observation) or else by ``rollout_actions``.

    ``seat_playouts``: ``(bots, which)`` instead, ``which`` (B, 4) the index in ``bots`` of the
    bot that plays each seat of each game (a search that models each seat by its own model).
    """
    points = np.zeros((state.batch_size, N_SEATS), np.int16)
    live = np.arange(state.batch_size)
    state = state.copy()  # stepped in place (donated) from here on
    steps = 0
    while True:
        over = state.hand_over
        n_over = int(over.sum())
        # Finished games idle in the batch (the engine ignores them) until a quarter of it
        # is done; then they are dropped, which costs a copy of the whole state.
        if n_over == live.size or n_over * 4 >= live.size:
            points[live[over]] = state.points[over]
            if n_over == live.size:
                return points
            keep = ~over
            live, state = live[keep], state.index(keep)
        mask = engine.legal_action_mask(state)
        if seat_playouts is not None:
            bots, which = seat_playouts
            actions = _act_by_seat(bots, which[live, state.to_act], state, mask, rng)
        elif playout is None:
            actions = rollout_actions(state, mask, rng, epsilon)
        else:
            actions = playout.act(observation.encode(state), mask, rng)
        state = engine.step(state, actions, donate=True)
        steps += 1
        if steps > 4 * N_CARDS * N_SEATS:  # a hand cannot last this long: an engine bug
            raise RuntimeError("rollout did not finish the hand")


def _act_by_seat(bots, bot_of_row, state, mask, rng) -> np.ndarray:
    """(B,) each game's action by the bot ``bots[bot_of_row[g]]`` on its seat's observation;
    games with one legal move take it without asking a bot."""
    actions = np.where(mask.any(1), np.argmax(mask, axis=1), PASS).astype(np.int16)
    choice = mask.sum(1) > 1
    obs = observation.encode(state)
    for b in np.unique(bot_of_row[choice]):
        rows = np.flatnonzero(choice & (bot_of_row == b))
        actions[rows] = bots[b].act(obs[rows], mask[rows], rng)
    return actions


# --------------------------------------------------------------------------- the bot


class SearchBot:
    """Determinised Monte-Carlo search over the current hand (see the module docstring).

    ``rollouts``: hands played out per decision, shared among the candidate moves (every
    candidate gets at least ``min_worlds`` worlds). ``time_limit``: if set, seconds per
    ``act`` call instead: worlds are added in rounds until the time is spent (at least one
    round), which makes play depend on the machine's speed, so arenas use ``rollouts``.
    ``epsilon``: share of random moves in rollouts (0: rollouts are a deterministic function
    of the sampled world, which makes the comparison between candidates sharper).
    ``playout``: a bot that plays every seat in the rollouts (e.g. a trained policy), instead
    of the rule of thumb; it sees each seat's observation of the sampled world.
    ``prior``: an optional bot whose move is kept unless the search values another move
    more than ``margin`` points higher (with the rule bot as prior and margin 1, measured level
    with the rule bot alone). ``belief``: an optional bot with scores that models the other
    seats: when ``act`` is given the hand's history, the worlds are drawn from
    ``belief_candidates`` uniform ones by how likely it makes the others' moves, tempered to
    keep ``belief_min_ess`` effective worlds (module docstring); without a history they are
    dealt uniformly. ``alternatives``: further models of the other seats, each a ``(scores,
    playout)`` pair (e.g. ``(MoveScores(rule), rule)``) beside ``(belief, playout)``: with a
    history, each other seat takes the model that best explains its moves this hand
    (``best_models``), both for the worlds' weights and to play that seat in the rollouts;
    the alternatives are scored on ``alternative_candidates`` of the candidates only
    (``believed_worlds``). The previous 1st player's give-back in an exchange is not searched (the
    observation does not say who receives it): the bot gives back its lowest eligible card
    (or the prior's choice).
    """

    def __init__(
        self,
        rollouts: int = 200,
        *,
        time_limit: float | None = None,
        min_worlds: int = 4,
        epsilon: float = 0.0,
        prior: Bot | None = None,
        margin: float = 0.0,
        playout: Bot | None = None,
        belief: ScoringBot | None = None,
        alternatives: Sequence[tuple[ScoringBot, Bot]] = (),
        belief_candidates: int = 1024,
        alternative_candidates: int = 256,
        belief_min_ess: float = 32.0,
        name: str | None = None,
    ) -> None:
        if rollouts < 1:
            raise ValueError(f"rollouts must be positive, got {rollouts}")
        self.rollouts = rollouts
        self.time_limit = time_limit
        self.min_worlds = min_worlds
        self.epsilon = epsilon
        self.prior = prior
        self.margin = margin
        self.playout = playout
        if min(belief_candidates, alternative_candidates) < 1:
            raise ValueError(
                "belief_candidates and alternative_candidates must be positive, got "
                f"{belief_candidates} and {alternative_candidates}"
            )
        if alternatives and (belief is None or playout is None):
            raise ValueError("alternative models need a belief and a playout to weigh them with")
        self.belief = belief
        self.alternatives = tuple(alternatives)
        self.belief_candidates = belief_candidates
        self.alternative_candidates = alternative_candidates
        self.belief_min_ess = min(float(belief_min_ess), belief_candidates)
        self.name = name or (f"search:{time_limit}s" if time_limit else f"search:{rollouts}")

    @property
    def uses_history(self) -> bool:
        """Whether ``act`` reads the hand's history (``murlan_env.bots.history``): with a belief."""
        return self.belief is not None

    def act(
        self,
        obs: np.ndarray,
        mask: np.ndarray,
        rng: np.random.Generator,
        history: list[np.ndarray] | None = None,
    ) -> np.ndarray:
        """(B,) actions; ``history``: each game's hand so far as ``[slot, action]`` rows
        (``murlan_env.bots.history.HandLogs.turned``), read when the bot has a belief."""
        return self.search(obs, mask, rng, history)[0]

    def search(
        self,
        obs: np.ndarray,
        mask: np.ndarray,
        rng: np.random.Generator,
        history: list[np.ndarray] | None = None,
    ) -> tuple[np.ndarray, np.ndarray]:
        """(B,) the actions ``act`` plays and (B, A) float64 the mean hand points behind them:
        each legal move's value over its worlds where the bot searched (a choice outside the
        exchange), NaN in the rows it did not search, -inf for illegal moves there.

        A labeller asks for many positions at once: the positions' worlds are weighed and
        played out together (one model call per step for all of them), which costs less per
        position than one call each; a single position is a batch of one.
        """
        mask = np.asarray(mask, bool)
        n_legal = mask.sum(1)
        values = np.full(mask.shape, np.nan)
        # Default: the first legal action; this is the whole answer for forced moves
        # and for the exchange give-back (single ids in rank order: the lowest card).
        actions = np.argmax(mask, axis=1).astype(np.int64)
        if self.prior is not None:
            actions = np.asarray(self.prior.act(obs, mask, rng), np.int64)
        exchanging = observation.decode(obs).exchanging
        decide = np.flatnonzero((n_legal > 1) & ~exchanging)
        if decide.size == 0:
            return actions, values
        logs = None if history is None else [history[i] for i in decide]
        mean = self._mean_points(obs[decide], mask[decide], rng, logs)
        # Ties go to the move the rule of thumb likes best (cheapest, pass last).
        tie_break = np.where(np.isfinite(_PRIORITY), _PRIORITY, 200.0) * 1e-6
        best = np.argmax(mean - tie_break, axis=1)
        if self.prior is not None:
            # Keep the prior's move unless the search finds one better by more than margin.
            prior_value = mean[np.arange(decide.size), actions[decide]]
            best = np.where(mean.max(1) > prior_value + self.margin, best, actions[decide])
        actions[decide] = best
        values[decide] = mean
        return actions, values

    def scores(
        self,
        obs: np.ndarray,
        mask: np.ndarray,
        rng: np.random.Generator | None = None,
        history: list[np.ndarray] | None = None,
    ) -> np.ndarray:
        """(B, A) float64: each legal move's mean hand points (3/2/1/0) over its sampled
        worlds, the values ``act`` chooses from; -inf for illegal moves.

        Forced moves are searched too (``act`` skips them). The exchange give-back is not
        searched (see the class docstring): its legal moves score NaN. ``rng`` draws the
        worlds (default: a fixed seed, so the same position gets the same scores);
        ``history`` is read as ``act`` reads it.
        """
        obs = np.asarray(obs)
        mask = np.asarray(mask, bool)
        rng = np.random.default_rng(0) if rng is None else rng
        out = np.where(mask, np.nan, -np.inf)
        exchanging = observation.decode(obs).exchanging
        decide = np.flatnonzero(mask.any(1) & ~exchanging)
        if decide.size:
            logs = None if history is None else [history[i] for i in decide]
            out[decide] = self._mean_points(obs[decide], mask[decide], rng, logs)
        return out

    def _mean_points(self, obs, mask, rng, logs=None):
        """(n, A) mean hand points of each legal move over the worlds (-inf where illegal),
        for rows that each have a legal move and are not an exchange give-back."""
        n_legal = mask.sum(1)
        per_game = [max(self.min_worlds, math.ceil(self.rollouts / k)) for k in n_legal]
        worlds, seats = self._world_source(obs, rng, logs)
        if self.time_limit is None:
            totals, seen = self._evaluate(obs, mask, rng, per_game, worlds, seats)
        else:
            deadline = time.perf_counter() + self.time_limit
            chunk = [max(1, min(w, 8)) for w in per_game]
            totals, seen = self._evaluate(obs, mask, rng, chunk, worlds, seats)
            while time.perf_counter() < deadline:
                more, n = self._evaluate(obs, mask, rng, chunk, worlds, seats)
                totals, seen = totals + more, seen + n
        return np.where(mask, totals / np.maximum(seen, 1)[:, None], -np.inf)

    def _world_source(self, obs, rng, logs):
        """A function n -> (B, n, 4, 15) worlds for the games of ``obs`` (uniform deals, or
        draws from the belief's weighted candidates, weighed once per decision), and the
        rollouts' ``seat_playouts`` (None: ``playout`` plays every seat)."""
        if self.belief is None or logs is None:
            return (lambda n: sample_hidden_hands(obs, rng, n)), None
        models = [self.belief, *(scores for scores, _ in self.alternatives)]
        pool, weights, which = believed_worlds(
            obs,
            logs,
            models,
            rng,
            self.belief_candidates,
            self.belief_min_ess,
            self.alternative_candidates,
        )

        def draw(n: int) -> np.ndarray:
            return draw_worlds(pool, weights, rng, n)

        if not self.alternatives:
            return draw, None
        return draw, ([self.playout, *(bot for _, bot in self.alternatives)], which)

    def _evaluate(self, obs, mask, rng, per_game, worlds, seats=None):
        """Summed hand points (n, A) of each candidate over the worlds, and worlds used (n,);
        ``seats``: the rollouts' ``(bots, which)`` per game, or None."""
        n = obs.shape[0]
        top = max(per_game)
        held = worlds(top)  # (n, W, 4, 15)
        game_idx, world_idx, first = [], [], []
        for g in range(n):
            cands = np.flatnonzero(mask[g])
            w = np.arange(per_game[g])
            game_idx.append(np.full(cands.size * w.size, g))
            world_idx.append(np.tile(w, cands.size))
            first.append(np.repeat(cands, w.size))
        game_idx = np.concatenate(game_idx)
        world_idx = np.concatenate(world_idx)
        first = np.concatenate(first)
        states = state_from_observation(obs[game_idx], held[game_idx, world_idx])
        states = engine.step(states, first)
        by_seat = None if seats is None else (seats[0], seats[1][game_idx])
        points = rollout_hand(states, rng, self.epsilon, self.playout, by_seat)[:, 0]
        points = points.astype(np.float64)
        totals = np.zeros((n, N_ACTIONS))
        np.add.at(totals, (game_idx, first), points)
        return totals, np.asarray(per_game, np.float64)


__all__ = [
    "SearchBot",
    "believed_worlds",
    "best_models",
    "draw_worlds",
    "log_likelihood",
    "log_likelihoods",
    "rollout_actions",
    "rollout_hand",
    "sample_hidden_hands",
    "state_from_observation",
    "tempered_weights",
]
