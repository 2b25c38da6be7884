"""convolution_b_fs_yx_fsv16 in both vector forms, VEC16 (one float16 accumulator per pixel, chosen on devices whose
native float vector is 16 wide) and two float8, forced through the DeviceCaps on whatever device runs the tests, vs
the float64 reference: dense 3x3 with a zero halo (unchecked path) and without (bounds-checked border path), strided,
dilated, 1x1, depthwise, aligned groups, block-diagonal weights, channel tails, fused relu; output padding is
checked untouched."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from cldnn_py.layout import DataType, Format, Layout, Padding
from cldnn_py.ops import ConvolutionAttrs, FusedActivationAttrs
from cldnn_py.passes.densify_grouped_convolutions import dense_weights
from kernel_selector import FusedOp, Params
from kernel_selector.kernels.convolution.convolution_kernel_b_fs_yx_fsv16 import ConvolutionKernelBFsYxFsv16, vec16
from tests.helpers import assert_close, f32
from tests.ocl.padded import padding_mask, run_bound_kernel, run_kernel_padded
from tests.references import conv_ref

KERNEL = "convolution_b_fs_yx_fsv16"

CASES = [
    # (N, C, H, W), OC, K, stride, dilation, pad, groups, block_diagonal, input halo
    ((1, 16, 9, 11), 32, 3, 1, 1, 1, 1, 1, True),
    ((1, 19, 7, 9), 21, 3, 1, 1, 1, 1, 1, False),
    ((2, 8, 11, 13), 16, 3, 2, 1, 1, 1, 1, False),
    ((1, 16, 9, 10), 16, 3, 1, 2, 2, 1, 1, False),
    ((1, 40, 6, 17), 24, 1, 1, 1, 0, 1, 1, True),
    ((1, 32, 8, 9), 32, 3, 1, 1, 1, 32, 1, False),     # depthwise
    ((1, 32, 5, 6), 64, 3, 1, 1, 1, 2, 1, True),       # groups of 16 in, 32 out
    ((1, 68, 5, 6), 68, 1, 1, 1, 0, 1, 4, True),       # ShuffleNet's densified 1x1
    ((1, 24, 6, 7), 48, 3, 2, 1, 1, 1, 3, False),      # densified strided 3x3, border path
]


@pytest.mark.ocl_every(2)
@pytest.mark.parametrize("vec", [16, 8])
@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c[0]}-oc{c[1]}-k{c[2]}-s{c[3]}-d{c[4]}-g{c[6]}-bd{c[7]}")
def test_conv_fsv16_vector_forms(ocl_engine, rng, vec, case):
    shape, oc, k, s, d, pad, groups, bd, halo = case
    c = shape[1]
    x = f32(rng.standard_normal(shape))
    wg = f32(rng.standard_normal((oc, c // (groups * bd), k, k)) / np.sqrt(k * k * c / (groups * bd)))
    w = f32(dense_weights(wg, bd)) if bd > 1 else wg
    b = f32(rng.standard_normal(oc))
    caps = dataclasses.replace(ocl_engine.info.caps, native_vector_width_float=vec)
    attrs = ConvolutionAttrs(stride=(s, s), dilation=(d, d), pad=(pad, pad), pad_end=(pad, pad), groups=groups,
                             block_diagonal=bd)
    in_pad = Padding((0, 0, pad * d, pad * d), (0, 0, pad * d, pad * d)) if halo else Padding()
    lin = Layout(DataType.f32, Format.b_fs_yx_fsv16, shape, in_pad)
    lw = Layout(DataType.f32, Format.os_iyx_osv16, w.shape)
    lb = Layout(DataType.f32, Format.bfyx, (oc,))
    oh = (shape[2] + 2 * pad - d * (k - 1) - 1) // s + 1
    ow = (shape[3] + 2 * pad - d * (k - 1) - 1) // s + 1
    lout = Layout(DataType.f32, Format.b_fs_yx_fsv16, (shape[0], oc, oh, ow), Padding((0, 0, 1, 0), (0, 0, 0, 2)))
    probe = Params("convolution", "ocl", [lin, lw, lb], lout, attrs, caps=caps)
    assert vec16(probe) == (vec == 16)
    out = run_kernel_padded(ocl_engine, "convolution", [lin, lw, lb], lout, dataclasses.asdict(attrs), [x, w, b],
                            kernel=KERNEL, caps=caps, pad_fill=0.0)
    ref = conv_ref(x, wg if bd == 1 else w, b, (s, s), (d, d), (pad, pad), (pad, pad), groups)
    assert_close(out, ref, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("vec", [16, 8])
def test_conv_fsv16_vector_forms_fused_relu(ocl_engine, rng, vec):
    """The epilogue splits the float16 accumulator into the two float8 FUSED_OPS8 takes."""
    x = f32(rng.standard_normal((1, 16, 6, 20)))
    w = f32(rng.standard_normal((20, 16, 3, 3)) / 12)
    caps = dataclasses.replace(ocl_engine.info.caps, native_vector_width_float=vec)
    lin = Layout(DataType.f32, Format.b_fs_yx_fsv16, x.shape, Padding((0, 0, 1, 1), (0, 0, 1, 1)))
    lw = Layout(DataType.f32, Format.os_iyx_osv16, w.shape)
    lout = Layout(DataType.f32, Format.b_fs_yx_fsv16, (1, 20, 6, 20))
    attrs = ConvolutionAttrs(pad=(1, 1), pad_end=(1, 1))
    params = Params("convolution", "ocl", [lin, lw], lout, attrs, caps=caps)
    params.fused_ops = [FusedOp("activation", FusedActivationAttrs("relu"))]
    (kc,) = ConvolutionKernelBFsYxFsv16().kernel_data(params).kernels
    assert f"#define VEC16 {int(vec == 16)}" in kc.source
    raw = run_bound_kernel(ocl_engine, kc, [lin, lw], [x, w], lout)
    ref = np.maximum(conv_ref(x, w, None, (1, 1), (1, 1), (1, 1), (1, 1), 1), 0.0)
    assert_close(lout.from_physical(raw), ref, rtol=1e-4, atol=1e-4)


def _dense_case(shape, oc, k, s, pad, halo, in_format):
    """ConvolutionAttrs and the (input, os_iyx_osv16 weights, bias, padded fsv16 output) layouts of a dense
    convolution; ``halo``: the input's padding holds the zero halo (the unchecked path)."""
    attrs = ConvolutionAttrs(stride=(s, s), pad=(pad, pad), pad_end=(pad, pad))
    in_pad = Padding((0, 0, pad, pad), (0, 0, pad, pad)) if halo else Padding()
    lin = Layout(DataType.f32, in_format, shape, in_pad)
    lw = Layout(DataType.f32, Format.os_iyx_osv16, (oc, shape[1], k, k))
    lb = Layout(DataType.f32, Format.bfyx, (oc,))
    oh, ow = ((shape[2] + 2 * pad - k) // s + 1), ((shape[3] + 2 * pad - k) // s + 1)
    lout = Layout(DataType.f32, Format.b_fs_yx_fsv16, (shape[0], oc, oh, ow), Padding((0, 0, 1, 0), (0, 0, 0, 2)))
    return attrs, (lin, lw, lb, lout)


OC_BLOCK_CASES = [
    # (N, C, H, W), OC, K, stride, pad, input halo: dense 1x1 and 3x3 whose output slices allow 2 and 4 per item
    ((1, 24, 5, 13), 64, 1, 1, 0, False),
    ((2, 16, 7, 9), 64, 3, 1, 1, True),      # unchecked taps
    ((1, 21, 6, 8), 128, 3, 2, 1, False),    # border path, strided, input channel tail
]


@pytest.mark.parametrize("case", OC_BLOCK_CASES, ids=lambda c: f"{c[0]}-oc{c[1]}-k{c[2]}-s{c[3]}")
def test_conv_vec16_every_oc_block_variant(ocl_engine, rng, case):
    """OC_BLOCKS 1, 2 and 4 (several 16-channel output slices per work-item, VEC16 only), each at its narrowest and
    widest pixel block and with each loop order, against the float64 reference with a fused relu; output padding
    must stay untouched (run_kernel_padded poisons it)."""
    shape, oc, k, s, pad, halo = case
    x = f32(rng.standard_normal(shape))
    w = f32(rng.standard_normal((oc, shape[1], k, k)) / np.sqrt(k * k * shape[1]))
    b = f32(rng.standard_normal(oc))
    caps = dataclasses.replace(ocl_engine.info.caps, native_vector_width_float=16)
    attrs, (lin, lw, lb, lout) = _dense_case(shape, oc, k, s, pad, halo, Format.b_fs_yx_fsv16)
    params = Params("convolution", "ocl", [lin, lw, lb], lout, attrs, caps=caps)
    variants = ConvolutionKernelBFsYxFsv16().tune_variants(params)
    assert {v["oc_blocks"] for v in variants} == {1, 2, 4}
    ref = conv_ref(x, w, b, (s, s), (1, 1), (pad, pad), (pad, pad), 1)
    ran = 0
    for n in (1, 2, 4):
        blocks = {v["block"] for v in variants if v["oc_blocks"] == n}
        for v in variants:
            if v["oc_blocks"] != n or v["block"] not in (min(blocks), max(blocks)):
                continue
            out = run_kernel_padded(ocl_engine, "convolution", [lin, lw, lb], lout, dataclasses.asdict(attrs),
                                    [x, w, b], kernel=KERNEL, caps=caps, pad_fill=0.0, variant=v)
            try:
                assert_close(out, ref, rtol=1e-4, atol=1e-4)
            except AssertionError as err:
                raise AssertionError(f"variant {v}: {err}") from None
            ran += 1
    assert ran >= 9


def test_oc_blocks_rule_and_refusals():
    """The default OC_BLOCKS: 4 for wide 1x1 rows, 2 for narrow ones, 1 for 3x3, grouped convolutions, channel
    counts it does not divide and AVX2 devices; an OC_BLOCKS the convolution does not allow is refused."""
    f = DataType.f32
    kern = ConvolutionKernelBFsYxFsv16()

    def params(c, oc, hw, k, groups=1, vec=16):
        caps = dataclasses.replace(Params("convolution", "ocl", [], Layout(f, Format.bfyx, (1,)), None).caps,
                                   native_vector_width_float=vec, compute_units=2)
        pad = k // 2
        return Params("convolution", "ocl",
                      [Layout(f, Format.b_fs_yx_fsv16, (1, c, hw, hw)),
                       Layout(f, Format.os_iyx_osv16, (oc, c // groups, k, k))],
                      Layout(f, Format.b_fs_yx_fsv16, (1, oc, hw, hw)),
                      ConvolutionAttrs(pad=(pad, pad), pad_end=(pad, pad), groups=groups), caps=caps)

    assert kern.oc_blocks(params(256, 64, 56, 1)) == 4
    assert kern.oc_blocks(params(1024, 256, 14, 1)) == 2
    assert kern.oc_blocks(params(64, 64, 56, 3)) == 1
    assert kern.oc_blocks(params(256, 64, 56, 1, vec=8)) == 1
    assert kern.oc_blocks(params(256, 48, 56, 1)) == 1   # 3 slices: neither 2 nor 4 divides them
    assert kern.oc_blocks(params(64, 64, 56, 1, groups=2)) == 1
    assert kern.oc_blocks(params(256, 64, 2, 1)) == 1     # too few work-items left for 2 compute units
    with pytest.raises(ValueError, match="oc_blocks=4"):
        kern.kernel_data(params(256, 32, 56, 1), {"oc_blocks": 4})


PLAIN_CASES = [
    # (N, C, H, W), OC, K, stride, pad, input halo: first layers that read bfyx data (INPUT_PLAIN)
    ((1, 3, 15, 17), 24, 3, 2, 1, False),    # RGB, strided, border path, output channel tail
    ((2, 3, 9, 23), 32, 7, 2, 3, True),      # ResNet-style 7x7/2 with the halo in the input's padding
    ((1, 1, 8, 11), 16, 3, 1, 1, False),     # grey
    ((1, 4, 6, 30), 64, 1, 1, 0, False),     # RGBA 1x1, OC_BLOCKS 4 on VEC16
]


@pytest.mark.ocl_every(2)
@pytest.mark.parametrize("vec", [16, 8])
@pytest.mark.parametrize("case", PLAIN_CASES, ids=lambda c: f"{c[0]}-oc{c[1]}-k{c[2]}-s{c[3]}-halo{int(c[5])}")
def test_conv_fsv16_reads_plain_input(ocl_engine, rng, vec, case):
    """A first layer's bfyx input read where it lies (no reorder to fsv16), every loop order and the default
    OC_BLOCKS, both vector forms, against the float64 reference; output padding untouched."""
    shape, oc, k, s, pad, halo = case
    x = f32(rng.standard_normal(shape))
    w = f32(rng.standard_normal((oc, shape[1], k, k)) / np.sqrt(k * k * shape[1]))
    b = f32(rng.standard_normal(oc))
    caps = dataclasses.replace(ocl_engine.info.caps, native_vector_width_float=vec)
    attrs, (lin, lw, lb, lout) = _dense_case(shape, oc, k, s, pad, halo, Format.bfyx)
    params = Params("convolution", "ocl", [lin, lw, lb], lout, attrs, caps=caps)
    kern = ConvolutionKernelBFsYxFsv16()
    assert kern.validate(params) is None
    assert "#define INPUT_PLAIN 1" in kern.kernel_data(params).kernels[0].source
    ref = conv_ref(x, w, b, (s, s), (1, 1), (pad, pad), (pad, pad), 1)
    for order in (0, 1, 2):
        variant = {**kern.default_variant(params), "loop_order": order}
        out = run_kernel_padded(ocl_engine, "convolution", [lin, lw, lb], lout, dataclasses.asdict(attrs),
                                [x, w, b], kernel=KERNEL, caps=caps, pad_fill=0.0, variant=variant)
        try:
            assert_close(out, ref, rtol=1e-4, atol=1e-4)
        except AssertionError as err:
            raise AssertionError(f"variant {variant}: {err}") from None


def test_plain_input_only_for_a_first_layer():
    """bfyx input is refused with more than 8 channels or a grouping (the reorder to fsv16 stays)."""
    f = DataType.f32
    kern = ConvolutionKernelBFsYxFsv16()

    def params(c, groups=1):
        return Params("convolution", "ocl",
                      [Layout(f, Format.bfyx, (1, c, 8, 8)), Layout(f, Format.os_iyx_osv16, (16, c // groups, 3, 3))],
                      Layout(f, Format.b_fs_yx_fsv16, (1, 16, 8, 8)),
                      ConvolutionAttrs(pad=(1, 1), pad_end=(1, 1), groups=groups))

    assert kern.validate(params(8)) is None
    assert "at most 8 channels" in kern.validate(params(9))
    assert "groups 1" in kern.validate(params(4, groups=2))


@pytest.mark.parametrize("vec", [16, 8])
@pytest.mark.parametrize("oc", [1, 5, 21])
def test_conv_fsv16_writes_a_plain_output(ocl_engine, rng, vec, oc):
    """OUTPUT_PLAIN: a narrow head (blocked input, bfyx output) writes only its real channels, fused sigmoid
    included; the output's padding (poisoned) stays untouched; both vector forms, against the float64 reference."""
    x = f32(rng.standard_normal((2, 20, 7, 13)))
    w = f32(rng.standard_normal((oc, 20, 3, 3)) / 13)
    b = f32(rng.standard_normal(oc))
    caps = dataclasses.replace(ocl_engine.info.caps, native_vector_width_float=vec)
    attrs = ConvolutionAttrs(pad=(1, 1), pad_end=(1, 1))
    lays = [Layout(DataType.f32, Format.b_fs_yx_fsv16, x.shape), Layout(DataType.f32, Format.os_iyx_osv16, w.shape),
            Layout(DataType.f32, Format.bfyx, (oc,))]
    lout = Layout(DataType.f32, Format.bfyx, (2, oc, 7, 13), Padding((0, 0, 1, 2), (0, 0, 2, 1)))
    params = Params("convolution", "ocl", lays, lout, attrs, caps=caps)
    params.fused_ops = [FusedOp("activation", FusedActivationAttrs("logistic"))]
    kern = ConvolutionKernelBFsYxFsv16()
    assert kern.validate(params) is None
    (kc,) = kern.kernel_data(params).kernels
    assert "#define OUTPUT_PLAIN 1" in kc.source
    raw = run_bound_kernel(ocl_engine, kc, lays, [x, w, b], lout)
    ref = 1.0 / (1.0 + np.exp(-conv_ref(x, w, b, (1, 1), (1, 1), (1, 1), (1, 1), 1)))
    assert_close(lout.from_physical(raw), ref, rtol=1e-4, atol=1e-4)
    assert np.isnan(raw[padding_mask(lout)]).all(), "the output padding was written"
