"""A bundle's files: reading and checking them, running its models with onnxruntime alone,
and writing golden sets and upgraded manifests (``murlan export`` writes the bundle; the bot
that plays one is ``murlan_env.bots.policy.BundleBot``).

A bundle is a directory:

| file            | what                                                                     |
|-----------------|--------------------------------------------------------------------------|
| model.onnx      | ``scores = f(obs (B, 544) float32, mask (B, 109) bool)``, argmax = action |
| model.fp16.onnx | the same network with float16 weights (half the download), when exported |
| bot.json        | the manifest (``murlan_env.bundle.manifest.BundleManifest``): versions,    |
|                 | rules, hashes, model files and the contract an app implements            |
| golden.json     | test vectors (``murlan_env.bundle.golden``)                                |
| model.mlpackage | Core ML conversion, when coremltools was available at export time        |

Loading is strict (``BundleManifest.load``). ``verify_golden`` replays the golden matches through
this engine and runs every model file, which catches changes of meaning that keep the
layout's shape (a rescaled piece, a reordered encoding).

This module must not import torch (apps and servers run bundles without it).
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

import numpy as np

from murlan_env.bundle import golden as goldens
from murlan_env.bundle.manifest import (
    BUNDLE_FORMAT,
    GOLDEN_FILE,
    GOLDEN_FORMAT,
    MANIFEST_FILE,
    OUTPUT_NAME,
    PREVIOUS_FORMAT,
    UPGRADABLE_FORMATS,
    BundleError,
    BundleManifest,
    ModelFile,
    file_sha256,
)
from murlan_env.bundle.shipped import policy_levels
from murlan_env.game.rules import Rules

# How far a float32 model's scores may be from the golden scores on legal actions: the
# golden scores come from onnxruntime on CPU; other runtimes (wasm, other kernels) sum in
# another order.
FLOAT32_TOLERANCE = 1e-4


def onnx_session(model_path: str | Path, threads: int = 1):
    """An onnxruntime CPU session; ``threads`` caps intra-op threads (1: one core)."""
    import onnxruntime as ort

    opts = ort.SessionOptions()
    opts.intra_op_num_threads = threads
    opts.inter_op_num_threads = 1
    opts.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    opts.log_severity_level = 3
    return ort.InferenceSession(str(model_path), opts, providers=["CPUExecutionProvider"])


def session_scorer(session) -> goldens.Scorer:
    """``scores(obs, mask)`` of an onnxruntime session of a bundle model."""

    def scores(obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        obs = np.ascontiguousarray(obs, dtype=np.float32)
        mask = np.ascontiguousarray(mask, dtype=bool)
        return session.run([OUTPUT_NAME], {"obs": obs, "mask": mask})[0]

    return scores


def read_golden(bundle_dir: str | Path, manifest: BundleManifest | None = None) -> dict[str, Any]:
    """A bundle's golden.json, checked against the sha256 bot.json lists."""
    bundle_dir = Path(bundle_dir)
    manifest = manifest or BundleManifest.load(bundle_dir)
    entry = manifest.golden or {}
    path = bundle_dir / entry.get("file", GOLDEN_FILE)
    if not path.is_file():
        raise BundleError(f"{path} is missing; regenerate it with `murlan golden {bundle_dir}`")
    if entry.get("sha256") != file_sha256(path):
        raise BundleError(f"{path}: sha256 does not match bot.json")
    golden = json.loads(path.read_text())
    if golden.get("format") != GOLDEN_FORMAT:
        raise BundleError(
            f"{path}: format {golden.get('format')!r}, expected {GOLDEN_FORMAT!r}; "
            f"regenerate it with `murlan golden {bundle_dir}`"
        )
    return golden


def verify_golden(
    bundle_dir: str | Path, golden: dict | str | Path | None = None, threads: int = 1
) -> dict[str, Any]:
    """Check golden vectors (the bundle's own, or ``golden``: a dict or a file) against this
    engine and every model file of the bundle; ``golden.check_golden``'s report, plus
    ``ok`` (all exact, every model within the tolerance bot.json states)."""
    bundle_dir = Path(bundle_dir)
    manifest = BundleManifest.load(bundle_dir)
    if golden is None:
        golden = read_golden(bundle_dir, manifest)
    elif not isinstance(golden, dict):
        golden = json.loads(Path(golden).read_text())
    scorers = {
        m.file: session_scorer(onnx_session(bundle_dir / m.file, threads)) for m in manifest.models
    }
    report = goldens.check_golden(golden, scorers)
    report["ok"] = goldens.golden_ok(report, {m.file: m.tolerance for m in manifest.models})
    return report


