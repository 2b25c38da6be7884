"""pooling_cpu_planes' flat path (stride 1, output planes as large as the input's, unpadded bfyx: every tap one
loop over a stack of whole planes, masked where it leaves a row or the plane) vs the independent float64 pooling
of test_pooling_cpu_fsv16, on NaN-poisoned buffers: max / average / average_no_padding, 3×3 and 5×5 windows,
asymmetric pads, dilation, one-dimensional windows, batch 2, stacks cut short at the end of a task and several
stacks per task, a fused activation (once per stack) and a fused residual (row by row); the rule's refusals; NaN
inputs skipped by max; and the plane passes' results reproduced bit for bit. Also the plane passes' gather of
strided windows' outputs on unpadded planes, with the same chains."""

from __future__ import annotations

import numpy as np
import pytest

import cldnn_py as cl
from cldnn_py.layout import DataType, Format, Layout, Padding
from cldnn_py.ops import FusedActivationAttrs, FusedEltwiseAttrs
from kernel_selector.kernels.pooling import pooling_kernel_cpu_planes as planes
from kernel_selector.params import FusedOp
from tests.cpu.kernel_harness import run_kernel
from tests.cpu.test_pooling_cpu_fsv16 import PLANES, pool64
from tests.helpers import assert_close, f32

M = cl.PoolingMode


@pytest.fixture(autouse=True)
def _no_grid(monkeypatch):
    """The forms this file checks (flat, rows, plane passes), not the IR row kernel (test_pooling_cpu_rows.py), the
    flat grids (test_pooling_cpu_grid.py) that take strided windows first, nor the same-window IR kernel
    (test_pooling_cpu_same.py) that takes the flat path's windows first."""
    monkeypatch.setattr(planes, "POOL_GRID", False)
    monkeypatch.setattr(planes, "ROW_KERNEL", False)
    monkeypatch.setattr(planes, "SAME_KERNEL", False)

FLAT_CASES = [
    # mode, (N, C, H, W), kernel, pad, pad_end, dilation
    (M.max, (2, 7, 9, 11), (3, 3), (1, 1), (1, 1), (1, 1)),
    (M.average, (2, 7, 9, 11), (3, 3), (1, 1), (1, 1), (1, 1)),                 # count_include_pad
    (M.average_no_padding, (1, 5, 8, 6), (3, 3), (1, 1), (1, 1), (1, 1)),
    (M.average, (1, 6, 10, 7), (5, 5), (2, 2), (2, 2), (1, 1)),
    (M.max, (1, 3, 7, 12), (3, 3), (0, 2), (2, 0), (1, 1)),                     # asymmetric pads
    (M.average, (1, 4, 9, 9), (3, 3), (2, 2), (2, 2), (2, 2)),                  # dilation 2
    (M.max, (2, 3, 6, 5), (3, 1), (1, 0), (1, 0), (1, 1)),                      # a column window
    (M.average_no_padding, (1, 3, 5, 13), (1, 5), (0, 3), (0, 1), (1, 1)),      # a row window, asymmetric
]


def _flat(engine, x, mode, k, pb, pe, d, fused=None, operands=None):
    prim = cl.Pooling("pool", "x", mode=mode, kernel=k, stride=(1, 1), pad=pb, pad_end=pe, dilation=d)
    lin = Layout(DataType.f32, Format.bfyx, x.shape)
    lout = prim.calc_output_layout([lin])
    assert lout.shape == x.shape
    out, chosen = run_kernel(engine, "pooling", [lin], lout, prim.attrs(), [x], PLANES, fused, operands)
    assert chosen == PLANES
    return out


