"""The policy's weights as plain little-endian floats, for clients without an ONNX runtime.

An exported policy (``model.onnx``) is a few dense layers: ``Gemm`` (``transB=1``) and
``Relu`` in a chain from ``obs``, then ``Where(mask, scores, float32 min)``; the float16 file
(``model.fp16.onnx``) is the same chain whose initializers are float16, each ``Cast`` to
float32 before use. A client that multiplies matrices itself (the JavaScript client's
runtime-free path, ``clients/js``) needs only the numbers, so ``write_plain_weights`` copies
the initializers, in graph order and in their own precision, into ``weights.bin`` and
describes them in ``weights.json`` (``weights.fp16.bin``/``.json`` for ``model.fp16.onnx``:
the model file's name with ``model`` read as ``weights``)::

    {"format": "murlan-weights/1", "file": "weights.bin", "sha256": ..., "bytes": ...,
     "dtype": "float32", "byte_order": "little", "input": "obs", "mask": "mask",
     "masked_score": -3.4028234663852886e+38,
     "layers": [{"weight": {"offset": 0, "shape": [512, 544]},
                 "bias": {"offset": 278528, "shape": [512]}, "activation": "relu"}, ...]}

Offsets count entries (of ``dtype``: float32 or float16) from the start of the file; each
weight is row-major (out, in), so ``y[o] = bias[o] + sum_i W[o * n_in + i] * x[i]`` (``Gemm``
with ``transB=1``), computed in float32 or wider after reading float16 entries as float32;
``activation`` is ``"relu"`` or null. Reading the graph refuses anything else (another op, a
transposed input, alpha/beta other than 1, mixed precisions), so a model this format cannot
state is never written as if it could. Needs the ``onnx`` package, not torch.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import numpy as np

WEIGHTS_FORMAT = "murlan-weights/1"
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
    nodes = []
    for node in graph.node:
        # A float16 file casts each stored initializer to float32: read through the cast.
        to = {a.name: a.i for a in node.attribute}.get("to")
        if node.op_type == "Cast" and node.input[0] in init and to == onnx.TensorProto.FLOAT:
            init[node.output[0]] = init[node.input[0]]
        else:
            nodes.append(node)
    inputs = [i.name for i in graph.input if i.name not in init]
    if len(inputs) != 2 or len(graph.output) != 1:
        raise PlainWeightsError(f"expected inputs (obs, mask) and one output, got {inputs}")
    obs_name, mask_name = inputs
    current = obs_name
    layers: list[dict[str, Any]] = []
    for i, node in enumerate(nodes):
        if not node.input or (node.input[0] != current and node.op_type != "Where"):
            raise PlainWeightsError(f"node {node.name} ({node.op_type}) is not in the chain")
        if node.op_type == "Gemm":
            attrs = {a.name: onnx.helper.get_attribute_value(a) for a in node.attribute}
            if attrs.get("transA", 0) or attrs.get("transB", 0) != 1:
                raise PlainWeightsError(f"{node.name}: Gemm must have transA=0, transB=1")
            if attrs.get("alpha", 1.0) != 1.0 or attrs.get("beta", 1.0) != 1.0:
                raise PlainWeightsError(f"{node.name}: Gemm must have alpha=beta=1")
            if len(node.input) != 3 or not all(name in init for name in node.input[1:]):
                raise PlainWeightsError(f"{node.name}: Gemm needs a stored weight and bias")
            weight, bias = init[node.input[1]], init[node.input[2]]
            if weight.ndim != 2 or bias.shape != (weight.shape[0],):
                raise PlainWeightsError(f"{node.name}: weight {weight.shape}, bias {bias.shape}")
            layers.append({"weight": weight, "bias": bias, "activation": None})
        elif node.op_type == "Relu":
            if not layers or layers[-1]["activation"] is not None:
                raise PlainWeightsError(f"{node.name}: Relu must follow a Gemm")
            layers[-1]["activation"] = "relu"
        elif node.op_type == "Where":
            if len(node.input) != 3 or node.input[2] not in init:
                raise PlainWeightsError(f"{node.name}: Where must fill from a stored constant")
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
    dtypes = {layer[k].dtype for layer in layers for k in ("weight", "bias")}
    if len(dtypes) != 1 or dtypes.pop() not in (np.float32, np.float16):
        raise PlainWeightsError(f"weights must be all float32 or all float16, got {dtypes}")
    for a, b in zip(layers, layers[1:], strict=False):
        if a["weight"].shape[0] != b["weight"].shape[1]:
            raise PlainWeightsError(
                f"layer sizes do not chain: {a['weight'].shape} then {b['weight'].shape}"
            )
    return layers, obs_name, mask_name


def weights_names(model_path: str | Path) -> tuple[str, str]:
    """``(weights.bin name, weights.json name)`` of a model file: ``model.onnx`` ->
    ``weights.bin``, ``weights.json``; ``model.fp16.onnx`` -> ``weights.fp16.bin``, ...."""
    stem = Path(model_path).name.removesuffix(".onnx")
    stem = "weights" + stem.removeprefix("model") if stem.startswith("model") else stem + ".weights"
    return stem + ".bin", stem + ".json"


def write_plain_weights(model_path: str | Path, out_dir: str | Path) -> dict[str, Any]:
    """Write the weights of ``model_path`` and their description into ``out_dir``, named by
    ``weights_names`` (``weights.bin`` and ``weights.json`` for ``model.onnx``).

    Returns the description (a bundle's bot.json may carry it too).
    """
    layers, obs_name, mask_name = dense_layers(model_path)
    bin_name, json_name = weights_names(model_path)
    dtype = np.dtype(layers[0]["weight"].dtype).newbyteorder("<")
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    chunks: list[np.ndarray] = []
    described = []
    offset = 0
    for layer in layers:
        entry: dict[str, Any] = {}
        for key in ("weight", "bias"):
            values = np.ascontiguousarray(layer[key], dtype=dtype)
            entry[key] = {"offset": offset, "shape": list(values.shape)}
            chunks.append(values.ravel())
            offset += values.size
        entry["activation"] = layer["activation"]
        described.append(entry)
    data = np.concatenate(chunks).tobytes()
    (out / bin_name).write_bytes(data)
    layout = {
        "format": WEIGHTS_FORMAT,
        "file": bin_name,
        "sha256": hashlib.sha256(data).hexdigest(),
        "bytes": len(data),
        "dtype": "float16" if dtype.itemsize == 2 else "float32",
        "byte_order": "little",
        "input": obs_name,
        "mask": mask_name,
        "masked_score": MASKED_SCORE,
        "layers": described,
    }
    (out / json_name).write_text(json.dumps(layout, indent=1) + "\n")
    return layout


def plain_scores(layout: dict[str, Any], data: bytes, obs: np.ndarray, mask: np.ndarray):
    """(B, A) float32 scores of ``obs`` (B, in) under ``mask`` (B, A) from plain weights, in
    NumPy: the reference the format's description is checked against in the tests."""
    flat = np.frombuffer(data, dtype="<f2" if layout["dtype"] == "float16" else "<f4")
    flat = flat.astype(np.float32)
    x = np.asarray(obs, np.float32)
    for layer in layout["layers"]:
        w, b = (
            flat[layer[k]["offset"] : layer[k]["offset"] + int(np.prod(layer[k]["shape"]))].reshape(
                layer[k]["shape"]
            )
            for k in ("weight", "bias")
        )
        x = x @ w.T + b
        if layer["activation"] == "relu":
            x = np.maximum(x, 0)
    masked = np.float32(layout["masked_score"])
    return np.where(np.asarray(mask, bool), x, masked).astype(np.float32)
