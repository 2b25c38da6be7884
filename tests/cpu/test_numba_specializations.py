"""The CPU kernels' shared numba helpers are compiled once per argument type, not once per literal: a call like
``chain_span(buf, 0, 1, ...)`` from numba code types its bare ints as ``Literal[int](0)`` and numba compiles and caches
another specialization of the callee and of everything it calls (3-5 s each on a fresh cache; chain_span had six).
The callers pass ``cpu_epilogue.I0`` / ``I1`` (int64) instead. This test runs a CPU network whose kernels call the
helpers with constant arguments (global pooling and an activation with fused chains, a depthwise convolution with a
fused activation, an eltwise with a fused residual) and checks its outputs against onnxruntime, then that no
specialization of the helpers has a literal argument (run alone it also fails when one of those kernels brings one)."""

from __future__ import annotations

from onnx import helper

import cldnn_py as cl
from kernel_selector.common import cpu_epilogue
from tests.onnx.ort_compare import build, compare, randf32


def _model(rng):
    x = randf32(rng, 1, 8, 9, 9)
    w_dw = randf32(rng, 8, 1, 3, 3)
    nodes = [
        helper.make_node("Conv", ["x", "w_dw"], ["dw"], group=8, pads=[1, 1, 1, 1]),
        helper.make_node("HardSwish", ["dw"], ["dw_a"]),
        helper.make_node("Add", ["dw_a", "x"], ["sum"]),
        helper.make_node("Relu", ["sum"], ["sum_r"]),
        helper.make_node("GlobalAveragePool", ["sum_r"], ["gap"]),
        helper.make_node("Sigmoid", ["gap"], ["gate"]),
        helper.make_node("Mul", ["sum_r", "gate"], ["se"]),
        helper.make_node("Elu", ["se"], ["y"]),
    ]
    return build(nodes, {"x": x}, {"w_dw": w_dw}, ["y"], 17), x


def test_helpers_have_no_literal_specializations(rng):
    model, x = _model(rng)
    compare(cl.Engine("cpu"), model, {"x": x}, atol=1e-5)
    helpers = (cpu_epilogue.chain_span, cpu_epilogue.act_span, cpu_epilogue.fake_quant_span,
               cpu_epilogue.operand_index)
    assert cpu_epilogue.chain_span.signatures, "the network ran no kernel with a fused chain"
    literal = [(h.__name__, sig) for h in helpers for sig in h.signatures if "Literal" in str(sig)]
    assert not literal, f"numba specializations with literal arguments: {literal}"
