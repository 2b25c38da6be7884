"""The CPU engine's strided-row kernels vs independent references: softmax_cpu_rows (float64 numpy softmax),
reshape_cpu_copy and crop_cpu_copy (numpy reshape / slicing, bit-exact), on physical buffers whose input padding
and block tails are poisoned and whose output interior is poisoned (an unwritten element shows) while the output's
padding holds a sentinel that must survive. Plain and blocked formats, padding on either side, several axes, odd
sizes, batch > 1, rank 2-5, integer types; each test also checks the selector picks the fast kernel unforced."""

from __future__ import annotations

import numpy as np
import pytest

from cldnn_py.layout import DataType, Format, Layout, Padding
from kernel_selector.params import Params
from kernel_selector.selector import candidates, selector
from tests.cpu.kernel_harness import SENTINEL, padding_mask
from tests.helpers import assert_close, f32, typed_attrs
from tests.references import softmax_ref

BFYX, BYXF, FSV16 = Format.bfyx, Format.byxf, Format.b_fs_yx_fsv16
F32, I32, I8 = DataType.f32, DataType.i32, DataType.i8


def lay(fmt, shape, lo=(0, 0, 0, 0), hi=(0, 0, 0, 0), dt=F32):
    """A Layout with lower / upper padding."""
    return Layout(dt, fmt, shape, Padding(lo, hi))


def run(engine, kind, x_lay, out_lay, attrs, x, kernel):
    """Run ``kernel`` forced; returns (logical output, the selector's unforced pick). Float tensors are poisoned
    with NaN (output padding: SENTINEL), integer ones with -1 (output padding: -2); data must avoid both."""
    params = Params(kind, engine.kind, [x_lay], out_lay, typed_attrs(kind, attrs), [], kind, engine.info)
    chosen = selector.select(params)[0].name
    _, kd = selector.select(params, kernel)
    is_f = out_lay.dtype == F32
    poison, sentinel = (np.nan, SENTINEL) if is_f else (-1, -2)
    mem = engine.allocate(x_lay)
    phys = x_lay.to_physical(x)
    phys[padding_mask(x_lay)] = poison
    engine.write_buffer(mem.buffer, phys)
    out = engine.allocate(out_lay)
    phys = np.full(out_lay.buffer_size, poison, dtype=out_lay.dtype.numpy)
    mask = padding_mask(out_lay)
    phys[mask] = sentinel
    engine.write_buffer(out.buffer, phys)
    for k in kd.kernels:
        bound = engine.bind(k, lambda kind, i: mem.buffer if kind == "input" else out.buffer)
        engine.enqueue_kernel(bound, k.gws, k.lws).wait()
    raw = np.empty(out_lay.buffer_size, dtype=out_lay.dtype.numpy)
    engine.read_buffer(out.buffer, raw)
    assert (raw[mask] == sentinel).all(), "the kernel wrote into the output's padding or block tail"
    got = out_lay.from_physical(raw)
    if not is_f:
        assert (got != poison).all(), "an output element was not written"
    return got, chosen


def reason(kind, x_lay, out_lay, attrs, kernel):
    """The kernel's validate() verdict."""
    params = Params(kind, "cpu", [x_lay], out_lay, typed_attrs(kind, attrs), [], kind)
    return next(c for c in candidates(kind) if c.name == kernel).validate(params)


# ----- softmax -------------------------------------------------------------------------------------------------
SOFTMAX = [  # (input layout, output layout, axis, coerce_2d)
    (lay(BFYX, (3, 1000)), lay(BFYX, (3, 1000)), 1, False),
    (lay(BFYX, (2, 7, 5, 3)), lay(BFYX, (2, 7, 5, 3)), 1, False),
    (lay(BFYX, (3, 1, 4)), lay(BFYX, (3, 1, 4), (0, 0, 1, 0), (0, 0, 0, 0)), 1, False),
    (lay(BFYX, (3, 4, 1)), lay(BFYX, (3, 4, 1)), 2, False),
    (lay(BFYX, (2, 7, 5, 3), (0, 1, 1, 2), (1, 0, 2, 1)), lay(BFYX, (2, 7, 5, 3), (0, 0, 1, 0), (0, 2, 0, 1)), 1,
     False),
    (lay(BFYX, (2, 7, 5, 3), (0, 0, 1, 2), (0, 0, 0, 1)), lay(BFYX, (2, 7, 5, 3)), 3, False),
    (lay(BFYX, (2, 7, 5, 3)), lay(BFYX, (2, 7, 5, 3), (1, 0, 0, 0), (0, 0, 0, 0)), 0, False),
    (lay(BFYX, (2, 7, 5, 3)), lay(BFYX, (2, 7, 5, 3)), 1, True),
    (lay(BYXF, (2, 19, 4, 3), (0, 0, 1, 0), (0, 0, 0, 1)), lay(BFYX, (2, 19, 4, 3)), 1, False),
    (lay(BYXF, (2, 5, 4, 3)), lay(BYXF, (2, 5, 4, 3)), 2, False),
    (lay(FSV16, (2, 19, 4, 3), (0, 0, 1, 0), (0, 0, 0, 1)), lay(FSV16, (2, 19, 4, 3)), 3, False),
    (lay(BFYX, (2, 3, 4, 5, 6)), lay(BFYX, (2, 3, 4, 5, 6)), 2, True),
    (lay(BFYX, (2, 3, 4, 5, 6)), lay(BFYX, (2, 3, 4, 5, 6)), -1, False),
]


