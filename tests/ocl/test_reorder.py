"""reorder vs independent numpy references: every pair of data formats (checked on the raw device buffer against
numpy's own transposes and blocking), ranks 1-4, and data type conversions (round to nearest even, saturation)."""

from __future__ import annotations

import numpy as np
import pytest

import cldnn_py as cl
from tests.helpers import f32, run_single
from tests.ocl.networks import run_reorder_raw
from tests.ocl.padded import run_kernel_padded
from tests.references import physical_ref

F = cl.Format
DT = cl.DataType
FORMATS = [F.bfyx, F.byxf, F.yxfb, F.fyxb, F.b_fs_yx_fsv16]


PAIRS = [(s, d) for s in FORMATS for d in FORMATS]


@pytest.mark.ocl_every(2)
@pytest.mark.parametrize(("src", "dst"), PAIRS, ids=[f"{s.value}-to-{d.value}" for s, d in PAIRS])
def test_reorder_format_pair(engine, rng, src, dst):
    """19 features: one full fsv16 slice plus a partial one (tail must stay zero)."""
    x = f32(rng.standard_normal((2, 19, 3, 5)))
    out, raw = run_reorder_raw(engine, x, src, dst)
    np.testing.assert_array_equal(out, x)
    np.testing.assert_array_equal(raw, physical_ref(x, dst))


@pytest.mark.parametrize(("shape", "src", "dst"), [
    ((37,), F.bfyx, F.b_fs_yx_fsv16),
    ((3, 21), F.b_fs_yx_fsv16, F.yxfb),
    ((2, 17, 6), F.byxf, F.b_fs_yx_fsv16),
    ((2, 5, 7), F.fyxb, F.byxf),
])
def test_reorder_lower_ranks(engine, rng, shape, src, dst):
    """Rank 1-3 tensors are laid out as their dims4 (trailing ones)."""
    x = f32(rng.standard_normal(shape))
    out, raw = run_reorder_raw(engine, x, src, dst)
    np.testing.assert_array_equal(out, x)
    np.testing.assert_array_equal(raw, physical_ref(x.reshape(x.shape + (1,) * (4 - x.ndim)), dst))


def _float_to_int_values(rng, dtype, n):
    """Ties (±0.5, ±1.5, ±2.5 ...), values at and beyond the type's limits, and random values across ±2x range."""
    info = np.iinfo(dtype)
    lo, hi = float(info.min), float(info.max)
    special = [-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, 3.5, -3.5, 0.49999997, -0.49999997, 7.5000005,
               lo, hi, lo - 0.5, hi + 0.5, lo - 1.5, hi - 0.5, lo + 0.5, lo - 1e3, hi + 1e3, 1e10, -1e10, 3e38, -3e38]
    if dtype == np.int32:
        special += [2147483520.0, 2147483648.0, -2147483648.0, -2147483904.0, 16777217.0]
    special = np.array(special, np.float32)
    span = max(abs(lo), hi) * 2
    rand = rng.uniform(-span, span, n - special.size)
    ties = np.floor(rng.uniform(-span, span, n // 4)) + 0.5            # more random ties
    vals = np.concatenate([special, rand[: n - special.size - ties.size], ties]).astype(np.float32)
    return rng.permutation(vals)


CONVERSIONS = [
    # src dtype, dst dtype, src format, dst format
    (np.float32, np.int32, F.bfyx, F.bfyx),
    (np.float32, np.int8, F.byxf, F.b_fs_yx_fsv16),
    (np.float32, np.uint8, F.b_fs_yx_fsv16, F.bfyx),
    (np.float32, np.int8, F.bfyx, F.yxfb),
    (np.int32, np.float32, F.bfyx, F.byxf),
    (np.int8, np.float32, F.b_fs_yx_fsv16, F.bfyx),
    (np.uint8, np.float32, F.bfyx, F.b_fs_yx_fsv16),
    (np.int32, np.int8, F.bfyx, F.bfyx),
    (np.int32, np.uint8, F.byxf, F.bfyx),
    (np.int8, np.uint8, F.bfyx, F.fyxb),
    (np.uint8, np.int8, F.bfyx, F.bfyx),
]


_CONV_IDS = [f"{np.dtype(s).name}-{np.dtype(d).name}-{a.value}-{b.value}" for s, d, a, b in CONVERSIONS]


@pytest.mark.ocl_every(2)
@pytest.mark.parametrize(("sdt", "ddt", "src", "dst"), CONVERSIONS, ids=_CONV_IDS)
def test_reorder_data_type_conversion(engine, rng, sdt, ddt, src, dst):
    """Float → integer: round half to even, saturate to the type's range. Integer → float: nearest float.
    Integer → integer: saturate."""
    shape = (2, 19, 3, 4)
    n = int(np.prod(shape))
    if np.dtype(sdt).kind == "f":
        x = _float_to_int_values(rng, ddt, n).reshape(shape)
    else:
        info = np.iinfo(sdt)
        x = rng.integers(info.min, info.max, size=shape, endpoint=True, dtype=np.int64)
        x.flat[:2] = (info.min, info.max)
        x = x.astype(sdt)
    out, raw = run_reorder_raw(engine, x, src, dst, DT.from_numpy(ddt))
    x64 = x.astype(np.float64)
    if np.dtype(ddt).kind == "f":
        expected = x64.astype(np.float32)      # numpy rounds int64 → float32 to nearest even
    else:
        info = np.iinfo(ddt)
        expected = np.clip(np.rint(x64), info.min, info.max).astype(ddt)
    assert out.dtype == np.dtype(ddt)
    np.testing.assert_array_equal(out, expected)
    np.testing.assert_array_equal(raw, physical_ref(expected, dst))


def test_reorder_helper_run_single(engine, rng):
    """The common path other tests use: run_single with a non-bfyx input format and a final output reorder."""
    x = f32(rng.standard_normal((1, 33, 2, 3)))
    out = run_single(engine, cl.Reorder("r", "x", F.byxf), {"x": x}, fmt=F.b_fs_yx_fsv16, out_fmt=F.yxfb)
    np.testing.assert_array_equal(out, x)


def test_reorder_padded_buffers(engine, rng):
    """Padded b_fs_yx_fsv16 input to padded byxf output: only interiors are read and written."""
    shape = (2, 19, 3, 4)
    lin = cl.Layout(DT.f32, F.b_fs_yx_fsv16, shape, cl.Padding((1, 0, 2, 1), (0, 0, 1, 3)))
    lout = cl.Layout(DT.f32, F.byxf, shape, cl.Padding((0, 3, 1, 0), (1, 2, 0, 2)))
    x = f32(rng.standard_normal(shape))
    out = run_kernel_padded(engine, "reorder", [lin], lout, {}, [x])
    np.testing.assert_array_equal(out, x)
