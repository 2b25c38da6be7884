"""f16 storage in the pooling and LRN kernels (pooling_ref, pooling_b_fs_yx_fsv16, pooling_gpu_wg and its two
variants; lrn_ref, lrn_b_fs_yx_fsv16, lrn_gpu_wg): each forced, half in and out (and f32 <-> f16 mixes), padded
layouts with NaN halos, b_fs_yx_fsv16 with channel counts that are not multiples of 16, vs float64 references on
half-rounded random data. Max pooling of half values is exact (the maximum is one of them); averages and LRN
accumulate in float and round once to half."""

from __future__ import annotations

import numpy as np
import pytest

import cldnn_py as cl
from cldnn_py.layout import Padding
from kernel_selector import Params
from kernel_selector.kernels.pooling.pooling_kernel_gpu_wg import PoolingKernelGpuWg
from tests.ocl.half import assert_half_close, half_values
from tests.ocl.padded import run_kernel_padded
from tests.references import lrn_ref, pool_dilated_ref

F16, F32 = cl.DataType.f16, cl.DataType.f32
FSV16, BFYX, BYXF = cl.Format.b_fs_yx_fsv16, cl.Format.bfyx, cl.Format.byxf
M = cl.PoolingMode
PAD_IN = Padding((0, 0, 1, 2), (1, 0, 2, 1))
PAD_OUT = Padding((0, 0, 1, 0), (0, 0, 0, 1))
POOL_KERNELS = [("pooling_ref", BFYX, "cpu"), ("pooling_ref", FSV16, "cpu"), ("pooling_b_fs_yx_fsv16", FSV16, "cpu"),
                ("pooling_gpu_wg", BYXF, "gpu"), ("pooling_gpu_wg", FSV16, "gpu")]
POOL_CASES = [
    # mode, (N, C, H, W), kernel, stride, pad, pad_end, dilation, ceil
    (M.max, (2, 19, 9, 11), (3, 3), (2, 2), (1, 1), (1, 1), (1, 1), False),
    (M.average, (1, 21, 11, 9), (3, 3), (2, 2), (1, 1), (1, 1), (1, 1), True),
    (M.average_no_padding, (1, 35, 10, 12), (3, 2), (2, 3), (2, 1), (1, 2), (2, 2), True),
]


def _pool_prim(mode, k, s, pb, pe, d, ceil, global_pooling=False):
    return cl.Pooling("pool", "x", mode=mode, kernel=k, stride=s, pad=pb, pad_end=pe, dilation=d, ceil_mode=ceil,
                      global_pooling=global_pooling)


def _tol(dt_out: cl.DataType) -> float:
    """One rounding to half for an f16 output; float32 accumulation only for an f32 one."""
    return 2e-3 if dt_out == F16 else 1e-5


@pytest.mark.ocl_every(2)
@pytest.mark.parametrize("case", POOL_CASES, ids=lambda c: c[0].value)
@pytest.mark.parametrize("kernel,fmt,tier", POOL_KERNELS, ids=lambda v: getattr(v, "value", v))
@pytest.mark.parametrize("dt_in,dt_out", [(F16, F16), (F32, F16), (F16, F32)], ids=["h-h", "f-h", "h-f"])
def test_pooling_half(ocl_engine, rng, kernel, fmt, tier, case, dt_in, dt_out):
    mode, shape, k, s, pb, pe, d, ceil = case
    x = half_values(rng.standard_normal(shape) * 3).astype(dt_in.numpy)
    prim = _pool_prim(mode, k, s, pb, pe, d, ceil)
    lin = cl.Layout(dt_in, fmt, shape, PAD_IN)
    lout = prim.calc_output_layout([lin]).with_(dtype=dt_out, padding=PAD_OUT)
    out = run_kernel_padded(ocl_engine, "pooling", [lin], lout, prim.attrs(), [x], kernel=kernel, kernel_tier=tier)
    assert out.dtype == dt_out.numpy
    ref = pool_dilated_ref(x.astype(np.float64), mode, k, s, pb, pe, d, ceil)
    if mode == M.max and dt_out == F16:
        np.testing.assert_array_equal(out, ref.astype(np.float16))  # a maximum of half values is one of them
    else:
        assert_half_close(out, ref, rtol=_tol(dt_out))


