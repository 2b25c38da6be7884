"""pad vs numpy.pad: constant / reflect / edge / wrap, pads larger than the input (repeated reflection and
wrapping), negative pads (cropping), ranks 1-6, bfyx / b_fs_yx_fsv16 / byxf, padded buffers, integer data."""

from __future__ import annotations

import numpy as np
import pytest

import cldnn_py as cl
from cldnn_py.primitives.pad import Pad
from tests.helpers import assert_close, f32, run_single
from tests.ocl.padded import run_one_input_padded
from tests.references import pad_ref

CASES = [
    # input shape, pads begin, pads end
    ((5,), (2,), (3,)),
    ((4, 3), (1, 5), (6, 2)),                      # pads beyond the input: reflect/wrap repeat
    ((2, 19, 3, 4), (0, 3, 1, 2), (1, 2, 2, 1)),   # features cross fsv16 slices
    ((2, 5, 3, 6), (1, 0, 0, 1), (0, 0, 2, 3)),
]


@pytest.mark.ocl_every(2)
@pytest.mark.parametrize("mode", ["constant", "reflect", "edge", "wrap"])
@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c[0]}-{c[1]}-{c[2]}")
@pytest.mark.parametrize("fmt", [cl.Format.bfyx, cl.Format.b_fs_yx_fsv16])
def test_pad_matches_numpy(engine, rng, case, mode, fmt):
    shape, begin, end = case
    x = f32(rng.standard_normal(shape))
    value = float(rng.standard_normal())
    out = run_single(engine, Pad("p", "x", pads_begin=begin, pads_end=end, mode=mode, value=value), {"x": x},
                     fmt=fmt)
    assert_close(out, pad_ref(x, begin, end, mode, np.float32(value)), rtol=0, atol=0)


@pytest.mark.parametrize("mode", ["constant", "edge"])
def test_pad_negative_pads_crop(engine, rng, mode):
    shape, begin, end = (3, 6, 7), (-1, 2, -2), (1, -3, 1)
    x = f32(rng.standard_normal(shape))
    out = run_single(engine, Pad("p", "x", pads_begin=begin, pads_end=end, mode=mode, value=0.5), {"x": x},
                     fmt=cl.Format.byxf)
    assert_close(out, pad_ref(x, begin, end, mode, 0.5), rtol=0, atol=0)


@pytest.mark.parametrize("mode", ["reflect", "wrap"])
def test_pad_rank5_6(engine, rng, mode):
    for shape, begin, end in [((2, 3, 2, 3, 4), (0, 1, 1, 0, 2), (1, 0, 1, 2, 3)),
                              ((2, 2, 3, 2, 2, 3), (1, 0, 0, 1, 1, 2), (0, 1, 2, 0, 1, 1))]:
        x = f32(rng.standard_normal(shape))
        out = run_single(engine, Pad("p", "x", pads_begin=begin, pads_end=end, mode=mode), {"x": x})
        assert_close(out, pad_ref(x, begin, end, mode), rtol=0, atol=0)


def test_pad_padded_buffers(engine, rng):
    """NaN-filled input padding is never read (reflect reads near the edges); the output padding is kept."""
    shape, begin, end = (2, 19, 4, 5), (1, 2, 3, 1), (0, 1, 2, 4)
    x = f32(rng.standard_normal(shape))
    prim = Pad("p", "x", pads_begin=begin, pads_end=end, mode="reflect")
    out = run_one_input_padded(engine, prim, x, cl.Format.b_fs_yx_fsv16,
                               cl.Padding((1, 0, 1, 2), (1, 0, 2, 0)), cl.Padding((0, 0, 1, 2), (1, 0, 0, 1)))
    assert_close(out, pad_ref(x, begin, end, "reflect"), rtol=0, atol=0)


def test_pad_int32_constant(engine, rng):
    x = rng.integers(-2**30, 2**30, size=(3, 4), dtype=np.int32)
    out = run_single(engine, Pad("p", "x", pads_begin=(1, 0), pads_end=(0, 2), value=-7), {"x": x})
    assert out.dtype == np.int32
    np.testing.assert_array_equal(out, np.pad(x, [(1, 0), (0, 2)], constant_values=-7))


def test_pad_errors():
    with pytest.raises(cl.TopologyError, match="mode must be one of"):
        Pad("p", "x", pads_begin=(0,), pads_end=(0,), mode="symmetric")
    with pytest.raises(cl.ShapeError, match="positive sizes"):
        Pad("p", "x", pads_begin=(-2,), pads_end=(-2,)).calc_output_layout(
            [cl.Layout(cl.DataType.f32, cl.Format.bfyx, (4,))])
