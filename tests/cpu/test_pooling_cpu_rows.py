"""pooling_cpu_planes' IR row kernel (cpu_pooling_rows over cpu_microkernel_pool_rows: one output plane per call,
masked vector loads for the window's padding and the row tails) vs an independent float64 pooling.

The compiled plane kernel alone on NaN-poisoned buffers with row pitches (every variant: max and sum, stride 1 and
2 along x, 2 and 3 taps; rows and columns of padding, dilation and strides along y, rows of one to several vectors,
nothing written outside the output rows); then whole layers through the kernel (ceil mode, asymmetric pads, padded
input and output buffers, both averages, fused chains once per plane and per row, NaN skipped), the rule, and the
shapes the kernel refuses."""

from __future__ import annotations

import itertools

import numba
import numpy as np
import pytest

import cldnn_py as cl
from cldnn_py.layout import DataType, Format, Layout, Padding
from cldnn_py.ops import FusedActivationAttrs, FusedEltwiseAttrs
from kernel_selector.common.cpu_microkernel import W
from kernel_selector.common.cpu_microkernel_pool_rows import make_pool_plane, pool_plane
from kernel_selector.kernels.pooling import cpu_pooling_rows as rows_mod
from kernel_selector.kernels.pooling import pooling_kernel_cpu_planes as planes
from kernel_selector.params import FusedOp
from tests.cpu.kernel_harness import run_kernel
from tests.cpu.test_pooling_cpu_fsv16 import PLANES, pool64
from tests.helpers import assert_close, f32

M = cl.PoolingMode


def _caller(fn):
    """An njit function calling the intrinsic ``fn`` (intrinsics run only inside compiled code)."""

    @numba.njit
    def call(x, xo, ldx, h, w, out, oo, ldc, oh, ow, sy, py, ky, dy, px, div, is_max):  # pragma: no cover - numba
        fn(x, xo, ldx, h, w, out, oo, ldc, oh, ow, sy, py, ky, dy, px, div, is_max)

    return call


def _plane64(x, oh, ow, ky, kx, sy, sx, py, px, dy, is_max):
    """float64 window by window; taps outside the plane do not count (none at all: -inf or 0)."""
    h, w = x.shape
    out = np.empty((oh, ow))
    for oy in range(oh):
        for ox in range(ow):
            vals = [x[iy, ix] for iy in range(oy * sy - py, oy * sy - py + ky * dy, dy)
                    for ix in range(ox * sx - px, ox * sx - px + kx) if 0 <= iy < h and 0 <= ix < w]
            out[oy, ox] = (max(vals) if is_max else sum(vals)) if vals else (-np.inf if is_max else 0.0)
    return out


GEOMETRIES = [
    # H, KY, SY, PY, DY
    (9, 3, 2, 1, 1),   # a 3x3 stride-2 window with a padding row on top
    (7, 2, 1, 0, 2),   # dilation 2 along y
    (4, 3, 3, 2, 1),   # stride 3 along y, two padding rows
    (1, 1, 1, 0, 1),   # one row
]


@pytest.mark.parametrize("is_max", [True, False], ids=["max", "sum"])
@pytest.mark.parametrize("sx,kx", list(itertools.product((1, 2), (2, 3))), ids=lambda v: str(v))
def test_plane_kernel_matches_float64(rng, sx, kx, is_max):
    """Every compiled variant on widths of 1 to 7 vectors' worth of outputs (tails of every length near W), every
    left pad below KX, the GEOMETRIES; input and output rows with pitches wider than the rows; everything outside
    the output rows stays NaN."""
    call = _caller(pool_plane[sx, kx])
    widths = sorted({1, 5, W - 1, W, W + 1, 2 * W + 3, 3 * W * sx - 1, 55, 111})
    for w, px, (h, ky, sy, py, dy) in itertools.product(widths, range(kx), GEOMETRIES):
        oh = (h + 2 * py - (ky - 1) * dy - 1) // sy + 1
        ow = (w + 2 * px - kx) // sx + 1
        if oh <= 0 or ow <= 0:
            continue
        ldx, ldc, xo, oo = w + 3, ow + 5, 11, 4
        xx = f32(rng.standard_normal(xo + h * ldx + 2 * W))
        out = np.full(oo + oh * ldc + 2 * W, np.nan, np.float32)
        div = f32(rng.uniform(1.0, 9.0, (oh, ow)))
        call(xx, xo, ldx, h, w, out, oo, ldc, oh, ow, sy, py, ky, dy, px, div, int(is_max))
        ref = _plane64(xx[xo:xo + h * ldx].reshape(h, ldx)[:, :w].astype(np.float64), oh, ow, ky, kx, sy, sx, py,
                       px, dy, is_max)
        got = out[oo:oo + oh * ldc].reshape(oh, ldc)
        where = f"w={w} px={px} geometry={(h, ky, sy, py, dy)}"
        assert np.isnan(out[:oo]).all() and np.isnan(got[:, ow:]).all(), f"written outside the rows: {where}"
        assert np.isnan(out[oo + oh * ldc:]).all(), f"written past the plane: {where}"
        np.testing.assert_allclose(got[:, :ow], ref if is_max else ref / div, rtol=1e-5, atol=1e-6, err_msg=where)