@pytest.mark.parametrize("log", [False, True])
@pytest.mark.parametrize("case", range(len(SOFTMAX)))
def test_softmax_rows(cpu_engine, rng, case, log):
    xl, ol, axis, coerce = SOFTMAX[case]
    x = f32(rng.standard_normal(xl.shape) * 3)
    attrs = {"axis": axis, "log": log, "coerce_2d": coerce}
    got, pick = run(cpu_engine, "softmax", xl, ol, attrs, x, "softmax_cpu_rows")
    a = axis % xl.rank
    ref = softmax_ref(x, tuple(range(a, xl.rank)) if coerce else a)
    if log:
        assert_close(got, np.log(ref), rtol=2e-6, atol=2e-6)
    else:
        assert_close(got, ref, rtol=2e-6, atol=1e-9)
    assert pick == "softmax_cpu_rows"


def test_softmax_rows_refuses_non_strided_axes():
    fsv = lay(FSV16, (1, 19, 2, 2))
    assert "not one stride" in reason("softmax", fsv, fsv, {"axis": 1}, "softmax_cpu_rows")
    padded = lay(BFYX, (1, 3, 2, 2), (0, 0, 0, 1))
    assert "not one stride" in reason("softmax", padded, lay(BFYX, (1, 3, 2, 2)), {"axis": 1, "coerce_2d": True},
                                      "softmax_cpu_rows")


# ----- reshape -------------------------------------------------------------------------------------------------
RESHAPE = [  # (input layout, output layout)
    (lay(BFYX, (2, 6, 4, 5)), lay(BFYX, (2, 6, 20), (0, 0, 3, 0), (0, 0, 2, 0))),  # YOLO: into a concat slice
    (lay(BFYX, (2, 6, 4, 5), (0, 0, 1, 2), (1, 0, 2, 1)), lay(BFYX, (2, 120))),
    (lay(BYXF, (2, 6, 4, 5)), lay(BFYX, (4, 3, 5, 4), (0, 1, 0, 0), (0, 0, 0, 3))),
    (lay(FSV16, (2, 20, 3, 3)), lay(BFYX, (2, 180))),
    (lay(BFYX, (2, 3, 4, 5, 3)), lay(BFYX, (2, 12, 15), (0, 0, 0, 0), (0, 0, 1, 0))),
    (lay(BFYX, (3, 7, 5), dt=I32), lay(BFYX, (105,), (1, 0, 0, 0), (2, 0, 0, 0), dt=I32)),
    (lay(BFYX, (2, 5, 3, 3), (0, 0, 0, 1), (0, 0, 0, 0), dt=I8), lay(BFYX, (10, 9), dt=I8)),
]


@pytest.mark.parametrize("case", range(len(RESHAPE)))
def test_reshape_copy(cpu_engine, rng, case):
    xl, ol = RESHAPE[case]
    x = (f32(rng.standard_normal(xl.shape)) if xl.dtype == F32
         else rng.integers(0, 100, xl.shape).astype(xl.dtype.numpy))
    got, pick = run(cpu_engine, "reshape", xl, ol, {"shape": ol.shape}, x, "reshape_cpu_copy")
    np.testing.assert_array_equal(got, x.reshape(ol.shape))
    assert pick == "reshape_cpu_copy"


# ----- crop ----------------------------------------------------------------------------------------------------
CROP = [  # (input layout, output layout, offsets)
    (lay(BFYX, (2, 14, 21)), lay(BFYX, (2, 6, 21), (0, 0, 0, 0), (0, 8, 0, 0)), (0, 0, 0)),  # YOLO's Split
    (lay(BFYX, (2, 14, 21)), lay(BFYX, (2, 8, 21)), (0, 6, 0)),
    (lay(BFYX, (2, 5, 7, 9), (0, 1, 1, 2), (1, 0, 2, 1)), lay(BFYX, (1, 3, 4, 5), (0, 0, 1, 0), (0, 0, 0, 2)),
     (1, 2, 3, 4)),
    (lay(BYXF, (2, 5, 7, 9)), lay(BFYX, (2, 4, 7, 3)), (0, 1, 0, 5)),
    (lay(FSV16, (2, 37, 3, 5), (0, 0, 1, 0), (0, 0, 0, 1)), lay(FSV16, (2, 19, 3, 5)), (0, 5, 0, 0)),
    (lay(BFYX, (2, 3, 4, 5, 6)), lay(BFYX, (2, 2, 4, 3, 6)), (0, 1, 0, 2, 0)),
    (lay(BFYX, (3, 11), dt=I32), lay(BFYX, (2, 7), dt=I32), (1, 3)),
    (lay(BFYX, (2, 9, 4, 4), dt=I8), lay(BFYX, (2, 3, 4, 4), (0, 2, 0, 0), (0, 1, 0, 0), dt=I8), (0, 4, 0, 0)),
]


@pytest.mark.parametrize("case", range(len(CROP)))
def test_crop_copy(cpu_engine, rng, case):
    xl, ol, offs = CROP[case]
    x = (f32(rng.standard_normal(xl.shape)) if xl.dtype == F32
         else rng.integers(0, 100, xl.shape).astype(xl.dtype.numpy))
    got, pick = run(cpu_engine, "crop", xl, ol, {"shape": ol.shape, "offsets": offs}, x, "crop_cpu_copy")
    np.testing.assert_array_equal(got, x[tuple(slice(o, o + s) for o, s in zip(offs, ol.shape))])
    assert pick == "crop_cpu_copy"


def test_crop_copy_refuses_box_outside_input():
    why = reason("crop", lay(BFYX, (1, 4, 3, 3)), lay(BFYX, (1, 2, 3, 3)), {"shape": (1, 2, 3, 3),
                                                                              "offsets": (0, 3, 0, 0)}, "crop_cpu_copy")
    assert "leaves input" in why
