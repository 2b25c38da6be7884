"""fully_connected_cpu_packed (row-major IR micro-kernel on os_iyx_osv16 weights, N > 16) vs an independent float64
numpy reference.

Shapes with whole and partial tiles in both directions (M not a multiple of 16: the panels' tail lanes hold NaN
from the harness and must never reach the output), K of 1 to a few hundred, inputs of rank 2-4 in bfyx, blocked
and padded layouts, padded outputs, with and without bias, fused activations (the vectorized chain) and a fused
residual (numpy); the layout optimizer packs the weights only past the small-batch bound; ViT-style MLP blocks
through the ONNX importer against onnxruntime.
"""

from __future__ import annotations

import numpy as np
import pytest

import cldnn_py as cl
from cldnn_py.layout import DataType, Format, Layout, Padding
from cldnn_py.ops import FusedActivationAttrs, FusedEltwiseAttrs
from kernel_selector.params import FusedOp
from tests.cpu.kernel_harness import run_kernel
from tests.helpers import assert_close, f32
from tests.references import fc_ref

FAST = "fully_connected_cpu_packed"
FSV16 = Format.b_fs_yx_fsv16
NO_PAD = Padding()


def _run(engine, x, w, b, xfmt=Format.bfyx, xpad=NO_PAD, opad=NO_PAD, fused=None, operands=None):
    lays = [Layout(DataType.f32, xfmt, x.shape, xpad), Layout(DataType.f32, Format.os_iyx_osv16, w.shape)]
    arrays = [x, w]
    if b is not None:
        lays.append(Layout(DataType.f32, Format.bfyx, b.shape))
        arrays.append(b)
    lout = Layout(DataType.f32, Format.bfyx, (x.shape[0], w.shape[0]), opad)
    out, chosen = run_kernel(engine, "fully_connected", lays, lout, {}, arrays, FAST, fused, operands)
    assert chosen == FAST
    return out


CASES = [
    # input shape, M, format, input padding, output padding, bias
    ((17, 1), 1, Format.bfyx, NO_PAD, NO_PAD, True),                                     # one row past a tile
    ((40, 37), 23, Format.bfyx, NO_PAD, Padding((0, 1, 0, 0), (0, 2, 0, 0)), True),     # padded output, tails
    ((33, 64), 64, Format.bfyx, NO_PAD, NO_PAD, False),                                  # whole column blocks
    ((25, 19, 3, 2), 47, FSV16, Padding((0, 0, 1, 1), (0, 0, 0, 1)), NO_PAD, True),      # blocked input gathered
    ((18, 3, 5), 100, Format.bfyx, NO_PAD, NO_PAD, True),                                # rank 3
    ((21, 7, 3, 3), 12, Format.byxf, Padding((1, 0, 0, 0), (0, 0, 1, 0)), NO_PAD, True),  # plain, padded
    ((197, 192), 130, Format.bfyx, NO_PAD, NO_PAD, True),                                # transformer-sized
]


@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c[0]}-m{c[1]}-{c[2].value}")
def test_fc_packed_matches_reference(cpu_engine, rng, case):
    shape, m, fmt, xpad, opad, with_bias = case
    x = f32(rng.standard_normal(shape))
    w = f32(rng.standard_normal((m, int(np.prod(shape[1:])))))
    b = f32(rng.standard_normal(m)) if with_bias else None
    out = _run(cpu_engine, x, w, b, fmt, xpad, opad)
    assert_close(out, fc_ref(x, w, b), rtol=1e-4, atol=1e-4)


def test_fc_packed_fused_gelu_chain(cpu_engine, rng):
    x, w, b = f32(rng.standard_normal((30, 24))), f32(rng.standard_normal((50, 24))), f32(rng.standard_normal(50))
    fused = [FusedOp("activation", FusedActivationAttrs("gelu")), FusedOp("activation", FusedActivationAttrs("abs"))]
    out = _run(cpu_engine, x, w, b, fused=fused)
    y = fc_ref(x, w, b).astype(np.float64)
    from math import erf

    gelu = 0.5 * y * (1 + np.vectorize(erf)(y / np.sqrt(2)))
    assert_close(out, np.abs(gelu), rtol=1e-4, atol=1e-4)


