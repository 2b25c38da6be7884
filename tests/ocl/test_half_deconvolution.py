"""f16 storage in the transposed convolutions (issue 18): deconvolution_ref (any format, groups) and
deconvolution_b_fs_yx_fsv16 (blocked or plain narrow-head output), forced with half inputs, weights, bias and output
(values rounded to half first) on padded tensors with channel tails, plus mixed f32 / f16 tensors, vs the float64
scatter reference; output padding poisoned and checked untouched (tests/ocl/padded.py)."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from cldnn_py.layout import DataType, Format, Layout, Padding
from cldnn_py.ops import DeconvolutionAttrs
from tests.ocl.half import assert_half_close, run_kernel_half
from tests.ocl.padded import run_kernel_padded
from tests.references import deconv_ref

F16, F32 = DataType.f16, DataType.f32
BFYX, FSV16 = Format.bfyx, Format.b_fs_yx_fsv16
REF, FAST = "deconvolution_ref", "deconvolution_b_fs_yx_fsv16"

# kernel, (N, C, H, W), OC, (KH, KW), stride, dilation, pad, pad_end, output_padding, groups, input fmt, output fmt
CASES = [
    (REF, (1, 6, 4, 5), 7, (3, 3), (2, 2), (1, 1), (1, 1), (1, 1), (1, 0), 1, BFYX, BFYX),
    (REF, (1, 6, 3, 4), 4, (4, 4), (2, 2), (1, 1), (1, 1), (1, 1), (0, 0), 2, FSV16, FSV16),
    (FAST, (1, 20, 4, 5), 18, (2, 2), (2, 2), (1, 1), (0, 0), (0, 0), (0, 0), 1, FSV16, FSV16),  # C and OC tails
    (FAST, (2, 16, 3, 4), 16, (4, 4), (2, 2), (1, 1), (1, 1), (1, 1), (0, 0), 1, FSV16, FSV16),  # FCN 4x4/2
    (FAST, (1, 5, 3, 5), 7, (3, 2), (3, 2), (1, 1), (1, 0), (2, 1), (2, 1), 1, FSV16, FSV16),    # odd strides
    (FAST, (1, 16, 4, 9), 3, (2, 2), (2, 2), (1, 1), (0, 0), (0, 0), (0, 0), 1, FSV16, BFYX),    # narrow head
]


def _setup(case, rng, dtypes=(F16, F16, F16, F16)):
    """(layouts, output layout, attrs, f32 arrays) of a CASES row: input padded along y / x, output along b / y / x."""
    _, shape, oc, k, s, d, pad, pad_end, out_pad, g, in_fmt, out_fmt = case
    x = rng.standard_normal(shape).astype(np.float32)
    w = (rng.standard_normal((shape[1], oc // g) + k) / np.sqrt(shape[1] / g)).astype(np.float32)
    b = rng.standard_normal(oc).astype(np.float32)
    ref_shape = deconv_ref(x, w, b, s, d, pad, pad_end, out_pad, g).shape
    attrs = DeconvolutionAttrs(stride=s, dilation=d, pad=pad, pad_end=pad_end, output_padding=out_pad, groups=g)
    lays = [Layout(dtypes[0], in_fmt, shape, Padding((0, 0, 1, 0), (0, 0, 0, 2))),
            Layout(dtypes[1], BFYX, w.shape), Layout(dtypes[2], BFYX, (oc,))]
    lout = Layout(dtypes[3], out_fmt, ref_shape, Padding((1, 0, 1, 0), (0, 0, 0, 2)))
    return lays, lout, attrs, [x, w, b]


def _ref(attrs, vals):
    """The float64 transposed convolution of the (float64) values the kernel read."""
    return deconv_ref(*vals, attrs.stride, attrs.dilation, attrs.pad, attrs.pad_end, attrs.output_padding,
                      attrs.groups)


@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c[0]}-{c[1]}-oc{c[2]}-k{c[3]}-s{c[4]}-{c[11].value}")
def test_deconv_half(ocl_engine, rng, case):
    lays, lout, attrs, arrays = _setup(case, rng)
    out, vals = run_kernel_half(ocl_engine, "deconvolution", lays, lout, dataclasses.asdict(attrs), arrays,
                                kernel=case[0])
    assert out.dtype == np.float16
    assert_half_close(out, _ref(attrs, vals))


@pytest.mark.parametrize("dtypes", [(F32, F16, F32, F16), (F16, F32, F16, F32)],
                         ids=lambda t: "-".join(d.value for d in t))
@pytest.mark.parametrize("case", [CASES[0], CASES[2], CASES[5]], ids=["ref", "fsv16", "fsv16-plain-out"])
def test_deconv_mixed_precision(ocl_engine, rng, case, dtypes):
    """f16 weights with f32 activations into an f16 output, and the reverse into an f32 output."""
    lays, lout, attrs, arrays = _setup(case, rng, dtypes)
    vals = [a.astype(lay.dtype.numpy) for a, lay in zip(arrays, lays)]
    out = run_kernel_padded(ocl_engine, "deconvolution", lays, lout, dataclasses.asdict(attrs), vals, kernel=case[0])
    assert out.dtype == lout.dtype.numpy
    ref = _ref(attrs, [v.astype(np.float64) for v in vals])
    assert_half_close(out, ref, rtol=2e-3 if lout.dtype == F16 else 2e-5)
