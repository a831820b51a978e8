"""The exported-policy bot: plays a bundle written by ``murlan export`` with onnxruntime alone.

A bundle is a directory (see ``agents/export.py``, which writes it):

| file           | what                                                                      |
|----------------|---------------------------------------------------------------------------|
| model.onnx     | ``scores = f(obs (B, 544) float32, mask (B, 109) bool)``, argmax = action  |
| bot.json       | format and env versions, rules, action table, observation layout, the     |
|                | input/output names and shapes, sha256 of the layout, table and model file  |
| golden.json    | seeded matches as murlan-record/1 objects and recorded positions with      |
|                | their exact observations, legal actions and the model's scores            |
| model.mlpackage| Core ML conversion, when coremltools was available at export time         |

Loading is strict: the bundle's format and env version, and the hashes of its observation
layout and action table, must be those of the installed package, because a network fed a
vector laid out differently would play legal but meaningless moves. ``verify_golden`` goes
further and replays the golden matches through this engine, which catches changes of
meaning that keep the layout's shape (a rescaled piece, a reordered encoding).

This module must not import torch (apps and servers run bundles without it).
"""

from __future__ import annotations

import argparse
import hashlib
import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np

from murlan_env.bots import basic as bots
from murlan_env.bots import registry
from murlan_env.game import engine, observation
from murlan_env.game.cards import parse_hand, rank_counts
from murlan_env.game.combos import N_ACTIONS, PASS, action_of_counts, action_table
from murlan_env.game.rules import Rules
from murlan_env.game.version import ENV_NAME

BUNDLE_FORMAT = "murlan-bundle/2"
GOLDEN_FORMAT = "murlan-golden/1"
# The environment version the bundle's observations and actions follow (the AEC env's name).
ENV_VERSION = ENV_NAME
MODEL_FILE = "model.onnx"
SPEC_FILE = "bot.json"
GOLDEN_FILE = "golden.json"
COREML_FILE = "model.mlpackage"
INPUT_NAMES = ("obs", "mask")
OUTPUT_NAME = "scores"


class BundleError(ValueError):
    """A bundle that cannot be used with the installed murlan (wrong version, hash or file)."""


# --------------------------------------------------------------------------- fingerprints


def _sha256_json(value: Any) -> str:
    text = json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=True)
    return hashlib.sha256(text.encode()).hexdigest()


def action_table_hash() -> str:
    """sha256 of ``combos.action_table()`` (id, kind and ranks of every action)."""
    return _sha256_json(action_table())


def file_sha256(path: str | Path) -> str:
    """sha256 of a file's bytes."""
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


# --------------------------------------------------------------------------- loading


def load_spec(bundle_dir: str | Path) -> dict[str, Any]:
    """bot.json of a bundle, checked against the installed package; raises BundleError."""
    bundle_dir = Path(bundle_dir)
    spec_path = bundle_dir / SPEC_FILE
    if not spec_path.is_file():
        raise BundleError(
            f"{bundle_dir} is not a bundle: no {SPEC_FILE} (write one with murlan export)"
        )
    try:
        spec = json.loads(spec_path.read_text())
    except json.JSONDecodeError as e:
        raise BundleError(f"{spec_path} is not valid JSON: {e}") from None
    if not isinstance(spec, dict):
        raise BundleError(f"{spec_path} must hold a JSON object")

    def expect(key: str, wanted: Any, why: str) -> None:
        got = spec.get(key)
        if got != wanted:
            raise BundleError(
                f"{spec_path}: {key} is {got!r}, the installed murlan needs {wanted!r}; {why}"
            )

    expect("format", BUNDLE_FORMAT, "re-export the checkpoint with this version of murlan")
    expect("env_version", ENV_VERSION, "the bundle was trained for another version of the game")
    layout = spec.get("observation", {})
    if layout.get("sha256") != observation.layout_hash():
        raise BundleError(
            f"{spec_path}: observation layout differs from the installed engine's "
            f"({_layout_difference(layout.get('pieces'))}); the model would misread every "
            "observation: re-export it from a checkpoint trained on this layout"
        )
    actions = spec.get("actions", {})
    if actions.get("sha256") != action_table_hash():
        raise BundleError(
            f"{spec_path}: action table differs from the installed one (sha256 "
            f"{actions.get('sha256')!r} vs {action_table_hash()!r}); "
            "the scores would name the wrong plays"
        )
    model = spec.get("model", {})
    model_path = bundle_dir / model.get("file", MODEL_FILE)
    if not model_path.is_file():
        raise BundleError(
            f"{bundle_dir}: model file {model_path.name} is missing; copy the whole bundle "
            "or write it again with murlan export"
        )
    if model.get("sha256") != file_sha256(model_path):
        raise BundleError(
            f"{model_path}: sha256 does not match bot.json (corrupt or replaced file); "
            "copy the bundle again or write it again with murlan export"
        )
    try:
        Rules.from_dict(spec.get("rules"))
    except ValueError as e:
        raise BundleError(f"{spec_path}: bad rules: {e}") from None
    return spec


