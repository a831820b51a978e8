"""The exported-policy player: a bundle written by ``murlan export`` played with onnxruntime
alone (``BundleBot``, with a level's temperature, mix and rules), one of its model files as a
bot with scores (``ModelBot``), and a bundle's model quantised to int8 for a search
(``int8_bot``). Reading and checking the bundle's files is ``murlan_env.bundle``'s.

This module must not import torch (apps and servers run bundles without it).
"""

from __future__ import annotations

import functools
import tempfile
from pathlib import Path

import numpy as np

from murlan_env.bots import draws
from murlan_env.bots import protocol as bots
from murlan_env.bots.protocol import pick_from_scores
from murlan_env.bundle.files import onnx_session, session_scorer
from murlan_env.bundle.manifest import OUTPUT_NAME, BundleError, BundleManifest
from murlan_env.bundle.quantize import to_int8
from murlan_env.game import observation
from murlan_env.game.combos import N_ACTIONS, PASS
from murlan_env.game.rules import Rules


class ModelBot:
    """One model file of the bundle contract (``obs``, ``mask`` -> ``scores``) as a bot with
    scores, playing their argmax: what a search asks of a policy, without a bundle's manifest
    and rules (e.g. the int8 model a labeller runs, ``murlan_env.bundle.quantize.to_int8``)."""

    def __init__(self, model_path: str | Path, name: str, threads: int = 1) -> None:
        self.name = name
        self._scores = session_scorer(onnx_session(model_path, threads))

    def scores(
        self, obs: np.ndarray, mask: np.ndarray, rng: np.random.Generator | None = None
    ) -> np.ndarray:
        """(B, A) float32 the model's masked scores (``rng``: unused)."""
        return self._scores(obs, mask)

    def act(self, obs: np.ndarray, mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        return self.scores(obs, mask).argmax(-1).astype(np.int64)


class BundleBot:
    """A Bot playing an exported bundle through onnxruntime, with difficulty settings.

    ``temperature`` 0 plays the argmax of the model's scores; above 0 it samples from
    softmax(scores / temperature) over the legal actions. ``mix=(bot, p)`` hands each decision
    to a weaker Bot with probability p (``murlan_env.bots.registry`` builds it from a name).
    Every random number of a decision comes from its decision seed (``act_for_seeds``,
    ``murlan_env.bots.draws``: the generator, the draws and their order, which every client
    reproduces); ``act`` draws the seeds from the bot's own generator when ``seed`` is given,
    else from the ``rng`` passed to it, so games replay exactly for the caller's seed.
    ``precision`` picks the model file ("float32", or "float16" when the bundle has one).

    The policy plays the rules bot.json lists as supported (``supported_rules``: those it was
    trained under and those it is measured to play at par); by default ``act`` refuses
    observations of games under other rules (``strict_rules=False`` allows them).
    """

    def __init__(
        self,
        bundle_dir: str | Path,
        temperature: float = 0.0,
        mix: tuple[bots.Bot, float] | None = None,
        seed: int | None = None,
        *,
        precision: str = "float32",
        supported_rules: dict[str, list] | None = None,
        threads: int = 1,
        strict_rules: bool = True,
        name: str | None = None,
    ) -> None:
        if temperature < 0:
            raise ValueError(f"temperature must be >= 0, got {temperature}")
        self.bundle_dir = Path(bundle_dir)
        self.manifest = BundleManifest.load(self.bundle_dir)
        if supported_rules is not None:  # a level that plays fewer rules than its policy
            self.manifest = self.manifest.narrowed(supported_rules)
        self.rules = self.manifest.rules
        self.strict_rules = strict_rules
        self._rules_seen: dict[bytes, str | None] = {}  # rules piece -> conflict
        self.temperature = float(temperature)
        self.weak: bots.Bot | None = None
        self.mix_p = 0.0
        if mix is not None:
            weak, p = mix
            if not 0.0 <= p <= 1.0:
                raise ValueError(f"mix probability must be in [0, 1], got {p}")
            if isinstance(weak, str):
                raise TypeError("mix takes a Bot; murlan_env.bots.registry.make_bot builds one")
            self.weak = weak
            self.mix_p = float(p)
        self._rng = None if seed is None else np.random.default_rng(seed)
        self.model = self.manifest.model(precision)
        self.session = onnx_session(self.bundle_dir / self.model.file, threads)
        self._check_session()
        # "argmax", not "greedy": the greedy bot plays beside bundles in arena tables
        label = "argmax" if self.temperature == 0 else f"T={self.temperature:g}"
        if self.weak is not None:
            label += f",{self.weak.name}@{self.mix_p:g}"
        self.name = name or f"bundle:{self.bundle_dir.name}({label})"

    def _check_session(self) -> None:
        inputs = [(i.name, i.type, i.shape[1:]) for i in self.session.get_inputs()]
        wanted = [
            ("obs", "tensor(float)", [observation.SIZE]),
            ("mask", "tensor(bool)", [N_ACTIONS]),
        ]
        outputs = [(o.name, o.shape[1:]) for o in self.session.get_outputs()]
        if inputs != wanted or outputs != [(OUTPUT_NAME, [N_ACTIONS])]:
            raise BundleError(
                f"{self.bundle_dir}: model takes {inputs} and gives {outputs}, "
                f"expected {wanted} -> {[(OUTPUT_NAME, [N_ACTIONS])]}"
            )

    def rules_conflict(self, rules: Rules) -> str | None:
        """Why this bot does not play ``rules`` (None when it does)."""
        return self.manifest.rules_conflict(rules)

    def _check_rules(self, obs: np.ndarray) -> None:
        for row in np.unique(obs[:, observation.SLICES["rules"]] > 0.5, axis=0):
            key = row.tobytes()
            if key not in self._rules_seen:
                flags = observation.decode_rule_flags(row)
                self._rules_seen[key] = self.manifest.rules_conflict(flags)
            if self._rules_seen[key]:
                raise ValueError(
                    f"{self.name}: an observation comes from a game whose rules "
                    f"{self._rules_seen[key]} (strict_rules=False allows it)"
                )

    def scores(
        self, obs: np.ndarray, mask: np.ndarray, rng: np.random.Generator | None = None
    ) -> np.ndarray:
        """(B, A) float32 masked scores of the model (illegal actions at float32's minimum);
        deterministic, so ``rng`` is not used."""
        obs = np.ascontiguousarray(obs, dtype=np.float32)
        mask = np.ascontiguousarray(mask, dtype=bool)
        if (
            obs.ndim != 2
            or obs.shape[1] != observation.SIZE
            or mask.shape != (obs.shape[0], N_ACTIONS)
        ):
            raise ValueError(
                f"expected obs (B, {observation.SIZE}) and mask (B, {N_ACTIONS}), "
                f"got {obs.shape} and {mask.shape}"
            )
        return self.session.run([OUTPUT_NAME], {"obs": obs, "mask": mask})[0]

    def act(self, obs: np.ndarray, mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """(B,) legal actions (PASS where a row has no legal action): the level's moves for
        one decision seed per row, drawn from the generator (``draws.decision_seeds``, as a
        bot in another process is sent its requests' seeds), so the same seeds give a port of
        the level the same moves (``act_for_seeds``). A bot that draws nothing (temperature
        0, no mix) takes no seed, as no deterministic bot takes a draw, and acts without a
        generator (``rng`` None)."""
        rng = self._rng if self._rng is not None else rng
        n = np.shape(mask)[0]
        if not self.draws_at_random:
            return self.act_for_seeds(obs, mask, np.zeros(n, np.int64))
        if rng is None:
            raise ValueError(f"{self.name} draws at random: act needs a generator")
        return self.act_for_seeds(obs, mask, draws.decision_seeds(rng, n))

    @property
    def draws_at_random(self) -> bool:
        """Whether a decision draws (a temperature above 0, or a mix)."""
        return self.temperature > 0 or (self.weak is not None and self.mix_p > 0)

    def act_for_seeds(self, obs: np.ndarray, mask: np.ndarray, seeds: np.ndarray) -> np.ndarray:
        """(B,) the level's moves for each row's decision seed in [0, 2^32), every random
        number a draw of the seed's stream (``murlan_env.bots.draws``): the mix draw first
        (the weaker bot plays when it is below the mix's share), then whoever plays makes the
        play draw (the policy's sample at a temperature above 0, the random bot's pick; the
        greedy bot and the argmax make none). The exchange give-back is a decision like any
        other, mix included."""
        obs = np.asarray(obs)
        mask = np.asarray(mask, dtype=bool)
        seeds = np.asarray(seeds)
        if self.strict_rules:
            self._check_rules(obs)
        play = draws.uniforms(seeds, draws.PLAY_DRAW) if self.temperature > 0 else None
        actions = pick_from_scores(self.scores(obs, mask), mask, self.temperature, play)
        actions = actions.astype(np.int64)
        if self.weak is not None and self.mix_p > 0:
            rows = np.flatnonzero(draws.uniforms(seeds, draws.MIX_DRAW) < self.mix_p)
            if rows.size:
                actions[rows] = self._weak_actions(obs[rows], mask[rows], seeds[rows])
        actions = np.where(mask.any(1), actions, PASS)
        return actions.astype(np.int16)

    def _weak_actions(self, obs: np.ndarray, mask: np.ndarray, seeds: np.ndarray) -> np.ndarray:
        """The mixed-in bot's moves: the random and greedy bots read the play draw; another
        bot acts with a numpy generator seeded by the play draws' bits (the same moves for
        the same seeds here, but no port's)."""
        with_draws = getattr(self.weak, "act_with_draws", None)
        if with_draws is not None:
            return with_draws(obs, mask, draws.uniforms(seeds, draws.PLAY_DRAW))
        rng = np.random.default_rng(draws.draw_bits(seeds, draws.PLAY_DRAW))
        return self.weak.act(obs, mask, rng)


@functools.cache
def int8_bot(model_path: Path, name: str):
    """The float32 model at ``model_path`` quantised by ``to_int8``, as a bot with scores
    (``ModelBot``). Quantised once per process and shared: the
    session keeps no state between calls."""
    with tempfile.TemporaryDirectory() as tmp:  # the session holds the model once loaded
        path = Path(tmp) / "model.int8.onnx"
        to_int8(model_path, path)
        return ModelBot(path, name)


__all__ = ["BundleBot", "ModelBot", "int8_bot"]