def test_plane_kernel_refuses_other_shapes():
    with pytest.raises(ValueError, match="stride 1 or 2"):
        make_pool_plane(W, 3, 3)
    with pytest.raises(ValueError, match="1 to 8 taps"):
        make_pool_plane(W, 2, 9)


@pytest.fixture
def row_calls(monkeypatch):
    """Counts the layers built on the row kernel (which pooling_cpu_planes takes by default where it can)."""
    monkeypatch.setattr(planes, "ROW_KERNEL", True)
    monkeypatch.setattr(planes, "ROW_KERNEL_LIMITS", None)
    seen = []
    rule = planes.use_row_kernel
    monkeypatch.setattr(planes, "use_row_kernel", lambda *a: seen.append(rule(*a)) or seen[-1])
    return seen


def _pool(engine, x, mode, k, s, pb, pe, ceil, d=(1, 1), in_pad=None, out_pad=None, fused=None, operands=None):
    prim = cl.Pooling("pool", "x", mode=mode, kernel=k, stride=s, pad=pb, pad_end=pe, dilation=d, ceil_mode=ceil)
    lin = Layout(DataType.f32, Format.bfyx, x.shape, in_pad or Padding())
    lout = prim.calc_output_layout([lin]).with_(padding=out_pad or Padding())
    out, chosen = run_kernel(engine, "pooling", [lin], lout, prim.attrs(), [x], PLANES, fused, operands)
    assert chosen == PLANES
    return out


LAYERS = [
    # mode, (N, C, H, W), kernel, stride, pad, pad_end, dilation, ceil
    (M.max, (2, 5, 27, 27), (3, 3), (2, 2), (0, 0), (0, 0), (1, 1), True),     # SqueezeNet's pools, ceil
    (M.max, (1, 4, 40, 38), (3, 3), (2, 2), (1, 1), (1, 1), (1, 1), False),    # ResNet's pool1, rows of 2 vectors
    (M.average, (1, 7, 14, 14), (3, 3), (2, 2), (1, 1), (1, 1), (1, 1), False),  # ShuffleNet's shortcut pools
    (M.average_no_padding, (2, 3, 27, 28), (3, 3), (2, 2), (1, 1), (1, 1), (1, 1), False),
    (M.average, (1, 6, 20, 34), (2, 2), (2, 2), (0, 0), (0, 0), (1, 1), True),  # DenseNet's transitions
    (M.max, (1, 4, 9, 15), (3, 3), (1, 1), (0, 0), (0, 0), (1, 1), False),      # stride 1, not a "same" window
    (M.average, (1, 3, 13, 11), (2, 3), (3, 1), (0, 1), (1, 0), (2, 1), True),  # stride 3, dilation 2 along y
]


@pytest.mark.parametrize("case", LAYERS, ids=lambda c: f"{c[0].value}-{c[1]}-k{c[2]}-s{c[3]}-d{c[6]}-c{int(c[7])}")
def test_row_kernel_layers(cpu_engine, rng, row_calls, case):
    """Whole layers with padded input and output buffers (their borders checked by the harness)."""
    mode, shape, k, s, pb, pe, d, ceil = case
    x = f32(rng.standard_normal(shape))
    out = _pool(cpu_engine, x, mode, k, s, pb, pe, ceil, d, Padding((0, 1, 1, 2), (1, 0, 2, 1)),
                Padding((0, 0, 1, 1), (0, 1, 1, 3)))
    assert row_calls and row_calls[-1], "the row kernel was not taken"
    assert_close(out, pool64(x, mode, k, s, pb, pe, d, ceil))


