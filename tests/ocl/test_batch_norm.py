"""batch_norm (inference) vs a float64 numpy reference: optional scale/shift, ranks 2-4, statistic shapes, formats."""

from __future__ import annotations

import numpy as np
import pytest

import cldnn_py as cl
from tests.helpers import assert_close, f32, run_single
from tests.ocl.padded import run_kernel_padded
from tests.references import batch_norm_ref

CASES = [
    # shape, has_scale, has_shift, epsilon, statistic shape ("c": (C,), "1c11": (1, C, 1, 1), "111c": (1, 1, 1, C))
    ((2, 19, 5, 4), True, True, 1e-5, "c"),
    ((1, 7, 6, 3), False, False, 1e-3, "c"),
    ((2, 5, 3, 4), True, False, 1e-5, "1c11"),
    ((1, 6, 4, 5), False, True, 0.1, "111c"),
    ((3, 10), True, True, 1e-5, "c"),      # after a fully connected layer
    ((2, 4, 9), True, True, 1e-5, "c"),    # rank 3
]


@pytest.mark.ocl_every(2)
@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c[0]}-sc{int(c[1])}-sh{int(c[2])}-eps{c[3]}-{c[4]}")
@pytest.mark.parametrize("fmt", [cl.Format.bfyx, cl.Format.b_fs_yx_fsv16, cl.Format.byxf])
def test_batch_norm_matches_reference(engine, rng, case, fmt):
    shape, has_scale, has_shift, eps, sshape = case
    c = shape[1]
    st = {"c": (c,), "1c11": (1, c, 1, 1), "111c": (1, 1, 1, c)}[sshape]
    x = f32(rng.standard_normal(shape) * 3 + 1)
    stats = {"mean": f32(rng.standard_normal(st)), "var": f32(rng.uniform(0.05, 4.0, st))}
    if has_scale:
        stats["scale"] = f32(rng.standard_normal(st))
    if has_shift:
        stats["shift"] = f32(rng.standard_normal(st))
    prim = cl.BatchNorm("bn", "x", mean="mean", variance="var", scale="scale" if has_scale else None,
                        shift="shift" if has_shift else None, epsilon=eps)
    out = run_single(engine, prim, {"x": x}, stats, fmt=fmt, out_fmt=cl.Format.bfyx)
    ref = batch_norm_ref(x, stats["mean"], stats["var"], stats.get("scale"), stats.get("shift"), eps)
    assert_close(out, ref, rtol=1e-4, atol=1e-5)


def test_batch_norm_statistics_as_inputs_in_other_format(engine, rng):
    """Statistics fed as network inputs and reordered to b_fs_yx_fsv16: read through their own GET_INDEX."""
    shape = (2, 18, 3, 5)
    c = shape[1]
    x = f32(rng.standard_normal(shape))
    feeds = {"x": x, "mean": f32(rng.standard_normal((1, c, 1, 1))),
             "var": f32(rng.uniform(0.1, 2.0, (1, c, 1, 1))), "scale": f32(rng.standard_normal((1, c, 1, 1))),
             "shift": f32(rng.standard_normal((1, c, 1, 1)))}
    prim = cl.BatchNorm("bn", "x", mean="mean", variance="var", scale="scale", shift="shift", epsilon=1e-5)
    out = run_single(engine, prim, feeds, fmt=cl.Format.b_fs_yx_fsv16, out_fmt=cl.Format.bfyx)
    ref = batch_norm_ref(x, feeds["mean"], feeds["var"], feeds["scale"], feeds["shift"], 1e-5)
    assert_close(out, ref, rtol=1e-4, atol=1e-5)


def test_batch_norm_padded_buffers(engine, rng):
    """Padded b_fs_yx_fsv16 input and bfyx output; padded statistics of four shapes, so channel c sits in their
    b, f, y or x dimension: (C,), (1, C, 1, 1) byxf, (1, 1, C), (1, 1, 1, C). Padding holds NaN: only interiors
    are read, and only the output's interior is written."""
    shape, c = (2, 19, 3, 4), 19
    pad, f32l = cl.Padding, cl.DataType.f32
    lx = cl.Layout(f32l, cl.Format.b_fs_yx_fsv16, shape, pad((1, 0, 1, 2), (0, 0, 2, 1)))
    stat_layouts = [cl.Layout(f32l, cl.Format.bfyx, (c,), pad((3, 0, 0, 0), (2, 0, 0, 0))),
                    cl.Layout(f32l, cl.Format.byxf, (1, c, 1, 1), pad((0, 2, 1, 0), (1, 1, 0, 2))),
                    cl.Layout(f32l, cl.Format.bfyx, (1, 1, c), pad((0, 1, 2, 1), (1, 0, 1, 0))),
                    cl.Layout(f32l, cl.Format.yxfb, (1, 1, 1, c), pad((1, 0, 0, 2), (0, 1, 1, 3)))]
    lout = cl.Layout(f32l, cl.Format.bfyx, shape, pad((0, 1, 2, 0), (1, 2, 0, 3)))
    x = f32(rng.standard_normal(shape))
    mean, var, scale, shift = (f32(rng.standard_normal(lay.shape)) for lay in stat_layouts)
    var = np.abs(var) + f32(0.1)
    attrs = {"epsilon": 1e-3, "has_scale": True, "has_shift": True}
    out = run_kernel_padded(engine, "batch_norm", [lx] + stat_layouts, lout, attrs, [x, mean, var, scale, shift])
    assert_close(out, batch_norm_ref(x, mean, var, scale, shift, 1e-3), rtol=1e-4, atol=1e-5)
