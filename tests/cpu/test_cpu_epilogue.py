"""The helpers of the fast CPU kernels (kernel_selector/common/cpu_epilogue.py, cpu_launch.py): every activation
against the float64 formulas of tests/references.py, the eltwise modes with their NaN rules, operand maps
(broadcast, blocked, padded) and the Launcher (a result never depends on the thread mode)."""

from __future__ import annotations

import numpy as np
import pytest

from cldnn_py.layout import DataType, Format, Layout, Padding
from kernel_selector.common import cpu_epilogue as ce
from kernel_selector.common import cpu_launch as cln
from tests.references import ACTIVATION_REFS as REF  # float64 formulas, a and b the parameters


@pytest.mark.parametrize("func", sorted(ce.ACT_CODES))
def test_every_activation(rng, func):
    assert func in REF, f"no reference formula for {func}"
    x = rng.standard_normal(301).astype(np.float32) * 3
    if func in ("log", "sqrt"):
        x = np.abs(x) + np.float32(0.01)
    a, b = (-0.7, 1.3) if func in ("clamp",) else (0.6, 0.3) if func == "hard_sigmoid" else (1.67, 1.05)
    buf = x.copy()
    codes = np.array([ce.ACT_CODES[func]], np.int64)
    ce.chain_span(buf, 0, buf.size, codes, np.float32([a]), np.float32([b]), ce.EMPTY, 0, 0)
    ref = REF[func](x.astype(np.float64), np.float32(a).astype(np.float64), np.float32(b).astype(np.float64))
    np.testing.assert_allclose(buf, ref, rtol=2e-5, atol=2e-6)


@pytest.mark.parametrize("mode", ["sum", "sub", "prod", "div", "max", "min", "pow"])
@pytest.mark.parametrize("rstep", [1, 3, 0])
def test_eltwise_chain_with_operand_steps(rng, mode, rstep):
    v = rng.standard_normal(40).astype(np.float32)
    res = (np.abs(rng.standard_normal(130)) + 0.5).astype(np.float32)
    if mode == "pow":
        v = np.abs(v) + np.float32(0.5)
    if mode in ("max", "min"):
        v[3] = np.nan
        res[5] = np.nan
    r = res[2:2 + 40 * rstep:rstep] if rstep else np.full(40, res[2])
    buf = v.copy()
    codes = np.array([ce.ELT_BASE + ce.ELT_CODES[mode]], np.int64)
    ce.chain_span(buf, 0, 40, codes, np.zeros(1, np.float32), np.zeros(1, np.float32), res, 2, rstep)
    v64, r64 = v.astype(np.float64), r.astype(np.float64)
    ops = {"sum": np.add, "sub": np.subtract, "prod": np.multiply, "div": np.divide, "max": np.fmax,
           "min": np.fmin, "pow": np.power}
    ref = ops[mode](v64, r64)
    np.testing.assert_allclose(buf, ref, rtol=1e-5, atol=1e-6)


def _index(m, b, f, y, x):
    return int(ce.operand_index(m, b, f, y, x))


def test_operand_map_broadcast_blocked_padded(rng):
    out = Layout(DataType.f32, Format.b_fs_yx_fsv16, (2, 19, 3, 4))
    cases = [
        Layout(DataType.f32, Format.bfyx, (2, 19, 3, 4), Padding((0, 1, 1, 0), (1, 0, 0, 2))),
        Layout(DataType.f32, Format.b_fs_yx_fsv16, (2, 19, 3, 4), Padding((0, 0, 1, 1), (0, 0, 2, 0))),
        Layout(DataType.f32, Format.bfyx, (1, 19, 1, 1)),
        Layout(DataType.f32, Format.byxf, (19, 1, 4)),
        Layout(DataType.f32, Format.bfyx, (4,)),
    ]
    for lay in cases:
        val = rng.standard_normal(lay.shape).astype(np.float32)
        phys = lay.to_physical(val)
        m = ce.operand_map(lay, out)
        full = np.broadcast_to(val.reshape((1,) * (4 - val.ndim) + val.shape), out.shape)
        for b, f, y, x in [(0, 0, 0, 0), (1, 18, 2, 3), (1, 16, 0, 2), (0, 7, 1, 1)]:
            assert phys[_index(m, b, f, y, x)] == full[b, f, y, x], (str(lay), (b, f, y, x))