@pytest.mark.parametrize("mode", list(M), ids=lambda m: m.value)
def test_pooling_gpu_wg_half_every_variant(ocl_engine, rng, mode):
    """Both variants of pooling_gpu_wg (window; whole-plane work-group reduction in a float ``__local`` array) on a
    global pooling of half data, including the f16 -> f32 mix for the reduction."""
    shape = (2, 3, 17, 19)
    x = half_values(rng.standard_normal(shape) * 3)
    prim = _pool_prim(mode, (2, 2), (1, 1), (0, 0), (0, 0), (1, 1), False, global_pooling=True)
    ref = pool_dilated_ref(x.astype(np.float64), mode, (17, 19), (1, 1), (0, 0), (0, 0), (1, 1))
    for dt_out in (F16, F32):
        lin = cl.Layout(F16, BFYX, shape)
        lout = prim.calc_output_layout([lin]).with_(dtype=dt_out)
        params = Params("pooling", ocl_engine.kind, [lin], lout, prim.attrs(), layer_id="pool",
                        device=ocl_engine.info, caps=ocl_engine.info.caps, kernel_tier="gpu")
        variants = PoolingKernelGpuWg().tune_variants(params)
        assert variants == [{"global": 0}, {"global": 1}]
        for variant in variants:
            out = run_kernel_padded(ocl_engine, "pooling", [lin], lout, prim.attrs(), [x], kernel="pooling_gpu_wg",
                                    variant=variant, kernel_tier="gpu")
            assert out.dtype == dt_out.numpy, variant
            assert_half_close(out, ref, rtol=_tol(dt_out))


LRN_KERNELS = [("lrn_ref", BYXF, "cpu"), ("lrn_b_fs_yx_fsv16", FSV16, "cpu"), ("lrn_gpu_wg", FSV16, "gpu"),
               ("lrn_gpu_wg", BFYX, "gpu")]
LRN_CASES = [
    # shape, size, alpha, beta, k
    ((2, 37, 3, 5), 5, 0.5, 0.75, 2.0),   # AlexNet-like (beta 0.75: the sqrt form in the blocked kernel), 3 slices
    ((1, 20, 2, 7), 4, 0.9, 0.6, 1.0),    # even size, exp/log form
]


@pytest.mark.ocl_every(2)
@pytest.mark.parametrize("case", LRN_CASES, ids=lambda c: f"n{c[1]}-b{c[3]}")
@pytest.mark.parametrize("kernel,fmt,tier", LRN_KERNELS, ids=lambda v: getattr(v, "value", v))
@pytest.mark.parametrize("dt_in,dt_out", [(F16, F16), (F32, F16), (F16, F32)], ids=["h-h", "f-h", "h-f"])
def test_lrn_half(ocl_engine, rng, kernel, fmt, tier, case, dt_in, dt_out):
    shape, size, alpha, beta, k = case
    x = half_values(rng.standard_normal(shape) * 2).astype(dt_in.numpy)
    attrs = {"size": size, "alpha": alpha, "beta": beta, "k": k}
    lin = cl.Layout(dt_in, fmt, shape, Padding((0, 0, 1, 1), (1, 0, 0, 2)))
    lout = cl.Layout(dt_out, fmt, shape, Padding((0, 0, 0, 1), (0, 0, 1, 0)))
    out = run_kernel_padded(ocl_engine, "lrn", [lin], lout, attrs, [x], kernel=kernel, kernel_tier=tier)
    assert out.dtype == dt_out.numpy
    assert_half_close(out, lrn_ref(x.astype(np.float64), size, alpha, beta, k),
                      rtol=_tol(dt_out) if dt_out == F16 else 1e-4)
