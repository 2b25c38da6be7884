"""reorder_cpu_copy (the CPU engine's numba reorder) vs an independent numpy reference written from the reorder
primitive's convert_mode rules: "round" to an integer type = np.rint + clip (NaN -> 0), "truncate" = np.trunc +
clip for float -> integer and an ``astype`` wrap for integer -> integer, "bool" = ``!= 0``, to f32 a cast.

Each case runs the kernel forced on physical buffers twice, with two different poisons: the input's padding and
block tail hold 0 in one run and a large value in the other (their conversions always differ, so reading padding
shows in one of the runs), the output's interior holds two different poisons (an element left unwritten shows) and
its padding / block tail a sentinel that must survive. Covers every format pair of bfyx / byxf / b_fs_yx_fsv16
(plus yxfb and fyxb), padding on either side, batch > 1, feature counts that are not a multiple of 16, every data
type pair under every convert_mode, .5 ties, out-of-range values, NaN and ±inf; each case also checks that the
selector picks reorder_cpu_copy unforced."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from cldnn_py.layout import DataType, Format, Layout, Padding
from cldnn_py.ops import FusedActivationAttrs
from kernel_selector.params import FusedOp, Params
from kernel_selector.selector import candidates, selector
from tests.cpu.kernel_harness import padding_mask
from tests.helpers import typed_attrs

KERNEL = "reorder_cpu_copy"
BFYX, BYXF, YXFB, FYXB, FSV16 = Format.bfyx, Format.byxf, Format.yxfb, Format.fyxb, Format.b_fs_yx_fsv16
F32, I32, I8, U8 = DataType.f32, DataType.i32, DataType.i8, DataType.u8
TYPES = [F32, I32, I8, U8]
MODES = ["round", "truncate", "bool"]
POISON_IN = {F32: (0.0, 3.0e9), I32: (0, 2**31 - 1), I8: (0, 127), U8: (0, 255)}  # conversions of 0 and x differ
POISON_OUT = {F32: (np.nan, -7.25), I32: (-123456789, 987654321), I8: (-77, 55), U8: (201, 13)}
SENTINEL = {F32: 1234.5, I32: -424242, I8: -99, U8: 222}


def lay(fmt, shape, lo=(0, 0, 0, 0), hi=(0, 0, 0, 0), dt=F32):
    """A Layout with lower / upper padding."""
    return Layout(dt, fmt, shape, Padding(lo, hi))


def expected(x: np.ndarray, to: DataType, mode: str) -> np.ndarray:
    """The reorder's conversion of ``x`` to ``to``, from the primitive's rules (independent of the kernels)."""
    t = np.dtype(to.numpy)
    if mode == "bool":
        return (x != 0).astype(t)
    if t.kind == "f":
        return x.astype(t)
    lo, hi = np.iinfo(t).min, np.iinfo(t).max
    if x.dtype.kind == "f":
        x64 = x.astype(np.float64)
        with np.errstate(invalid="ignore"):
            r = np.rint(x64) if mode == "round" else np.trunc(x64)
            r = np.where(np.isnan(r), 0.0, np.clip(r, lo, hi))
        return r.astype(t)
    if mode == "round":
        return np.clip(x.astype(np.int64), lo, hi).astype(t)
    return x.astype(np.int64).astype(t)  # C cast: modulo 2^bits


def values(rng, dt: DataType, shape: tuple[int, ...]) -> np.ndarray:
    """Fresh data of ``dt``: for f32 ties (k + .5), near-ties, values beyond every integer range, NaN, ±inf, ±0 and
    random values; for integers the whole range of the type (extremes included) and zeros."""
    n = int(np.prod(shape))
    if dt == F32:
        special = np.array([0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 126.5, 127.5, -128.5, 254.5, 255.5, -0.0, 0.0,
                            0.49999997, -0.50000006, 127.49999, 128.0, -129.0, 256.0, -1.0, 300.0, -300.0,
                            2147483520.0, 2147483648.0, -2147483648.0, -2147483904.0, 3.0e9, -1.0e10,
                            np.nan, np.inf, -np.inf, 1.0e-30], np.float32)
        v = np.concatenate([rng.integers(-300, 300, n).astype(np.float64) + 0.5 * rng.integers(0, 2, n),
                            rng.standard_normal(n) * 200]).astype(np.float32)
        v = rng.permutation(v)[:n]
        pos = rng.choice(n, min(n, 3 * len(special)), replace=False)
        v[pos] = np.resize(special, len(pos))
        return v.reshape(shape)
    info = np.iinfo(np.dtype(dt.numpy))
    v = rng.integers(info.min, int(info.max) + 1, n, dtype=np.int64)
    if dt == I32:
        v[: n // 2] = rng.integers(-400, 400, n // 2)  # also values inside the narrow types' ranges
    pos = rng.choice(n, min(n, 12), replace=False)
    v[pos] = np.resize([info.min, info.max, 0, -1 if info.min < 0 else 1, 127, 128, 255, 256], len(pos))
    return np.clip(v, info.min, info.max).astype(dt.numpy).reshape(shape)


def params_for(engine, x_lay, out_lay, mode, fused=None):
    """Reorder Params for ``x_lay`` -> ``out_lay`` under ``mode``."""
    attrs = typed_attrs("reorder", {"format": out_lay.format, "dtype": out_lay.dtype, "convert_mode": mode})
    return Params("reorder", engine.kind, [x_lay], out_lay, attrs, list(fused or []), "reorder", engine.info)


def run(engine, x_lay, out_lay, mode, x):
    """The kernel forced, twice (two poisons each side); returns (logical output, the unforced pick) after checking
    both runs agree, and that the output's padding / block tail kept its sentinel."""
    params = params_for(engine, x_lay, out_lay, mode)
    chosen = selector.select(params)[0].name
    _, kd = selector.select(params, KERNEL)
    results = []
    for run_i in range(2):
        mem = engine.allocate(x_lay)
        phys = x_lay.to_physical(x)
        phys[padding_mask(x_lay)] = POISON_IN[x_lay.dtype][run_i]
        engine.write_buffer(mem.buffer, phys)
        out = engine.allocate(out_lay)
        odt = out_lay.dtype
        phys = np.full(out_lay.buffer_size, POISON_OUT[odt][run_i], dtype=odt.numpy)
        mask = padding_mask(out_lay)
        phys[mask] = SENTINEL[odt]
        engine.write_buffer(out.buffer, phys)
        for k in kd.kernels:
            bound = engine.bind(k, lambda kind, i, m=mem, o=out: m.buffer if kind == "input" else o.buffer)
            engine.enqueue_kernel(bound, k.gws, k.lws).wait()
        raw = np.empty(out_lay.buffer_size, dtype=odt.numpy)
        engine.read_buffer(out.buffer, raw)
        assert (raw[mask] == SENTINEL[odt]).all(), "the kernel wrote into the output's padding or block tail"
        results.append(out_lay.from_physical(raw))
    np.testing.assert_array_equal(results[0], results[1], err_msg="the output depends on padding or poison")
    return results[0], chosen