def test_launcher_modes_give_identical_results(rng):
    """The same eltwise on the calling thread (a Launcher of small work) and on the pool: bit-identical results,
    equal to float64 numpy."""
    from kernel_selector.kernels.eltwise.eltwise_kernel_cpu_vec import eltwise_flat

    n = 4 * cln.PARALLEL_MIN_WORK
    a, b = rng.standard_normal(n).astype(np.float32), rng.standard_normal(n).astype(np.float32)
    codes = np.array([ce.ACT_CODES["tanh"]], np.int64)
    f1 = np.float32(1)
    outs = []
    for launch in (cln.Launcher(1), cln.Launcher(3 * n), cln.Launcher(3 * n, chunk=64)):
        out = np.full(n, np.nan, np.float32)
        launch(eltwise_flat, out, a, b, n, 0, f1, f1, codes, np.zeros(1, np.float32), np.zeros(1, np.float32),
               ce.EMPTY, False)
        assert launch.calls == 1
        outs.append(out)
    assert cln.Launcher(1).small and not cln.Launcher(3 * n).small
    for o in outs[1:]:
        assert np.array_equal(o, outs[0])
    np.testing.assert_allclose(outs[0], np.tanh(a.astype(np.float64) + b), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("func", ["relu", "clamp", "hard_swish", "hard_sigmoid", "logistic", "swish", "linear"])
def test_vector_loops_keep_the_table_nan_rules(func):
    """The float32 loops of act_span give what the table's scalar renderer (``activate``) gives on NaN, ±inf and
    the kinks: relu / clamp / hard_* map a NaN the C fmax/fmin way."""
    from kernel_selector.common.elementwise_numba import activate

    x = np.array([np.nan, np.inf, -np.inf, -3.0, 3.0, 0.0, -0.0, 2.5, -7.0, 1e-30], np.float32)
    a, b = (0.2, 0.5) if func == "hard_sigmoid" else (-1.0, 2.0) if func == "clamp" else (1.0, 0.0)
    code = ce.ACT_CODES[func]
    buf = x.copy()
    ce.chain_span(buf, 0, buf.size, np.array([code], np.int64), np.float32([a]), np.float32([b]), ce.EMPTY, 0, 0)
    ref = np.array([activate(float(v), code, np.float32(a), np.float32(b)) for v in x], np.float32)
    np.testing.assert_array_equal(np.isnan(buf), np.isnan(ref))
    np.testing.assert_allclose(buf[~np.isnan(ref)], ref[~np.isnan(ref)], rtol=1e-6, atol=1e-7)


def test_exp_f32_is_accurate_and_vectorized():
    """cpu_fastmath.exp_f32 within 5 ulp of e^x (float64) on [-87, 88] on seeded random inputs, the documented
    values outside it and at NaN / ±inf, and its loop compiled to vector code with no expf call."""
    import re

    import numba

    from kernel_selector.common.cpu_fastmath import exp_f32
    from kernel_selector.common.elementwise_numba import NJIT

    def loop(x, o):  # pragma: no cover - numba
        for i in range(x.shape[0]):
            o[i] = exp_f32(x[i])

    fn = numba.njit(**{**NJIT, "cache": False})(loop)
    x = np.random.default_rng(7).uniform(-87, 88, 200_001).astype(np.float32)
    o = np.full_like(x, np.nan)
    fn(x, o)
    ref = np.exp(x.astype(np.float64))
    ulp = np.abs(o - ref) / np.spacing(ref.astype(np.float32))
    assert ulp.max() <= 5, ulp.max()
    special = np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, 89.0, -90.0, 88.5], np.float32)
    got = np.empty_like(special)
    fn(special, got)
    assert np.isnan(got[0]) and got[1] == np.inf and got[2] == 0 and got[3] == 1 and got[4] == 1
    assert got[5] == np.inf and got[6] == 0 and 0.5 < got[7] / np.exp(np.float64(88.5)) <= 1
    asm = fn.inspect_asm(fn.signatures[0])
    assert "expf" not in asm and re.search(r"vfmadd\w*ps", asm)
