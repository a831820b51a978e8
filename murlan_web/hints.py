"""What a bot would play in a position, and how it scores the candidate moves.

Bots with a ``scores(obs, mask)`` method (the search bot, exported and checkpoint policies)
show their best-scored moves with the score of each; the others (rule, greedy, random) show
only the move they would make. The same answer serves the Play page's hint button and the
Replay page's view of a decision, where the move actually made is always listed.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from murlan_env.bots.history import HandLogs, act_with_history, uses_history
from murlan_env.bots.protocol import Bot, ScoringBot, legal_log_probs
from murlan_env.bots.search import SearchBot
from murlan_env.game import engine
from murlan_env.game.cards import CARD_RANK
from murlan_env.game.combos import PASS, describe
from murlan_env.game.state import Phase, State
from murlan_env.records import Recorder
from murlan_web.views import card_names, play_names

TOP_MOVES = 6


def move_cards(state: State, action: int) -> np.ndarray:
    """(54,) bool: the cards of ``action`` from the hand of the seat to act, as a person would
    pick them (an exchange give-back never names the card just received)."""
    seat = int(state.to_act[0])
    if int(state.phase[0]) == Phase.EXCHANGE:
        hand = state.cards[0, seat].copy()
        hand[int(state.ex_last_gives[0])] = False
        same_rank = np.flatnonzero(hand & (CARD_RANK == action - 1))
        out = np.zeros(hand.shape, bool)
        out[same_rank[:1]] = True
        return out
    return engine.choose_cards(state, np.array([action]))[0]


def move_json(state: State, action: int) -> dict[str, Any]:
    """A move as the browser shows it: action id, cards (to select them) and words."""
    if action == PASS:
        return {"action": PASS, "cards": [], "text": "pass"}
    cards = move_cards(state, action)
    if int(state.phase[0]) == Phase.EXCHANGE:
        names = card_names(cards)
        return {"action": action, "cards": names, "text": "give back " + " ".join(names)}
    return {"action": action, "cards": play_names(cards, action), "text": describe(action)}


def score_meaning(bot: Bot) -> str | None:
    """What a bot's scores are, in words (None: it has none)."""
    if not isinstance(bot, ScoringBot):
        return None
    if isinstance(bot, SearchBot):
        return "mean hand points (3 for 1st to 0 for 4th) over sampled deals of the hidden cards"
    return "the policy's share of each move: a softmax of its scores over the legal moves"


def bot_scores(
    bot: Bot,
    obs: np.ndarray,
    mask: np.ndarray,
    rng: np.random.Generator,
    history: list[np.ndarray] | None = None,
):
    """(B, A) float scores of a bot that has them (the search bot draws its worlds from
    ``rng``, and weighs them by ``history``, each game's hand so far, when it reads it), None
    for a bot that only acts."""
    if not isinstance(bot, ScoringBot):
        return None
    options = {}
    if history is not None and uses_history(bot):
        options["history"] = history
    return np.asarray(bot.scores(obs, mask, rng, **options), np.float64)


def advice(
    bot: Bot,
    state: State,
    rng: np.random.Generator,
    *,
    made: int | None = None,
    top: int = TOP_MOVES,
    logs: HandLogs | None = None,
    recorder: Recorder | None = None,
) -> dict[str, Any]:
    """The bot's move and its best-scored candidates in a position waiting for a decision.

    ``made``: the action actually played there (Replay), listed among the candidates even
    when it is not in the top ``top``. A bot with scores plays its best-scored move; legal
    moves it does not score (NaN, e.g. the search bot's exchange give-back) are left out.
    ``logs``: the hand so far (one game), for a bot that reads it (``expert``'s belief);
    ``recorder``: the match so far (its state is ``state``), for a bot that reads it (a bot in
    another process).
    """
    obs = engine.observe(state)
    mask = engine.legal_action_mask(state)
    history = None if logs is None else logs.turned([0], state.to_act)
    scores = bot_scores(bot, obs, mask, rng, history)
    out: dict[str, Any] = {"bot": bot.name, "meaning": score_meaning(bot), "candidates": []}
    legal = np.flatnonzero(mask[0])
    if scores is None or not np.isfinite(scores[0, legal]).any():
        action = int(act_with_history(bot, obs, mask, rng, logs, [0], state.to_act, recorder)[0])
        out["move"] = move_json(state, action)
        out["meaning"] = None
        # Why no scores, in words: a bot that scores plays but not this kind of decision.
        if scores is None:
            out["no_scores"] = f"{bot.name} gives no scores, only its move"
        elif int(state.phase[0]) == Phase.EXCHANGE:
            out["no_scores"] = f"{bot.name} scores plays, not give-backs: this is its choice"
        else:
            out["no_scores"] = f"{bot.name} gives no scores here, only its move"
        return out
    row = scores[0]
    scored = [int(a) for a in legal if math.isfinite(row[a])]
    ranked = sorted(scored, key=lambda a: -row[a])
    shown = ranked[:top]
    if made is not None and made in scored and made not in shown:
        shown.append(made)
    out["move"] = move_json(state, ranked[0])
    # A policy's raw scores are logits, which read as nothing: its share of each move instead
    # (the softmax over the moves it scores); a search's scores are points, shown as they are.
    share = None
    if not isinstance(bot, SearchBot):
        scored_mask = np.zeros_like(mask[:1])
        scored_mask[0, scored] = True
        share = np.exp(legal_log_probs(row[None], scored_mask))[0]
    out["candidates"] = [
        {
            **move_json(state, a),
            "score": float(row[a]),
            "share": None if share is None else float(share[a]),
            "rank": ranked.index(a) + 1,
        }
        for a in shown
    ]
    out["legal_moves"] = len(legal)
    return out


__all__ = ["TOP_MOVES", "advice", "bot_scores", "move_cards", "move_json", "score_meaning"]
