"""A bundle's model in other numbers: float16 weights for a smaller download (float32
arithmetic), int8 arithmetic for a faster search.

``to_float16`` rewrites ``model.onnx`` as ``model.fp16.onnx``: every float32 weight tensor is
stored as float16 (half the bytes) and cast back to float32 by a ``Cast`` node when the model
runs, so the graph's inputs, outputs and arithmetic stay float32. Only the weights' rounding
changes the scores, and illegal actions still score float32's minimum (float16 arithmetic
would turn it into -inf). Every runtime that runs the float32 model runs this one
(``Cast`` is in every ONNX opset and every onnxruntime build, wasm included).

``float16_tolerance`` measures how far its scores fall from the golden (float32) scores; the
bundle manifest states that tolerance for the file.

``to_int8`` is for a search, not for apps: it rewrites a model with 8-bit integer weights
(one scale per output unit) whose activations are quantised per call as it runs
(onnxruntime's dynamic quantisation), so the matrix products run in integer arithmetic, in
less CPU time a row than float32's. Its scores move further (its argmax changes on some of
`hard`'s positions, and the legal moves' probabilities move), which a search's sampled
rollouts and tempered belief absorb; an app's moves must match the golden vectors, so bundles
never ship it. ``murlan_env.bots.policy.int8_bot`` quantises a bundle's model when a process
first asks (a search level with ``"arithmetic": "int8"``, ``registry.search_options``).
Its cost and how far its scores move: benchmarks/README.md, "Int8 arithmetic in the search".

No torch here: only ``onnx``, onnxruntime's quantiser and numpy.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np

FP16_FILE = "model.fp16.onnx"
# Tensors smaller than this stay float32 (biases and scalars: a few bytes, no gain).
MIN_ELEMENTS = 16


def to_float16(src: str | Path, dst: str | Path) -> None:
    """Write ``src`` (an ONNX model with float32 weights) to ``dst`` with float16 weights."""
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    model = onnx.load(str(src))
    graph = model.graph
    casts = []
    kept = []
    for init in graph.initializer:
        if init.data_type != TensorProto.FLOAT or math.prod(init.dims) < MIN_ELEMENTS:
            kept.append(init)
            continue
        weights = numpy_helper.to_array(init)
        if np.abs(weights).max(initial=0.0) > np.finfo(np.float16).max:
            kept.append(init)  # would overflow float16: keep it exact
            continue
        half = numpy_helper.from_array(weights.astype(np.float16), init.name + "_fp16")
        kept.append(half)
        casts.append(
            helper.make_node(
                "Cast", [half.name], [init.name], to=TensorProto.FLOAT, name=init.name + "_cast"
            )
        )
    del graph.initializer[:]
    graph.initializer.extend(kept)
    nodes = casts + list(graph.node)
    del graph.node[:]
    graph.node.extend(nodes)
    onnx.checker.check_model(model)
    onnx.save(model, str(dst))


def to_int8(src: str | Path, dst: str | Path) -> None:
    """Write ``src`` (an ONNX model with float32 weights) to ``dst`` with int8 weights and
    dynamically quantised activations, per output channel (see the module docstring)."""
    import logging

    from onnxruntime.quantization import QuantType, quantize_dynamic

    previous = logging.root.manager.disable
    logging.disable(logging.WARNING)  # its advice to pre-process the graph (no gain here)
    try:
        quantize_dynamic(str(src), str(dst), per_channel=True, weight_type=QuantType.QInt8)
    finally:
        logging.disable(previous)


def float16_tolerance(golden: dict, scorer) -> float:
    """The tolerance to state for a float16 model: its largest |score - golden score| on the
    legal actions of ``golden``'s positions, times 2, rounded up to 1 or 2.5 or 5 times a
    power of ten (so a runtime summing in another order stays inside it)."""
    from murlan_env.bundle.golden import golden_inputs

    positions = golden["positions"]
    obs, mask = golden_inputs(positions)
    scores = np.asarray(scorer(obs, mask), np.float32)
    worst = 0.0
    for i, p in enumerate(positions):
        diff = np.abs(scores[i, p["legal"]] - np.asarray(p["scores"], np.float32)).max()
        worst = max(worst, float(diff))
    return nice_ceiling(2 * worst)


def nice_ceiling(x: float) -> float:
    """The smallest of 1, 2.5, 5 times a power of ten that is >= x (1e-6 at least)."""
    x = max(x, 1e-6)
    power = 10.0 ** math.floor(math.log10(x))
    for step in (1.0, 2.5, 5.0, 10.0):
        if step * power >= x * (1 - 1e-12):
            return float(f"{step * power:.3g}")
    return 10 * power


__all__ = [
    "FP16_FILE",
    "add_float16",
    "float16_tolerance",
    "nice_ceiling",
    "to_float16",
    "to_int8",
]


def add_float16(bundle_dir: str | Path):
    """Write ``model.fp16.onnx`` beside a bundle's float32 model and list it in bot.json with
    its tolerance, measured on the bundle's golden vectors, and both models' plain weights
    (``weights*.json``/``.bin``); returns the new manifest."""
    import dataclasses

    from murlan_env.bundle.files import onnx_session, read_golden, session_scorer
    from murlan_env.bundle.manifest import BundleManifest, ModelFile, file_sha256
    from murlan_env.bundle.plain_weights import write_plain_weights

    bundle_dir = Path(bundle_dir)
    manifest = BundleManifest.load(bundle_dir)
    golden = read_golden(bundle_dir, manifest)
    source = manifest.model("float32")
    half = bundle_dir / FP16_FILE
    to_float16(bundle_dir / source.file, half)
    for model in (bundle_dir / source.file, half):  # the runtime-free path of clients/js
        write_plain_weights(model, bundle_dir)
    tolerance = float16_tolerance(golden, session_scorer(onnx_session(half)))
    entry = ModelFile(
        file=FP16_FILE,
        sha256=file_sha256(half),
        bytes=half.stat().st_size,
        precision="float16",
        tolerance=tolerance,
        opset=source.opset,
    )
    models = tuple(m for m in manifest.models if m.precision != "float16") + (entry,)
    manifest = dataclasses.replace(manifest, models=models)
    manifest.write(bundle_dir)
    return manifest