@pytest.mark.parametrize("stack_floats", [8192, 1], ids=["stacks", "plane-each"])
@pytest.mark.parametrize("case", FLAT_CASES, ids=lambda c: f"{c[0].value}-{c[1]}-k{c[2]}-p{c[3]}{c[4]}-d{c[5]}")
def test_flat_path_matches_reference(cpu_engine, rng, monkeypatch, case, stack_floats):
    mode, shape, k, pb, pe, d = case
    monkeypatch.setattr(planes, "FLAT_BATCH_FLOATS", stack_floats)
    seen = []
    rule = planes.flat_passes
    monkeypatch.setattr(planes, "flat_passes", lambda *a: seen.append(rule(*a)) or seen[-1])
    x = f32(rng.standard_normal(shape))
    out = _flat(cpu_engine, x, mode, k, pb, pe, d)
    assert seen and all(seen)  # the flat path was taken
    assert_close(out, pool64(x, mode, k, (1, 1), pb, pe, d, False))


def test_flat_path_with_several_stacks_per_task(cpu_engine, rng, monkeypatch):
    """40 planes over TASKS 4: 10 per task, stacks of 3 (the last of each task 1 plane)."""
    monkeypatch.setattr(planes, "TASKS", 4)
    monkeypatch.setattr(planes, "FLAT_BATCH_FLOATS", 3 * 6 * 7)
    x = f32(rng.standard_normal((2, 20, 6, 7)))
    for mode in (M.max, M.average):
        assert_close(_flat(cpu_engine, x, mode, (3, 3), (1, 1), (1, 1), (1, 1)),
                     pool64(x, mode, (3, 3), (1, 1), (1, 1), (1, 1), (1, 1), False))


@pytest.mark.parametrize("stack_floats", [8192, 2 * 8 * 9])
def test_flat_path_fused_chains(cpu_engine, rng, monkeypatch, stack_floats):
    """A clamp alone (applied once per stack) and a residual sum then a clamp (row by row, the operand padded);
    two tasks of 5 planes, in stacks of 5 or 2."""
    monkeypatch.setattr(planes, "TASKS", 2)
    monkeypatch.setattr(planes, "FLAT_BATCH_FLOATS", stack_floats)
    x = f32(rng.standard_normal((2, 5, 8, 9)))
    r = f32(rng.standard_normal((2, 5, 8, 9)))
    clamp = FusedOp("activation", FusedActivationAttrs("clamp", a=-0.5, b=1.0))
    ref = pool64(x, M.average, (3, 3), (1, 1), (1, 1), (1, 1), (1, 1), False)
    got = _flat(cpu_engine, x, M.average, (3, 3), (1, 1), (1, 1), (1, 1), fused=[clamp])
    assert_close(got, np.clip(ref, -0.5, 1.0))
    rlay = Layout(DataType.f32, Format.bfyx, r.shape, Padding((0, 0, 1, 0), (0, 0, 0, 1)))
    got = _flat(cpu_engine, x, M.average, (3, 3), (1, 1), (1, 1), (1, 1),
                fused=[FusedOp("eltwise", FusedEltwiseAttrs("sum")), clamp], operands=[(rlay, r)])
    assert_close(got, np.clip(ref + r, -0.5, 1.0))


def test_flat_path_skips_nan(cpu_engine, rng):
    """Max skips NaN inputs; a window of NaN and padding only gives -inf, as the plane passes do."""
    x = f32(rng.standard_normal((1, 3, 13, 14)))
    x[0, 0, ::3, :] = np.nan
    x[0, 1, :, 1::4] = np.nan
    x[0, 2, :2, :2] = np.nan
    out = _flat(cpu_engine, x, M.max, (3, 3), (1, 1), (1, 1), (1, 1))
    xm = np.where(np.isnan(x), -np.inf, x)
    assert_close(out, pool64(xm, M.max, (3, 3), (1, 1), (1, 1), (1, 1), (1, 1), False))


