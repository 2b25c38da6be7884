"""deconvolution (transposed convolution) vs a float64 numpy scatter reference: strides, dilations, pads,
output padding, groups, bias, formats, padded buffers; and the adjoint identity <conv(x), y> = <x, deconv(y)>."""

from __future__ import annotations

import numpy as np
import pytest

import cldnn_py as cl
from cldnn_py.primitives.deconvolution import Deconvolution
from tests.helpers import assert_close, f32, run_single
from tests.ocl.padded import run_kernel_padded
from tests.references import deconv_ref

CASES = [
    # (N, C, H, W), OC, (KH, KW), stride, dilation, pad, pad_end, output_padding, groups, bias
    ((1, 1, 3, 3), 2, (3, 3), (1, 1), (1, 1), (0, 0), (0, 0), (0, 0), 1, False),
    ((2, 3, 4, 5), 4, (3, 3), (2, 2), (1, 1), (1, 1), (1, 1), (1, 1), 1, True),
    ((1, 2, 3, 3), 3, (3, 2), (3, 2), (1, 1), (1, 0), (2, 1), (2, 1), 1, True),
    ((1, 4, 4, 3), 6, (2, 3), (2, 1), (2, 3), (0, 2), (1, 0), (0, 0), 2, True),
    ((1, 6, 5, 5), 6, (3, 3), (2, 2), (1, 1), (1, 1), (1, 1), (1, 1), 6, False),   # depthwise
    ((1, 5, 6, 7), 3, (1, 1), (1, 1), (1, 1), (0, 0), (0, 0), (0, 0), 1, True),
]


@pytest.mark.ocl_every(2)
@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c[0]}-oc{c[1]}-k{c[2]}-s{c[3]}-d{c[4]}-g{c[8]}")
@pytest.mark.parametrize("fmt", [cl.Format.bfyx, cl.Format.b_fs_yx_fsv16])
def test_deconvolution_matches_reference(engine, rng, case, fmt):
    shape, oc, k, stride, dil, pad, pad_end, out_pad, groups, bias = case
    x = f32(rng.standard_normal(shape))
    w = f32(rng.standard_normal((shape[1], oc // groups) + k))
    b = f32(rng.standard_normal(oc)) if bias else None
    prim = Deconvolution("deconv", "x", weights="w", bias="b" if bias else None, stride=stride, dilation=dil,
                         pad=pad, pad_end=pad_end, output_padding=out_pad, groups=groups)
    data = {"w": w} | ({"b": b} if bias else {})
    out = run_single(engine, prim, {"x": x}, data, fmt=fmt, out_fmt=cl.Format.bfyx)
    assert_close(out, deconv_ref(x, w, b, stride, dil, pad, pad_end, out_pad, groups), rtol=1e-4, atol=1e-4)


def test_deconvolution_is_the_adjoint_of_convolution(engine, rng):
    """<conv(x, W), y> = <x, deconv(y, W)> for the same W (weights read as (C, OC) by the deconvolution)."""
    x = f32(rng.standard_normal((1, 3, 9, 8)))
    w = f32(rng.standard_normal((4, 3, 3, 3)))   # conv: OC=4, C=3; deconv of (1, 4, ...) back to 3 channels
    conv = cl.Convolution("conv", "x", weights="w", stride=(2, 2), pad=(1, 1))
    cx = run_single(engine, conv, {"x": x}, {"w": w})
    y = f32(rng.standard_normal(cx.shape))
    de = Deconvolution("de", "y", weights="w", stride=(2, 2), pad=(1, 1), output_padding=(0, 1))
    dy = run_single(engine, de, {"y": y}, {"w": w})
    assert dy.shape == x.shape
    np.testing.assert_allclose((cx.astype(np.float64) * y).sum(), (x.astype(np.float64) * dy).sum(), rtol=1e-4)


def test_deconvolution_padded_buffers(engine, rng):
    shape = (2, 4, 3, 4)
    lin = cl.Layout(cl.DataType.f32, cl.Format.byxf, shape, cl.Padding((0, 1, 1, 2), (1, 0, 2, 1)))
    lw = cl.Layout(cl.DataType.f32, cl.Format.bfyx, (4, 3, 3, 2))
    lb = cl.Layout(cl.DataType.f32, cl.Format.bfyx, (1, 6, 1, 1))
    prim = Deconvolution("d", "x", weights="w", bias="b", stride=(2, 3), pad=(1, 0), pad_end=(0, 1),
                         output_padding=(1, 0), groups=2)
    lout = prim.calc_output_layout([lin, lw, lb]).with_(format=cl.Format.b_fs_yx_fsv16,
                                                        padding=cl.Padding((1, 0, 0, 2), (0, 0, 1, 1)))
    x, w, b = f32(rng.standard_normal(shape)), f32(rng.standard_normal(lw.shape)), f32(rng.standard_normal(6))
    out = run_kernel_padded(engine, "deconvolution", [lin, lw, lb], lout, prim.attrs(), [x, w, b.reshape(lb.shape)])
    assert_close(out, deconv_ref(x, w, b, (2, 3), (1, 1), (1, 0), (0, 1), (1, 0), 2), rtol=1e-4, atol=1e-4)


def test_deconvolution_shape_errors():
    lay = lambda *s: cl.Layout(cl.DataType.f32, cl.Format.bfyx, s)  # noqa: E731
    with pytest.raises(cl.ShapeError, match="deconvolution 'd': weights 'w' shape"):
        Deconvolution("d", "x", weights="w").calc_output_layout([lay(1, 3, 4, 4), lay(2, 3, 3, 3)])
    with pytest.raises(cl.ShapeError, match="deconvolution 'd': bias 'b' shape"):
        Deconvolution("d", "x", weights="w", bias="b", groups=3).calc_output_layout(
            [lay(1, 3, 4, 4), lay(3, 2, 3, 3), lay(2)])
    with pytest.raises(cl.ShapeError, match="output size"):
        Deconvolution("d", "x", weights="w", pad=(3, 3)).calc_output_layout([lay(1, 3, 2, 2), lay(3, 2, 2, 2)])
    with pytest.raises(cl.TopologyError, match="pads >= 0"):
        Deconvolution("d", "x", weights="w", output_padding=(-1, 0))
    out = Deconvolution("d", "x", weights="w", stride=2, groups=3, output_padding=1).calc_output_layout(
        [lay(1, 3, 4, 5), lay(3, 2, 3, 3)])
    assert out.shape == (1, 6, 10, 12)
