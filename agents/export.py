"""Checkpoint -> bundle: the ONNX model, its manifest and golden test vectors for apps.

``murlan export CHECKPOINT --out DIR`` (``murlan_cli.export``; or ``export_bundle``) writes

- ``DIR/model.onnx``: ``scores = model(obs (B, 544) float32, mask (B, 109) bool)``, batch axis
  dynamic; the decision is the argmax of ``scores`` (illegal actions score float32's minimum);
- ``DIR/model.fp16.onnx``: the same network with float16 weights (``murlan_env.bundle.quantize``);
- ``DIR/weights.json``, ``weights.bin`` (and ``weights.fp16.*``): the same numbers as plain
  little-endian floats for clients without an ONNX runtime (``murlan_env.bundle.plain_weights``);
- ``DIR/bot.json``: the manifest (``murlan_env.bundle.manifest.BundleManifest``): versions,
  rules, model files with their tolerances, hashes, and the contract an app implements;
- ``DIR/golden.json``: test vectors covering the game (``murlan_env.bundle.golden``), scored by
  the float32 ONNX model;
- ``DIR/model.mlpackage``: a Core ML conversion, when coremltools is installed.

Bundles hold weights and metadata only; resume checkpoints (optimiser, counters) stay with
the trainers. The bundle runs without torch: see ``murlan_env.bots.policy.BundleBot``.
"""

from __future__ import annotations

import contextlib
import dataclasses
import io
import logging
import shutil
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import torch
from torch import nn

from agents.networks import random_histories, reads_history
from murlan_env import __version__
from murlan_env.bundle.files import (
    FLOAT32_TOLERANCE,
    onnx_session,
    read_golden,
    session_scorer,
    write_golden,
)
from murlan_env.bundle.golden import check_positions, golden_inputs, make_golden
from murlan_env.bundle.manifest import (
    COREML_FILE,
    GOLDEN_FILE,
    MODEL_FILE,
    OUTPUT_NAME,
    BundleManifest,
    ModelFile,
    file_sha256,
)
from murlan_env.bundle.plain_weights import PlainWeightsError, weights_names, write_plain_weights
from murlan_env.bundle.quantize import FP16_FILE, float16_tolerance, to_float16
from murlan_env.bundle.shipped import policy_levels
from murlan_env.game import observation
from murlan_env.game.combos import N_ACTIONS
from murlan_env.game.rules import Rules

ONNX_OPSET = 18


# --------------------------------------------------------------------------- model files


@contextlib.contextmanager
def _quiet():
    """Silence the converters' progress bars and version warnings (the outcome is reported),
    and the ONNX exporter's log lines (torch's own handler writes them to the real stderr,
    e.g. that torchvision's operators are skipped when torchvision is not installed)."""
    exporter_log = logging.getLogger("torch.onnx")
    level = exporter_log.level
    exporter_log.setLevel(logging.ERROR)
    try:
        with (
            warnings.catch_warnings(),
            contextlib.redirect_stdout(io.StringIO()),
            contextlib.redirect_stderr(io.StringIO()),
        ):
            warnings.simplefilter("ignore")
            yield
    finally:
        exporter_log.setLevel(level)


def _example_inputs(batch: int = 2) -> tuple[torch.Tensor, torch.Tensor]:
    return torch.zeros(batch, observation.SIZE), torch.ones(batch, N_ACTIONS, dtype=torch.bool)


class HistoryNotCarried(ValueError):
    """A policy that reads the hand so far, asked for a bundle (a one-line message)."""


def refuse_history(policy: nn.Module) -> None:
    """HistoryNotCarried when ``policy`` reads the hand so far: the bundle contract (its
    manifest, golden vectors, plain weights and the JS client) carries no history input yet."""
    arch = getattr(policy, "arch", {}) or {}
    if reads_history(arch):
        raise HistoryNotCarried(
            f"this policy reads the hand so far (history: {arch['history']}), and the bundle "
            "contract does not carry a history input yet: export_onnx writes its ONNX model "
            "(inputs obs, mask, history), but bundles, int8 models and the JS client take "
            "history-free policies only"
        )