def test_flat_rule():
    """Stride 1 and a same-size output on unpadded bfyx only; padded rows or planes, strides, other output sizes
    and global pooling take the other paths."""
    dims = np.array([2, 3, 9, 11, 9, 11, 11, 13], np.int64)
    win = np.array([3, 3, 1, 1, 1, 1, 1, 1, 1, 1], np.int64)
    dense = np.array([0, 3 * 99, 99, 11, 1], np.int64)
    assert planes.flat_passes(dims, win, False, dense, dense)
    assert not planes.flat_passes(dims, win, True, dense, dense)
    strided = win.copy()
    strided[3] = 2
    assert not planes.flat_passes(dims, strided, False, dense, dense)
    smaller = dims.copy()
    smaller[5] = 9
    assert not planes.flat_passes(smaller, win, False, dense, dense)
    for i, v in ((1, 3 * 99 + 5), (2, 100), (3, 12), (4, 2)):
        padded = dense.copy()
        padded[i] = v
        assert not planes.flat_passes(dims, win, False, padded, dense)
        assert not planes.flat_passes(dims, win, False, dense, padded)


def test_flat_path_equals_the_plane_passes(cpu_engine, rng, monkeypatch):
    """Same sums in the same order as the bordered plane passes: equal to the last bit (average and max)."""
    x = f32(rng.standard_normal((1, 24, 14, 14)))
    outs = {}
    for flat in (True, False):
        monkeypatch.setattr(planes, "flat_passes", lambda *a, flat=flat: flat)
        monkeypatch.setattr(planes, "ROWS_MIN_W", 10**6)
        outs[flat] = [_flat(cpu_engine, x, mode, (3, 3), (1, 1), (1, 1), (1, 1)) for mode in (M.max, M.average)]
    for a, b in zip(outs[True], outs[False]):
        assert np.array_equal(a, b)


@pytest.mark.parametrize("batch_floats", [4096, 100])
@pytest.mark.parametrize("mode", [M.average, M.max, M.average_no_padding])
def test_plane_passes_gather_unpadded_outputs(cpu_engine, rng, monkeypatch, mode, batch_floats):
    """Strided windows on unpadded planes narrower than ROWS_MIN_W (or average ones of any width) run the plane
    passes, whose outputs are gathered a stack at a time (``plane_pick``): 3×3 stride 2 and 2×2 stride 2 (ceil),
    stacks of many planes or one; a clamp alone (once per stack) and a residual then a clamp (row by row)."""
    monkeypatch.setattr(planes, "BATCH_FLOATS", batch_floats)
    monkeypatch.setattr(planes, "TASKS", 2)  # 9 planes a task: stacks of up to 9 planes, or of 1
    picks = []
    rule = planes.plane_pick
    monkeypatch.setattr(planes, "plane_pick", lambda *a: picks.append(1) or rule(*a))
    x = f32(rng.standard_normal((2, 9, 11, 9)))
    clamp = FusedOp("activation", FusedActivationAttrs("clamp", a=-0.5, b=1.0))
    for k, s, pb, pe, ceil in (((3, 3), (2, 2), (1, 1), (1, 1), False), ((2, 2), (2, 2), (0, 0), (0, 0), True)):
        prim = cl.Pooling("pool", "x", mode=mode, kernel=k, stride=s, pad=pb, pad_end=pe, ceil_mode=ceil)
        lin = Layout(DataType.f32, Format.bfyx, x.shape)
        lout = prim.calc_output_layout([lin])
        ref = pool64(x, mode, k, s, pb, pe, (1, 1), ceil)
        r = f32(rng.standard_normal(ref.shape))
        rlay = Layout(DataType.f32, Format.bfyx, r.shape, Padding((0, 0, 0, 1), (0, 1, 0, 0)))
        for fused, operands, want in ((None, None, ref), ([clamp], None, np.clip(ref, -0.5, 1.0)),
                                      ([FusedOp("eltwise", FusedEltwiseAttrs("sum")), clamp], [(rlay, r)],
                                       np.clip(ref + r, -0.5, 1.0))):
            out, chosen = run_kernel(cpu_engine, "pooling", [lin], lout, prim.attrs(), [x], PLANES, fused, operands)
            assert chosen == PLANES
            assert_close(out, want)
    assert picks  # the gather was built