def _layout_difference(pieces: Any) -> str:
    """Human summary of how a bundle's layout pieces differ from the installed ones."""
    if not isinstance(pieces, list):
        return "no layout pieces recorded"
    ours = {p["name"]: (p["offset"], p["size"]) for p in observation.layout()}
    try:
        theirs = {p["name"]: (p["offset"], p["size"]) for p in pieces}
    except (KeyError, TypeError):
        return "unreadable layout pieces"
    diffs = [
        f"{n}: bundle {theirs.get(n)}, installed {ours.get(n)}"
        for n in sorted(set(ours) | set(theirs))
        if ours.get(n) != theirs.get(n)
    ]
    return "; ".join(diffs[:4]) or "same pieces, different hash"


def onnx_session(model_path: str | Path, threads: int = 1):
    """An onnxruntime CPU session; ``threads`` caps intra-op threads (1: one core)."""
    import onnxruntime as ort

    opts = ort.SessionOptions()
    opts.intra_op_num_threads = threads
    opts.inter_op_num_threads = 1
    opts.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    opts.log_severity_level = 3
    return ort.InferenceSession(str(model_path), opts, providers=["CPUExecutionProvider"])


def export_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of ``murlan export`` (here, not in agents/export.py, so that building the
    ``murlan`` parser imports no torch)."""
    parser.add_argument("checkpoint", help="checkpoint file or run directory")
    parser.add_argument("--out", required=True, help="bundle directory to write")
    parser.add_argument("--positions", type=int, default=320, help="golden positions to record")
    parser.add_argument("--matches", type=int, default=8, help="seeded matches they come from")
    parser.add_argument("--seed", type=int, default=0, help="seed of the golden matches")
    parser.add_argument("--no-coreml", action="store_true", help="skip the Core ML conversion")


# --------------------------------------------------------------------------- the bot


class BundleBot:
    """A Bot playing an exported bundle through onnxruntime, with difficulty settings.

    ``temperature`` 0 plays the argmax of the model's scores; above 0 it samples from
    softmax(scores / temperature) over the legal actions. ``mix=(bot, p)`` hands each decision
    to a weaker bot (a spec of ``murlan_env.bots.registry`` such as "random" or "greedy", or a
    Bot) with
    probability p. ``seed`` gives the bot its own random stream; without it, the ``rng`` passed
    to ``act`` is used, so games replay exactly for the caller's seed either way.

    The policy knows the rules it was trained under (bot.json ``rules``); by default ``act``
    refuses observations of games under other rules (``strict_rules=False`` allows them).
    """

    def __init__(
        self,
        bundle_dir: str | Path,
        temperature: float = 0.0,
        mix: tuple[str | bots.Bot, float] | None = None,
        seed: int | None = None,
        *,
        threads: int = 1,
        strict_rules: bool = True,
        name: str | None = None,
    ) -> None:
        if temperature < 0:
            raise ValueError(f"temperature must be >= 0, got {temperature}")
        self.bundle_dir = Path(bundle_dir)
        self.spec = load_spec(self.bundle_dir)
        self.rules = Rules.from_dict(self.spec.get("rules"))
        self.strict_rules = strict_rules
        # The rule flags as the observation carries them, to catch games under other rules.
        self._rule_flags = observation.rule_flags(self.rules)
        self.temperature = float(temperature)
        self.weak: bots.Bot | None = None
        self.mix_p = 0.0
        if mix is not None:
            weak, p = mix
            if not 0.0 <= p <= 1.0:
                raise ValueError(f"mix probability must be in [0, 1], got {p}")
            self.weak = registry.make_bot(weak) if isinstance(weak, str) else weak
            self.mix_p = float(p)
        self._rng = None if seed is None else np.random.default_rng(seed)
        self.session = onnx_session(self.bundle_dir / self.spec["model"]["file"], threads)
        self._check_session()
        label = "greedy" if self.temperature == 0 else f"T={self.temperature:g}"
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
        """(B,) legal actions (PASS where a row has no legal action)."""
        rng = self._rng if self._rng is not None else rng
        mask = np.asarray(mask, dtype=bool)
        if self.strict_rules:
            flags = np.asarray(obs)[:, observation.SLICES["rules"]]
            if (flags != self._rule_flags).any():
                raise ValueError(
                    f"{self.name} plays {self.rules.to_dict() or 'the standard rules'}, but an "
                    "observation comes from a game under other rules (strict_rules=False allows it)"
                )
        actions = bots.sample_from_scores(self.scores(obs, mask), mask, self.temperature, rng)
        if self.weak is not None and self.mix_p > 0:
            weak = rng.random(mask.shape[0]) < self.mix_p
            if weak.any():
                actions = np.where(weak, self.weak.act(obs, mask, rng), actions)
        actions = np.where(mask.any(1), actions, PASS)
        return actions.astype(np.int16)


# --------------------------------------------------------------------------- golden vectors


def replay_positions(golden: Mapping[str, Any]):
    """Rebuild each golden position with this engine by replaying the golden match records.

    Yields ``(position, state)`` for every entry of ``golden["positions"]``, where ``state`` is
    the engine state (a batch of one) at that decision. Raises ValueError when a record does not
    replay (a turn taken by the wrong seat, an illegal play).
    """
    rules = Rules.from_dict(golden.get("rules"))
    wanted: dict[tuple[int, int, int, bool], list[dict]] = {}
    for pos in golden["positions"]:
        key = (pos["match"], pos["hand"], pos["plays"], bool(pos["exchange"]))
        wanted.setdefault(key, []).append(pos)
    for m, record in enumerate(golden["matches"]):
        state = None
        for h, hand in enumerate(record["hands"]):
            deal = engine.parse_deal(hand["deal"])
            if state is None:
                state = engine.deal_from(deal, hand["dealer"], rules)
            else:
                state = engine.next_hand(state, hands=deal)
            if int(state.dealer[0]) != hand["dealer"]:
                raise ValueError(f"match {m} hand {h}: dealer {hand['dealer']} out of turn")
            if state.phase[0] == engine.Phase.EXCHANGE:
                for pos in wanted.get((m, h, 0, True), []):
                    yield pos, state
                back = parse_hand(hand["exchange"]["first_gives"])
                action = int(action_of_counts(rank_counts(back)))
                state = _checked_step(state, action, back, f"match {m} hand {h} exchange")
            for k, (seat, text) in enumerate(hand["plays"]):
                for pos in wanted.get((m, h, k, False), []):
                    yield pos, state
                if int(state.to_act[0]) != seat:
                    raise ValueError(f"match {m} hand {h} play {k}: seat {seat} out of turn")
                cards = parse_hand(text)
                action = action_of_counts(rank_counts(cards))
                if action is None:
                    raise ValueError(f"match {m} hand {h} play {k}: {text!r} is no combination")
                state = _checked_step(state, int(action), cards, f"match {m} hand {h} play {k}")


def _checked_step(state: engine.State, action: int, cards: np.ndarray, where: str) -> engine.State:
    if not engine.legal_action_mask(state)[0, action]:
        raise ValueError(f"{where}: action {action} is not legal")
    return engine.step(state, np.array([action]), cards[None])


def verify_golden(bundle_dir: str | Path, threads: int = 1) -> dict[str, float]:
    """Check a bundle's golden positions against this engine and onnxruntime.

    Replays the golden matches, and compares at every recorded position the observation and
    legal mask this engine computes with the recorded ones (they must be identical) and the
    onnxruntime scores on the legal actions with the recorded PyTorch scores. Returns
    ``{"positions", "obs_max_diff", "mask_mismatches", "scores_max_diff", "action_mismatches"}``.
    """
    bundle_dir = Path(bundle_dir)
    spec = load_spec(bundle_dir)
    golden_path = bundle_dir / spec.get("golden", {}).get("file", GOLDEN_FILE)
    if spec.get("golden", {}).get("sha256") != file_sha256(golden_path):
        raise BundleError(f"{golden_path}: sha256 does not match bot.json")
    golden = json.loads(golden_path.read_text())
    if golden.get("format") != GOLDEN_FORMAT:
        raise BundleError(
            f"{bundle_dir / GOLDEN_FILE}: format {golden.get('format')!r}, "
            f"expected {GOLDEN_FORMAT!r}"
        )
    obs_rec, obs_now, mask_rec, mask_now, scores_rec, actions_rec = [], [], [], [], [], []
    for pos, state in replay_positions(golden):
        obs_rec.append(np.asarray(pos["obs"], np.float32))
        obs_now.append(engine.observe(state)[0])
        m = np.zeros(N_ACTIONS, bool)
        m[pos["legal"]] = True
        mask_rec.append(m)
        mask_now.append(engine.legal_action_mask(state)[0])
        scores_rec.append(np.asarray(pos["scores"], np.float32))
        actions_rec.append(pos["action"])
    if len(obs_rec) != len(golden["positions"]):
        raise ValueError(f"replayed {len(obs_rec)} of {len(golden['positions'])} golden positions")
    obs_rec, mask_rec, scores_rec = np.stack(obs_rec), np.stack(mask_rec), np.stack(scores_rec)
    session = onnx_session(bundle_dir / MODEL_FILE, threads)
    scores = session.run([OUTPUT_NAME], {"obs": obs_rec, "mask": mask_rec})[0]
    legal_diff = np.abs(scores - scores_rec)[mask_rec]
    return {
        "positions": len(obs_rec),
        "obs_max_diff": float(np.abs(np.stack(obs_now) - obs_rec).max()),
        "mask_mismatches": int((np.stack(mask_now) != mask_rec).any(1).sum()),
        "scores_max_diff": float(legal_diff.max()) if legal_diff.size else 0.0,
        "illegal_scores_exact": bool((scores[~mask_rec] == scores_rec[~mask_rec]).all()),
        "action_mismatches": int((np.argmax(scores, 1) != np.asarray(actions_rec)).sum()),
    }
