"""Rule-bot vectors: positions from real play with the rule bot's move and its moves'
log-probabilities as a scoring model, to hold another implementation of the rule bot (the
JavaScript client's, which a search there plays in its rollouts and weighs worlds by) to
``RuleBot`` and ``MoveScores`` here.

Whole matches are played under every variant (``murlan_env.conformance.engine.VARIANTS``) by
different bots in the seats (rule, greedy and random, in turn), so the positions range over
openings under the start-card duty, exchanges, blocked and free tables, bombs and hands near
their end. Every exchange decision, every opening under the start-card duty with a choice and a
fraction of the other plays are kept (so every seed covers each kind); each position holds
the engine state (``state_json``), the position as the seat to act sees it (``state_facts``,
what murlan-bot/1 sends), the legal actions, the rule bot's move and its cards, the
log-probability of each legal action under ``MoveScores(RuleBot())``, and the moves of
``RuleBot`` with each set of other knobs (``KNOB_SETS``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from murlan_env.bots.baseline import GreedyBot, RandomBot
from murlan_env.bots.protocol import MoveScores, legal_log_probs
from murlan_env.bots.rule import RuleBot
from murlan_env.bundle.golden_positions import state_facts
from murlan_env.conformance.driving import play_to_end
from murlan_env.conformance.engine import VARIANTS, state_json
from murlan_env.game import engine
from murlan_env.game.cards import format_cards
from murlan_env.game.rules import Rules
from murlan_env.game.state import N_SEATS, Phase

RULE_VECTORS_FORMAT = "murlan-rule-vectors/1"
# Other knobs of ``RuleBot`` (its defaults are the ``rule`` bot's), whose moves each position
# also holds, so every branch of the bot is held, not only the default one.
KNOB_SETS: tuple[dict[str, Any], ...] = (
    {"lead_long": True, "save_high": 11},
    {"danger": 2, "last_weak": 0, "finish": 2.5},
    {"credit": 1.0, "danger": 0},
)


def rule_vectors(
    rng: np.random.Generator,
    matches: int = 2,
    keep: float = 0.1,
    variants: Sequence[Rules] = VARIANTS,
    slack: float = 0.01,
) -> dict[str, Any]:
    """Rule-bot positions from ``matches`` whole seeded matches under each variant: every
    exchange decision, every start-duty opening with a choice, and a fraction ``keep`` of the
    other decisions with a choice (see the module docstring); ``slack`` is ``MoveScores``'."""
    rule = RuleBot()
    model = MoveScores(rule, slack)
    others = [RuleBot(**knobs) for knobs in KNOB_SETS]
    players = (rule, GreedyBot(), RandomBot())
    positions: list[dict[str, Any]] = []
    for v, rules in enumerate(variants):
        # Seat s of match b is played by players[(b + s + v) % 3].
        lineup = (np.arange(matches)[:, None] + np.arange(N_SEATS)[None, :] + v) % len(players)

        def decide(waiting, sub, obs, mask, lineup=lineup):
            moves = rule.act(obs, mask, rng)
            log_p = legal_log_probs(model.scores(obs, mask), mask)
            cards = engine.choose_cards(sub, moves)
            knob_moves = np.stack([bot.act(obs, mask, rng) for bot in others], axis=1)
            for i in range(waiting.size):
                legal = np.flatnonzero(mask[i])
                exchange = sub.phase[i] == Phase.EXCHANGE
                always = exchange or (sub.start_duty[i] and legal.size > 1)
                if not always and (legal.size < 2 or rng.random() >= keep):
                    continue
                positions.append(
                    {
                        "state": state_json(sub, i),
                        "position": state_facts(sub.index([i])),
                        "legal": [int(a) for a in legal],
                        "move": int(moves[i]),
                        "cards": format_cards(np.flatnonzero(cards[i])),
                        "log_probs": [float(log_p[i, a]) for a in legal],
                        "knob_moves": [int(m) for m in knob_moves[i]],
                    }
                )
            actions = np.zeros(waiting.size, np.int16)
            seat_player = lineup[waiting, sub.to_act]
            for p, player in enumerate(players):
                at = np.flatnonzero(seat_player == p)
                if at.size:
                    actions[at] = player.act(obs[at], mask[at], rng)
            return actions

        play_to_end(engine.init(rng, matches, rules), rng, decide)
    return {
        "format": RULE_VECTORS_FORMAT,
        "slack": slack,
        "knobs": list(KNOB_SETS),
        "positions": positions,
    }


__all__ = ["KNOB_SETS", "RULE_VECTORS_FORMAT", "rule_vectors"]
