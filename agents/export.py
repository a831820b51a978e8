"""Checkpoint -> bundle: the ONNX model, its JSON spec and golden test vectors for apps.

``murlan export CHECKPOINT --out DIR`` writes

- ``DIR/model.onnx``: ``scores = model(obs (B, 544) float32, mask (B, 109) bool)``, batch axis
  dynamic; the decision is the argmax of ``scores`` (illegal actions score float32's minimum);
- ``DIR/bot.json``: format and env versions, rules, the action table, the observation layout
  piece by piece with offsets, input/output names and shapes, and sha256 hashes of the layout,
  the action table and the model file, which ``murlan_env.bots.bundle`` checks strictly;
- ``DIR/golden.json``: seeded random-play matches as murlan-record/1 objects and a few hundred
  positions from them with their exact observation vectors, legal actions and the PyTorch
  model's scores, so an app's own encoder and runtime can be checked against ours;
- ``DIR/model.mlpackage``: a Core ML conversion, when coremltools is installed.

Bundles hold weights and metadata only; resume checkpoints (optimiser, counters) stay with
the trainers. The bundle runs without torch: see ``murlan_env.bots.bundle.BundleBot``.
"""

from __future__ import annotations

import contextlib
import io
import json
import shutil
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import torch
from torch import nn

from murlan_env import __version__, records
from murlan_env.bots.bundle import (
    BUNDLE_FORMAT,
    COREML_FILE,
    ENV_VERSION,
    GOLDEN_FILE,
    GOLDEN_FORMAT,
    MODEL_FILE,
    OUTPUT_NAME,
    SPEC_FILE,
    action_table_hash,
    file_sha256,
)
from murlan_env.game import engine, observation
from murlan_env.game.combos import N_ACTIONS, action_table
from murlan_env.game.rules import Rules

ONNX_OPSET = 18


# --------------------------------------------------------------------------- golden matches


