"""gemm_cpu_blas (numpy.matmul / OpenBLAS, numba fc_rows, alpha, beta·C, fused ops) vs a float64 reference.

Transposes, alpha/beta, a broadcast C, the fc_rows path (x · Wᵀ, few rows), batched operands that broadcast,
rank-1 and rank-5 operands, blocked and padded inputs, a padded output, the transposed-product orientation
(M < N) and fused activation + residual.
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
from tests.references import gemm_ref

FAST = "gemm_cpu_blas"
NO_PAD = Padding()


def gemm64(a, b, c, ta, tb, alpha, beta):
    """references.gemm_ref, with a 0-d result as shape (1,) (how the kernel's output holds a scalar)."""
    out = gemm_ref(a, b, c, ta, tb, alpha, beta)
    return out.reshape(-1) if out.ndim == 0 else out


def _lay(x, fmt=Format.bfyx, pad=NO_PAD):
    return Layout(DataType.f32, fmt, x.shape, pad)


def _run(engine, arrays, lays, attrs, out_pad=NO_PAD, fused=None, operands=None):
    prim = cl.Gemm("g", inputs=[f"i{i}" for i in range(len(arrays))], **attrs)
    lout = prim.calc_output_layout(lays).with_(padding=out_pad)
    out, chosen = run_kernel(engine, "gemm", lays, lout, prim.attrs(), arrays, FAST, fused, operands)
    assert chosen == FAST
    return out


CASES = [
    # A shape, B shape, C shape or None, transpose_a, transpose_b, alpha, beta
    ((5, 7), (7, 3), None, False, False, 1.0, 1.0),
    ((4, 10), (6, 10), (6,), False, True, 1.0, 0.5),          # ONNX Gemm as FC: numba fc_rows path
    ((20, 10), (6, 10), (6,), False, True, 2.0, 0.5),         # too many rows for fc_rows: BLAS
    ((7, 5), (3, 7), (3,), True, True, 0.5, 2.0),             # ONNX Gemm: transposes, broadcast C row
    ((3, 9), (9, 40), (3, 1), False, False, 1.0, -1.0),       # M < N: transposed product, C column
    ((2, 3, 4, 6), (3, 6, 5), None, False, False, 1.0, 1.0),  # batch broadcast (rank 4 x rank 3)
    ((1, 4, 6), (2, 5, 6), (2, 4, 5), False, True, 1.5, 0.25),
    ((6,), (6, 4), None, False, False, 1.0, 1.0),             # vector x matrix
    ((3, 6), (6,), None, False, False, 2.0, 1.0),             # matrix x vector
    ((6,), (6,), None, False, False, 1.0, 1.0),               # dot product -> (1,)
    ((2, 1, 3, 4, 5), (5, 2), None, False, False, 1.0, 1.0),  # rank 5
]


@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c[0]}x{c[1]}-c{c[2]}-t{int(c[3])}{int(c[4])}")
def test_gemm_matches_reference(cpu_engine, rng, case):
    sa, sb, sc, ta, tb, alpha, beta = case
    arrays = [f32(rng.standard_normal(sa)), f32(rng.standard_normal(sb))]
    if sc is not None:
        arrays.append(f32(rng.standard_normal(sc)))
    out = _run(cpu_engine, arrays, [_lay(x) for x in arrays],
               {"transpose_a": ta, "transpose_b": tb, "alpha": alpha, "beta": beta})
    assert_close(out, gemm64(*arrays[:2], arrays[2] if sc else None, ta, tb, alpha, beta), rtol=1e-4, atol=1e-4)


def test_gemm_blocked_padded_inputs_padded_output(cpu_engine, rng):
    """A in b_fs_yx_fsv16 (channel tail), B padded bfyx, C blocked, output padded."""
    a, b = f32(rng.standard_normal((2, 19, 3, 4))), f32(rng.standard_normal((2, 19, 4, 6)))
    c = f32(rng.standard_normal((1, 19, 1, 6)))
    lays = [_lay(a, Format.b_fs_yx_fsv16, Padding((0, 0, 1, 0), (0, 0, 0, 1))),
            _lay(b, Format.bfyx, Padding((0, 0, 0, 1), (1, 0, 0, 0))), _lay(c, Format.b_fs_yx_fsv16)]
    out = _run(cpu_engine, [a, b, c], lays, {"alpha": 0.75, "beta": 0.5},
               out_pad=Padding((0, 0, 1, 1), (0, 0, 0, 2)))
    assert_close(out, gemm64(a, b, c, False, False, 0.75, 0.5), rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("m,n", [(4, 9), (9, 4)])
def test_gemm_fused_residual_and_activation(cpu_engine, rng, m, n):
    a, b = f32(rng.standard_normal((2, m, 8))), f32(rng.standard_normal((2, n, 8)))
    r = f32(rng.standard_normal((m, n)))  # broadcast over the batch
    fused = [FusedOp("eltwise", FusedEltwiseAttrs("sub")),
             FusedOp("activation", FusedActivationAttrs("relu_negative_slope", a=0.2))]
    out = _run(cpu_engine, [a, b], [_lay(a), _lay(b)], {"transpose_b": True}, fused=fused,
               operands=[(_lay(r, Format.bfyx, Padding((0, 0, 0, 0), (1, 0, 0, 0))), r)])
    v = gemm64(a, b, None, False, True, 1.0, 1.0) - r
    assert_close(out, np.where(v >= 0, v, 0.2 * v), rtol=1e-4, atol=1e-4)


def test_gemm_network(cpu_engine, rng):
    """A MatMul-like network: gemm of two inputs with alpha, then a fused activation."""
    a, b = f32(rng.standard_normal((3, 5, 6))), f32(rng.standard_normal((3, 6, 7)))
    topo = cl.Topology()
    topo.add(cl.InputLayout("a", cl.Layout(cl.DataType.f32, cl.Format.bfyx, a.shape)))
    topo.add(cl.InputLayout("b", cl.Layout(cl.DataType.f32, cl.Format.bfyx, b.shape)))
    topo.add(cl.Gemm("g", inputs=["a", "b"], alpha=0.5))
    topo.add(cl.Activation("act", "g", "abs"))
    net = cl.Network(cl.Program(cpu_engine, topo))
    assert net.program.node("g").impl.kernel_name == FAST
    net.poison()
    assert_close(net.run({"a": a, "b": b})["act"], np.abs(gemm64(a, b, None, False, False, 0.5, 1.0)),
                 rtol=1e-4, atol=1e-4)
