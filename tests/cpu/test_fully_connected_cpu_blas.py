"""fully_connected_cpu_blas (numba rows for N <= 16, BLAS above; bias, fused ops in place) vs an independent
float64 numpy reference.

Inputs of rank 2-4 in bfyx, b_fs_yx_fsv16 (channel tail) and padded layouts (flattened in logical order), batch 1
to 20 (both paths), bias of rank 1 and 2, padded output, fused activation and residual (broadcast too); packed weights
are rejected; a network with blocked input and a fused relu on the CPU engine.
"""

from __future__ import annotations

import numpy as np
import pytest

import cldnn_py as cl
from cldnn_py.layout import DataType, Format, Layout, Padding
from cldnn_py.ops import FusedActivationAttrs, FusedEltwiseAttrs
from kernel_selector.params import FusedOp, Params
from kernel_selector.selector import candidates
from tests.cpu.kernel_harness import run_kernel
from tests.helpers import assert_close, f32
from tests.references import fc_ref

FAST = "fully_connected_cpu_blas"
FSV16 = Format.b_fs_yx_fsv16
NO_PAD = Padding()


def _run(engine, x, w, b, xfmt=Format.bfyx, xpad=NO_PAD, opad=NO_PAD, bshape=None, fused=None,
         operands=None, wpad=NO_PAD):
    lays = [Layout(DataType.f32, xfmt, x.shape, xpad), Layout(DataType.f32, Format.bfyx, w.shape, wpad)]
    arrays = [x, w]
    if b is not None:
        b = b.reshape(bshape or b.shape)
        lays.append(Layout(DataType.f32, Format.bfyx, b.shape))
        arrays.append(b)
    lout = Layout(DataType.f32, Format.bfyx, (x.shape[0], w.shape[0]), opad)
    out, chosen = run_kernel(engine, "fully_connected", lays, lout, {}, arrays, FAST, fused, operands)
    assert chosen == FAST
    return out


CASES = [
    # input shape, M, format, input padding, output padding, bias shape
    ((1, 64), 40, Format.bfyx, Padding(), Padding(), (40,)),                                    # GEMV
    ((5, 37), 23, Format.bfyx, Padding(), Padding((0, 1, 0, 0), (0, 2, 0, 0)), (1, 23)),        # padded output
    ((3, 19, 3, 2), 17, FSV16, Padding((0, 0, 1, 1), (0, 0, 0, 1)), Padding(), (17,)),          # blocked, tail
    ((1, 21, 2, 2), 8, FSV16, Padding(), Padding(), None),                                      # batch 1 blocked
    ((4, 3, 5), 16, Format.bfyx, Padding(), Padding(), (16,)),                                  # rank 3
    ((2, 7, 3, 3), 12, Format.byxf, Padding((1, 0, 0, 0), (0, 0, 1, 0)), Padding(), (12,)),    # plain, padded
    ((20, 33), 18, Format.bfyx, Padding(), Padding((0, 0, 0, 0), (0, 3, 0, 0)), (18,)),        # BLAS (N > 16)
    ((17, 5, 2, 2), 9, FSV16, Padding((0, 0, 1, 0), (0, 0, 0, 0)), Padding(), None),           # BLAS, blocked
]


@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c[0]}-m{c[1]}-{c[2].value}")
def test_fc_matches_reference(cpu_engine, rng, case):
    shape, m, fmt, xpad, opad, bshape = case
    x = f32(rng.standard_normal(shape))
    w = f32(rng.standard_normal((m, int(np.prod(shape[1:])))))
    b = f32(rng.standard_normal(m)) if bshape else None
    out = _run(cpu_engine, x, w, b, fmt, xpad, opad, bshape)
    assert_close(out, fc_ref(x, w, b), rtol=1e-4, atol=1e-4)


def test_fc_padded_weights(cpu_engine, rng):
    """Weights read in place through their pitches (row padding)."""
    x, w, b = f32(rng.standard_normal((3, 10))), f32(rng.standard_normal((6, 10))), f32(rng.standard_normal(6))
    out = _run(cpu_engine, x, w, b, wpad=Padding((1, 0, 0, 0), (0, 3, 0, 0)))
    assert_close(out, fc_ref(x, w, b), rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("n", [1, 6, 19])
def test_fc_fused_residual_and_tanh(cpu_engine, rng, n):
    x, w, b = f32(rng.standard_normal((n, 24))), f32(rng.standard_normal((20, 24))), f32(rng.standard_normal(20))
    r = f32(rng.standard_normal((n, 20)))
    fused = [FusedOp("eltwise", FusedEltwiseAttrs("sum")), FusedOp("activation", FusedActivationAttrs("tanh"))]
    out = _run(cpu_engine, x, w, b, fused=fused,
               operands=[(Layout(DataType.f32, Format.bfyx, r.shape, Padding((0, 1, 0, 0), (0, 0, 0, 0))), r)])
    assert_close(out, np.tanh(fc_ref(x, w, b) + r), rtol=1e-4, atol=1e-4)


def test_fc_fused_broadcast_prod_relu(cpu_engine, rng):
    x, w = f32(rng.standard_normal((4, 2, 3, 3))), f32(rng.standard_normal((9, 18)))
    sc = f32(rng.standard_normal(9))
    fused = [FusedOp("eltwise", FusedEltwiseAttrs("prod")), FusedOp("activation", FusedActivationAttrs("relu"))]
    out = _run(cpu_engine, x, w, None, FSV16, fused=fused,
               operands=[(Layout(DataType.f32, Format.bfyx, sc.shape), sc)])
    assert_close(out, np.maximum(fc_ref(x, w, None) * sc, 0), rtol=1e-4, atol=1e-4)


def test_fc_rejects_packed_weights(cpu_engine):
    """os_iyx_osv16 weights are rejected, so reorder_inputs keeps them plain for BLAS."""
    (k,) = [c for c in candidates("fully_connected") if c.name == FAST]
    x = Layout(DataType.f32, Format.bfyx, (16, 32))
    w = Layout(DataType.f32, Format.os_iyx_osv16, (48, 32))
    p = Params("fully_connected", "cpu", [x, w], Layout(DataType.f32, Format.bfyx, (16, 48)),
               device=cpu_engine.info)
    assert "packed" in (k.validate(p) or "")


@pytest.mark.parametrize("batch", [1, 12])
def test_fc_network_blocked_input_relu(cpu_engine, rng, batch):
    """input -> reorder to b_fs_yx_fsv16 -> fully connected (+ (1, M) bias) -> relu: the fast kernel runs with
    plain weights."""
    x = f32(rng.standard_normal((batch, 20, 3, 3)))
    w, b = f32(rng.standard_normal((24, 180))), f32(rng.standard_normal((1, 24)))
    topo = cl.Topology()
    topo.add(cl.InputLayout("x", cl.Layout(cl.DataType.f32, cl.Format.bfyx, x.shape)))
    topo.add(cl.Reorder("xr", "x", FSV16))
    topo.add(cl.Data("w", w))
    topo.add(cl.Data("b", b))
    topo.add(cl.FullyConnected("fc", "xr", weights="w", bias="b"))
    topo.add(cl.Activation("act", "fc", "relu"))
    net = cl.Network(cl.Program(cpu_engine, topo))
    node = net.program.node("fc")
    assert node.impl.kernel_name == FAST
    assert node.dependencies[1].layout().format != Format.os_iyx_osv16
    net.poison()
    assert_close(net.run({"x": x})["act"], np.maximum(fc_ref(x, w, b), 0), rtol=1e-4, atol=1e-4)