def golden_matches(
    rules: Rules, n_matches: int, n_positions: int, seed: int, p_record: float = 0.1
) -> tuple[list[dict], list[dict], np.ndarray, np.ndarray]:
    """Seeded random-play matches and positions sampled from them.

    Every exchange decision and each play decision with probability ``p_record`` is kept, until
    a match has its share of ``n_positions``; the match's record stops there (its last hand
    unfinished, as murlan-record/1 allows). Returns (records, positions, obs, masks), where each
    position is ``{"match", "hand", "plays", "exchange", "seat"}``: the decision before play
    number ``plays`` of that hand, or before the give-back when ``exchange`` is true.
    """
    rng = np.random.default_rng(seed)
    share = -(-n_positions // n_matches)
    matches, positions, obs, masks = [], [], [], []
    for m in range(n_matches):
        state = engine.init(rng, 1, rules)
        recorder = records.Recorder(state)
        plays = 0  # plays made so far in the current hand
        kept = 0
        while not state.done[0]:
            phase = int(state.phase[0])
            if phase == engine.Phase.HAND_OVER:
                state = engine.next_hand(state, rng)
                recorder.update(state)
                plays = 0
                continue
            if phase == engine.Phase.PLAY and kept >= share:
                break  # not mid-exchange, so the record's exchange is complete
            mask = engine.legal_action_mask(state)
            exchanging = phase == engine.Phase.EXCHANGE
            if (exchanging or rng.random() < p_record) and len(positions) < n_positions:
                positions.append(
                    {
                        "match": m,
                        "hand": int(state.hand_no[0]),
                        "plays": plays,
                        "exchange": exchanging,
                        "seat": int(state.to_act[0]),
                    }
                )
                obs.append(engine.observe(state)[0])
                masks.append(mask[0])
                kept += 1
            state = engine.step(state, engine.random_legal_actions(mask, rng))
            recorder.update(state)
            plays += not exchanging
        matches.append(recorder.record(0))
    return matches, positions, np.stack(obs), np.stack(masks)


# --------------------------------------------------------------------------- model files


@contextlib.contextmanager
def _quiet():
    """Silence the converters' progress bars and version warnings (the outcome is reported)."""
    with (
        warnings.catch_warnings(),
        contextlib.redirect_stdout(io.StringIO()),
        contextlib.redirect_stderr(io.StringIO()),
    ):
        warnings.simplefilter("ignore")
        yield


def _example_inputs(batch: int = 2) -> tuple[torch.Tensor, torch.Tensor]:
    return torch.zeros(batch, observation.SIZE), torch.ones(batch, N_ACTIONS, dtype=torch.bool)


def export_onnx(policy: nn.Module, path: str | Path) -> None:
    """Write ``policy`` as one self-contained ONNX file with a dynamic batch axis.

    Uses torch's torch.export-based exporter (the default since torch 2.9; it needs onnxscript)
    with the weights inside the file, so the bundle's hash covers them.
    """
    batch = torch.export.Dim("batch", min=1, max=4096)
    with _quiet():
        program = torch.onnx.export(
            policy,
            _example_inputs(),
            input_names=["obs", "mask"],
            output_names=[OUTPUT_NAME],
            dynamic_shapes={"obs": {0: batch}, "mask": {0: batch}},
            opset_version=ONNX_OPSET,
            dynamo=True,
            external_data=False,
            verbose=False,
        )
        program.save(str(path), external_data=False)


def export_coreml(policy: nn.Module, path: str | Path) -> str:
    """Write a Core ML ``.mlpackage`` of ``policy`` if coremltools can; returns a note saying what.

    The policy is traced with TorchScript (coremltools 9 converts traced modules; its
    torch.export path needs other dialects) and kept in float32, because half precision would
    turn the float32 minimum of illegal actions into -inf. Core ML has no bool inputs: the
    package takes the mask as float32 (1 legal, 0 illegal).
    """
    try:
        with _quiet():
            import coremltools as ct
    except ImportError:
        return "no model.mlpackage: coremltools is not installed (pip install coremltools)"
    obs, mask = _example_inputs(1)
    try:
        with _quiet():
            traced = torch.jit.trace(policy, (obs, mask))
            batch = ct.RangeDim(lower_bound=1, upper_bound=4096, default=1)
            model = ct.convert(
                traced,
                inputs=[
                    ct.TensorType(name="obs", shape=(batch, observation.SIZE), dtype=np.float32),
                    ct.TensorType(name="mask", shape=(batch, N_ACTIONS), dtype=bool),
                ],
                outputs=[ct.TensorType(name=OUTPUT_NAME)],
                convert_to="mlprogram",
                compute_precision=ct.precision.FLOAT32,
            )
            model.save(str(path))
    except Exception as e:  # noqa: BLE001 - any converter failure is reported, not fatal
        shutil.rmtree(path, ignore_errors=True)
        versions = f"coremltools {ct.__version__}, torch {torch.__version__}"
        return f"no model.mlpackage: the conversion failed ({versions}): {e}"
    return (
        f"model.mlpackage converted by coremltools {ct.__version__} under torch "
        f"{torch.__version__} (TorchScript trace, float32, mask input as float32 1/0); "
        "its outputs are checked on macOS only (coremltools cannot run Core ML models on Linux)"
    )


# --------------------------------------------------------------------------- the bundle


def _json_safe(value: Any) -> Any:
    """``value`` as JSON-ready data (numbers, strings, lists, dicts); other leaves as strings."""
    if isinstance(value, dict):
        return {str(k): _json_safe(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_json_safe(v) for v in value]
    if isinstance(value, bool | int | float | str) or value is None:
        return value
    if isinstance(value, np.generic):
        return value.item()
    return str(value)


def _policy_rules(policy: nn.Module, rules: Rules | dict | None) -> Rules:
    if isinstance(rules, Rules):
        return rules
    if rules is None:
        rules = getattr(policy, "spec", {}).get("rules")
    return Rules.from_dict(rules)


def export_bundle(
    policy: nn.Module,
    out_dir: str | Path,
    *,
    rules: Rules | dict | None = None,
    n_matches: int = 8,
    n_positions: int = 320,
    seed: int = 0,
    coreml: bool = True,
    source: str | None = None,
) -> dict[str, Any]:
    """Write the bundle of ``policy`` (``load_policy``'s contract) to ``out_dir``; return bot.json.

    ``rules`` are the rules the policy plays (default: ``policy.spec["rules"]``, else the
    standard game); golden matches are random play under them, seeded by ``seed``.
    """
    policy = policy.eval()
    spec = dict(getattr(policy, "spec", {}) or {})
    for key, wanted in (("obs_size", observation.SIZE), ("n_actions", N_ACTIONS)):
        if key in spec and spec[key] != wanted:
            raise ValueError(f"policy spec has {key}={spec[key]}, this engine has {wanted}")
    rules = _policy_rules(policy, rules)
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)

    model_path = out / MODEL_FILE
    export_onnx(policy, model_path)

    matches, positions, obs, masks = golden_matches(rules, n_matches, n_positions, seed)
    with torch.no_grad():
        scores = policy(torch.from_numpy(obs), torch.from_numpy(masks)).numpy()
    for pos, o, m, s in zip(positions, obs, masks, scores, strict=True):
        pos["obs"] = o.tolist()
        pos["legal"] = np.flatnonzero(m).tolist()
        pos["scores"] = s.astype(np.float32).tolist()
        pos["action"] = int(np.argmax(np.where(m, s, -np.inf)))
    golden = {
        "format": GOLDEN_FORMAT,
        "about": (
            "positions of seeded random-play matches: replay matches[match] with your engine to "
            "hand `hand` before play number `plays` (before the give-back when `exchange`), then "
            "compare your observation with `obs` (exact), your legal actions with `legal`, your "
            "runtime's scores on the legal actions with `scores` (float32 PyTorch outputs, "
            "illegal entries at float32's minimum) and its argmax with `action`"
        ),
        "rules": rules.to_dict(all_flags=True),
        "seed": seed,
        "matches": matches,
        "positions": positions,
    }
    golden_path = out / GOLDEN_FILE
    golden_path.write_text(json.dumps(golden, separators=(",", ":")))

    coreml_path = out / COREML_FILE
    shutil.rmtree(coreml_path, ignore_errors=True)
    coreml_note = export_coreml(policy, coreml_path) if coreml else "Core ML export not asked for"
    shape_obs, shape_mask = ["batch", observation.SIZE], ["batch", N_ACTIONS]
    bot = {
        "format": BUNDLE_FORMAT,
        "env_version": ENV_VERSION,
        "murlan_version": __version__,
        "source": source,
        "rules": rules.to_dict(all_flags=True),
        "policy": _json_safe(spec),
        "model": {
            "file": MODEL_FILE,
            "sha256": file_sha256(model_path),
            "bytes": model_path.stat().st_size,
            "opset": ONNX_OPSET,
            "inputs": [
                {"name": "obs", "dtype": "float32", "shape": shape_obs},
                {"name": "mask", "dtype": "bool", "shape": shape_mask},
            ],
            "outputs": [{"name": OUTPUT_NAME, "dtype": "float32", "shape": shape_mask}],
            "decision": (
                "the action is the argmax of scores over the legal actions; illegal actions "
                "score float32's minimum (-3.4028235e38)"
            ),
        },
        "observation": {
            "size": observation.SIZE,
            "sha256": observation.layout_hash(),
            "hash_of": "JSON [[name, offset, size], ...] of the pieces, sorted keys, no spaces",
            "egocentric": "seat slot 0 is the seat to act, then the next seats in turn order",
            "pieces": observation.layout(),
        },
        "actions": {
            "count": N_ACTIONS,
            "sha256": action_table_hash(),
            "hash_of": "JSON of the table rows {id, kind, ranks}, sorted keys, no spaces",
            "table": action_table(),
        },
        "golden": {
            "file": GOLDEN_FILE,
            "sha256": file_sha256(golden_path),
            "matches": len(matches),
            "positions": len(positions),
            "seed": seed,
        },
        "coreml": {
            "file": COREML_FILE if coreml_path.exists() else None,
            "note": coreml_note,
        },
        "notes": [
            coreml_note,
            "golden.json positions replay with murlan_env.bots.bundle.verify_golden; an app "
            "replays the same murlan-record/1 matches with its own engine and encoder",
            "the bot refuses games under rules other than `rules` (the observation carries "
            "the variant flags, the policy only knows these)",
        ],
    }
    (out / SPEC_FILE).write_text(json.dumps(bot, indent=1) + "\n")
    return bot


def export_checkpoint(checkpoint: str | Path, out_dir: str | Path, **kwargs: Any) -> dict[str, Any]:
    """``export_bundle`` of the policy ``agents.networks.load_policy`` reads from ``checkpoint``."""
    from agents.networks import checkpoint_path, load_policy

    policy = load_policy(checkpoint)
    if "rules" not in kwargs and "rules" not in getattr(policy, "spec", {}):
        # The trainers keep the rules they played in the checkpoint's resolved config.
        ckpt = torch.load(checkpoint_path(checkpoint), map_location="cpu", weights_only=False)
        kwargs["rules"] = (ckpt.get("config") or {}).get("rules")
    return export_bundle(policy, out_dir, source=str(checkpoint), **kwargs)
