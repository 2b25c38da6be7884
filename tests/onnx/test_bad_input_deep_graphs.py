"""Bad input, very deep graphs: a chain of 10,000 nodes imports, builds and runs without RecursionError and in
seconds (the memory-pool plan was quadratic in the chain length: over a minute; no time is asserted here, speed
is for benchmarks). Part of the bad-input catalogue
(tests/*/test_bad_input_*.py)."""

from __future__ import annotations

import numpy as np
from onnx import TensorProto, helper

import cldnn_py as cl

N = 10_000


def test_a_chain_of_ten_thousand_nodes_builds_and_runs(rng):
    names = ["x"] + [f"t{i}" for i in range(N - 1)] + ["y"]
    nodes = [helper.make_node("Relu" if i == N - 1 else "Neg", [names[i]], [names[i + 1]]) for i in range(N)]
    g = helper.make_graph(nodes, "deep", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 4])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 4])])
    model = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)], ir_version=10)
    net = cl.Network(cl.Engine("cpu"), cl.load_onnx(model))
    x = rng.standard_normal((1, 4)).astype(np.float32)
    np.testing.assert_array_equal(net.run({"x": x})["y"], np.maximum(-x, 0))  # 9,999 Neg, then Relu