def check(engine, rng, x_lay, out_lay, mode="round"):
    x = values(rng, x_lay.dtype, x_lay.shape)
    got, pick = run(engine, x_lay, out_lay, mode, x)
    np.testing.assert_array_equal(got, expected(x, out_lay.dtype, mode))
    assert pick == KERNEL


# ----- formats ---------------------------------------------------------------------------------------------------
PAIRS = list(itertools.product([BFYX, BYXF, FSV16], repeat=2)) + [(YXFB, BFYX), (BFYX, FYXB), (FSV16, YXFB)]
DT_CYCLE = [(F32, I8), (F32, F32), (I32, U8), (U8, F32), (F32, U8), (I8, I32)]


@pytest.mark.parametrize(("src", "dst"), PAIRS, ids=[f"{s.value}-{d.value}" for s, d in PAIRS])
def test_format_pairs(cpu_engine, rng, src, dst):
    """19 features (one full fsv16 slice and a partial one), batch 2, a data type pair per case."""
    a, b = DT_CYCLE[PAIRS.index((src, dst)) % len(DT_CYCLE)]
    check(cpu_engine, rng, lay(src, (2, 19, 3, 5), dt=a), lay(dst, (2, 19, 3, 5), dt=b))


PADDED = [  # (input layout, output layout)
    (lay(BFYX, (2, 7, 4, 5), (0, 1, 1, 2), (1, 0, 2, 1)), lay(BFYX, (2, 7, 4, 5), (0, 0, 1, 0), (0, 2, 0, 1), I8)),
    (lay(BFYX, (2, 19, 3, 4), (1, 2, 0, 1), (0, 1, 1, 0)), lay(FSV16, (2, 19, 3, 4), (0, 0, 1, 0), (0, 0, 0, 1), U8)),
    (lay(FSV16, (3, 21, 2, 3), (0, 0, 1, 0), (1, 0, 0, 2)), lay(BYXF, (3, 21, 2, 3), (0, 2, 0, 1), (1, 1, 0, 0), I32)),
    (lay(BYXF, (2, 5, 3, 3), (0, 1, 0, 1), (0, 2, 1, 0), I32), lay(BFYX, (2, 5, 3, 3), (1, 0, 0, 0), (0, 0, 0, 2))),
    (lay(FYXB, (2, 6, 3, 2), (1, 0, 1, 0), (0, 1, 0, 1), U8), lay(YXFB, (2, 6, 3, 2), (0, 1, 0, 0), (1, 0, 2, 0), I8)),
    (lay(FSV16, (2, 17, 2, 2), (0, 0, 1, 1), (0, 0, 0, 0), I8), lay(FSV16, (2, 17, 2, 2), (1, 0, 0, 1), (0, 0, 1, 0))),
]


