"""fully_connected_gemm (register-tiled GEMM, batch > 8, weights packed os_iyx_osv16 by reorder_inputs) vs a
float64 numpy reference: batches not multiples of the row tile, M with a 16-column tail (M % 16 == 8 and M % 8 != 0),
odd K, rank-4 input fed blocked data, bias of rank 2, fused relu; the kernel alone with a fused eltwise and tanh;
batch 1-8 keeps fully_connected_gemv with plain weights."""

from __future__ import annotations

import numpy as np
import pytest

import cldnn_py as cl
from cldnn_py.ops import FusedActivationAttrs, FusedEltwiseAttrs
from tests.helpers import assert_close, cpu_tier, f32
from tests.ocl.networks import fc_network, run_poisoned
from tests.ocl.padded import run_bound_kernel
from tests.references import fc_ref


@pytest.fixture
def engine(ocl_engine):
    """OpenCL only: these tests are about an OpenCL kernel."""
    return ocl_engine


FAST = "fully_connected_gemm"

CASES = [
    # input shape, M, bias, relu
    ((9, 64), 32, True, False),         # one 16-block pair, N = 9 = 4 + 4 + 1 (last block shifted)
    ((13, 37), 24, True, True),         # odd K, M % 16 == 8
    ((17, 4, 3, 3), 21, False, False),  # rank 4, K = 36, M % 8 != 0 (scalar stores)
    ((10, 2, 16), 16, True, True),      # rank 3, K = 32, N % 4 == 2
    ((64, 100), 40, True, False),       # several row blocks per slice
]


def packed_weights(net) -> bool:
    """True when the fc reads its weights in os_iyx_osv16 (reorder_inputs packed them)."""
    return net.program.node("fc").dependencies[1].layout().format == cl.Format.os_iyx_osv16


@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c[0]}-m{c[1]}-bias{int(c[2])}-relu{int(c[3])}")
def test_gemm_fc_matches_reference(engine, rng, case):
    shape, m, bias, relu = case
    x = f32(rng.standard_normal(shape))
    w = f32(rng.standard_normal((m, int(np.prod(shape[1:])))))
    b = f32(rng.standard_normal(m)) if bias else None
    net, out = fc_network(engine, x, w, b, relu)
    node = net.program.node("fc")
    assert node.impl.kernel_name == FAST
    assert packed_weights(net)
    if relu:
        assert len(node.fused_ops) == 1
    assert_close(run_poisoned(net, out, x), fc_ref(x, w, b, relu), rtol=1e-4, atol=1e-4)


def test_gemm_fc_blocked_input_bias2d_relu(engine, rng):
    """Rank-4 data in b_fs_yx_fsv16 (reordered to bfyx for the kernel), a (1, M) bias and a fused relu."""
    x = f32(rng.standard_normal((11, 8, 2, 2)))
    w = f32(rng.standard_normal((24, 32)))
    b = f32(rng.standard_normal((1, 24)))
    topo = cl.Topology()
    topo.add(cl.InputLayout("x", cl.Layout(cl.DataType.f32, cl.Format.bfyx, x.shape)))
    topo.add(cl.Reorder("xr", "x", cl.Format.b_fs_yx_fsv16))
    topo.add(cl.Data("w", w))
    topo.add(cl.Data("b", b))
    topo.add(cl.FullyConnected("fc", "xr", weights="w", bias="b"))
    topo.add(cl.Activation("act", "fc", "relu"))
    net = cl.Network(cl.Program(engine, topo, cpu_tier()))
    node = net.program.node("fc")
    assert node.impl.kernel_name == FAST and packed_weights(net)
    assert [op.kind for op in node.fused_ops] == ["activation"]
    net.poison()
    assert_close(net.run({"x": x})["act"], fc_ref(x, w, b.reshape(-1), relu=True), rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("m", [32, 20])
def test_gemm_fc_kernel_fused_eltwise_and_activation(engine, rng, m):
    """The kernel alone (no graph rule fuses an eltwise into a fully connected yet): a fused eltwise prod with a
    bfyx operand, then a fused tanh (lane-by-lane formula), M % 16 == 0 and M % 8 != 0."""

    from kernel_selector import FusedOp, Params, selector

    n, k = 10, 24
    x, w = f32(rng.standard_normal((n, k))), f32(rng.standard_normal((m, k)))
    b, e = f32(rng.standard_normal(m)), f32(rng.standard_normal((n, m)))
    lay = [cl.Layout(cl.DataType.f32, cl.Format.bfyx, x.shape), cl.Layout(cl.DataType.f32, cl.Format.os_iyx_osv16,
           w.shape), cl.Layout(cl.DataType.f32, cl.Format.bfyx, b.shape), cl.Layout(cl.DataType.f32, cl.Format.bfyx,
           e.shape)]
    out_l = cl.Layout(cl.DataType.f32, cl.Format.bfyx, (n, m))
    ops = [FusedOp("eltwise", FusedEltwiseAttrs("prod"), extra_inputs=[lay[3]], dep_indices=[3]),
           FusedOp("activation", FusedActivationAttrs("tanh"))]
    params = Params("fully_connected", "ocl", lay[:3], out_l, {}, ops, "fc", engine.info)
    kernel, kd = selector.select(params)
    assert kernel.name == FAST
    (kc,) = kd.kernels
    raw = run_bound_kernel(engine, kc, lay, [x, w, b, e], out_l)
    assert_close(out_l.from_physical(raw), np.tanh(fc_ref(x, w, b) * e), rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("batch", [1, 8])
def test_small_batch_keeps_gemv_and_plain_weights(engine, rng, batch):
    """Batch 1-8 is fully_connected_gemv's (bandwidth-bound): weights stay bfyx, not packed."""
    x = f32(rng.standard_normal((batch, 64)))
    w = f32(rng.standard_normal((24, 64)))
    b = f32(rng.standard_normal(24))
    net, out = fc_network(engine, x, w, b)
    assert net.program.node("fc").impl.kernel_name == "fully_connected_gemv"
    assert not packed_weights(net)
    assert_close(run_poisoned(net, out, x), fc_ref(x, w, b), rtol=1e-4, atol=1e-4)


def test_gemm_fc_without_optimizer_falls_back(engine, rng):
    """optimize_data=False: no weight packing, so the GEMM kernel does not validate; gemv (plain weights) runs."""
    x = f32(rng.standard_normal((12, 64)))
    w = f32(rng.standard_normal((24, 64)))
    net, out = fc_network(engine, x, w, None, optimize=False)
    assert net.program.node("fc").impl.kernel_name == "fully_connected_gemv"
    assert_close(run_poisoned(net, out, x), fc_ref(x, w, None), rtol=1e-4, atol=1e-4)
