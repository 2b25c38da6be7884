"""f16 storage in the convolutions on plain formats (issue 18): convolution_ref (any format) and the GPU tier's
convolution_gpu_igemm, convolution_gpu_direct and convolution_gpu_depthwise (kernel_tier="gpu", run on the test
device), each forced with half inputs, weights, bias and output (values rounded to half first) on padded tensors with
tails, mixed f32 / f16 tensors, a fused relu and residual sum with a half operand, and the GPU kernels over their
tuning variants' distinct code paths, vs the float64 reference."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from cldnn_py.layout import DataType, Format, Layout, Padding
from cldnn_py.ops import ConvolutionAttrs, FusedActivationAttrs, FusedEltwiseAttrs
from kernel_selector import FusedOp, Params, selector
from tests.ocl.half import assert_half_close, run_kernel_half
from tests.ocl.padded import SENTINEL, padding_mask, run_kernel_padded
from tests.references import conv_ref

F16, F32 = DataType.f16, DataType.f32
BFYX, FSV16 = Format.bfyx, Format.b_fs_yx_fsv16
REF, IGEMM, DIRECT, DEPTHWISE = ("convolution_ref", "convolution_gpu_igemm", "convolution_gpu_direct",
                                 "convolution_gpu_depthwise")
TIER = {REF: "cpu", IGEMM: "gpu", DIRECT: "gpu", DEPTHWISE: "gpu"}

# kernel, (N, C, H, W), OC, (KH, KW), stride, dilation, pad, pad_end, groups
CASES = [
    (REF, (2, 5, 7, 6), 9, (3, 3), (1, 1), (1, 1), (1, 1), (1, 1), 1),
    (REF, (1, 6, 6, 7), 4, (3, 3), (2, 2), (1, 1), (1, 0), (0, 1), 2),
    (IGEMM, (2, 5, 7, 6), 9, (3, 3), (1, 1), (1, 1), (1, 1), (1, 1), 1),      # tails in M 9, N 84, K 45
    (IGEMM, (1, 16, 8, 10), 18, (1, 1), (2, 2), (1, 1), (0, 0), (0, 0), 2),  # 1x1/2, groups 2
    (DIRECT, (1, 19, 9, 17), 9, (3, 3), (1, 1), (1, 1), (1, 1), (1, 1), 1),   # C 16 + 3, OW 17
    (DIRECT, (1, 16, 11, 9), 8, (3, 3), (1, 1), (2, 2), (2, 2), (2, 2), 1),   # dilation 2
    (DEPTHWISE, (1, 24, 9, 11), 24, (3, 3), (1, 1), (1, 1), (1, 1), (1, 1), 24),
    (DEPTHWISE, (2, 24, 10, 7), 24, (5, 5), (2, 1), (2, 2), (4, 3), (3, 4), 24),
]


def _setup(case, rng, dtypes=(F16, F16, F16, F16), fmt=BFYX):
    """(layouts, output layout, attrs, f32 arrays) of a CASES row: input and output padded, weights scaled so the
    outputs stay O(1)."""
    _, shape, oc, k, s, d, pad, pad_end, g = case
    x = rng.standard_normal(shape).astype(np.float32)
    w = (rng.standard_normal((oc, shape[1] // g) + k) / np.sqrt(k[0] * k[1] * shape[1] / g)).astype(np.float32)
    b = rng.standard_normal(oc).astype(np.float32)
    oh = (shape[2] + pad[0] + pad_end[0] - d[0] * (k[0] - 1) - 1) // s[0] + 1
    ow = (shape[3] + pad[1] + pad_end[1] - d[1] * (k[1] - 1) - 1) // s[1] + 1
    lays = [Layout(dtypes[0], fmt, shape, Padding((0, 0, 1, 0), (0, 0, 0, 2))),
            Layout(dtypes[1], Format.oiyx, w.shape), Layout(dtypes[2], BFYX, (oc,))]
    lout = Layout(dtypes[3], fmt, (shape[0], oc, oh, ow), Padding((0, 0, 0, 1), (0, 0, 1, 0)))
    return lays, lout, ConvolutionAttrs(stride=s, dilation=d, pad=pad, pad_end=pad_end, groups=g), [x, w, b]


def _ref(attrs, vals):
    """The float64 convolution of the (float64) values the kernel read."""
    return conv_ref(*vals, attrs.stride, attrs.dilation, attrs.pad, attrs.pad_end, attrs.groups)


@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c[0]}-{c[1]}-oc{c[2]}-k{c[3][0]}-s{c[4][0]}-g{c[8]}")
def test_conv_plain_half(ocl_engine, rng, case):
    lays, lout, attrs, arrays = _setup(case, rng)
    out, vals = run_kernel_half(ocl_engine, "convolution", lays, lout, dataclasses.asdict(attrs), arrays,
                                kernel=case[0], kernel_tier=TIER[case[0]])
    assert out.dtype == np.float16
    assert_half_close(out, _ref(attrs, vals))


def test_conv_ref_half_blocked(ocl_engine, rng):
    """convolution_ref reads and writes b_fs_yx_fsv16 through GET_INDEX (C and OC not multiples of 16)."""
    lays, lout, attrs, arrays = _setup(CASES[0], rng, fmt=FSV16)
    out, vals = run_kernel_half(ocl_engine, "convolution", lays, lout, dataclasses.asdict(attrs), arrays, kernel=REF)
    assert_half_close(out, _ref(attrs, vals))


MIXES = [(F32, F16, F32, F16), (F16, F32, F16, F32)]


@pytest.mark.parametrize("dtypes", MIXES, ids=lambda t: "-".join(d.value for d in t))
@pytest.mark.parametrize("kernel", [REF, IGEMM, DIRECT, DEPTHWISE])
def test_conv_plain_mixed_precision(ocl_engine, rng, kernel, dtypes):
    """f16 weights with f32 activations into an f16 output, and the reverse into an f32 output."""
    case = next(c for c in CASES if c[0] == kernel)
    lays, lout, attrs, arrays = _setup(case, rng, dtypes)
    vals = [a.astype(lay.dtype.numpy) for a, lay in zip(arrays, lays)]
    out = run_kernel_padded(ocl_engine, "convolution", lays, lout, dataclasses.asdict(attrs), vals, kernel=kernel,
                            kernel_tier=TIER[kernel])
    assert out.dtype == lout.dtype.numpy
    ref = _ref(attrs, [v.astype(np.float64) for v in vals])
    assert_half_close(out, ref, rtol=2e-3 if lout.dtype == F16 else 2e-5)


def _run_params(engine, params, kernel, variant, arrays):
    """Run ``kernel``'s ``variant`` on ``params`` (inputs then fused operands): input padding NaN, output NaN with its
    padding a sentinel that must survive; returns the logical output."""
    k_obj, kd = selector.select(params, kernel)
    if variant is not None:
        kd = k_obj.kernel_data(params, variant)
    mems = []
    for lay, arr in zip([*params.inputs, *(x for op in params.fused_ops for x in op.extra_inputs)], arrays):
        phys = lay.to_physical(arr.astype(lay.dtype.numpy))
        phys[padding_mask(lay)] = np.nan
        mems.append(engine.allocate(lay))
        engine.write_buffer(mems[-1].buffer, phys)
    lout = params.output
    out = engine.allocate(lout)
    poison = np.full(lout.buffer_size, np.nan, lout.dtype.numpy)
    poison[padding_mask(lout)] = SENTINEL
    engine.write_buffer(out.buffer, poison)
    for kc in kd.kernels:
        knl = engine.bind(kc, lambda kind, i: mems[i].buffer if kind == "input" else out.buffer)
        engine.enqueue_kernel(knl, kc.gws, kc.lws).wait()
    raw = np.empty(lout.buffer_size, lout.dtype.numpy)
    engine.read_buffer(out.buffer, raw)
    assert (raw[padding_mask(lout)] == poison[padding_mask(lout)]).all(), "the kernel wrote into the output padding"
    return lout.from_physical(raw)


@pytest.mark.parametrize("kernel", [REF, IGEMM, DIRECT, DEPTHWISE])
def test_conv_plain_half_fused_sum_relu(ocl_engine, rng, kernel):
    """FUSED_OPS with a half residual operand (FUSED0_LOAD) and relu, into a half output."""
    case = next(c for c in CASES if c[0] == kernel)
    lays, lout, attrs, arrays = _setup(case, rng)
    res = rng.standard_normal(lout.shape).astype(np.float16)
    lres = Layout(F16, BFYX, lout.shape, Padding((0, 0, 1, 1), (0, 0, 0, 0)))
    params = Params("convolution", "ocl", lays, lout, attrs, caps=ocl_engine.info.caps, kernel_tier=TIER[kernel])
    params.fused_ops = [FusedOp("eltwise", FusedEltwiseAttrs("sum"), [lres], [3]),
                        FusedOp("activation", FusedActivationAttrs("relu"))]
    vals = [a.astype(np.float16) for a in arrays]
    out = _run_params(ocl_engine, params, kernel, None, [*vals, res])
    ref = np.maximum(_ref(attrs, [v.astype(np.float64) for v in vals]) + res.astype(np.float64), 0)
    assert_half_close(out, ref)


def _distinct(kernel, variants):
    """The variants whose generated code differs beyond the work-group shape: igemm every tile and read form;
    direct each (OC block, slice width) once; depthwise each pixel block once."""
    if kernel == IGEMM:
        return variants
    key = (lambda v: (v["ocb"], v["ics"])) if kernel == DIRECT else (lambda v: v["xb"])
    seen: dict = {}
    for v in variants:
        seen.setdefault(key(v), v)
    return list(seen.values())


@pytest.mark.parametrize("kernel", [IGEMM, DIRECT, DEPTHWISE])
def test_conv_gpu_half_tuning_variants(ocl_engine, rng, kernel):
    case = next(c for c in CASES if c[0] == kernel)
    lays, lout, attrs, arrays = _setup(case, rng)
    params = Params("convolution", "ocl", lays, lout, attrs, caps=ocl_engine.info.caps, kernel_tier="gpu")
    k_obj, _ = selector.select(params, kernel)
    picked = _distinct(kernel, k_obj.tune_variants(params))
    assert len(picked) > 1
    vals = [a.astype(np.float16) for a in arrays]
    ref = _ref(attrs, [v.astype(np.float64) for v in vals])
    for v in picked:
        try:
            assert_half_close(_run_params(ocl_engine, params, kernel, v, vals), ref)
        except AssertionError as err:
            raise AssertionError(f"variant {v}: {err}") from None
