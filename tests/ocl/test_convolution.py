"""convolution vs a float64 numpy reference: strides, dilations, groups/depthwise, asymmetric pads, formats."""

from __future__ import annotations

import pytest

import cldnn_py as cl
from tests.helpers import assert_close, f32, run_single
from tests.references import conv_ref

CASES = [
    # (N, C, H, W), OC, (KH, KW), stride, dilation, pad, pad_end, groups, bias
    ((1, 3, 9, 11), 5, (3, 3), (1, 1), (1, 1), (1, 1), None, 1, True),
    ((2, 4, 10, 9), 6, (3, 2), (2, 1), (1, 1), (0, 1), (2, 0), 1, True),
    ((1, 6, 12, 12), 6, (3, 3), (1, 1), (2, 2), (2, 2), None, 3, False),
    ((1, 8, 7, 7), 8, (3, 3), (2, 2), (1, 1), (1, 1), None, 8, True),   # depthwise
    ((1, 5, 8, 8), 7, (1, 1), (1, 1), (1, 1), (0, 0), None, 1, True),
    ((1, 3, 15, 15), 4, (7, 7), (2, 2), (1, 1), (3, 3), None, 1, True),
]


@pytest.mark.ocl_every(2)
@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c[0]}-oc{c[1]}-k{c[2]}-s{c[3]}-d{c[4]}-g{c[7]}")
@pytest.mark.parametrize("fmt", [cl.Format.bfyx, cl.Format.b_fs_yx_fsv16, cl.Format.byxf])
def test_convolution_matches_reference(engine, rng, case, fmt):
    shape, oc, k, stride, dil, pad, pad_end, groups, bias = case
    x = f32(rng.standard_normal(shape))
    w = f32(rng.standard_normal((oc, shape[1] // groups) + k))
    b = f32(rng.standard_normal(oc)) if bias else None
    prim = cl.Convolution("conv", "x", weights="w", bias="b" if bias else None, stride=stride, dilation=dil,
                          pad=pad, pad_end=pad_end, groups=groups)
    data = {"w": w} | ({"b": b} if bias else {})
    ref = "convolution_cpu_ref" if engine.kind == "cpu" else "convolution_ref"
    ref_only = cl.BuildOptions(force_implementations={"conv": ref})  # the layout optimizer would
    out = run_single(engine, prim, {"x": x}, data, fmt=fmt, out_fmt=cl.Format.bfyx, options=ref_only)  # pick fsv16
    assert_close(out, conv_ref(x, w, b, stride, dil, pad, pad_end or pad, groups), rtol=1e-4, atol=1e-4)
