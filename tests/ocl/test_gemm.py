"""gemm vs float64 numpy: matmul semantics (1-D operands, batch broadcasting, ranks up to 6), transposes,
alpha/beta with a broadcast C, formats and padded buffers."""

from __future__ import annotations

import pytest

import cldnn_py as cl
from cldnn_py.primitives.gemm import Gemm
from tests.helpers import assert_close, f32, run_single, run_topology
from tests.ocl.padded import run_kernel_padded
from tests.references import gemm_ref

CASES = [
    # A shape, B shape, C shape or None, transpose_a, transpose_b, alpha, beta
    ((3, 5), (5, 4), None, False, False, 1.0, 1.0),
    ((6, 3), (6, 4), (1, 4), True, False, 0.5, 2.0),
    ((3, 6), (4, 6), (3, 4), False, True, 1.0, -0.5),
    ((7, 3), (5, 7), (5,), True, True, 0.25, 0.35),
    ((1, 1), (1, 9), (), False, False, 1.0, 1.0),          # scalar C
    ((2, 3, 4), (2, 4, 3), None, False, False, 1.0, 1.0),
    ((3, 1, 3, 4), (1, 2, 4, 2), None, False, False, 1.0, 1.0),   # batch broadcast both ways
    ((2, 5, 7), (7, 3), (5, 1), False, False, 1.5, 1.0),    # B without batch, C column
    ((4,), (2, 4, 3), None, False, False, 1.0, 1.0),       # 1-D A
    ((2, 2, 4, 3), (3,), None, False, False, 1.0, 1.0),    # 1-D B
    ((5,), (5,), None, False, False, 1.0, 1.0),            # dot product
    ((2, 1, 2, 3, 4), (1, 3, 1, 4, 2), None, False, False, 1.0, 1.0),   # rank 5
    ((2, 1, 2, 1, 3, 5), (1, 2, 1, 2, 3, 2), (5, 1), True, False, 1.0, 1.0),   # rank 6, transposed A
    ((17, 33), (33, 19), None, False, False, 1.0, 1.0),    # odd K
]


@pytest.mark.ocl_every(2)
@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c[0]}x{c[1]}-c{c[2]}-t{int(c[3])}{int(c[4])}")
def test_gemm_matches_reference(engine, rng, case):
    sa, sb, sc, ta, tb, alpha, beta = case
    a, b = f32(rng.standard_normal(sa)), f32(rng.standard_normal(sb))
    c = f32(rng.standard_normal(sc)) if sc is not None else None
    inputs = {"a": a, "b": b}
    ids = ["a", "b"]
    if c is not None:
        inputs["c"] = c.reshape(1) if c.ndim == 0 else c
        ids.append("c")
    prim = Gemm("y", inputs=ids, transpose_a=ta, transpose_b=tb, alpha=alpha, beta=beta)
    out = run_single(engine, prim, inputs)
    ref = gemm_ref(a, b, c, ta, tb, alpha, beta)
    assert_close(out, ref.reshape(out.shape) if ref.ndim == 0 else ref, rtol=1e-4, atol=1e-4)
    assert out.shape == (ref.shape or (1,))


@pytest.mark.parametrize("fmt", [cl.Format.b_fs_yx_fsv16, cl.Format.byxf])
def test_gemm_formats(engine, rng, fmt):
    """Every operand in a non-plain format (A, B and C of rank 4 go through the format's GET_INDEX)."""
    a, b = f32(rng.standard_normal((2, 3, 5, 6))), f32(rng.standard_normal((1, 3, 4, 5)))
    c = f32(rng.standard_normal((2, 1, 6, 4)))
    prim = Gemm("y", inputs=["a", "b", "c"], transpose_a=True, transpose_b=True, alpha=0.7, beta=0.3)
    out = run_single(engine, prim, {"a": a, "b": b, "c": c}, fmt=fmt)
    assert_close(out, gemm_ref(a, b, c, True, True, 0.7, 0.3), rtol=1e-4, atol=1e-4)


def test_gemm_padded_buffers(engine, rng):
    sa, sb = (2, 18, 5, 7), (2, 18, 7, 3)
    la = cl.Layout(cl.DataType.f32, cl.Format.byxf, sa, cl.Padding((0, 1, 2, 1), (1, 0, 1, 2)))
    lb = cl.Layout(cl.DataType.f32, cl.Format.b_fs_yx_fsv16, sb, cl.Padding((1, 0, 0, 1), (0, 0, 2, 0)))
    lc = cl.Layout(cl.DataType.f32, cl.Format.bfyx, (5, 1), cl.Padding((1, 0, 0, 0), (0, 2, 0, 0)))
    prim = Gemm("y", inputs=["a", "b", "c"], alpha=2.0, beta=-1.0)
    lout = prim.calc_output_layout([la, lb, lc]).with_(format=cl.Format.byxf,
                                                       padding=cl.Padding((0, 1, 1, 0), (1, 0, 0, 1)))
    a, b, c = f32(rng.standard_normal(sa)), f32(rng.standard_normal(sb)), f32(rng.standard_normal((5, 1)))
    out = run_kernel_padded(engine, "gemm", [la, lb, lc], lout, prim.attrs(), [a, b, c])
    assert_close(out, gemm_ref(a, b, c, alpha=2.0, beta=-1.0), rtol=1e-4, atol=1e-4)


def test_gemm_long_k(engine, rng):
    """A 96 x 700 x 80 product with a constant B: accumulation over a long K."""
    a, b = f32(rng.standard_normal((96, 700))), f32(rng.standard_normal((700, 80)))
    topo = cl.Topology()
    topo.add(cl.InputLayout("a", cl.Layout(cl.DataType.f32, cl.Format.bfyx, a.shape)))
    topo.add(cl.Data("b", b))
    topo.add(Gemm("y", inputs=["a", "b"]))
    out = run_topology(engine, topo, {"a": a})["y"]
    assert_close(out, gemm_ref(a, b), rtol=1e-3, atol=1e-3)


def test_gemm_shape_errors():
    lay = lambda *s: cl.Layout(cl.DataType.f32, cl.Format.bfyx, s)  # noqa: E731
    with pytest.raises(cl.ShapeError, match="gemm 'g': A and B shapes"):
        Gemm("g", inputs=["a", "b"]).calc_output_layout([lay(3, 4), lay(5, 2)])
    with pytest.raises(cl.ShapeError, match="gemm 'g': A and B shapes"):
        Gemm("g", inputs=["a", "b"]).calc_output_layout([lay(2, 3, 4), lay(3, 4, 2)])
    with pytest.raises(cl.ShapeError, match="C 'c' shape broadcastable"):
        Gemm("g", inputs=["a", "b", "c"]).calc_output_layout([lay(3, 4), lay(4, 2), lay(3, 3)])
    with pytest.raises(cl.TopologyError, match="gemm 'g': inputs must be"):
        Gemm("g", inputs=["a"])
    assert Gemm("g", inputs=["a", "b"]).calc_output_layout([lay(4), lay(4)]).shape == (1,)
