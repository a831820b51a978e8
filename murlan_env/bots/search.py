"""Determinised Monte-Carlo search: a bot that looks ahead by playing the hand out many times.

For each decision the bot samples *worlds*: the cards it cannot see (``unseen`` in its
observation) dealt at random among the other seats, each seat getting exactly the number of
cards it holds (``cards_left``). Every candidate move is then played in every world and the
hand is rolled out to its end with a fast rule of thumb (``rollout_actions``) for all four
seats; the move with the best mean hand points (3/2/1/0) is chosen. All worlds x candidates
of all games in the batch step together on the batched engine, and every candidate is
scored on the same worlds (common random numbers), so differences between moves are not
drowned by the luck of the sampled deal.

The worlds come from ``murlan_env.bots.belief``: rebuilt engine states of the current hand
only (the search values moves by this hand's points, not by the match), dealt uniformly or,
with a ``belief`` model and the hand's history (``murlan_env.bots.history``: the drivers that
keep it pass it to ``act``), drawn from ``belief_candidates`` uniform worlds by how well they
explain the others' moves, tempered to keep ``belief_min_ess`` effective worlds. Given
``alternatives`` (other models, e.g. the rule bot through ``bots.MoveScores``), each other
seat is weighed and played in the rollouts by the model that explains its moves best.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence

import numpy as np

from murlan_env.bots.belief import (
    believed_worlds,
    draw_worlds,
    exchange_facts,
    sample_hidden_hands,
    state_from_observation,
)
from murlan_env.bots.protocol import Bot, ScoringBot
from murlan_env.game import engine, observation
from murlan_env.game.cards import N_CARDS, N_RANKS
from murlan_env.game.combos import JOKER_PAIR, KEY, KIND, LENGTH, N_ACTIONS, PASS, Kind
from murlan_env.game.state import N_SEATS, State

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
    round), which makes play depend on the machine's speed, so arenas use ``rollouts``;
    ``budget``: if set, seconds per ``act`` call, counted from its start: after the belief
    has weighed its worlds (not cut), the ``rollouts`` worlds are played in rounds of at most 8
    a candidate until all are played or the time is spent (at least one round), so a fast
    machine plays the whole search and a slow one fewer worlds (``murlan serve``'s "time a
    move" for a search level); ``clock`` is what it reads the time from (seconds).
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
    (``believed_worlds``). ``belief_facts``: the worlds are dealt consistent with what this
    hand's exchange proves about the others' cards (``belief.exchange_facts``), uniform or
    belief worlds alike. ``deal``: a function ``(obs, rng, n)`` -> (B, n, 4, 15) worlds that
    replaces the draws (a belief still picks each seat's model): benchmarks hand the search
    the true deal, or one with some cards misplaced, to see what a sharper belief could buy.
    The previous 1st player's give-back in an exchange is not searched (the
    observation does not say who receives it): the bot gives back its lowest eligible card
    (or the prior's choice).
    """

    def __init__(
        self,
        rollouts: int = 200,
        *,
        time_limit: float | None = None,
        budget: float | None = None,
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
        belief_facts: bool = False,
        deal: Callable[[np.ndarray, np.random.Generator, int], np.ndarray] | None = None,
        name: str | None = None,
        clock: Callable[[], float] = time.perf_counter,
    ) -> None:
        if rollouts < 1:
            raise ValueError(f"rollouts must be positive, got {rollouts}")
        self.rollouts = rollouts
        if budget is not None and (time_limit is not None or not budget > 0):
            raise ValueError(
                f"budget is a positive number of seconds without a time_limit, got {budget}"
            )
        self.time_limit = time_limit
        self.budget = budget
        self.clock = clock
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
        self.belief_facts = belief_facts
        self.deal = deal
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
        # A budget counts from the decision's start: the belief's scoring spends it too.
        deadline = None if self.budget is None else self.clock() + self.budget
        worlds, seats = self._world_source(obs, rng, logs)
        if deadline is None and self.time_limit is None:
            totals, seen = self._evaluate(obs, mask, rng, per_game, worlds, seats)
        else:
            # Rounds of at most 8 worlds a game, at least one round, until the time is spent:
            # a time_limit's clock starts here and its rounds go on; a budget's rounds stop
            # too once the whole search is played.
            if deadline is None:
                deadline = self.clock() + self.time_limit
            left = None if self.budget is None else np.asarray(per_game)
            chunk = [max(1, min(w, 8)) for w in per_game]  # a time_limit's every round
            totals, seen, first = 0.0, 0.0, True
            while (left is None or left.any()) and (first or self.clock() < deadline):
                if left is not None:
                    step = np.minimum(left, 8)
                    left, chunk = left - step, step.tolist()
                more, n = self._evaluate(obs, mask, rng, chunk, worlds, seats)
                totals, seen, first = totals + more, seen + n, False
        return np.where(mask, totals / np.maximum(seen, 1)[:, None], -np.inf)

    def _world_source(self, obs, rng, logs):
        """A function n -> (B, n, 4, 15) worlds for the games of ``obs`` (uniform deals, or
        draws from the belief's weighted candidates, weighed once per decision), and the
        rollouts' ``seat_playouts`` (None: ``playout`` plays every seat)."""
        facts = exchange_facts(obs, logs) if self.belief_facts else None
        seats = None
        if self.belief is None or logs is None:

            def draw(n: int) -> np.ndarray:
                return sample_hidden_hands(obs, rng, n, facts)

        else:
            models = [self.belief, *(scores for scores, _ in self.alternatives)]
            pool, weights, which = believed_worlds(
                obs,
                logs,
                models,
                rng,
                self.belief_candidates,
                self.belief_min_ess,
                self.alternative_candidates,
                facts,
            )

            def draw(n: int) -> np.ndarray:
                return draw_worlds(pool, weights, rng, n)

            if self.alternatives:
                seats = ([self.playout, *(bot for _, bot in self.alternatives)], which)
        if self.deal is not None:
            return (lambda n: self.deal(obs, rng, n)), seats
        return draw, seats

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


__all__ = ["SearchBot", "rollout_actions", "rollout_hand"]