@pytest.mark.parametrize("stride", [1, 2])
def test_rows_path_taps_by_stride(cpu_engine, rng, monkeypatch, stride):
    """Max pooling row by row (padded input: not the flat path), whose 3-tap x loops have a literal stride for
    strides 1 and 2 (the general one: CASES with stride 3); with a padded output and NaN inputs."""
    monkeypatch.setattr(planes, "ROWS_MIN_W", 1)
    used = []
    rule = planes.row_passes
    monkeypatch.setattr(planes, "row_passes", lambda *a: used.append(rule(*a)) or used[-1])
    x = f32(rng.standard_normal((2, 5, 13, 17)))
    x[0, 1, 3, ::5] = np.nan
    prim = cl.Pooling("pool", "x", mode=M.max, kernel=(3, 3), stride=(stride, stride), pad=(1, 1), pad_end=(1, 1))
    lin = Layout(DataType.f32, Format.bfyx, x.shape, Padding((0, 0, 1, 2), (0, 0, 2, 1)))
    lout = prim.calc_output_layout([lin]).with_(padding=Padding((0, 0, 0, 1), (0, 0, 1, 0)))
    out, chosen = run_kernel(cpu_engine, "pooling", [lin], lout, prim.attrs(), [x], PLANES)
    assert chosen == PLANES and used and all(used)
    xm = np.where(np.isnan(x), -np.inf, x)
    assert_close(out, pool64(xm, M.max, (3, 3), (stride, stride), (1, 1), (1, 1), (1, 1), False))


@pytest.mark.parametrize("mode", [M.average, M.average_no_padding])
@pytest.mark.parametrize("k,s,pb,pe,ceil", [((3, 3), (2, 2), (1, 1), (1, 1), False),
                                            ((2, 2), (2, 2), (0, 0), (0, 0), True),
                                            ((3, 4), (2, 2), (1, 0), (2, 1), True)],
                         ids=["3x3s2", "2x2s2-ceil", "3x4s2-asym"])
def test_average_rows_path(cpu_engine, rng, monkeypatch, mode, k, s, pb, pe, ceil):
    """Strided average pooling row by row (_batch_rows: the literal 3-tap and 2-tap loops and the general one),
    on padded and unpadded data, with a residual and a clamp fused, against the float64 pooling."""
    used = []
    rule = planes.row_passes
    monkeypatch.setattr(planes, "row_passes", lambda *a: used.append(rule(*a)) or used[-1])
    x = f32(rng.standard_normal((2, 6, 15, 35)))  # output rows of 13-18: at least ROWS_MIN_W
    prim = cl.Pooling("pool", "x", mode=mode, kernel=k, stride=s, pad=pb, pad_end=pe, ceil_mode=ceil)
    clamp = FusedOp("activation", FusedActivationAttrs("clamp", a=-0.5, b=1.0))
    padded = (Padding((0, 0, 1, 2), (0, 1, 2, 1)), Padding((0, 0, 1, 0), (0, 0, 0, 2)))
    for pad_in, pad_out in ((Padding(), Padding()), padded):
        lin = Layout(DataType.f32, Format.bfyx, x.shape, pad_in)
        lout = prim.calc_output_layout([lin]).with_(padding=pad_out)
        ref = pool64(x, mode, k, s, pb, pe, (1, 1), ceil)
        r = f32(rng.standard_normal(ref.shape))
        rlay = Layout(DataType.f32, Format.bfyx, r.shape, Padding((0, 0, 0, 1), (0, 1, 0, 0)))
        out, chosen = run_kernel(cpu_engine, "pooling", [lin], lout, prim.attrs(), [x], PLANES,
                                 [FusedOp("eltwise", FusedEltwiseAttrs("sum")), clamp], [(rlay, r)])
        assert chosen == PLANES and used and all(used)
        assert_close(out, np.clip(ref + r, -0.5, 1.0))
