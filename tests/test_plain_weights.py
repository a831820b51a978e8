"""plain_weights: a bundle's dense layers as little-endian float32 for clients without an ONNX
runtime (clients/js). The weights it writes, multiplied out as weights.json describes them,
give onnxruntime's scores; a graph that is not a chain of dense layers is refused."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper

from murlan_env.bundle.files import onnx_session
from murlan_env.bundle.plain_weights import (
    MASKED_SCORE,
    PlainWeightsError,
    plain_scores,
    weights_names,
    write_plain_weights,
)
from murlan_env.game import observation
from murlan_env.game.combos import N_ACTIONS

POLICIES = Path(__file__).resolve().parents[1] / "murlan_env" / "bots" / "policies"
# Every model file of every shipped bundle: float32 (model.onnx) and float16 (model.fp16.onnx).
MODELS = sorted(POLICIES.glob("*/*.onnx"))


@pytest.mark.parametrize("model", MODELS, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_plain_weights_give_onnxruntime_scores(model: Path, tmp_path: Path):
    layout = write_plain_weights(model, tmp_path)
    bin_name, json_name = weights_names(model)
    data = (tmp_path / bin_name).read_bytes()
    assert layout["file"] == bin_name and layout == json.loads((tmp_path / json_name).read_text())
    assert layout["dtype"] == ("float16" if ".fp16." in model.name else "float32")
    assert layout["sha256"] == hashlib.sha256(data).hexdigest() and layout["bytes"] == len(data)
    shapes = [layer["weight"]["shape"] for layer in layout["layers"]]
    assert shapes[0][1] == observation.SIZE and shapes[-1][0] == N_ACTIONS
    rng = np.random.default_rng(0)
    obs = (rng.random((64, observation.SIZE)) < 0.2).astype(np.float32)
    obs[::2] = rng.random((32, observation.SIZE), dtype=np.float32)
    mask = rng.random((64, N_ACTIONS)) < 0.3
    want = onnx_session(model).run(["scores"], {"obs": obs, "mask": mask})[0]
    got = plain_scores(layout, data, obs, mask)
    np.testing.assert_array_equal(got[~mask], want[~mask])
    assert (got[~mask] == np.float32(MASKED_SCORE)).all()
    np.testing.assert_allclose(got[mask], want[mask], rtol=0, atol=1e-4)


def _graph(op: str) -> onnx.ModelProto:
    """obs -> Gemm -> OP -> Where(mask): a dense chain when OP is Relu, else not."""
    w = helper.make_tensor("w", TensorProto.FLOAT, [3, 4], np.ones(12, np.float32))
    b = helper.make_tensor("b", TensorProto.FLOAT, [3], np.zeros(3, np.float32))
    low = helper.make_tensor("low", TensorProto.FLOAT, [], [MASKED_SCORE])
    nodes = [
        helper.make_node("Gemm", ["obs", "w", "b"], ["h"], transB=1),
        helper.make_node(op, ["h"], ["a"]),
        helper.make_node("Where", ["mask", "a", "low"], ["scores"]),
    ]
    graph = helper.make_graph(
        nodes,
        "g",
        [
            helper.make_tensor_value_info("obs", TensorProto.FLOAT, ["batch", 4]),
            helper.make_tensor_value_info("mask", TensorProto.BOOL, ["batch", 3]),
        ],
        [helper.make_tensor_value_info("scores", TensorProto.FLOAT, ["batch", 3])],
        [w, b, low],
    )
    return helper.make_model(graph)


def test_a_graph_that_is_not_dense_layers_is_refused(tmp_path: Path):
    onnx.save(_graph("Relu"), tmp_path / "dense.onnx")
    layout = write_plain_weights(tmp_path / "dense.onnx", tmp_path / "ok")
    assert [layer["activation"] for layer in layout["layers"]] == ["relu"]
    onnx.save(_graph("Sigmoid"), tmp_path / "sigmoid.onnx")
    with pytest.raises(PlainWeightsError, match="Sigmoid"):
        write_plain_weights(tmp_path / "sigmoid.onnx", tmp_path / "no")
    assert not (tmp_path / "no").exists()