def export_onnx(policy: nn.Module, path: str | Path) -> None:
    """Write ``policy`` as one self-contained ONNX file with a dynamic batch axis.

    Uses torch's torch.export-based exporter (the default since torch 2.9; it needs onnxscript)
    with the weights inside the file, so the bundle's hash covers them. A policy that reads the
    hand so far takes a third input, ``history`` (batch, LENGTH, 2) int64, in the layout of
    ``murlan_env.game.hand_history``.
    """
    batch = torch.export.Dim("batch", min=1, max=4096)
    inputs: tuple[torch.Tensor, ...] = _example_inputs()
    names = ["obs", "mask"]
    if reads_history(getattr(policy, "arch", {}) or {}):
        inputs = (*inputs, torch.from_numpy(random_histories(len(inputs[0])).astype(np.int64)))
        names.append("history")
    with _quiet():
        program = torch.onnx.export(
            policy,
            inputs,
            input_names=names,
            output_names=[OUTPUT_NAME],
            dynamic_shapes={name: {0: batch} for name in names},
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
    except Exception as e:  # any converter failure is reported, not fatal
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
        rules = getattr(policy, "arch", {}).get("rules")
    return Rules.from_dict(rules)


def export_bundle(
    policy: nn.Module,
    out_dir: str | Path,
    *,
    rules: Rules | dict | None = None,
    supported_rules: dict[str, list] | None = None,
    n_positions: int = 256,
    seed: int = 0,
    coreml: bool = True,
    float16: bool = True,
    source: str | None = None,
    progress=None,
) -> BundleManifest:
    """Write the bundle of ``policy`` (``load_policy``'s contract) to ``out_dir``; return its
    manifest.

    ``rules`` are the rules the policy was trained under (default: ``policy.arch["rules"]``,
    else the standard game); ``supported_rules`` (flag -> values) the variants it is measured
    to play as well (default: only ``rules``); golden vectors cover them all, seeded by
    ``seed`` (``n_positions=0``: none, and no float16 model, whose tolerance they measure).
    ``source``: a name for where the policy came from (a run name, never a path).
    ``progress(stage, done, total)`` is told as each stage starts and ends: "onnx", "coreml",
    then ``make_golden``'s "play", then "float16" (``murlan export`` shows them as bars).
    """

    def step(stage: str, done: int) -> None:
        if progress:
            progress(stage, done, 1)

    policy = policy.eval()
    refuse_history(policy)
    arch = dict(getattr(policy, "arch", {}) or {})
    for key, wanted in (("obs_size", observation.SIZE), ("n_actions", N_ACTIONS)):
        if key in arch and arch[key] != wanted:
            raise ValueError(f"policy arch has {key}={arch[key]}, this engine has {wanted}")
    rules = _policy_rules(policy, rules)
    supported = BundleManifest.only(rules)
    for flag, values in (supported_rules or {}).items():
        supported[flag] = tuple(dict.fromkeys([*supported.get(flag, ()), *values]))
    if n_positions:  # too few golden positions: refused before any file is written
        check_positions(BundleManifest(rules, supported, models=()), n_positions)
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)

    model_path = out / MODEL_FILE
    step("onnx", 0)
    export_onnx(policy, model_path)
    plain = _write_plain_weights(model_path, out)
    step("onnx", 1)
    models = [_model_file(model_path, "float32", FLOAT32_TOLERANCE)]
    fp16_weights = map(out.joinpath, weights_names(FP16_FILE))
    for stale in (out / FP16_FILE, out / GOLDEN_FILE, *fp16_weights):
        stale.unlink(missing_ok=True)

    coreml_path = out / COREML_FILE
    shutil.rmtree(coreml_path, ignore_errors=True)
    step("coreml", 0)
    coreml_note = export_coreml(policy, coreml_path) if coreml else "Core ML export not asked for"
    step("coreml", 1)
    description = _json_safe(arch)
    if source:
        description["source"] = source
    bundle = BundleManifest(
        rules=rules,
        supported_rules=supported,
        models=tuple(models),
        policy=description,
        coreml={"file": COREML_FILE if coreml_path.exists() else None, "note": coreml_note},
        murlan_version=__version__,
        levels=policy_levels(out),  # a shipped policy's levels, when exported again into it
    )
    if n_positions == 0:  # no golden vectors (quick bundles for tests of other things)
        bundle.write(out)
        return bundle
    session = onnx_session(model_path)
    golden = make_golden(
        bundle, session_scorer(session), n_positions=n_positions, seed=seed, progress=progress
    )
    if float16:
        step("float16", 0)
        half = out / FP16_FILE
        to_float16(model_path, half)
        if plain:
            _write_plain_weights(half, out)
        tolerance = float16_tolerance(golden, session_scorer(onnx_session(half)))
        step("float16", 1)
        bundle = dataclasses.replace(
            bundle, models=(*bundle.models, _model_file(half, "float16", tolerance))
        )
    return write_golden(out, bundle, golden)


def _write_plain_weights(model_path: Path, out: Path) -> bool:
    """The model's plain weights beside it (the runtime-free path of clients/js), when its
    graph is a chain of dense layers (a PPO policy; DMC's scores action by action and is not);
    whether they were written. Stale ones of an earlier export go either way."""
    for name in weights_names(model_path):
        (out / name).unlink(missing_ok=True)
    try:
        write_plain_weights(model_path, out)
    except PlainWeightsError:
        return False
    return True


def _model_file(path: Path, precision: str, tolerance: float) -> ModelFile:
    return ModelFile(
        file=path.name,
        sha256=file_sha256(path),
        bytes=path.stat().st_size,
        precision=precision,
        tolerance=tolerance,
        opset=ONNX_OPSET,
    )


def export_checkpoint(checkpoint: str | Path, out_dir: str | Path, **kwargs: Any) -> BundleManifest:
    """``export_bundle`` of the policy ``agents.networks.load_policy`` reads from ``checkpoint``."""
    from agents.checkpoint import load as load_checkpoint
    from agents.networks import load_policy

    ckpt = load_checkpoint(checkpoint)  # read once: the policy and the rules it played
    policy = load_policy(ckpt)
    if "rules" not in kwargs and "rules" not in getattr(policy, "arch", {}):
        # The trainers keep the rules they played in the checkpoint's resolved config.
        kwargs["rules"] = ckpt.config.get("rules")
    path = Path(checkpoint)
    source = path.name if path.is_dir() else f"{path.parent.name}/{path.name}"
    return export_bundle(policy, out_dir, source=source, **kwargs)


def torch_parity(policy: nn.Module, bundle_dir: str | Path) -> float:
    """Largest |PyTorch - ONNX Runtime| score on the legal actions of the bundle's golden
    positions (the float32 model)."""
    golden = read_golden(bundle_dir)
    obs, mask = golden_inputs(golden["positions"])
    with torch.no_grad():
        expected = policy.eval()(torch.from_numpy(obs), torch.from_numpy(mask)).numpy()
    got = session_scorer(onnx_session(Path(bundle_dir) / MODEL_FILE))(obs, mask)
    return float(np.abs(got - expected)[mask].max())
