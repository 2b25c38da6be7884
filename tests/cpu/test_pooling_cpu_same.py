"""pooling_cpu_planes' same-window IR kernel (SAME_KERNEL, kernel_selector/kernels/pooling/cpu_pooling_same.py:
stride 1, output planes as large as the input's, unpadded bfyx, every tap one masked load at a fixed offset over the
whole stack of planes) vs the independent float64 pooling of test_pooling_cpu_fsv16, on NaN-poisoned output
buffers: max / average / average_no_padding, 3×3, 5×5 and one-dimensional windows, asymmetric pads, dilation,
planes whose size is not a multiple of the vector width (the mask table's period spans several planes), stacks
that end inside a vector, tasks of one vector, NaN inputs skipped by max, a fused activation; the mask tables."""

from __future__ import annotations

import numpy as np
import pytest

import cldnn_py as cl
from cldnn_py.layout import DataType, Format, Layout
from cldnn_py.ops import FusedActivationAttrs
from kernel_selector.common.cpu_microkernel import W
from kernel_selector.kernels.pooling import cpu_pooling_same as same
from kernel_selector.kernels.pooling import pooling_kernel_cpu_planes as planes
from kernel_selector.params import FusedOp
from tests.cpu.kernel_harness import run_kernel
from tests.cpu.test_pooling_cpu_fsv16 import PLANES, pool64
from tests.helpers import assert_close, f32

M = cl.PoolingMode

CASES = [
    # mode, (N, C, H, W), kernel, pad, pad_end, dilation
    (M.max, (2, 7, 9, 11), (3, 3), (1, 1), (1, 1), (1, 1)),
    (M.average, (2, 7, 9, 11), (3, 3), (1, 1), (1, 1), (1, 1)),                 # count_include_pad
    (M.average_no_padding, (1, 5, 7, 7), (3, 3), (1, 1), (1, 1), (1, 1)),       # 49-element planes
    (M.average, (1, 6, 10, 7), (5, 5), (2, 2), (2, 2), (1, 1)),
    (M.max, (1, 3, 7, 12), (3, 3), (0, 2), (2, 0), (1, 1)),                     # asymmetric pads
    (M.average, (1, 4, 9, 9), (3, 3), (2, 2), (2, 2), (2, 2)),                  # dilation 2
    (M.max, (2, 3, 6, 5), (3, 1), (1, 0), (1, 0), (1, 1)),                      # a column window
    (M.average_no_padding, (1, 3, 5, 13), (1, 5), (0, 3), (0, 1), (1, 1)),      # a row window, asymmetric
    (M.max, (1, 1, 1, 3), (3, 3), (1, 1), (1, 1), (1, 1)),                      # a stack shorter than a vector
]


def _same(engine, x, mode, k, pb, pe, d, fused=None):
    prim = cl.Pooling("pool", "x", mode=mode, kernel=k, stride=(1, 1), pad=pb, pad_end=pe, dilation=d)
    lin = Layout(DataType.f32, Format.bfyx, x.shape)
    lout = prim.calc_output_layout([lin])
    assert lout.shape == x.shape
    out, chosen = run_kernel(engine, "pooling", [lin], lout, prim.attrs(), [x], PLANES, fused)
    assert chosen == PLANES
    return out


@pytest.fixture()
def taken(monkeypatch):
    """Counts the same-window kernel's calls (the form was taken)."""
    calls = []
    real = planes.pool_same_runs
    monkeypatch.setattr(planes, "pool_same_runs", lambda *a: (calls.append(a[10]), real(*a)))
    return calls


@pytest.mark.parametrize("run_vectors", [256, 1], ids=["runs", "vector-each"])
@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c[0].value}-{c[1]}-k{c[2]}-p{c[3]}{c[4]}-d{c[5]}")
def test_same_kernel_matches_reference(cpu_engine, rng, monkeypatch, taken, case, run_vectors):
    mode, shape, k, pb, pe, d = case
    monkeypatch.setattr(planes, "RUN_VECTORS", run_vectors)
    x = f32(rng.standard_normal(shape))
    out = _same(cpu_engine, x, mode, k, pb, pe, d)
    assert taken, "the same-window kernel did not run"
    if run_vectors == 1:
        assert taken[-1] == -(-x.size // W)  # one task per vector
    assert_close(out, pool64(x, mode, k, (1, 1), pb, pe, d, False))


def test_same_kernel_skips_nan_and_fuses_an_activation(cpu_engine, rng, taken):
    """Max skips NaN inputs (a window of NaN and padding only gives -inf); a clamp runs over each task's outputs."""
    x = f32(rng.standard_normal((2, 3, 13, 14)))
    x[0, 0, ::3, :] = np.nan
    x[1, 1, :, 1::4] = np.nan
    x[0, 2, :2, :2] = np.nan
    xm = np.where(np.isnan(x), -np.inf, x)
    assert_close(_same(cpu_engine, x, M.max, (3, 3), (1, 1), (1, 1), (1, 1)),
                 pool64(xm, M.max, (3, 3), (1, 1), (1, 1), (1, 1), (1, 1), False))
    clamp = FusedOp("activation", FusedActivationAttrs("clamp", a=-0.3, b=0.4))
    y = f32(rng.standard_normal((2, 5, 8, 9)))
    got = _same(cpu_engine, y, M.average, (3, 3), (1, 1), (1, 1), (1, 1), fused=[clamp])
    assert_close(got, np.clip(pool64(y, M.average, (3, 3), (1, 1), (1, 1), (1, 1), (1, 1), False), -0.3, 0.4))
    assert len(taken) == 2


def test_same_tables():
    """Lane j of period row r holds stack element r·W + j; its tap bits and divisor are those of its plane position
    (7×7 planes: 49 vectors repeat every 49 elements × W lanes, several planes)."""
    h, w = 7, 7
    win = np.array([3, 3, 1, 1, 1, 1, 1, 1, 1, 1], np.int64)
    divs = np.arange(1, h * w + 1, dtype=np.float32).reshape(h, w)
    masks, offs, div, period = same.same_tables(h, w, win, divs, lanes=16)
    assert period == 49 and masks.shape == (49, 9) and div.shape == (49, 16)
    assert offs.tolist() == [(ky - 1) * w + kx - 1 for ky in range(3) for kx in range(3)]
    for r in (0, 3, 48):
        for j in (0, 5, 15):
            pos = (r * 16 + j) % (h * w)
            y, x = divmod(pos, w)
            assert div[r, j] == divs[y, x]
            for t, (ky, kx) in enumerate((a, b) for a in range(3) for b in range(3)):
                inside = 0 <= y + ky - 1 < h and 0 <= x + kx - 1 < w
                assert bool((int(masks[r, t]) >> j) & 1) == inside, (r, j, t)
    m32, _, _, p32 = same.same_tables(4, 8, win, np.ones((4, 8), np.float32), lanes=32)
    assert p32 == 1 and m32.dtype == np.int32 and (int(m32[0, 4]) & 0xFFFFFFFF) == 0xFFFFFFFF  # the centre tap


def test_off_takes_the_flat_passes(cpu_engine, rng, monkeypatch, taken):
    """SAME_KERNEL off: the flat passes, the same results."""
    monkeypatch.setattr(planes, "SAME_KERNEL", False)
    x = f32(rng.standard_normal((1, 4, 6, 7)))
    assert_close(_same(cpu_engine, x, M.average, (3, 3), (1, 1), (1, 1), (1, 1)),
                 pool64(x, M.average, (3, 3), (1, 1), (1, 1), (1, 1), (1, 1), False))
    assert not taken