@pytest.mark.parametrize("case", range(len(PADDED)))
@pytest.mark.parametrize("mode", MODES)
def test_padding(cpu_engine, rng, case, mode):
    """Padding on the input, the output or both; the output's padding keeps its content."""
    check(cpu_engine, rng, *PADDED[case], mode=mode)


# ----- data types and convert modes --------------------------------------------------------------------------------
TYPE_PAIRS = list(itertools.product(TYPES, repeat=2))


# each pair under one convert_mode, the modes in turn (each mode meets every source and destination type): every
# (pair, mode) is a numba specialization of its own, seconds of compiling each, and the mode only changes the
# float -> integer conversion, which test_padding checks under every mode
TYPE_CASES = [(a, b, MODES[i % len(MODES)]) for i, (a, b) in enumerate(TYPE_PAIRS)]


@pytest.mark.parametrize(("a", "b", "mode"), TYPE_CASES, ids=[f"{a.value}-{b.value}-{m}" for a, b, m in TYPE_CASES])
def test_type_pairs(cpu_engine, rng, a, b, mode):
    """Every data type pair under a convert_mode, contiguous (bfyx -> bfyx) and strided (byxf -> fsv16)."""
    check(cpu_engine, rng, lay(BFYX, (2, 3, 4, 11), dt=a), lay(BFYX, (2, 3, 4, 11), dt=b), mode)
    check(cpu_engine, rng, lay(BYXF, (2, 18, 2, 3), dt=a), lay(FSV16, (2, 18, 2, 3), dt=b), mode)


