"""crop vs numpy slicing: ranks 1-4, offsets in every dimension, output in the input's format, padded inputs."""

from __future__ import annotations

import numpy as np
import pytest

import cldnn_py as cl
from tests.helpers import assert_close, f32, run_single
from tests.ocl.padded import run_kernel_padded


def crop_ref(x: np.ndarray, shape: tuple[int, ...], offsets: tuple[int, ...]) -> np.ndarray:
    """The box x[o0:o0+s0, o1:o1+s1, ...] in float64."""
    return x.astype(np.float64)[tuple(slice(o, o + s) for o, s in zip(offsets, shape))]


CASES = [
    # input shape, crop shape, offsets
    ((9,), (4,), (3,)),
    ((5, 7), (3, 4), (2, 1)),
    ((4, 21, 6), (2, 5, 3), (1, 16, 2)),
    ((3, 20, 5), (3, 18, 5), (0, 1, 0)),
    ((2, 19, 5, 6), (1, 17, 3, 4), (1, 2, 1, 2)),    # crosses fsv16 slices
    ((3, 8, 7, 5), (2, 8, 7, 2), (0, 0, 0, 3)),
    ((2, 33, 4, 4), (2, 16, 4, 4), (0, 16, 0, 0)),   # exactly one fsv16 slice
]


@pytest.mark.ocl_every(2)
@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c[0]}-{c[1]}@{c[2]}")
@pytest.mark.parametrize("fmt", [cl.Format.bfyx, cl.Format.b_fs_yx_fsv16, cl.Format.byxf])
def test_crop_matches_reference(engine, rng, case, fmt):
    shape, crop_shape, offsets = case
    x = f32(rng.standard_normal(shape))
    out = run_single(engine, cl.Crop("c", "x", shape=crop_shape, offsets=offsets), {"x": x}, fmt=fmt)
    assert_close(out, crop_ref(x, crop_shape, offsets), rtol=0, atol=0)


PADDED = [
    # input format, input padding, output padding (the output keeps the input's format)
    (cl.Format.bfyx, cl.Padding((1, 2, 1, 3), (0, 1, 2, 1)), cl.Padding((0, 1, 2, 1), (2, 0, 1, 3))),
    (cl.Format.byxf, cl.Padding((0, 3, 2, 0), (1, 0, 1, 2)), cl.Padding((1, 2, 0, 1), (0, 1, 1, 0))),
    (cl.Format.b_fs_yx_fsv16, cl.Padding((1, 0, 1, 2), (1, 0, 2, 0)), cl.Padding((2, 0, 0, 1), (0, 0, 1, 2))),
]


@pytest.mark.parametrize("fmt,pad,out_pad", PADDED, ids=lambda v: getattr(v, "value", None) or "pad")
@pytest.mark.parametrize("case", [((2, 19, 5, 6), (1, 15, 3, 4), (1, 3, 2, 1)), ((7, 6), (3, 2), (4, 3))],
                         ids=str)
def test_crop_padded_buffers(engine, rng, fmt, pad, out_pad, case):
    """NaN-filled input padding is never read; the padded output is written only in its interior."""
    shape, crop_shape, offsets = case
    x = f32(rng.standard_normal(shape))
    prim = cl.Crop("c", "x", shape=crop_shape, offsets=offsets)
    lin = cl.Layout(cl.DataType.f32, fmt, shape, pad)
    lout = prim.calc_output_layout([lin])
    assert lout == cl.Layout(cl.DataType.f32, fmt, crop_shape)
    out = run_kernel_padded(engine, "crop", [lin], lout.with_(padding=out_pad), prim.attrs(), [x])
    assert_close(out, crop_ref(x, crop_shape, offsets), rtol=0, atol=0)


def test_crop_default_offsets_and_int32(engine, rng):
    x = rng.integers(-2**30, 2**30, size=(3, 4, 5), dtype=np.int32)
    out = run_single(engine, cl.Crop("c", "x", shape=(2, 3, 4)), {"x": x}, fmt=cl.Format.byxf)
    assert out.dtype == np.int32
    np.testing.assert_array_equal(out, x[:2, :3, :4])


def test_crop_fsv16_output_tail_stays_zero(engine, rng):
    """The crop writes only logical elements: the zero tail of the last feature slice is left untouched."""
    x = f32(rng.standard_normal((1, 40, 2, 2)))
    topo = cl.Topology()
    topo.add(cl.InputLayout("x", cl.Layout(cl.DataType.f32, cl.Format.b_fs_yx_fsv16, x.shape)))
    topo.add(cl.Crop("c", "x", shape=(1, 19, 2, 2), offsets=(0, 20, 0, 0)))
    net = cl.Network(cl.Program(engine, topo))
    net.set_input_data("x", x)
    res = net.execute()["c"]
    raw = np.empty(res.memory.layout.buffer_size, dtype=np.float32)
    engine.read_buffer(res.memory.buffer, raw, wait_for=[res.event])
    blocks = raw.reshape(1, 2, 2, 2, 16)            # b, feature slice, y, x, 16 features
    np.testing.assert_array_equal(blocks[:, 1, :, :, 3:], 0.0)
    assert_close(res.numpy(), crop_ref(x, (1, 19, 2, 2), (0, 20, 0, 0)), rtol=0, atol=0)
