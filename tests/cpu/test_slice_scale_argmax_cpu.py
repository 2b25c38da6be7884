"""The CPU engine's strided_slice_cpu_copy, scale_cpu_affine and arg_max_cpu_rows vs independent references (numpy
slicing bit for bit, x·s + b in float64, numpy argmax / argmin with the primitive's tie and NaN rules), forced, on
physical buffers whose input padding and block tails are poisoned and whose output interior is poisoned (an
unwritten element shows) while the output's padding holds a sentinel that must survive. Negative and > 1 steps on
each axis, broadcast shapes, ties and NaN, plain and blocked formats, padding on either side, odd sizes, batch > 1,
rank 1-6, integer types; each case also checks the selector picks the fast kernel unforced."""

from __future__ import annotations

import numpy as np
import pytest

from cldnn_py.layout import DataType, Format, Layout, Padding
from cldnn_py.ops import FusedActivationAttrs, slice_ranges
from kernel_selector.params import FusedOp, Params
from kernel_selector.selector import candidates, selector
from tests.cpu.kernel_harness import run_kernel, typed_poison
from tests.helpers import assert_close, f32, typed_attrs

BFYX, BYXF, YXFB, FYXB, FSV16 = Format.bfyx, Format.byxf, Format.yxfb, Format.fyxb, Format.b_fs_yx_fsv16
F32, I32, I8, U8 = DataType.f32, DataType.i32, DataType.i8, DataType.u8
Z4 = (0, 0, 0, 0)


def lay(fmt, shape, lo=Z4, hi=Z4, dt=F32):
    """A Layout with lower / upper padding."""
    return Layout(dt, fmt, shape, Padding(lo, hi))


def run(engine, kind, in_lays, out_lay, attrs, arrays, kernel):
    """Run ``kernel`` forced on ``arrays`` (logical, one per input layout) through the harness (input padding /
    block tails and the output interior poisoned by type); returns (logical output, the selector's unforced pick)."""
    got, chosen = run_kernel(engine, kind, list(in_lays), out_lay, attrs, arrays, kernel)
    if out_lay.dtype != F32:
        assert (got != typed_poison(out_lay.dtype)[0]).all(), "an output element was not written"
    return got, chosen


def reason(kind, in_lays, out_lay, attrs, kernel, fused=()):
    """The kernel's validate() verdict."""
    params = Params(kind, "cpu", list(in_lays), out_lay, typed_attrs(kind, attrs), list(fused), kind)
    return next(c for c in candidates(kind) if c.name == kernel).validate(params)