@pytest.mark.parametrize("limits", [(26, 1 << 30), (64, 4 * 2 * 5 * 27 * 27 - 4)], ids=["too-wide", "too-large"])
def test_row_kernel_limits_send_big_inputs_elsewhere(cpu_engine, rng, monkeypatch, row_calls, limits):
    """ROW_KERNEL_LIMITS (input width, input bytes): a layer past either runs another form, with the same result."""
    monkeypatch.setattr(planes, "ROW_KERNEL_LIMITS", limits)
    mode, shape, k, s, pb, pe, d, ceil = LAYERS[0]
    x = f32(rng.standard_normal(shape))
    out = _pool(cpu_engine, x, mode, k, s, pb, pe, ceil, d)
    assert not row_calls, "the row kernel was taken past its limits"
    assert_close(out, pool64(x, mode, k, s, pb, pe, d, ceil))
    monkeypatch.setattr(planes, "ROW_KERNEL_LIMITS", (27, 4 * 2 * 5 * 27 * 27))  # at both limits: taken
    assert_close(_pool(cpu_engine, x, mode, k, s, pb, pe, ceil, d), pool64(x, mode, k, s, pb, pe, d, ceil))
    assert row_calls and row_calls[-1]


@pytest.mark.parametrize("residual", [False, True], ids=["plane-chain", "row-chain"])
def test_row_kernel_fused_chains(cpu_engine, rng, row_calls, residual):
    """A clamp alone on a dense output runs once per plane; a residual sum then the clamp, row by row."""
    x = f32(rng.standard_normal((2, 5, 33, 31)))
    ref = pool64(x, M.max, (3, 3), (2, 2), (1, 1), (1, 1), (1, 1), False)
    clamp = FusedOp("activation", FusedActivationAttrs("clamp", a=-0.5, b=1.0))
    if residual:
        r = f32(rng.standard_normal(ref.shape))
        fused = [FusedOp("eltwise", FusedEltwiseAttrs("sum")), clamp]
        got = _pool(cpu_engine, x, M.max, (3, 3), (2, 2), (1, 1), (1, 1), False, fused=fused,
                    operands=[(Layout(DataType.f32, Format.bfyx, r.shape), r)])
        ref = ref + r
    else:
        got = _pool(cpu_engine, x, M.max, (3, 3), (2, 2), (1, 1), (1, 1), False, fused=[clamp])
    assert row_calls[-1]
    assert_close(got, np.clip(ref, -0.5, 1.0))


def test_row_kernel_rule():
    """Windows of 2 or 3 columns at dilation 1 and stride 1 or 2 along x, unit x pitches, not global."""
    pitch = np.array([0, 0, 0, 0, 1], np.int64)
    wide = np.array([0, 0, 0, 0, 2], np.int64)

    def win(k, s, d=1):
        return np.array([3, k, 2, s, 0, 0, 0, 0, 1, d], np.int64)

    assert rows_mod.use_row_kernel(win(3, 2), False, pitch, pitch)
    assert rows_mod.use_row_kernel(win(2, 1), False, pitch, pitch)
    assert not rows_mod.use_row_kernel(win(3, 2), True, pitch, pitch)  # global
    assert not rows_mod.use_row_kernel(win(5, 2), False, pitch, pitch)
    assert not rows_mod.use_row_kernel(win(3, 3), False, pitch, pitch)
    assert not rows_mod.use_row_kernel(win(3, 1, d=2), False, pitch, pitch)
    assert not rows_mod.use_row_kernel(win(3, 2), False, wide, pitch)
    assert not rows_mod.use_row_kernel(win(3, 2), False, pitch, wide)


def test_same_windows_keep_the_flat_passes(cpu_engine, rng, row_calls, monkeypatch):
    """A stride-1 "same" window on unpadded planes runs the flat passes (faster on 7-28 column planes), not the row
    kernel."""
    flat = []
    rule = planes.flat_passes
    monkeypatch.setattr(planes, "flat_passes", lambda *a: flat.append(rule(*a)) or flat[-1])
    x = f32(rng.standard_normal((1, 6, 14, 14)))
    out = _pool(cpu_engine, x, M.max, (3, 3), (1, 1), (1, 1), (1, 1), False)
    assert flat and all(flat) and not any(row_calls)
    assert_close(out, pool64(x, M.max, (3, 3), (1, 1), (1, 1), (1, 1), (1, 1), False))
