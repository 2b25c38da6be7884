"""Tuning variants of convolution_b_fs_yx_fsv16 (pixel block P x loop order) against the float64 reference.

Auto-tuning may pick any variant of ``tune_variants`` for a shape, so each must be exact on the shapes where tiles
break (each loop order at the narrowest and the widest block, to keep the compile count down): output rows not a
multiple of P (the last block shifts back), rows narrower than P, input channels not a multiple of 16 (IC_REM) or
below 16, output channels with a tail slice, stride 2, dilation, and both halo paths: the zero-padded input read
without checks, and the unpadded input read with bounds checks (its padding NaN).
"""

from __future__ import annotations

import pytest

from cldnn_py.layout import DataType, Format, Layout, Padding
from cldnn_py.ops import ConvolutionAttrs
from kernel_selector import Params
from kernel_selector.common.conv_window import params_halo
from kernel_selector.kernels.convolution.convolution_kernel_b_fs_yx_fsv16 import ConvolutionKernelBFsYxFsv16
from tests.helpers import assert_close, f32, typed_attrs
from tests.ocl.padded import run_kernel_padded
from tests.ocl.zero_halo import FAST, run_zero_halo
from tests.references import conv_ref


@pytest.fixture
def engine(ocl_engine):
    """OpenCL only: these tests are about OpenCL kernels (the CPU engine's are tested in tests/cpu/)."""
    return ocl_engine


KERNEL = ConvolutionKernelBFsYxFsv16()

# (N, C, H, W), OC, K, stride, pad, dilation
SHAPES = [
    ((1, 37, 6, 11), 24, 3, 1, 1, 1),    # C = 2 slices + 5, OW 11 (not a multiple of 3..7), OC tail 8
    ((2, 16, 9, 8), 32, 1, 2, 0, 1),     # 1x1/2, batch 2, OW 4 < most blocks
    ((1, 5, 7, 13), 16, 3, 1, 2, 2),     # C < 16, dilation 2
]


def _layouts(shape, oc, k, stride, pad, dil, padded):
    f = DataType.f32
    oh = (shape[2] + 2 * pad - dil * (k - 1) - 1) // stride + 1
    ow = (shape[3] + 2 * pad - dil * (k - 1) - 1) // stride + 1
    xl = Layout(f, Format.b_fs_yx_fsv16, shape)
    wl = Layout(f, Format.os_iyx_osv16, (oc, shape[1], k, k))
    bl = Layout(f, Format.bfyx, (oc,))
    ol = Layout(f, Format.b_fs_yx_fsv16, (shape[0], oc, oh, ow))
    attrs = {"stride": (stride, stride), "dilation": (dil, dil), "pad": (pad, pad), "pad_end": (pad, pad),
             "groups": 1}
    if padded:
        (by, ay), (bx, ax) = params_halo(Params("convolution", "ocl", [xl, wl, bl], ol,
                                                typed_attrs("convolution", attrs)))
        xl = xl.with_(padding=Padding((0, 0, by, bx), (0, 0, ay, ax)))
    return [xl, wl, bl], ol, attrs


@pytest.mark.parametrize("padded", [True, False], ids=["zero-halo", "checked"])
@pytest.mark.parametrize("case", SHAPES, ids=lambda c: f"{c[0]}-oc{c[1]}-k{c[2]}-s{c[3]}-d{c[5]}")
def test_every_tuning_variant_matches_reference(engine, rng, case, padded):
    shape, oc, k, stride, pad, dil = case
    x = f32(rng.standard_normal(shape))
    w = f32(rng.standard_normal((oc, shape[1], k, k)))
    b = f32(rng.standard_normal(oc))
    inputs, output, attrs = _layouts(shape, oc, k, stride, pad, dil, padded)
    expect = conv_ref(x, w, b, (stride, stride), (dil, dil), (pad, pad), (pad, pad), 1)
    variants = KERNEL.tune_variants(Params("convolution", "ocl", inputs, output, typed_attrs("convolution", attrs)))
    ow = output.dims4[3]
    assert {v["loop_order"] for v in variants} == {0, 1, 2}
    assert {v["block"] for v in variants} == ({p for p in range(3, 8) if p <= ow} if ow >= 3 else {ow})
    edge = {min(v["block"] for v in variants), max(v["block"] for v in variants)}
    for variant in [v for v in variants if v["block"] in edge]:  # each loop order at the narrowest, widest block
        if padded:
            out = run_zero_halo(engine, inputs, output, attrs, [x, w, b], variant)
        else:
            out = run_kernel_padded(engine, "convolution", inputs, output, attrs, [x, w, b], FAST, variant)
        try:
            assert_close(out, expect, rtol=1e-4, atol=1e-4)
        except AssertionError as err:
            raise AssertionError(f"variant {variant}: {err}") from None


def test_depthwise_variants_keep_the_tap_order():
    f = DataType.f32
    inputs = [Layout(f, Format.b_fs_yx_fsv16, (1, 32, 9, 9)), Layout(f, Format.os_iyx_osv16, (32, 1, 3, 3))]
    params = Params("convolution", "ocl", inputs, Layout(f, Format.b_fs_yx_fsv16, (1, 32, 9, 9)),
                    ConvolutionAttrs(pad=(1, 1), pad_end=(1, 1), groups=32))
    variants = KERNEL.tune_variants(params)
    assert {v["loop_order"] for v in variants} == {0} and len(variants) == 5


def test_aligned_groups_keep_every_loop_order():
    """Groups of 16 input and 32 output channels are not depthwise: all three loop orders are tuning variants."""
    f = DataType.f32
    inputs = [Layout(f, Format.b_fs_yx_fsv16, (1, 32, 9, 9)), Layout(f, Format.os_iyx_osv16, (64, 16, 3, 3))]
    params = Params("convolution", "ocl", inputs, Layout(f, Format.b_fs_yx_fsv16, (1, 64, 9, 9)),
                    ConvolutionAttrs(pad=(1, 1), pad_end=(1, 1), groups=2))
    assert {v["loop_order"] for v in KERNEL.tune_variants(params)} == {0, 1, 2}
