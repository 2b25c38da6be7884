"""scale vs a float64 numpy reference: per-channel (1, C, 1, 1) and (C, 1, 1), per-element, scalar and spatial
scales, with and without bias, formats, padded buffers, and the shape check of calc_output_layout."""

from __future__ import annotations

import pytest

import cldnn_py as cl
from tests.helpers import assert_close, f32, run_single
from tests.ocl.padded import run_kernel_padded
from tests.references import scale_ref

CASES = [
    # x shape, scale shape, bias shape (None: no bias)
    ((2, 5, 3, 4), (1, 5, 1, 1), (1, 5, 1, 1)),
    ((2, 5, 3, 4), (5, 1, 1), (5, 1, 1)),
    ((2, 5, 3, 4), (5, 1, 1), None),
    ((1, 4, 3, 5), (1, 4, 3, 5), (4, 1, 1)),   # per element scale, per channel bias
    ((2, 3, 4, 5), (1,), (4, 5)),              # scalar scale, spatial bias
    ((3, 7), (7,), (1, 7)),                    # rank 2 input (after a fully connected)
]


@pytest.mark.ocl_every(2)
@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c[0]}-s{c[1]}-b{c[2]}")
@pytest.mark.parametrize("fmt", [cl.Format.bfyx, cl.Format.b_fs_yx_fsv16, cl.Format.byxf])
def test_scale_matches_reference(engine, rng, case, fmt):
    xs, ss, bs = case
    x, s = f32(rng.standard_normal(xs)), f32(rng.standard_normal(ss))
    b = f32(rng.standard_normal(bs)) if bs else None
    prim = cl.Scale("sc", "x", scale="s", bias="b" if bs else None)
    data = {"s": s} | ({"b": b} if bs else {})
    out = run_single(engine, prim, {"x": x}, data, fmt=fmt, out_fmt=cl.Format.bfyx)
    assert_close(out, scale_ref(x, s, b))


def test_scale_keeps_input_format(engine):
    lay = cl.Layout(cl.DataType.f32, cl.Format.b_fs_yx_fsv16, (1, 20, 2, 2))
    s = cl.Layout(cl.DataType.f32, cl.Format.bfyx, (20, 1, 1))
    assert cl.Scale("sc", "x", scale="s").calc_output_layout([lay, s]) == lay


def test_scale_shape_must_broadcast_to_input():
    lay = cl.Layout(cl.DataType.f32, cl.Format.bfyx, (1, 4, 2, 2))
    bad = cl.Layout(cl.DataType.f32, cl.Format.bfyx, (3, 1, 1))
    with pytest.raises(cl.ShapeError, match="sc"):
        cl.Scale("sc", "x", scale="s").calc_output_layout([lay, bad])


@pytest.mark.parametrize("fmt", [cl.Format.bfyx, cl.Format.b_fs_yx_fsv16])
def test_scale_padded_buffers(engine, rng, fmt):
    x, s, b = (f32(rng.standard_normal(sh)) for sh in [(2, 3, 4, 5), (3, 1, 1), (1, 3, 1, 5)])
    pad_f = 0 if fmt.is_blocked else 1
    lx = cl.Layout(cl.DataType.f32, fmt, x.shape, cl.Padding((1, pad_f, 2, 0), (0, 2 * pad_f, 1, 2)))
    ls = cl.Layout(cl.DataType.f32, cl.Format.byxf, s.shape, cl.Padding((1, 1, 0, 0), (0, 2, 1, 0)))
    lb = cl.Layout(cl.DataType.f32, cl.Format.bfyx, b.shape, cl.Padding((0, 0, 1, 1), (0, 1, 0, 2)))
    prim = cl.Scale("sc", "x", scale="s", bias="b")
    lout = prim.calc_output_layout([lx, ls, lb]).with_(padding=cl.Padding((0, pad_f, 1, 1), (1, 0, 0, 3)))
    out = run_kernel_padded(engine, "scale", [lx, ls, lb], lout, prim.attrs(), [x, s, b])
    assert_close(out, scale_ref(x, s, b))
