"""Malformed ONNX files never crash the interpreter, never hang, and never escape as anything but a CldnnError:
truncated bytes, flipped bytes, wrong element types, missing initializers, shape conflicts. Every mutation either
imports (and then builds a Program or raises a CldnnError) or raises a CldnnError subclass at import."""

from __future__ import annotations

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

import cldnn_py as cl
from cldnn_py.errors import CldnnError


def small_model(rng) -> onnx.ModelProto:
    """Conv(3->8, 3x3, pad 1) -> Relu -> GlobalAveragePool -> Flatten -> Gemm(8->5); input (1, 3, 8, 8)."""
    w = numpy_helper.from_array(rng.standard_normal((8, 3, 3, 3)).astype(np.float32), "w")
    b = numpy_helper.from_array(rng.standard_normal(8).astype(np.float32), "b")
    fw = numpy_helper.from_array(rng.standard_normal((5, 8)).astype(np.float32), "fw")
    nodes = [helper.make_node("Conv", ["x", "w", "b"], ["c"], pads=[1, 1, 1, 1]),
             helper.make_node("Relu", ["c"], ["r"]),
             helper.make_node("GlobalAveragePool", ["r"], ["g"]),
             helper.make_node("Flatten", ["g"], ["f"]),
             helper.make_node("Gemm", ["f", "fw"], ["y"], transB=1)]
    g = helper.make_graph(nodes, "small", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, 8, 8])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 5])], [w, b, fw])
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)], ir_version=8)


def survives(engine, data) -> str:
    """'built', 'rejected at import' or 'rejected at build'; any non-CldnnError exception fails the test."""
    try:
        topo = cl.load_onnx(data)
    except CldnnError:
        return "rejected at import"
    try:
        cl.Program(engine, topo)
    except CldnnError:
        return "rejected at build"
    return "built"


def test_truncated_and_flipped_bytes(ocl_engine, rng):
    raw = small_model(rng).SerializeToString()
    outcomes = []
    for cut in sorted(set(rng.integers(1, len(raw), 12).tolist()) | {0, 1, len(raw) // 2, len(raw) - 1}):
        outcomes.append(survives(ocl_engine, raw[:cut]))
    for _ in range(40):
        b = bytearray(raw)
        for pos in rng.integers(0, len(b), int(rng.integers(1, 6))):
            b[pos] ^= int(rng.integers(1, 256))
        outcomes.append(survives(ocl_engine, bytes(b)))
    assert outcomes.count("rejected at import") > 0  # the mutations do reach the error paths
    print({o: outcomes.count(o) for o in set(outcomes)}, f"of {len(outcomes)} byte mutations")


@pytest.mark.parametrize("mutation", ["input_type", "initializer_type", "missing_initializer", "weight_shape",
                                      "input_rank", "dangling_output", "empty_graph"])
def test_structural_mutations_raise_cldnn_errors(engine, rng, mutation):
    m = small_model(rng)
    g = m.graph
    if mutation == "input_type":
        g.input[0].type.tensor_type.elem_type = TensorProto.STRING
    elif mutation == "initializer_type":
        g.initializer[0].data_type = TensorProto.BOOL
    elif mutation == "missing_initializer":
        del g.initializer[0]
    elif mutation == "weight_shape":
        g.initializer[0].CopyFrom(numpy_helper.from_array(rng.standard_normal((8, 4, 3, 3)).astype(np.float32), "w"))
    elif mutation == "input_rank":
        del g.input[0].type.tensor_type.shape.dim[1]
    elif mutation == "dangling_output":
        g.output[0].name = "nowhere"
    elif mutation == "empty_graph":
        del g.node[:]
    outcome = survives(engine, m.SerializeToString())
    assert outcome.startswith("rejected"), f"{mutation}: {outcome}"