# ----- strided slice ------------------------------------------------------------------------------------------
SLICE = [  # (input layout, output format, output padding (lo, hi), begin, end, steps)
    (lay(BFYX, (2, 5, 7, 9)), BFYX, ((0, 1, 2, 0), (1, 0, 0, 3)), (0, -1, 1, 8), (2, -6, 7, -10), (1, -1, 2, -3)),
    (lay(BFYX, (5, 33), (1, 2, 0, 0), (0, 3, 0, 0)), BFYX, (Z4, Z4), (4, 1), (-7, 32), (-2, 3)),
    (lay(BYXF, (3, 6, 5, 4), (0, 0, 1, 0), (0, 1, 0, 2)), BFYX, ((0, 0, 1, 1), Z4), (2, 5, 0, 1), (0, 0, 5, 4),
     (-1, -2, 1, 1)),
    (lay(FSV16, (2, 37, 3, 5), (0, 0, 1, 0), (0, 0, 0, 1)), FSV16, ((0, 0, 0, 1), (1, 0, 1, 0)), (0, 36, 0, 4),
     (2, 0, 3, -6), (1, -2, 1, -1)),
    (lay(BFYX, (2, 3, 4, 5, 6)), BFYX, (Z4, Z4), (1, 0, 0, 4, 5), (-3, 3, 4, -6, -7), (-1, 1, 2, -1, -2)),
    (lay(BFYX, (3, 11, 7), dt=I32), BFYX, ((0, 1, 0, 0), (2, 0, 1, 0)), (0, 2, 6), (3, 11, -8), (1, 4, -1)),
    (lay(BFYX, (2, 9, 4, 4), (0, 0, 1, 1), Z4, dt=I8), BFYX, (Z4, Z4), (1, 8, 0, 0), (-3, 0, 4, 4),
     (-2, -3, 1, 1)),
    (lay(YXFB, (3, 4, 5, 6), dt=U8), FYXB, ((0, 0, 1, 0), Z4), (0, 3, 4, 0), (3, -5, -6, 6), (2, -1, -2, 5)),
    (lay(BFYX, (17,)), BFYX, ((1, 0, 0, 0), (2, 0, 0, 0)), (15,), (-20,), (-3,)),
    (lay(BFYX, (1, 3, 1, 40)), BFYX, (Z4, Z4), (0, 0, 0, 1), (1, 3, 1, 40), (1, 1, 1, 1)),
]
# every axis alone: reversed, then every third element from the second
SLICE += [(lay(BFYX, (3, 4, 5, 7)), BFYX, (Z4, Z4),
           tuple((-1 if st < 0 else 1) if d == ax else 0 for d in range(4)),
           tuple((-10 if st < 0 else 9) if d == ax else 9 for d in range(4)),
           tuple(st if d == ax else 1 for d in range(4)))
          for ax in range(4) for st in (-1, 3)]

def slice_data(rng, xl):
    """Random data of the input's type; float data carries NaN payloads and -0.0 that must survive bit for bit."""
    if xl.dtype == F32:
        x = f32(rng.standard_normal(xl.shape))
        bits = x.reshape(-1).view(np.uint32)
        bits[::7] = 0x7FC00000 + rng.integers(1, 1 << 20, bits[::7].shape).astype(np.uint32)  # NaN payloads
        bits[3::11] = 0x80000000  # -0.0
        return x
    hi = 100 if xl.dtype != U8 else 200
    return rng.integers(0, hi, xl.shape).astype(xl.dtype.numpy)


@pytest.mark.parametrize("case", range(len(SLICE)))
def test_strided_slice_copy(cpu_engine, rng, case):
    xl, fmt, (lo, hi), begin, end, steps = SLICE[case]
    x = slice_data(rng, xl)
    ref = x[tuple(slice(b, e, s) for b, e, s in zip(begin, end, steps))]
    shape = tuple(len(r) for r in slice_ranges(begin, end, steps, xl.shape))
    assert ref.shape == shape
    ol = lay(fmt, shape, lo, hi, dt=xl.dtype)
    got, pick = run(cpu_engine, "strided_slice", [xl], ol, {"begin": begin, "end": end, "steps": steps}, [x],
                    "strided_slice_cpu_copy")
    bits = {4: np.uint32, 1: np.uint8}[xl.dtype.size]
    np.testing.assert_array_equal(np.ascontiguousarray(got).view(bits), np.ascontiguousarray(ref).view(bits))
    assert pick == "strided_slice_cpu_copy"


def test_strided_slice_copy_refusals():
    x = lay(BFYX, (2, 4, 3, 3))
    attrs = {"begin": (0, 0, 0, 0), "end": (2, 4, 3, 3), "steps": (1, 1, 1, 1)}
    assert "data types differ" in reason("strided_slice", [x], lay(BFYX, (2, 4, 3, 3), dt=I32), attrs,
                                         "strided_slice_cpu_copy")
    assert "has shape" in reason("strided_slice", [x], lay(BFYX, (2, 3, 3, 3)), attrs, "strided_slice_cpu_copy")
    blk = lay(FSV16, (1, 16, 2, 2), (0, 16, 0, 0), Z4)
    assert "blocked dimension" in reason("strided_slice", [blk], lay(FSV16, (1, 16, 2, 2)),
                                         {"begin": Z4, "end": (1, 16, 2, 2), "steps": (1, 1, 1, 1)},
                                         "strided_slice_cpu_copy")
    relu = FusedOp("activation", FusedActivationAttrs("relu"))
    assert "fused" in reason("strided_slice", [x], x, attrs, "strided_slice_cpu_copy", [relu])


