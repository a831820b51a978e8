"""The search bot: rebuilding states from observations, sampling worlds, choosing moves."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import held_by_slot

from murlan_env.bots.baseline import GreedyBot
from murlan_env.bots.belief import (
    believed_worlds,
    best_models,
    exchange_facts,
    log_likelihood,
    sample_hidden_hands,
    state_from_observation,
    tempered_weights,
)
from murlan_env.bots.history import HandLogs
from murlan_env.bots.protocol import MoveScores, legal_log_probs
from murlan_env.bots.registry import guided_by, make_bot
from murlan_env.bots.rule import RuleBot
from murlan_env.bots.search import SearchBot, rollout_hand
from murlan_env.eval.duplicate import mean_ci, one_against_three, play_duplicate
from murlan_env.game import engine, observation
from murlan_env.game.cards import RANK_SIZE, parse_hand, rank_counts
from murlan_env.game.combos import PASS, action_of_counts
from murlan_env.game.engine import Phase
from murlan_env.game.rules import Rules


def _positions(seed: int, rules: Rules, n_games: int = 24, hands: int = 2) -> list[engine.State]:
    """Decision points of random matches (hand 1 and later hands, exchanges included)."""
    rng = np.random.default_rng(seed)
    state = engine.init(rng, n_games, rules)
    out = []
    for _ in range(hands):
        while (state.phase <= Phase.EXCHANGE).any():
            waiting = state.phase <= Phase.EXCHANGE
            out.append(state.index(waiting))
            mask = engine.legal_action_mask(state)
            state = engine.step(state, engine.random_legal_actions(mask, rng))
        state = engine.next_hand(state, rng)
    return out


@pytest.mark.parametrize(
    "rules",
    [
        Rules(),
        Rules(sticky_pass=True, joker_pair=True),
        Rules(straight_plus_one=True, tie_rule="leader"),
    ],
)
def test_state_from_observation_reproduces_what_the_seat_sees(rules):
    # Given the true hidden hands, the rebuilt state (observer at seat 0) must look the same
    # to the observer and offer exactly the same legal actions, in hand 1 and later hands.
    for state in _positions(1, rules)[::7]:
        playing = state.index(state.phase == Phase.PLAY)
        if playing.batch_size == 0:
            continue
        obs = engine.observe(playing)
        rebuilt = state_from_observation(obs, held_by_slot(playing))
        # Everything but the exchange piece (which seats swapped is not observed, and the
        # swap does not change how the hand plays on).
        same = np.ones(obs.shape[1], bool)
        same[observation.SLICES["exchange"]] = False
        np.testing.assert_array_equal(engine.observe(rebuilt)[:, same], obs[:, same])
        np.testing.assert_array_equal(
            engine.legal_action_mask(rebuilt), engine.legal_action_mask(playing)
        )


def test_state_from_observation_rejects_a_wrong_own_hand():
    state = _positions(2, Rules())[5]
    obs = engine.observe(state)
    held = held_by_slot(state).copy()
    held[:, 0, 0] += 1
    with pytest.raises(ValueError, match="observer's own hand"):
        state_from_observation(obs, held)


def test_sampled_worlds_are_consistent_with_the_observation_and_vary():
    state = _positions(4, Rules())[20]
    obs = engine.observe(state)
    facts = observation.decode(obs)
    worlds = sample_hidden_hands(obs, np.random.default_rng(0), 16)  # (B, W, 4, 15)
    # My hand is mine in every world; each other seat holds as many cards as it does.
    np.testing.assert_array_equal(
        worlds[:, :, 0], np.broadcast_to(facts.my_hand[:, None], worlds[:, :, 0].shape)
    )
    np.testing.assert_array_equal(
        worlds.sum(3), np.broadcast_to(facts.cards_left[:, None], worlds.shape[:3])
    )
    # Every card is somewhere: held (any seat) + played = the pack, rank by rank.
    total = worlds.sum(2) + facts.played.sum(1)[:, None]
    np.testing.assert_array_equal(total, np.broadcast_to(RANK_SIZE, total.shape))
    assert (worlds[:, 1:] != worlds[:, :1]).any(), "sampled worlds should differ"
    again = sample_hidden_hands(obs, np.random.default_rng(0), 16)
    np.testing.assert_array_equal(worlds, again)


def test_rollouts_finish_the_hand_with_valid_points():
    state = engine.init(np.random.default_rng(5), 64)
    points = rollout_hand(state, np.random.default_rng(6))
    assert sorted(points[0].tolist()) == [0, 1, 2, 3]
    assert (np.sort(points, axis=1) == np.array([0, 1, 2, 3])).all()


def test_rollouts_play_each_seat_by_its_own_bot():
    # Seat 0 by greedy, the others by the rule bot: the same hands as stepping them by hand.
    state = engine.init(np.random.default_rng(5), 16)
    bots = [GreedyBot(), RuleBot()]
    which = np.tile([0, 1, 1, 1], (16, 1))
    which[::2] = [1, 0, 1, 0]
    points = rollout_hand(state, np.random.default_rng(6), seat_playouts=(bots, which))
    rng, played = np.random.default_rng(7), state.copy()
    while not played.hand_over.all():
        mask = engine.legal_action_mask(played)
        obs = engine.observe(played)
        bot_of = which[np.arange(16), played.to_act]
        actions = np.full(16, PASS, np.int16)
        for b, bot in enumerate(bots):
            rows = np.flatnonzero((bot_of == b) & mask.any(1))
            actions[rows] = bot.act(obs[rows], mask[rows], rng)
        played = engine.step(played, actions)
    np.testing.assert_array_equal(points, played.points)
    one = rollout_hand(state, np.random.default_rng(6), seat_playouts=(bots, np.ones_like(which)))
    np.testing.assert_array_equal(one, rollout_hand(state, np.random.default_rng(6), 0, RuleBot()))


def _endgame(my_hand: str, rules: Rules | None = None) -> engine.State:
    """Seat 0 to lead holding ``my_hand``; the other cards split: each other seat holds 10,
    the rest counted as played by seats 1-3."""
    dealt = engine.random_deal(np.random.default_rng(9), np.array([3], np.int8))
    deal = engine.deal_from(dealt, 3, rules)
    mine = parse_hand(my_hand)
    rest = np.flatnonzero(~mine)
    rng = np.random.default_rng(10)
    rng.shuffle(rest)
    cards = np.zeros((1, 4, 54), bool)
    cards[0, 0] = mine
    played = np.zeros((1, 4, 15), np.int8)
    for seat in (1, 2, 3):
        cards[0, seat, rest[(seat - 1) * 10 : seat * 10]] = True
        spent = np.zeros(54, bool)
        spent[rest[30 + (seat - 1) :: 3]] = True
        played[0, seat] = rank_counts(spent)
    return deal.replace(
        cards=cards,
        played=played,
        start_duty=np.zeros(1, bool),
        hand_no=np.ones(1, np.int16),
        to_act=np.zeros(1, np.int8),
    )


def test_search_goes_out_where_the_rule_of_thumb_would_not():
    # Leading 3-7 as a straight goes out at once (1st place, 3 points). The rollout policy
    # alone would lead the single 3 (cheapest), so choosing the straight is the search's work.
    state = _endgame("3S 4H 5D 6C 7S")
    mask = engine.legal_action_mask(state)
    straight = action_of_counts(rank_counts(parse_hand("3S 4H 5D 6C 7S")))
    assert mask[0, straight] and mask.sum() > 2
    action = SearchBot(rollouts=64).act(engine.observe(state), mask, np.random.default_rng(0))
    assert action[0] == straight


def test_search_is_legal_and_deterministic_for_a_seed():
    positions = _positions(7, Rules(sticky_pass=True), n_games=8, hands=2)
    bot = SearchBot(rollouts=24)
    for state in positions[::15]:
        obs, mask = engine.observe(state), engine.legal_action_mask(state)
        a = bot.act(obs, mask, np.random.default_rng(1))
        b = bot.act(obs, mask, np.random.default_rng(1))
        np.testing.assert_array_equal(a, b)
        assert mask[np.arange(state.batch_size), a].all()


def test_search_gives_back_the_lowest_eligible_card_in_an_exchange():
    exchanges = [s.index(s.phase == Phase.EXCHANGE) for s in _positions(8, Rules(), hands=3)]
    exchanges = [s for s in exchanges if s.batch_size]
    assert exchanges, "the seeded matches should contain an exchange choice"
    for state in exchanges:
        mask = engine.legal_action_mask(state)
        action = SearchBot(rollouts=8).act(engine.observe(state), mask, np.random.default_rng(0))
        np.testing.assert_array_equal(action, mask.argmax(1))
        assert (action != PASS).all()


def test_a_prior_keeps_its_moves_unless_search_finds_better():
    from murlan_env.bots.rule import RuleBot

    state = _positions(12, Rules(), n_games=8)[9]
    obs, mask = engine.observe(state), engine.legal_action_mask(state)
    prior = RuleBot().act(obs, mask, np.random.default_rng(0))
    # A margin above any possible gain (3 points) leaves the prior's moves untouched.
    kept = SearchBot(rollouts=16, prior=RuleBot(), margin=3.0).act(
        obs, mask, np.random.default_rng(0)
    )
    np.testing.assert_array_equal(kept, prior)

    # With a negative margin the search's own moves always win.
    class FirstLegal:
        name = "first-legal"

        def act(self, obs, mask, rng):
            return mask.argmax(1)

    free = SearchBot(rollouts=16, prior=FirstLegal(), margin=-1.0)
    plain = SearchBot(rollouts=16)
    np.testing.assert_array_equal(
        free.act(obs, mask, np.random.default_rng(0)),
        plain.act(obs, mask, np.random.default_rng(0)),
    )


def test_scores_are_the_values_the_search_chooses_from():
    positions = [s for s in _positions(13, Rules(), n_games=6) if s.batch_size]
    state = next(
        s
        for s in positions
        if (engine.legal_action_mask(s).sum(1) > 1).all() and not (s.phase == Phase.EXCHANGE).any()
    )
    obs, mask = engine.observe(state), engine.legal_action_mask(state)
    bot = SearchBot(rollouts=32)
    scores = bot.scores(obs, mask, np.random.default_rng(3))
    assert scores.shape == mask.shape
    assert np.isneginf(scores[~mask]).all()
    # Each legal move's score is its mean hand points (3/2/1/0) over the worlds it was played
    # in: max(min_worlds, ceil(rollouts / legal moves)) of them, so score x worlds is whole.
    worlds = np.maximum(bot.min_worlds, np.ceil(bot.rollouts / mask.sum(1)))[:, None]
    totals = np.where(mask, scores * worlds, 0.0)
    np.testing.assert_allclose(totals, np.round(totals), atol=1e-9)
    # The same worlds (same rng) give the move act chooses, which has the best score.
    chosen = bot.act(obs, mask, np.random.default_rng(3))
    rows = np.arange(state.batch_size)
    np.testing.assert_array_equal(scores[rows, chosen], scores.max(1))
    np.testing.assert_array_equal(scores, bot.scores(obs, mask, np.random.default_rng(3)))


def test_scores_value_the_straight_that_goes_out_at_three_points():
    state = _endgame("3S 4H 5D 6C 7S")
    mask = engine.legal_action_mask(state)
    straight = action_of_counts(rank_counts(parse_hand("3S 4H 5D 6C 7S")))
    scores = SearchBot(rollouts=64).scores(engine.observe(state), mask)
    assert scores[0, straight] == 3.0  # out at once in every world: 1st place
    assert (np.delete(scores[0], straight) < 3.0).all()


def test_scores_of_an_exchange_give_back_are_not_searched():
    exchanges = [s.index(s.phase == Phase.EXCHANGE) for s in _positions(8, Rules(), hands=3)]
    state = next(s for s in exchanges if s.batch_size)
    mask = engine.legal_action_mask(state)
    scores = SearchBot(rollouts=8).scores(engine.observe(state), mask)
    assert np.isnan(scores[mask]).all() and np.isneginf(scores[~mask]).all()


def test_search_time_budget_spends_its_time_on_more_worlds(monkeypatch):
    """A time budget adds rounds of worlds until the time is spent, at least one round: on a
    clock on which each round takes one second, a budget of b seconds plays ceil(b) rounds."""
    state = _positions(11, Rules(), n_games=4)[3]
    obs, mask = engine.observe(state), engine.legal_action_mask(state)
    now, rounds = [0.0], []
    evaluate = SearchBot._evaluate

    def one_second_a_round(self, *args, **kwargs):
        rounds[-1] += 1
        now[0] += 1.0
        return evaluate(self, *args, **kwargs)

    monkeypatch.setattr(SearchBot, "_evaluate", one_second_a_round)
    for budget, expected in ((1e-9, 1), (0.5, 1), (1.0, 1), (3.5, 4), (6.0, 6)):
        rounds.append(0)
        bot = SearchBot(time_limit=budget, clock=lambda: now[0])
        action = bot.act(obs, mask, np.random.default_rng(0))
        assert mask[np.arange(state.batch_size), action].all()
        assert rounds[-1] == expected, (budget, rounds)
    assert SearchBot(time_limit=0.05).name == "search:0.05s"


def test_search_budget_caps_its_rollouts_at_the_time_and_never_plays_more(monkeypatch):
    """A budget (``murlan serve``'s time a move) plays the rollouts' worlds in rounds of at most
    8 a candidate until all are played or the time is spent, at least one round: on a clock on
    which each round takes one second, a budget longer than the search plays all its worlds
    and no more (ceil(W / 8) rounds), 1.5 seconds two rounds, a moment one."""
    state = _positions(11, Rules(), n_games=4)[3]
    obs, mask = engine.observe(state), engine.legal_action_mask(state)
    now, rounds, worlds = [0.0], [], []
    evaluate = SearchBot._evaluate

    def one_second_a_round(self, obs, mask, rng, per_game, *args):
        rounds[-1] += 1
        worlds[-1] += sum(per_game)
        now[0] += 1.0
        return evaluate(self, obs, mask, rng, per_game, *args)

    monkeypatch.setattr(SearchBot, "_evaluate", one_second_a_round)
    decide = (mask.sum(1) > 1) & ~observation.decode(obs).exchanging  # the games searched
    whole = [max(4, -(-200 // int(k))) for k in mask[decide].sum(1)]  # worlds a candidate
    everything = -(-max(whole) // 8)
    assert everything > 2
    for budget, expected in ((1000.0, everything), (1.5, 2), (1e-9, 1)):
        rounds.append(0)
        worlds.append(0)
        bot = SearchBot(rollouts=200, budget=budget, clock=lambda: now[0])
        action = bot.act(obs, mask, np.random.default_rng(0))
        assert mask[np.arange(state.batch_size), action].all()
        assert rounds[-1] == expected, (budget, rounds)
    assert worlds[0] == sum(whole)  # a budget never plays more than the whole search
    with pytest.raises(ValueError, match="budget"):
        SearchBot(budget=1.0, time_limit=1.0)


def _search_vs_greedy(rollouts: int, n_deals: int, hands_per_deal: int, seed: int):
    """Per-deal (search - greedy) mean points per hand, duplicate play, search in seats 0 and 2."""
    search = SearchBot(rollouts=rollouts)
    # Two bots: lineups A B A B and B A B A, so search holds each seat on every board.
    result = play_duplicate([search, GreedyBot()], n_deals, seed=seed, max_hands=hands_per_deal)
    per_board = result.board_points()
    return per_board[:, 0] - per_board[:, 1]


def test_search_outscores_greedy_in_duplicate_play():
    # Seeded duplicate hands (each deal played from both lineups) at a small budget; the 95%
    # interval of the board-by-board difference must lie above zero. Measured with this
    # helper, 32 deals x 1 hand at 32 rollouts: seed 3 +0.547 [+0.348, +0.745], seeds 0-2
    # +0.344 [+0.109, +0.578], +0.297 [+0.065, +0.529], +0.359 [+0.091, +0.628].
    diff = _search_vs_greedy(rollouts=32, n_deals=32, hands_per_deal=1, seed=3)
    mean, low, _ = mean_ci(diff)
    assert low > 0, (mean, low)


@pytest.mark.slow
def test_search_beats_greedy_clearly():
    # 16 deals x 2 hands at 48 rollouts a decision: measured +0.5 points per hand; the whole
    # 95% interval must lie above zero.
    diff = _search_vs_greedy(rollouts=48, n_deals=16, hands_per_deal=2, seed=11)
    mean, low, _ = mean_ci(diff)
    assert low > 0.1, (mean, low)


# --------------------------------------------------------------------------- belief


def test_tempered_weights_keep_the_effective_sample_size():
    log_lik = np.array([0.0, -1.0, -30.0, -60.0, -90.0] + [-200.0] * 59)
    plain = np.exp(log_lik - log_lik.max())
    for min_ess in (1.5, 4.0, 16.0):
        w = tempered_weights(log_lik, min_ess)
        assert w.sum() == pytest.approx(1.0)
        assert 1.0 / (w**2).sum() >= min_ess * (1 - 1e-6)
        assert (np.diff(w[:5]) <= 0).all()  # still ordered by likelihood
    # Plain weights that already keep enough effective worlds are not tempered.
    np.testing.assert_allclose(tempered_weights(log_lik, 1.1), plain / plain.sum())


def _self_play_positions(seed: int, n_games: int = 8, moves: int = 24):
    """Positions after ``moves`` decisions of ``hard`` against itself, with the hand's logs."""
    bot = make_bot("hard")
    rng = np.random.default_rng(seed)
    state = engine.init(rng, n_games, Rules())
    logs = HandLogs(n_games)
    for _ in range(moves):
        mask = engine.legal_action_mask(state)
        actions = bot.act(engine.observe(state), mask, rng)
        logs.record(state, actions)
        state = engine.step(state, actions)
    live = np.flatnonzero(state.phase == Phase.PLAY)
    return bot, state.index(live), logs.turned(live, state.to_act[live])


def test_the_belief_puts_the_hidden_cards_nearer_where_they_are():
    # Against copies of the policy it models, worlds weighted by how well they explain the
    # others' moves misplace fewer hidden cards than uniform deals, position by position.
    bot, state, logs = _self_play_positions(11)
    obs = engine.observe(state)
    true = held_by_slot(state)
    pool, weights, which = believed_worlds(obs, logs, [bot], np.random.default_rng(0), 128, 8.0)
    assert (which == 0).all()
    misplaced = np.abs(pool[:, :, 1:] - true[:, None, 1:]).sum((2, 3)) / 2  # (B, K)
    uniform = misplaced.mean(1)
    believed = (weights * misplaced).sum(1)
    assert (believed < uniform).mean() >= 0.75
    assert believed.mean() < uniform.mean() - 0.5
    # The true deal explains them better than almost every uniform world.
    for g in range(state.batch_size):
        true_ll = log_likelihood(obs[g], logs[g], true[g][None], bot)[0].sum()
        assert true_ll > np.median(log_likelihood(obs[g], logs[g], pool[g, :16], bot).sum(1))


def test_a_bots_moves_as_a_model_give_its_move_most_of_the_probability():
    _, state, _ = _self_play_positions(10)
    obs, mask = engine.observe(state), engine.legal_action_mask(state)
    rule = RuleBot()
    model = MoveScores(rule, slack=0.01)
    log_p = legal_log_probs(model.scores(obs, mask), mask)
    chosen = rule.act(obs, mask, np.random.default_rng(0))
    n = mask.sum(1)
    np.testing.assert_allclose(log_p[np.arange(len(n)), chosen], -np.log1p((n - 1) * 0.01))
    others = mask.copy()
    others[np.arange(len(n)), chosen] = False
    np.testing.assert_allclose(
        log_p[others], np.repeat(np.log(0.01) - np.log1p((n - 1) * 0.01), n - 1)
    )
    with pytest.raises(ValueError, match="slack"):
        MoveScores(rule, slack=0)


def test_each_slot_takes_the_model_that_explains_its_moves_best():
    # Model 1 explains slot 2 far better in some worlds but worse on the whole; slot 3 better
    # everywhere; slot 1 has no moves (both 0): model 0 by the tie; slot 0 is the observer.
    log_liks = np.zeros((2, 4, 4))
    log_liks[0, :, 2] = -2.0
    log_liks[1, :, 2] = [0.0, -9.0, -9.0, -9.0]
    log_liks[0, :, 3] = -5.0
    log_liks[1, :, 3] = -1.0
    # Evidence for slot 2: model 0 exp(-2) = 0.135, model 1 (1 + 3 exp(-9)) / 4 = 0.25.
    np.testing.assert_array_equal(best_models(log_liks), [0, 0, 1, 1])
    log_liks[1, 0, 2] = -1.0  # now (exp(-1) + ...) / 4 = 0.092 < 0.135
    np.testing.assert_array_equal(best_models(log_liks), [0, 0, 0, 1])


def test_the_belief_models_each_seat_by_the_bot_that_plays_it():
    # hard in seat 0 against three rule bots, or against three copies of itself: after two
    # dozen moves most other seats pick the model of the bot that made their moves.
    policy, rule = make_bot("hard"), RuleBot()
    for opponent, bot in (("rule", rule), ("hard", policy)):
        rng = np.random.default_rng(13)
        state = engine.init(rng, 16, Rules())
        logs = HandLogs(16)
        for _ in range(24):
            mask, obs = engine.legal_action_mask(state), engine.observe(state)
            actions = bot.act(obs, mask, rng)
            mine = state.to_act == 0
            actions[mine] = policy.act(obs[mine], mask[mine], rng)
            logs.record(state, actions)
            state = engine.step(state, actions)
        live = np.flatnonzero(state.phase == Phase.PLAY)
        seats = state.to_act[live]
        obs = engine.observe(state.index(live))
        history = logs.turned(live, seats)
        models = [policy, MoveScores(rule)]
        rng = np.random.default_rng(0)
        _, weights, which = believed_worlds(obs, history, models, rng, 256, 8.0, 128)
        assert (which[:, 0] == 0).all()  # the observer's own moves choose nothing
        # The rule bot is scored on the first 128 candidates: where a seat takes it, the
        # weights fall on those alone.
        np.testing.assert_allclose(weights.sum(1), 1.0)
        ruled = which.any(1)
        assert (weights[ruled, 128:] == 0).all() and (weights[~ruled, 128:] > 0).any()
        seat_of_slot = (seats[:, None] + np.arange(1, 4)) % 4
        truth = (seat_of_slot != 0) & (opponent == "rule")
        assert (which[:, 1:] == truth).mean() >= 0.7, opponent


class _CountingRule(RuleBot):
    """The rule bot, counting the moves it is asked for."""

    def __init__(self) -> None:
        super().__init__()
        self.rows = 0

    def act(self, obs, mask, rng):
        self.rows += len(obs)
        return super().act(obs, mask, rng)


def test_a_search_plays_the_seats_it_models_as_rule_bots_with_the_rule_bot():
    rule, policy = RuleBot(), make_bot("hard")
    with pytest.raises(ValueError, match="alternative models need a belief"):
        SearchBot(8, alternatives=[(MoveScores(rule), rule)])
    with pytest.raises(ValueError, match="chosen by the belief"):
        guided_by(policy, models=[rule])
    counting = _CountingRule()
    guide = guided_by(policy, belief=True, models=[counting])
    assert isinstance(guide["alternatives"][0][0], MoveScores)
    bot = SearchBot(8, belief_candidates=64, alternative_candidates=32, **guide)
    runs = [
        play_duplicate([bot, rule], 1, lineups=one_against_three(), seed=4, max_hands=1)
        for _ in range(2)
    ]
    np.testing.assert_array_equal(runs[0].board_points(), runs[1].board_points())
    assert counting.rows > 0  # some seats' moves were explained better by the rule bot
    # Without the hand's history there is nothing to choose by: the policy plays every seat.
    counting.rows = 0
    _, state, _ = _self_play_positions(12, n_games=2)
    bot.act(engine.observe(state), engine.legal_action_mask(state), np.random.default_rng(2))
    assert counting.rows == 0


def test_a_search_with_a_belief_reads_the_history_and_replays_from_a_seed():
    assert not make_bot("search:8:hard").uses_history  # the belief is asked for by name only
    bot = SearchBot(8, belief_candidates=128, **guided_by(make_bot("hard"), belief=True))
    assert bot.uses_history and bot.belief is not None
    runs = [
        play_duplicate(
            [bot, GreedyBot()], 1, lineups=one_against_three()[:2], seed=4, max_hands=1
        ).board_points()
        for _ in range(2)
    ]
    np.testing.assert_array_equal(runs[0], runs[1])
    # With a history the worlds differ from the uniform ones drawn from the same generator.
    _, state, logs = _self_play_positions(12, n_games=2)
    obs, mask = engine.observe(state), engine.legal_action_mask(state)
    uniform = bot._world_source(obs, np.random.default_rng(1), None)[0](16)
    believed = bot._world_source(obs, np.random.default_rng(1), logs)[0](16)
    assert uniform.shape == believed.shape and (uniform != believed).any()
    assert bot.act(obs, mask, np.random.default_rng(2), history=logs).shape == (2,)
    # Its scores (the web game's hints) read the history as its moves do.
    believed = bot.scores(obs, mask, np.random.default_rng(3), history=logs)
    uniform = bot.scores(obs, mask, np.random.default_rng(3))
    assert np.isfinite(believed[mask]).all() and (believed[mask] != uniform[mask]).any()


def _exchange_positions(seed: int, n_games: int = 48):
    """Every play decision of the second hands of ``n_games`` matches played by rule bots
    (their first hands too, to reach them): (state, the hand's logs turned to the seat to act)."""
    bot, rng = RuleBot(), np.random.default_rng(seed)
    state = engine.init(rng, n_games, Rules())
    logs = HandLogs(n_games)
    out = []
    while (state.hand_no < 2).any() and (state.phase != Phase.MATCH_OVER).any():
        mask = engine.legal_action_mask(state)
        play = np.flatnonzero((state.phase == Phase.PLAY) & (state.hand_no == 1))
        if play.size:
            out.append((state.index(play), logs.turned(play, state.to_act[play])))
        actions = bot.act(engine.observe(state), mask, rng)
        logs.record(state, actions)
        before = state.hand_no.copy()
        state = engine.step(state, actions, rng=rng)
        logs.clear(np.flatnonzero(state.hand_no != before))
    return out


def _consistent(held: np.ndarray, least: np.ndarray, barred: np.ndarray) -> np.ndarray:
    """(...) whether hands (..., 4, 15) hold at least ``least`` and no more where barred."""
    return ((held >= least) & (~barred | (held <= least))).all(axis=(-2, -1))


def test_exchange_facts_hold_in_the_true_deal_and_bind_every_sampled_world():
    # The facts are certain: the true hidden hands keep them at every decision of a second
    # hand, with the logs or without (then from the scores). Every world dealt with them keeps
    # them too, and is a deal of the unseen cards of the right sizes.
    found = barring = 0
    rng = np.random.default_rng(5)
    rule_scores = MoveScores(RuleBot())
    for state, logs in _exchange_positions(3):
        obs = engine.observe(state)
        true = held_by_slot(state)
        for facts in (exchange_facts(obs, logs), exchange_facts(obs)):
            assert _consistent(true, *facts).all()
        least, barred = exchange_facts(obs, logs)
        found += int(least.any(axis=(1, 2)).sum())
        barring += int(barred.any(axis=(1, 2)).sum())
        worlds = sample_hidden_hands(obs, rng, 64, (least, barred))
        assert _consistent(worlds, least[:, None], barred[:, None]).all()
        if least.any():  # the belief's candidates are dealt the same way
            bound = np.flatnonzero(least.any((1, 2)))
            pool, _, _ = believed_worlds(
                obs[bound],
                [logs[i] for i in bound],
                [rule_scores],
                rng,
                16,
                4.0,
                facts=(least[bound], barred[bound]),
            )
            assert _consistent(pool, least[bound, None], barred[bound, None]).all()
        seen = observation.decode(obs)
        np.testing.assert_array_equal(
            worlds[:, :, 1:].sum(2), np.broadcast_to(seen.unseen[:, None], (obs.shape[0], 64, 15))
        )
        np.testing.assert_array_equal(
            worlds.sum(3)[:, :, 1:],
            np.broadcast_to(seen.cards_left[:, None, 1:], (obs.shape[0], 64, 3)),
        )
    assert found > 20 and barring > 10


def test_worlds_dealt_with_the_facts_are_uniform_among_the_consistent_deals():
    # One seat knows a card of another and a third is barred from the high ranks: each
    # allowed card lands in each seat as often as a uniform consistent deal puts it there.
    state, logs = next(
        (s.index(np.array([g])), [lg[g]])
        for s, lg in _exchange_positions(4)
        for g in range(s.batch_size)
        if exchange_facts(engine.observe(s.index(np.array([g]))), [lg[g]])[1].any()
    )
    obs = engine.observe(state)
    least, barred = exchange_facts(obs, logs)
    worlds = sample_hidden_hands(obs, np.random.default_rng(0), 20000, (least, barred))
    assert _consistent(worlds, least[:, None], barred[:, None]).all()
    uniform = sample_hidden_hands(obs, np.random.default_rng(1), 60000)
    keep = _consistent(uniform, least[:, None], barred[:, None])[0]
    assert 200 < keep.sum() < keep.size  # the facts rule out many uniform deals
    # Rejection sampling is exactly uniform among consistent deals: the marginals agree.
    ours = worlds[0, :, 1:].mean(0)
    theirs = uniform[0, keep, 1:].mean(0)
    np.testing.assert_allclose(ours, theirs, atol=4 / np.sqrt(keep.sum()))


def test_a_search_handed_its_worlds_values_each_move_in_them():
    # ``deal`` replaces the sampled worlds: handed the true deal, a search whose rollouts are
    # deterministic values each legal move at exactly the points it makes there.
    _, state, _ = _self_play_positions(11, n_games=3)
    obs, mask, true = engine.observe(state), engine.legal_action_mask(state), held_by_slot(state)
    asked = []

    def deal(o, rng, n):
        asked.append(n)
        return np.repeat(true[:, None], n, axis=1)

    values = SearchBot(8, min_worlds=2, deal=deal).scores(obs, mask)
    assert asked
    rng = np.random.default_rng(0)
    for g in range(state.batch_size):
        for a in np.flatnonzero(mask[g]):
            start = state_from_observation(obs[g : g + 1], true[g : g + 1])
            after = engine.step(start, np.array([a], np.int16))
            assert values[g, a] == rollout_hand(after, rng, epsilon=0.0)[0, 0]
        assert (values[g, ~mask[g]] == -np.inf).all()


def test_the_search_page_states_the_shipped_expert_level_and_the_bots_constants():
    """docs/search.md, the spec a port follows, states the expert level's settings as
    levels.json ships them and the constants the code uses (a page that went stale would
    mislead a port with no failing vector to show it)."""
    import inspect
    import json
    import re
    from pathlib import Path

    from murlan_env.bots import registry, rule

    page = (Path(__file__).resolve().parents[1] / "docs" / "search.md").read_text()
    rows = dict(re.findall(r"^\| `(\w+)` \| ([^|]+) \|", page, re.M))
    expert = registry.levels()["expert"]
    for field, text in rows.items():
        text = text.strip().replace("`", "")
        value = text if text == expert[field] else json.loads(text)
        assert value == expert[field], field
    assert set(rows) == set(expert) - {"policy", "temperature", "mix", "about", "supported_rules"}
    knobs = {k: p.default for k, p in inspect.signature(RuleBot).parameters.items()}
    stated = ", ".join(f"`{k}` {v}" for k, v in knobs.items())
    stated = stated.replace("`save_high` 99", "`save_high` 99 (off)").replace("False", "false")
    assert stated in " ".join(page.split()), stated
    assert rule.MAX_PLANS == 8 and "at most 8" in page
    assert MoveScores(RuleBot()).miss == pytest.approx(np.log(0.01)) and "log(0.01)" in page
    assert SearchBot().epsilon == 0 and SearchBot().belief_facts is False
    assert inspect.signature(SearchBot).parameters["min_worlds"].default == 4
