"""convolution vs a float64 numpy reference: strides, dilations, groups/depthwise, asymmetric pads, formats."""

from __future__ import annotations

import numpy as np
import pytest

import cldnn_py as cl
from tests.helpers import assert_close, f32, run_single


def conv_ref(x, w, b, stride, dilation, pad, pad_end, groups):
    """Direct float64 convolution (independent of the kernel's loop order)."""
    x = np.pad(x.astype(np.float64), ((0, 0), (0, 0), (pad[0], pad_end[0]), (pad[1], pad_end[1])))
    n, c, h, wd = x.shape
    oc, icg, kh, kw = w.shape
    oh = (h - dilation[0] * (kh - 1) - 1) // stride[0] + 1
    ow = (wd - dilation[1] * (kw - 1) - 1) // stride[1] + 1
    out = np.zeros((n, oc, oh, ow))
    ocg = oc // groups
    for g in range(groups):
        xs = x[:, g * icg:(g + 1) * icg]
        ws = w[g * ocg:(g + 1) * ocg].astype(np.float64)
        for ky in range(kh):
            for kx in range(kw):
                patch = xs[:, :, ky * dilation[0]: ky * dilation[0] + stride[0] * (oh - 1) + 1: stride[0],
                           kx * dilation[1]: kx * dilation[1] + stride[1] * (ow - 1) + 1: stride[1]]
                out[:, g * ocg:(g + 1) * ocg] += np.einsum("ncyx,oc->noyx", patch, ws[:, :, ky, kx])
    if b is not None:
        out += b.astype(np.float64)[None, :, None, None]
    return out


CASES = [
    # (N, C, H, W), OC, (KH, KW), stride, dilation, pad, pad_end, groups, bias
    ((1, 3, 9, 11), 5, (3, 3), (1, 1), (1, 1), (1, 1), None, 1, True),
    ((2, 4, 10, 9), 6, (3, 2), (2, 1), (1, 1), (0, 1), (2, 0), 1, True),
    ((1, 6, 12, 12), 6, (3, 3), (1, 1), (2, 2), (2, 2), None, 3, False),
    ((1, 8, 7, 7), 8, (3, 3), (2, 2), (1, 1), (1, 1), None, 8, True),   # depthwise
    ((1, 5, 8, 8), 7, (1, 1), (1, 1), (1, 1), (0, 0), None, 1, True),
    ((1, 3, 15, 15), 4, (7, 7), (2, 2), (1, 1), (3, 3), None, 1, True),
]


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