# ----- scale ---------------------------------------------------------------------------------------------------
SCALE = [  # (x layout, output format, output padding, scale layout, bias layout or None)
    (lay(BFYX, (2, 5, 7, 9)), BFYX, (Z4, Z4), lay(BFYX, (1, 5, 1, 1)), lay(BFYX, (1, 5, 1, 1))),
    (lay(BFYX, (2, 5, 7, 9)), BFYX, ((0, 1, 0, 2), (1, 0, 1, 0)), lay(BFYX, (5, 1, 1)), None),
    (lay(BFYX, (2, 5, 7, 9), (1, 0, 1, 2), (0, 1, 2, 1)), BFYX, (Z4, Z4), lay(BFYX, (2, 5, 7, 9)),
     lay(BFYX, (7, 9))),
    (lay(BFYX, (2, 5, 7, 9)), BFYX, (Z4, Z4), lay(BFYX, (1,)), lay(BFYX, (9,), (0, 0, 0, 0), (2, 0, 0, 0))),
    (lay(BFYX, (3, 33)), BFYX, ((0, 2, 0, 0), Z4), lay(BFYX, (33,)), lay(BFYX, (3, 1))),
    (lay(BFYX, (2, 6, 17)), BFYX, (Z4, Z4), lay(BFYX, (2, 1, 17)), lay(BFYX, (1,))),
    (lay(FSV16, (2, 19, 3, 5), (1, 0, 2, 0), (0, 0, 1, 2)), FSV16, ((0, 0, 1, 1), (1, 0, 0, 2)),
     lay(BYXF, (19, 1, 1), (1, 1, 0, 0), (0, 2, 1, 0)), lay(BFYX, (1, 19, 1, 1), (0, 0, 1, 1), (0, 1, 0, 2))),
    (lay(BYXF, (2, 5, 4, 3)), BFYX, ((0, 0, 1, 0), (0, 1, 0, 1)), lay(BFYX, (1, 5, 4, 1)), None),
    (lay(YXFB, (3, 4, 5, 6)), FYXB, (Z4, Z4), lay(FYXB, (3, 4, 1, 1)), lay(YXFB, (5, 1))),
    (lay(BFYX, (37,)), BFYX, ((1, 0, 0, 0), Z4), lay(BFYX, (37,)), lay(BFYX, (1,))),
    (lay(BFYX, (4, 64, 16, 16)), BFYX, (Z4, Z4), lay(BFYX, (1, 64, 1, 1)), lay(BFYX, (1, 64, 1, 1))),  # pooled
    (lay(BFYX, (4, 3, 50, 70)), BFYX, (Z4, Z4), lay(BFYX, (3, 50, 70)), lay(BFYX, (3, 50, 70))),  # long rows
    (lay(BFYX, (2, 3, 100, 181)), BFYX, (Z4, Z4), lay(BFYX, (3, 1, 1)), None),  # rows split into chunks
    (lay(BFYX, (2, 6, 4, 4)), BFYX, (Z4, Z4), lay(BFYX, (4, 4)), None),
]


@pytest.mark.parametrize("case", range(len(SCALE)))
def test_scale_affine(cpu_engine, rng, case):
    xl, fmt, (lo, hi), sl, bl = SCALE[case]
    ins = [xl, sl] + ([bl] if bl is not None else [])
    arrays = [f32(rng.standard_normal(t.shape) * 2) for t in ins]
    ol = lay(fmt, xl.shape, lo, hi)
    got, pick = run(cpu_engine, "scale", ins, ol, {"has_bias": bl is not None}, arrays, "scale_cpu_affine")
    ops = [a.astype(np.float64).reshape((1,) * (xl.rank - a.ndim) + a.shape) for a in arrays]
    ref = ops[0] * ops[1] + (ops[2] if bl is not None else 0.0)
    assert_close(got, ref, rtol=1e-6, atol=1e-6)
    assert pick == "scale_cpu_affine"