def test_fc_packed_fused_residual_and_tanh(cpu_engine, rng):
    x, w, b = f32(rng.standard_normal((19, 24))), f32(rng.standard_normal((20, 24))), f32(rng.standard_normal(20))
    r = f32(rng.standard_normal((19, 20)))
    fused = [FusedOp("eltwise", FusedEltwiseAttrs("sum")), FusedOp("activation", FusedActivationAttrs("tanh"))]
    out = _run(cpu_engine, x, w, b, fused=fused,
               operands=[(Layout(DataType.f32, Format.bfyx, r.shape, Padding((0, 1, 0, 0), (0, 0, 0, 0))), r)])
    assert_close(out, np.tanh(fc_ref(x, w, b) + r), rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize(("batch", "kernel", "packed"), [(12, "fully_connected_cpu_blas", False),
                                                         (40, FAST, True)])
def test_fc_network_packs_weights_past_small_batch(cpu_engine, rng, batch, kernel, packed):
    """input -> fully connected (+ bias) -> relu: past SMALL_BATCH rows the weights are packed at build and the
    micro-kernel runs; at or below it they stay plain for the row-streaming kernel."""
    x = f32(rng.standard_normal((batch, 70)))
    w, b = f32(rng.standard_normal((45, 70))), f32(rng.standard_normal(45))
    topo = cl.Topology()
    topo.add(cl.InputLayout("x", cl.Layout(cl.DataType.f32, cl.Format.bfyx, x.shape)))
    topo.add(cl.Data("w", w))
    topo.add(cl.Data("b", b))
    topo.add(cl.FullyConnected("fc", "x", weights="w", bias="b"))
    topo.add(cl.Activation("act", "fc", "relu"))
    net = cl.Network(cl.Program(cpu_engine, topo))
    node = net.program.node("fc")
    assert node.impl.kernel_name == kernel
    assert (node.dependencies[1].layout().format == Format.os_iyx_osv16) == packed
    net.poison()
    assert_close(net.run({"x": x})["act"], np.maximum(fc_ref(x, w, b), 0), rtol=1e-4, atol=1e-4)


def test_fc_packed_matmul_rank3_onnx(cpu_engine, rng):
    """A transformer MLP as ONNX writes it (MatMul of a (1, tokens, width) activation by constants, Add, Relu, MatMul)
    against onnxruntime: the importer's fully connected layers on the packed kernel."""
    import onnxruntime as ort
    from onnx import TensorProto, helper, numpy_helper

    t, d, h = 37, 48, 80
    w1, b1 = f32(rng.standard_normal((d, h)) * 0.2), f32(rng.standard_normal(h))
    w2 = f32(rng.standard_normal((h, d)) * 0.2)
    graph = helper.make_graph(
        [helper.make_node("MatMul", ["x", "w1"], ["a"]), helper.make_node("Add", ["a", "b1"], ["ab"]),
         helper.make_node("Relu", ["ab"], ["r"]), helper.make_node("MatMul", ["r", "w2"], ["y"])],
        "mlp", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, t, d])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, t, d])],
        [numpy_helper.from_array(w1, "w1"), numpy_helper.from_array(b1, "b1"), numpy_helper.from_array(w2, "w2")])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    x = f32(rng.standard_normal((1, t, d)))
    net = cl.Network(cl.Program(cpu_engine, cl.load_onnx(model)))
    kernels = {n.impl.kernel_name for n in net.program.nodes.values()
               if n.impl is not None and n.kind == "fully_connected"}
    assert kernels == {FAST}, kernels
    net.poison()
    got = net.run({"x": x})["y"]
    ref = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"]).run(None, {"x": x})[0]
    assert_close(got, ref, rtol=1e-4, atol=1e-4)
