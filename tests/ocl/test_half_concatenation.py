"""f16 storage in the concatenation kernels (concatenation_ref, concatenation_gpu_wg, concatenation_b_fs_yx_fsv16):
each forced, half inputs and output on padded layouts (NaN halos, a sentinel in the output's padding), blocked
inputs whose last channel count is not a multiple of 16, and f32 / f16 inputs mixed into an f16 or f32 output (the
per-element kernels convert; the blocked one takes one data type only). A copy of half values is exact; a float
stored to half rounds to nearest even, as numpy's astype(float16)."""

from __future__ import annotations

import numpy as np
import pytest

import cldnn_py as cl
from cldnn_py.layout import Padding
from kernel_selector import Params, selector
from tests.helpers import typed_attrs
from tests.ocl.padded import run_kernel_padded

F16, F32 = cl.DataType.f16, cl.DataType.f32
FSV16, BFYX, BYXF = cl.Format.b_fs_yx_fsv16, cl.Format.bfyx, cl.Format.byxf
NO_PAD = Padding((0, 0, 0, 0), (0, 0, 0, 0))


def _data(rng, shape, dtype: cl.DataType) -> np.ndarray:
    """Random values of ``dtype``; f32 data with more bits than half holds (so a store to half must round)."""
    return (rng.standard_normal(shape) * 100).astype(dtype.numpy)


def _expected(arrays: list[np.ndarray], axis: int, dt_out: cl.DataType) -> np.ndarray:
    return np.concatenate([a.astype(np.float64) for a in arrays], axis=axis).astype(dt_out.numpy)


@pytest.mark.ocl_every(2)
@pytest.mark.parametrize("kernel,tier", [("concatenation_ref", "cpu"), ("concatenation_gpu_wg", "gpu")])
@pytest.mark.parametrize("axis", [1, 3])
@pytest.mark.parametrize("dts,dt_out", [((F16, F16, F16), F16), ((F32, F16, F32), F16), ((F16, F32, F16), F32)],
                         ids=["hhh-h", "fhf-h", "hfh-f"])
def test_concatenation_half(ocl_engine, rng, kernel, tier, axis, dts, dt_out):
    n, c, h, w = 2, 5, 3, 4
    sizes = (3, 17, 2)
    shapes = [tuple(s if d == axis else v for d, v in enumerate((n, c, h, w))) for s in sizes]
    fmts = (BFYX, FSV16, BYXF)
    pads = (Padding((0, 0, 1, 0), (0, 0, 0, 2)), NO_PAD, Padding((1, 0, 0, 1), (0, 0, 1, 0)))
    arrays = [_data(rng, s, dt) for s, dt in zip(shapes, dts)]
    inputs = [cl.Layout(dt, f, s, p) for dt, f, s, p in zip(dts, fmts, shapes, pads)]
    out_shape = tuple(sum(sizes) if d == axis else v for d, v in enumerate((n, c, h, w)))
    output = cl.Layout(dt_out, FSV16, out_shape, Padding((0, 0, 1, 1), (0, 0, 1, 1)))
    out = run_kernel_padded(ocl_engine, "concatenation", inputs, output, {"axis": axis}, arrays, kernel=kernel,
                            kernel_tier=tier)
    assert out.dtype == dt_out.numpy
    np.testing.assert_array_equal(out, _expected(arrays, axis, dt_out))


@pytest.mark.parametrize("chans,pads", [((32, 16, 21), (Padding((0, 0, 1, 0), (0, 0, 0, 2)), NO_PAD,
                                                        Padding((1, 0, 0, 1), (0, 0, 1, 0)))),
                                        ((16, 7), (NO_PAD, Padding((0, 0, 2, 2), (0, 0, 2, 2))))], ids=str)
def test_concatenation_fsv16_half(ocl_engine, rng, chans, pads):
    n, h, w = 2, 3, 11
    arrays = [_data(rng, (n, c, h, w), F16) for c in chans]
    inputs = [cl.Layout(F16, FSV16, (n, c, h, w), p) for c, p in zip(chans, pads)]
    output = cl.Layout(F16, FSV16, (n, sum(chans), h, w), Padding((0, 0, 1, 1), (1, 0, 0, 2)))
    params = Params("concatenation", ocl_engine.kind, inputs, output, typed_attrs("concatenation", {"axis": 1}),
                    layer_id="cat", device=ocl_engine.info)
    assert selector.select(params)[0].name == "concatenation_b_fs_yx_fsv16"  # chosen on its own in f16 too
    out = run_kernel_padded(ocl_engine, "concatenation", inputs, output, {"axis": 1}, arrays,
                            kernel="concatenation_b_fs_yx_fsv16")
    assert out.dtype == np.float16
    np.testing.assert_array_equal(out, _expected(arrays, 1, F16))


def test_concatenation_fsv16_refuses_mixed_types():
    """One ``src`` pointer type in the blocked kernel: an f32 input into an f16 output goes to the reference."""
    ins = [cl.Layout(F32, FSV16, (1, 16, 3, 3)), cl.Layout(F16, FSV16, (1, 5, 3, 3))]
    params = Params("concatenation", "ocl", ins, cl.Layout(F16, FSV16, (1, 21, 3, 3)),
                    typed_attrs("concatenation", {"axis": 1}))
    verdicts = {v.kernel: v.reason for v in selector.explain(params)}
    assert "input 0 data type f32 differs from output f16" in verdicts["concatenation_b_fs_yx_fsv16"]
    assert verdicts["concatenation_ref"] is None