def test_scale_affine_refusals(cpu_engine):
    x = lay(BFYX, (2, 4, 3, 3))
    s = lay(BFYX, (1, 4, 1, 1))
    assert "does not broadcast" in reason("scale", [x, lay(BFYX, (3, 1, 1))], x, {}, "scale_cpu_affine")
    assert "exceeds the input rank" in reason("scale", [lay(BFYX, (4, 3)), s], lay(BFYX, (4, 3)), {},
                                              "scale_cpu_affine")
    assert "rank 5 > 4" in reason("scale", [lay(BFYX, (2, 4, 3, 3, 2)), s], lay(BFYX, (2, 4, 3, 3, 2)), {},
                                  "scale_cpu_affine")
    blk = lay(FSV16, (1, 16, 2, 2), Z4, (0, 16, 0, 0))
    assert "blocked dimension" in reason("scale", [blk, s.with_(shape=(1, 16, 1, 1))], lay(FSV16, (1, 16, 2, 2)),
                                         {}, "scale_cpu_affine")
    relu = FusedOp("activation", FusedActivationAttrs("relu"))
    assert "fused" in reason("scale", [x, s], x, {}, "scale_cpu_affine", [relu])
    # a half-precision scale fails the key: the reference takes it
    params = Params("scale", "cpu", [x, lay(BFYX, (1, 4, 1, 1), dt=DataType.f16)], x,
                    typed_attrs("scale", {}), [], "scale", cpu_engine.info)
    assert selector.select(params)[0].name == "scale_cpu_ref"


# ----- arg max / arg min ---------------------------------------------------------------------------------------
ARG = [  # (input layout, axis, keep_dims, output format, output padding, NaN)
    (lay(BFYX, (2, 5, 7, 9)), 1, True, BFYX, (Z4, Z4), False),
    (lay(BFYX, (2, 5, 7, 9)), 3, True, BFYX, ((0, 1, 0, 0), (1, 0, 2, 0)), True),
    (lay(BFYX, (3, 5, 7, 9), (1, 0, 1, 2), (0, 1, 0, 1)), 0, False, BFYX, (Z4, Z4), True),
    (lay(BFYX, (2, 5, 7, 9)), -2, False, BFYX, (Z4, Z4), False),
    (lay(BFYX, (3, 1000)), -1, True, BFYX, (Z4, Z4), True),
    (lay(BFYX, (2, 3, 4, 5, 6)), 2, False, BFYX, (Z4, Z4), True),
    (lay(BFYX, (2, 3, 601)), 1, True, BFYX, (Z4, Z4), True),  # 601 positions side by side: 3 blocks, a tail
    (lay(FSV16, (2, 37, 3, 5), (1, 0, 2, 1), (0, 0, 1, 2)), 1, True, BYXF, ((0, 2, 1, 0), (1, 1, 0, 3)), True),
    (lay(BYXF, (2, 6, 4, 5)), 3, True, BYXF, ((0, 1, 0, 0), (0, 0, 1, 1)), False),
    (lay(BYXF, (2, 6, 4, 5)), 1, False, BFYX, (Z4, Z4), True),
    (lay(YXFB, (3, 4, 5, 2)), 2, True, BFYX, (Z4, Z4), False),
    (lay(BFYX, (17,)), 0, False, BFYX, (Z4, Z4), True),
    (lay(BFYX, (2, 2, 3, 2, 2, 3)), 4, True, BFYX, (Z4, Z4), False),
    (lay(BFYX, (2, 1, 4, 4)), 1, True, BFYX, (Z4, Z4), False),  # an axis of size 1
]
MODES = [("max", False), ("max", True), ("min", False), ("min", True)]


