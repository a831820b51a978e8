"""Bots: one small interface for every player that is not a person, and the rule-based bots.

A bot sees exactly what a seat may see: the egocentric observation vector of
``murlan_env.game.observation`` (read it with ``observation.decode``) and the legal-action mask.
It acts
for a batch of games at once, so arenas and trainers drive many games in one call.

| bot         | plays                                                                          |
|-------------|--------------------------------------------------------------------------------|
| RandomBot   | a uniformly random legal action                                                |
| GreedyBot   | the cheapest play that beats the table; leads its lowest rank; keeps bombs     |
| RuleBot     | plans its hand, counts cards for controls, blocks opponents close to going out |
| SampledBot  | a scoring bot's moves drawn from softmax(scores / temperature)                 |
| MoveScores  | a bot without scores as a scoring model: its move likely, every other unlikely |

Games between bots (duplicate deals, whole matches, legality checks) are played by
``murlan_env.eval.duplicate``.
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

import numpy as np

from murlan_env.bots.rule import (
    CONTROL_CREDIT,
    IS_QUAD,
    beatable_actions,
    rule_moves,
)
from murlan_env.game import observation
from murlan_env.game.combos import COST, PASS, beats_matrix
from murlan_env.game.engine import random_legal_actions


@runtime_checkable
class Bot(Protocol):
    """Anything that picks one legal action per game from observations and masks."""

    name: str

    def act(self, obs: np.ndarray, mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """(B,) int actions, each legal under its row of ``mask`` (B, A).

        ``obs`` is (B, OBS_SIZE) float32 from ``engine.observe`` for the seat to act. All
        randomness comes from ``rng`` so games replay exactly for a seed.
        """
        ...


@runtime_checkable
class ScoringBot(Bot, Protocol):
    """A bot that can report per-action scores, higher is better (a trained policy's logits,
    which it plays the argmax of; a search's mean points), so moves can be sampled from them
    (``SampledBot``)."""

    def scores(
        self, obs: np.ndarray, mask: np.ndarray, rng: np.random.Generator | None = None
    ) -> np.ndarray:
        """(B, A) scores, higher is better; illegal actions may hold anything.

        One shape for every scoring bot: ``rng`` feeds a bot whose scores draw at random (the
        search's worlds; None: its fixed default), the others ignore it. A bot with a true
        ``uses_history`` also takes ``history=``, as its ``act`` does.
        """
        ...


def legal_logits(scores: np.ndarray, mask: np.ndarray, temperature: float = 1.0) -> np.ndarray:
    """(B, A) float64 scores / temperature less each row's best legal one, -inf where illegal:
    the logits of a scoring bot's moves, softmax over each row's legal actions (rows without
    a legal action stay all -inf). Sampling (``sample_from_scores``) and likelihoods
    (``legal_log_probs``) share this one model of how such a bot moves."""
    mask = np.asarray(mask, bool)
    z = np.where(mask, np.asarray(scores, np.float64) / temperature, -np.inf)
    top = z.max(axis=1, keepdims=True)
    return z - np.where(np.isfinite(top), top, 0.0)


def legal_log_probs(scores: np.ndarray, mask: np.ndarray, temperature: float = 1.0) -> np.ndarray:
    """(B, A) log-probabilities of softmax(scores / temperature) over each row's legal
    actions, -inf where illegal; every row needs a legal action."""
    logits = legal_logits(scores, mask, temperature)
    return logits - np.log(np.exp(logits).sum(axis=1, keepdims=True))


def sample_from_scores(
    scores: np.ndarray, mask: np.ndarray, temperature: float, rng: np.random.Generator
) -> np.ndarray:
    """(B,) actions drawn from softmax(scores / temperature) over each row's legal actions;
    temperature 0 takes the argmax. Rows without a legal action get an arbitrary index."""
    mask = np.asarray(mask, bool)
    if temperature == 0:
        return np.argmax(np.where(mask, scores, -np.inf), axis=1)
    probs = np.where(mask, np.exp(legal_logits(scores, mask, temperature)), 0.0)
    cum = np.cumsum(probs, axis=1)
    pick = rng.random(mask.shape[0]) * cum[:, -1]
    return np.argmax(cum > pick[:, None], axis=1)


class SampledBot:
    """A scoring bot's moves drawn from softmax(scores / temperature) instead of its argmax.

    Search plays its rollouts with it (``registry``'s ``search:N:BOT``): a policy's best move
    is a narrow model of opponents who do not play like it, and sampling spreads the rollouts
    over more of what they might do.
    """

    def __init__(self, bot: ScoringBot, temperature: float = 1.0, name: str | None = None):
        if temperature < 0:
            raise ValueError(f"temperature must be >= 0, got {temperature}")
        self.bot = bot
        self.temperature = float(temperature)
        self.name = name or f"{bot.name}@T={self.temperature:g}"

    def act(self, obs: np.ndarray, mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        mask = np.asarray(mask, bool)
        actions = sample_from_scores(self.bot.scores(obs, mask), mask, self.temperature, rng)
        return np.where(mask.any(1), actions, PASS).astype(np.int16)


class MoveScores:
    """A bot that has no scores (e.g. the rule bot) as a model of how it moves: its move
    scores 0 and every other legal move ``log(slack)``, so softmax gives its move most of the
    probability and every other move a little, and a likelihood that meets a move it would
    not have made is low rather than impossible (``murlan_env.bots.search``'s belief)."""

    def __init__(self, bot: Bot, slack: float = 0.01, name: str | None = None):
        if not 0 < slack < 1:
            raise ValueError(f"slack must be in (0, 1), got {slack}")
        self.bot = bot
        self.miss = float(np.log(slack))
        self.name = name or f"{bot.name}-moves"

    def scores(
        self, obs: np.ndarray, mask: np.ndarray, rng: np.random.Generator | None = None
    ) -> np.ndarray:
        """(B, A) float32: 0 for the bot's move, ``log(slack)`` for every other action; the
        bot acts with a fixed generator (not ``rng``), so a bot that draws at random is
        modelled by one draw, the same for every call."""
        chosen = np.asarray(self.bot.act(obs, mask, np.random.default_rng(0)), np.int64)
        out = np.full(np.shape(mask), self.miss, np.float32)
        out[np.arange(len(chosen)), chosen] = 0.0
        return out

    def act(self, obs: np.ndarray, mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        return self.bot.act(obs, mask, rng)


class RandomBot:
    """Uniformly random legal action."""

    name = "random"

    def act(self, obs: np.ndarray, mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        return random_legal_actions(mask, rng)


class GreedyBot:
    """The cheapest play: a simple, fully vectorised baseline.

    - A play that empties the hand is always made (a bomb included).
    - Leading: all copies of its lowest rank (single, pair or triple as held), never a
      straight; with only bombs left, the lowest bomb.
    - Following: the lowest play of the table's shape that beats it, or pass.
    - Bombs are kept: no play uses a rank held four times (except to go out, to lead with
      only bombs left, or when the hand-1 opening card is part of a bomb and nothing else
      may lead), so greedy passes when only a bomb would beat.
    - Exchange: gives back its lowest card.
    """

    name = "greedy"

    def act(self, obs: np.ndarray, mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        batch = len(obs)
        seen = observation.decode(obs)
        hand = seen.my_hand  # (B, 15)
        need = COST[None, :, :]
        goes_out = mask & (need == hand[:, None, :]).all(-1)
        bomb_rank = hand == 4  # (B, 15)
        touches_bomb = ((need > 0) & bomb_rank[:, None, :]).any(-1)
        keep = mask & ~touches_bomb & ~IS_QUAD[None, :]
        keep[:, PASS] = False
        rows = np.arange(batch)
        leading = ~mask[:, PASS]

        # Following: ids of one shape are ordered by key, so the first allowed id is cheapest.
        follow = np.where(keep.any(1), keep.argmax(1), PASS)
        # Leading: all copies of the lowest rank held outside bombs.
        free = (hand > 0) & ~bomb_rank
        low = free.argmax(1)
        n_low = hand[rows, low].astype(np.int64)
        first_id = np.array([0, 1, 16, 29, 42])[np.clip(n_low, 0, 4)]
        group = np.where(low >= 13, 1 + low, first_id + low)
        lowest_bomb = 42 + bomb_rank[:, :13].argmax(1)
        lead = np.where(free.any(1), group, lowest_bomb)
        lead_ok = mask[rows, lead]
        # The opening duty can forbid the lead above: then the first legal id (lowest single).
        lead = np.where(lead_ok, lead, mask.argmax(1))
        out = np.where(leading, lead, follow)
        out = np.where(goes_out.any(1), goes_out.argmax(1), out)
        out = np.where(seen.exchanging, mask.argmax(1), out)
        return out.astype(np.int16)


class RuleBot:
    """The strongest rule-based bot here: it plans its hand and counts cards.

    Per game (compiled: ``murlan_env.bots.rule.rule_moves``, over its hand plans):

    - The hand is planned as bombs, straights and rank groups with the fewest combinations;
      its value counts the combinations opponents could beat and credits *controls* (those
      the unseen cards cannot beat, bombs aside), which win a trick and give the lead back.
    - Leading: with at most one beatable combination left, controls go first and the last
      weak one after; otherwise the weakest beatable combination of the plan (lowest rank,
      longer first), avoiding the shape an opponent about to go out can still play.
    - Following: the cheapest play that improves the plan's value (a weak combination of
      the plan, or a split that costs no turn); controls only to take the lead when close to
      going out or to stop an opponent with few cards; bombs only for the same reasons when
      nothing else does; otherwise pass.
    - Exchange: gives back the card whose loss hurts the plan least, lowest rank first.
    """

    name = "rule"

    def __init__(
        self,
        danger: int = 1,
        finish: float = 1.5,
        credit: float = CONTROL_CREDIT,
        save_high: int = 99,
        last_weak: int = 1,
        lead_long: bool = False,
    ) -> None:
        """Tuning knobs; the defaults were the best of those tried (benchmarks/bots_strength).

        Args:
            danger: an opponent holding at most this many cards is blocked (2 and 0 were
                weaker than 1).
            finish: hand value at or below which taking the lead is worth a control.
            credit: value credit per control (``rule.hand_value``).
            save_high: lowest rank (index, A = 11) not shed on a trick while the hand is
                still long; 99 = off (11 gained against greedy but lost against the default
                rule bot).
            last_weak: lead controls first once this few weak combinations are left (0 and 2
                were both weaker).
            lead_long: lead the longest weak combination rather than the lowest.
        """
        self.danger = danger
        self.finish = finish
        self.credit = credit
        self.save_high = save_high
        self.last_weak = last_weak
        self.lead_long = lead_long

    def act(self, obs: np.ndarray, mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        batch = len(obs)
        out = np.zeros(batch, np.int16)
        if batch == 0:
            return out
        mask = np.ascontiguousarray(mask, bool)
        seen = observation.decode(obs)
        left = seen.cards_left.astype(np.int64)
        # Games of one call normally share their rules; group by the flags in case they don't.
        flags = seen.rule_flags
        beatable = np.zeros(mask.shape, bool)
        joker_pair = np.zeros(batch, bool)
        # np.unique sorts the rows: a third of this method's time in a search's rollouts.
        groups = flags[:1] if (flags == flags[0]).all() else np.unique(flags, axis=0)
        for row in groups:
            same = (flags == row).all(1)
            rules = seen.rules(int(np.flatnonzero(same)[0]))
            beatable[same] = beatable_actions(seen.unseen[same], beats_matrix(rules))
            joker_pair[same] = rules.joker_pair
        danger = np.where(left[:, 1:] > 0, left[:, 1:], 99).min(1)  # (B,) fewest cards held
        knobs = (
            int(self.danger),
            float(self.finish),
            float(self.credit),
            int(self.save_high),
            int(self.last_weak),
            bool(self.lead_long),
        )
        rule_moves(
            np.ascontiguousarray(seen.my_hand),
            mask,
            beatable,
            danger,
            np.ascontiguousarray(seen.exchanging, bool),
            np.ascontiguousarray(seen.table == PASS),
            joker_pair,
            knobs,
            out,
        )
        return out


__all__ = [
    "Bot",
    "GreedyBot",
    "MoveScores",
    "RandomBot",
    "RuleBot",
    "SampledBot",
    "ScoringBot",
    "legal_log_probs",
    "legal_logits",
    "sample_from_scores",
]
