"""The policy's weights as plain little-endian float32, for clients without an ONNX runtime.

An exported policy (``model.onnx``) is a few dense layers: ``Gemm`` (``transB=1``) and
``Relu`` in a chain from ``obs``, then ``Where(mask, scores, float32 min)``. A client that
multiplies matrices itself (the JavaScript client's runtime-free path, ``clients/js``) needs
only the numbers, so ``write_plain_weights`` copies the ONNX initializers, in graph order, into
``weights.bin`` and describes them in ``weights.json``::

    {"format": "murlan-weights/1", "file": "weights.bin", "sha256": ..., "bytes": ...,
     "dtype": "float32", "byte_order": "little", "input": "obs", "mask": "mask",
     "masked_score": -3.4028234663852886e+38,
     "layers": [{"weight": {"offset": 0, "shape": [512, 544]},
                 "bias": {"offset": 278528, "shape": [512]}, "activation": "relu"}, ...]}

Offsets count float32 entries from the start of ``weights.bin``; each weight is row-major
(out, in), so ``y[o] = bias[o] + sum_i W[o * n_in + i] * x[i]`` (``Gemm`` with ``transB=1``);
``activation`` is ``"relu"`` or null. Reading the graph refuses anything else (another op, a
transposed input, alpha/beta other than 1), so a model this format cannot state is never
written as if it could. Needs the ``onnx`` package, not torch.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import numpy as np

WEIGHTS_FORMAT = "murlan-weights/1"
WEIGHTS_FILE = "weights.bin"
WEIGHTS_SPEC_FILE = "weights.json"
MASKED_SCORE = float(np.finfo(np.float32).min)


class PlainWeightsError(ValueError):
    """A model whose graph is not a chain of dense layers this format can describe."""


def dense_layers(model_path: str | Path) -> tuple[list[dict[str, Any]], str, str]:
    """The dense layers of an exported policy: ``(layers, obs input name, mask input name)``.

    Each layer is ``{"weight": (out, in) float32, "bias": (out,) float32, "activation":
    "relu" | None}`` in the order they apply. Raises PlainWeightsError for any other graph.
    """
    import onnx
    from onnx import numpy_helper

    graph = onnx.load(str(model_path)).graph
    init = {t.name: numpy_helper.to_array(t) for t in graph.initializer}
    inputs = [i.name for i in graph.input if i.name not in init]
    if len(inputs) != 2 or len(graph.output) != 1:
        raise PlainWeightsError(f"expected inputs (obs, mask) and one output, got {inputs}")
    obs_name, mask_name = inputs
    current = obs_name
    layers: list[dict[str, Any]] = []
    nodes = list(graph.node)
    for i, node in enumerate(nodes):
        if node.input[0] != current and node.op_type != "Where":
            raise PlainWeightsError(f"node {node.name} ({node.op_type}) is not in the chain")
        if node.op_type == "Gemm":
            attrs = {a.name: onnx.helper.get_attribute_value(a) for a in node.attribute}
            if attrs.get("transA", 0) or attrs.get("transB", 0) != 1:
                raise PlainWeightsError(f"{node.name}: Gemm must have transA=0, transB=1")
            if attrs.get("alpha", 1.0) != 1.0 or attrs.get("beta", 1.0) != 1.0:
                raise PlainWeightsError(f"{node.name}: Gemm must have alpha=beta=1")
            weight, bias = init[node.input[1]], init[node.input[2]]
            if weight.ndim != 2 or bias.shape != (weight.shape[0],):
                raise PlainWeightsError(f"{node.name}: weight {weight.shape}, bias {bias.shape}")
            layers.append({"weight": weight, "bias": bias, "activation": None})
        elif node.op_type == "Relu":
            if not layers or layers[-1]["activation"] is not None:
                raise PlainWeightsError(f"{node.name}: Relu must follow a Gemm")
            layers[-1]["activation"] = "relu"
        elif node.op_type == "Where":
            cond, value, fill = node.input
            if i != len(nodes) - 1 or cond != mask_name or value != current:
                raise PlainWeightsError(f"{node.name}: Where must mask the last layer's output")
            if float(init[fill]) != MASKED_SCORE:
                raise PlainWeightsError(f"{node.name}: illegal actions score {float(init[fill])}")
        else:
            raise PlainWeightsError(f"node {node.name}: op {node.op_type} is not a dense layer")
        current = node.output[0]
    if not layers or nodes[-1].op_type != "Where":
        raise PlainWeightsError("the graph must end in Where(mask, scores, float32 min)")
    for a, b in zip(layers, layers[1:], strict=False):
        if a["weight"].shape[0] != b["weight"].shape[1]:
            raise PlainWeightsError(
                f"layer sizes do not chain: {a['weight'].shape} then {b['weight'].shape}"
            )
    return layers, obs_name, mask_name


def write_plain_weights(model_path: str | Path, out_dir: str | Path) -> dict[str, Any]:
    """Write ``weights.bin`` and ``weights.json`` for ``model_path`` into ``out_dir``.

    Returns the ``weights.json`` object (a bundle's bot.json may carry it too).
    """
    layers, obs_name, mask_name = dense_layers(model_path)
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    chunks: list[np.ndarray] = []
    described = []
    offset = 0
    for layer in layers:
        entry: dict[str, Any] = {}
        for key in ("weight", "bias"):
            values = np.ascontiguousarray(layer[key], dtype="<f4")
            entry[key] = {"offset": offset, "shape": list(values.shape)}
            chunks.append(values.ravel())
            offset += values.size
        entry["activation"] = layer["activation"]
        described.append(entry)
    data = np.concatenate(chunks).tobytes()
    (out / WEIGHTS_FILE).write_bytes(data)
    spec = {
        "format": WEIGHTS_FORMAT,
        "file": WEIGHTS_FILE,
        "sha256": hashlib.sha256(data).hexdigest(),
        "bytes": len(data),
        "dtype": "float32",
        "byte_order": "little",
        "input": obs_name,
        "mask": mask_name,
        "masked_score": MASKED_SCORE,
        "layers": described,
    }
    (out / WEIGHTS_SPEC_FILE).write_text(json.dumps(spec, indent=1) + "\n")
    return spec


def plain_scores(spec: dict[str, Any], data: bytes, obs: np.ndarray, mask: np.ndarray):
    """(B, A) float32 scores of ``obs`` (B, in) under ``mask`` (B, A) from plain weights, in
    NumPy: the reference the format's description is checked against in the tests."""
    flat = np.frombuffer(data, dtype="<f4")
    x = np.asarray(obs, np.float32)
    for layer in spec["layers"]:
        w, b = (
            flat[layer[k]["offset"] : layer[k]["offset"] + int(np.prod(layer[k]["shape"]))].reshape(
                layer[k]["shape"]
            )
            for k in ("weight", "bias")
        )
        x = x @ w.T + b
        if layer["activation"] == "relu":
            x = np.maximum(x, 0)
    return np.where(np.asarray(mask, bool), x, np.float32(spec["masked_score"])).astype(np.float32)