# --------------------------------------------------------------------------- writing golden sets


def write_golden(
    bundle_dir: str | Path, manifest: BundleManifest, golden: dict[str, Any]
) -> BundleManifest:
    """Write ``golden`` as the bundle's golden.json and bot.json with its entry; returns the
    manifest written."""
    path = Path(bundle_dir) / GOLDEN_FILE
    path.write_text(json.dumps(golden, separators=(",", ":")) + "\n")
    entry = {
        "file": GOLDEN_FILE,
        "sha256": file_sha256(path),
        "positions": len(golden["positions"]),
        "matches": len(golden["matches"]),
        "seed": golden["seed"],
    }
    manifest = dataclasses.replace(manifest, golden=entry)
    manifest.write(bundle_dir)
    return manifest


def upgrade_manifest(
    bundle_dir: str | Path, levels: dict[str, dict] | None = None
) -> BundleManifest:
    """The manifest of an older bundle in this format: a ``murlan-bundle/3`` manifest as it was (its
    golden set still holds), with ``levels`` when given (the file list is made when it is
    written); a ``murlan-bundle/2`` one with its model file kept (the golden vectors must be
    made again). Raises BundleError for anything else."""
    from murlan_env import __version__

    bundle_dir = Path(bundle_dir)
    path = bundle_dir / MANIFEST_FILE
    try:
        old = json.loads(path.read_text())
    except (OSError, json.JSONDecodeError) as e:
        raise BundleError(f"{path}: cannot read it: {e}") from None
    if old.get("format") == PREVIOUS_FORMAT:
        manifest = BundleManifest.from_json(
            {**old, "format": BUNDLE_FORMAT, "files": {}}, str(path)
        )
        return dataclasses.replace(
            manifest, levels=levels if levels is not None else manifest.levels
        )
    if old.get("format") not in UPGRADABLE_FORMATS:
        readable = " and ".join(UPGRADABLE_FORMATS)
        raise BundleError(f"{path}: format {old.get('format')!r}: only {readable} upgrade")
    model = old.get("model") or {}
    model_path = bundle_dir / model.get("file", "model.onnx")
    if not model_path.is_file() or file_sha256(model_path) != model.get("sha256"):
        raise BundleError(f"{model_path}: missing or not the model bot.json lists")
    rules = Rules.from_dict(old.get("rules"))
    policy = dict(old.get("policy") or {})
    return BundleManifest(
        rules=rules,
        supported_rules=BundleManifest.only(rules),
        models=(
            ModelFile(
                file=model_path.name,
                sha256=model["sha256"],
                bytes=model_path.stat().st_size,
                precision="float32",
                tolerance=FLOAT32_TOLERANCE,
                opset=int(model.get("opset", 18)),
            ),
        ),
        policy=policy,
        coreml=old.get("coreml"),
        murlan_version=__version__,
    )


def regenerate_golden(
    bundle_dir: str | Path,
    *,
    seed: int = 0,
    positions: int = 256,
    out: str | Path | None = None,
    upgrade: bool = False,
    supports: dict[str, list] | None = None,
    progress=None,
) -> tuple[BundleManifest, dict[str, Any]]:
    """New golden vectors for a bundle, scored by its float32 ONNX model: written to ``out``
    when given (the bundle is left as it is), else into the bundle (golden.json and its
    entry in bot.json). ``upgrade``: first rewrite an older manifest in this format
    (``upgrade_manifest``; a shipped policy gets its levels, ``shipped.policy_levels``).
    ``supports``: rule variants (flag -> values) to add to the manifest's ``supported_rules``
    (then written to bot.json even with ``out``)."""
    if upgrade:
        manifest = upgrade_manifest(bundle_dir, policy_levels(bundle_dir) or None)
    else:
        manifest = BundleManifest.load(bundle_dir)
    if supports:
        manifest = manifest.widened(supports)
    goldens.check_positions(manifest, positions)  # before the model is loaded
    model = manifest.model("float32")
    scorer = session_scorer(onnx_session(Path(bundle_dir) / model.file))
    golden = goldens.make_golden(
        manifest, scorer, n_positions=positions, seed=seed, progress=progress
    )
    if out is not None:
        Path(out).write_text(json.dumps(golden, separators=(",", ":")) + "\n")
        if upgrade or supports:
            manifest.write(bundle_dir)
        return manifest, golden
    return write_golden(bundle_dir, manifest, golden), golden