def arg_ref(x, axis, mode, last):
    """numpy's argmax / argmin in float64 (the first NaN wins, else the first extreme); ``last``: the last one,
    via the flipped axis."""
    find = np.argmin if mode == "min" else np.argmax
    x = x.astype(np.float64)
    if last:
        return x.shape[axis] - 1 - find(np.flip(x, axis=axis), axis=axis, keepdims=True)
    return find(x, axis=axis, keepdims=True)


@pytest.mark.parametrize("mode,last", MODES, ids=[f"{m}-{'last' if v else 'first'}" for m, v in MODES])
@pytest.mark.parametrize("case", range(len(ARG)))
def test_arg_max_rows(cpu_engine, rng, case, mode, last):
    xl, axis, keep, fmt, (lo, hi), nan = ARG[case]
    x = f32(rng.integers(-3, 4, xl.shape))  # few values: many ties
    if nan:
        x[rng.random(xl.shape) < 0.1] = np.nan
    ax = axis % xl.rank
    shape = (tuple(1 if d == ax else n for d, n in enumerate(xl.shape)) if keep
             else tuple(n for d, n in enumerate(xl.shape) if d != ax) or (1,))
    ol = lay(fmt, shape, lo if len(shape) <= 4 else Z4, hi if len(shape) <= 4 else Z4, dt=I32)
    attrs = {"axis": axis, "keep_dims": keep, "select_last_index": last, "mode": mode}
    got, pick = run(cpu_engine, "arg_max", [xl], ol, attrs, [x], "arg_max_cpu_rows")
    ref = arg_ref(x, ax, mode, last).reshape(shape)
    np.testing.assert_array_equal(got, ref.astype(np.int32))
    assert pick == "arg_max_cpu_rows"


def test_arg_max_rows_ties_and_nan_rules(cpu_engine):
    """Hand-made rows: ties between the ends, NaN among numbers, only NaN."""
    x = f32([[1, 5, 2, 5, 0, 5],
             [np.nan, 3, np.nan, 3, -1, 2],
             [2, 2, 2, 2, 2, 2],
             [np.nan] * 6,
             [-np.inf, 4, np.inf, -np.inf, np.inf, 1]])
    xl = lay(BFYX, x.shape)
    ol = lay(BFYX, (5, 1), dt=I32)
    expect = {("max", False): [1, 0, 0, 0, 2], ("max", True): [5, 2, 5, 5, 4],
              ("min", False): [4, 0, 0, 0, 0], ("min", True): [4, 2, 5, 5, 3]}
    for (mode, last), want in expect.items():
        attrs = {"axis": 1, "keep_dims": True, "select_last_index": last, "mode": mode}
        got, _ = run(cpu_engine, "arg_max", [xl], ol, attrs, [x], "arg_max_cpu_rows")
        np.testing.assert_array_equal(got[:, 0], want, err_msg=f"{mode} last={last}")
        np.testing.assert_array_equal(got[:, 0], arg_ref(x, 1, mode, last)[:, 0])


def test_arg_max_rows_refusals():
    x = lay(BFYX, (2, 4, 3, 3))
    attrs = {"axis": 4}
    assert "out of range" in reason("arg_max", [x], lay(BFYX, (2, 4, 3, 3), dt=I32), attrs, "arg_max_cpu_rows")
    assert "reduced along axis" in reason("arg_max", [x], lay(BFYX, (2, 4, 3, 2), dt=I32), {"axis": 1},
                                          "arg_max_cpu_rows")
    blk = lay(FSV16, (1, 16, 2, 2), (0, 16, 0, 0), Z4)
    assert "blocked dimension" in reason("arg_max", [blk], lay(BFYX, (1, 1, 2, 2), dt=I32), {"axis": 1},
                                         "arg_max_cpu_rows")
    relu = FusedOp("activation", FusedActivationAttrs("relu"))
    assert "fused" in reason("arg_max", [x], lay(BFYX, (2, 1, 3, 3), dt=I32), {"axis": 1}, "arg_max_cpu_rows",
                             [relu])