def test_ties_and_saturation_exact(cpu_engine):
    """Hand-checked values: ties round to even, saturation at each bound, NaN -> 0, ±inf -> the bounds."""
    x = np.array([0.5, 1.5, 2.5, -0.5, -2.5, 126.5, 127.5, -128.5, 1000.0, -1000.0, np.nan, np.inf, -np.inf,
                  -0.7, 0.7, 2.9], np.float32).reshape(1, 16, 1, 1)
    cases = {
        (I8, "round"): [0, 2, 2, 0, -2, 126, 127, -128, 127, -128, 0, 127, -128, -1, 1, 3],
        (I8, "truncate"): [0, 1, 2, 0, -2, 126, 127, -128, 127, -128, 0, 127, -128, 0, 0, 2],
        (U8, "round"): [0, 2, 2, 0, 0, 126, 128, 0, 255, 0, 0, 255, 0, 0, 1, 3],
        (U8, "bool"): [1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1],
        (I32, "round"): [0, 2, 2, 0, -2, 126, 128, -128, 1000, -1000, 0, 2**31 - 1, -2**31, -1, 1, 3],
    }
    for (dt, mode), want in cases.items():
        got, pick = run(cpu_engine, lay(BFYX, x.shape), lay(FSV16, x.shape, dt=dt), mode, x)
        np.testing.assert_array_equal(got.reshape(-1), np.array(want, dt.numpy), err_msg=f"{dt.value} {mode}")
        assert pick == KERNEL
    xi = np.array([300, -300, 255, 128, -129, 0, 2**31 - 1, -2**31], np.int32).reshape(1, 8, 1, 1)
    got, _ = run(cpu_engine, lay(BFYX, xi.shape, dt=I32), lay(BYXF, xi.shape, dt=I8), "round", xi)
    np.testing.assert_array_equal(got.reshape(-1), [127, -128, 127, 127, -128, 0, 127, -128])
    got, _ = run(cpu_engine, lay(BFYX, xi.shape, dt=I32), lay(BYXF, xi.shape, dt=I8), "truncate", xi)
    np.testing.assert_array_equal(got.reshape(-1), [44, -44, -1, -128, 127, 0, -1, 0])


# ----- shapes ------------------------------------------------------------------------------------------------------
@pytest.mark.parametrize(("x_lay", "out_lay", "mode"), [
    (lay(BFYX, (37,)), lay(FSV16, (37,), dt=I8), "round"),
    (lay(FSV16, (3, 21), dt=U8), lay(YXFB, (3, 21), dt=F32), "round"),
    (lay(BYXF, (2, 17, 6), dt=I32), lay(BFYX, (2, 17, 6), dt=U8), "truncate"),
    (lay(BFYX, (2, 3, 4, 5, 3)), lay(BFYX, (2, 3, 4, 5, 3), dt=I32), "truncate"),
    (lay(BFYX, (2, 20, 33, 40)), lay(BYXF, (2, 20, 33, 40), (0, 0, 1, 0), (0, 3, 0, 0), I8), "round"),
    (lay(BFYX, (2, 20, 33, 40), dt=U8), lay(BFYX, (2, 20, 33, 40), dt=F32), "bool"),
    (lay(FSV16, (1, 40, 23, 31)), lay(BFYX, (1, 40, 23, 31), dt=U8), "round"),
], ids=["rank1", "rank2", "rank3", "rank5", "large-strided", "large-contiguous", "large-fsv16"])
def test_shapes(cpu_engine, rng, x_lay, out_lay, mode):
    """Ranks 1-3 and 5; tensors above the parallel threshold whose rows are split into several tasks."""
    check(cpu_engine, rng, x_lay, out_lay, mode)


# ----- what it refuses ---------------------------------------------------------------------------------------------
def _kernel():
    return next(c for c in candidates("reorder", "cpu") if c.name == KERNEL)


def test_refuses_fused_ops_f16_and_weights_formats(cpu_engine):
    """Fused ops fail validate(); f16 and weights formats are outside the key: reorder_cpu_ref runs them."""
    relu = FusedOp("activation", FusedActivationAttrs("relu"))
    p = params_for(cpu_engine, lay(BFYX, (1, 3, 2, 2)), lay(BYXF, (1, 3, 2, 2)), "round", [relu])
    assert "fused ops" in _kernel().validate(p)
    half = params_for(cpu_engine, lay(BFYX, (1, 3, 2, 2)), lay(BYXF, (1, 3, 2, 2), dt=DataType.f16), "round")
    assert "f16" in _kernel().supported_key().mismatch(half)
    assert selector.select(half)[0].name == "reorder_cpu_ref"
    weights = params_for(cpu_engine, lay(BFYX, (16, 3, 2, 2)), lay(Format.os_iyx_osv16, (16, 3, 2, 2)), "round")
    assert "os_iyx_osv16" in _kernel().supported_key().mismatch(weights)
    assert selector.select(weights)[0].name == "reorder_cpu_ref"
