"""The bot protocols and what every bot with scores shares: one small interface for every
player that is not a person, logits over the legal actions, sampling from them, and a bot
without scores as a scoring model.

A bot sees exactly what a seat may see: the egocentric observation vector of
``murlan_env.game.observation`` (read it with ``observation.decode``) and the legal-action mask.
It acts for a batch of games at once, so arenas and trainers drive many games in one call.

| name        | what                                                                           |
|-------------|--------------------------------------------------------------------------------|
| Bot         | picks one legal action per game (``act``)                                      |
| ScoringBot  | a bot that also reports per-action scores (``scores``)                         |
| SampledBot  | a scoring bot's moves drawn from softmax(scores / temperature)                 |
| MoveScores  | a bot without scores as a scoring model: its move likely, every other unlikely |

The bots themselves: ``baseline`` (random, greedy), ``rule``, ``search`` and ``policy`` (an
exported bundle). Games between bots (duplicate deals, whole matches, legality checks) are
played by ``murlan_env.eval.duplicate``.
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

import numpy as np

from murlan_env.game.combos import PASS


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
    temperature 0 takes the argmax. One uniform draw per row (``pick_from_scores``)."""
    if temperature == 0:
        return pick_from_scores(scores, mask, 0.0, None)
    return pick_from_scores(scores, mask, temperature, rng.random(np.shape(mask)[0]))


def pick_from_scores(
    scores: np.ndarray, mask: np.ndarray, temperature: float, uniforms: np.ndarray | None
) -> np.ndarray:
    """(B,) the action of softmax(scores / temperature) over each row's legal actions that
    each row's uniform draw u in [0, 1) picks; temperature 0 takes the argmax (the first best
    in id order) and reads no draw. Rows without a legal action get an arbitrary index.

    Exactly, so another language picks the same action (docs/bundle.md): in float64, from the
    float32 scores s, z_a = s_a / T - max over legal b of s_b / T, w_a = exp(z_a); the
    cumulative sums of w in action id order (illegal actions add nothing); the pick is the
    first action whose cumulative sum exceeds u times the total."""
    mask = np.asarray(mask, bool)
    best = np.argmax(np.where(mask, scores, -np.inf), axis=1)
    if temperature == 0:
        return best
    probs = np.where(mask, np.exp(legal_logits(scores, mask, temperature)), 0.0)
    cum = np.cumsum(probs, axis=1)
    over = cum > (np.asarray(uniforms, np.float64) * cum[:, -1])[:, None]
    # u < 1 keeps u * total below the total, so some action is over it; the argmax stands in
    # for a row where none is (no legal action).
    return np.where(over.any(1), np.argmax(over, axis=1), best)


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


__all__ = [
    "Bot",
    "MoveScores",
    "SampledBot",
    "ScoringBot",
    "legal_log_probs",
    "legal_logits",
    "pick_from_scores",
    "sample_from_scores",
]
