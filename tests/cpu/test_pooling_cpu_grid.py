"""pooling_cpu_planes' flat grids (cpu_pooling_grid: row phases, the register micro-kernel of cpu_microkernel_pool
over a whole plane) vs the independent float64 pooling of test_pooling_cpu_fsv16, on NaN-poisoned buffers: the grid
taken where its rule says (stride 1 or 2 along x, any stride along y, short rows), max and both averages, a dense
output whose chain runs once per plane and a padded one whose chain runs per row, several planes per task; and the
rule. The CASES of test_pooling_cpu_fsv16 also run through the grids (test_planes_kernel_both_max_paths[grid])."""

from __future__ import annotations

import numpy as np
import pytest

import cldnn_py as cl
from cldnn_py.layout import DataType, Format, Layout, Padding
from cldnn_py.ops import FusedActivationAttrs, FusedEltwiseAttrs
from kernel_selector.common.cpu_microkernel import W
from kernel_selector.kernels.pooling import cpu_pooling_grid as grid_mod
from kernel_selector.kernels.pooling import pooling_kernel_cpu_planes as planes
from kernel_selector.params import FusedOp
from tests.cpu.kernel_harness import run_kernel
from tests.cpu.test_pooling_cpu_fsv16 import PLANES, pool64
from tests.helpers import assert_close, f32

M = cl.PoolingMode

GRID_CASES = [
    # mode, (N, C, H, W), kernel, stride, pad, pad_end, ceil
    (M.max, (2, 5, 27, 27), (3, 3), (2, 2), (0, 0), (0, 0), True),             # SqueezeNet's last pool, ceil
    (M.average, (1, 7, 14, 14), (3, 3), (2, 2), (1, 1), (1, 1), False),        # ShuffleNet's shortcut pools
    (M.average_no_padding, (2, 3, 27, 28), (3, 3), (2, 2), (1, 1), (1, 1), False),
    (M.max, (1, 4, 9, 15), (3, 3), (1, 1), (0, 0), (0, 0), False),             # stride 1, output smaller: not flat
    (M.average, (1, 3, 13, 11), (2, 2), (3, 1), (0, 1), (1, 0), True),          # stride 3 along y: 3 row phases
    (M.max, (1, 6, 16, 16), (5, 5), (2, 2), (2, 2), (2, 2), False),
]


def _pool(engine, x, mode, k, s, pb, pe, ceil, out_pad=None, fused=None, operands=None):
    prim = cl.Pooling("pool", "x", mode=mode, kernel=k, stride=s, pad=pb, pad_end=pe, ceil_mode=ceil)
    lin = Layout(DataType.f32, Format.bfyx, x.shape)
    lout = prim.calc_output_layout([lin]).with_(padding=out_pad or Padding())
    out, chosen = run_kernel(engine, "pooling", [lin], lout, prim.attrs(), [x], PLANES, fused, operands)
    assert chosen == PLANES
    return out


@pytest.fixture
def grid_calls(monkeypatch):
    """Counts the layers built on the flat grids, and takes them whatever the row width (the rule's width depends on
    the host's vector width W), not by the IR row kernel (test_pooling_cpu_rows.py) that takes them first."""
    monkeypatch.setattr(planes, "ROW_KERNEL", False)
    monkeypatch.setattr(planes, "use_pool_grid", lambda ow, sx, mo_x: sx in (1, 2) and mo_x == 1)
    seen = []
    tables = planes.pool_grid_tables
    monkeypatch.setattr(planes, "pool_grid_tables", lambda *a: seen.append(1) or tables(*a))
    return seen


@pytest.mark.parametrize("tasks", [32, 2])
@pytest.mark.parametrize("case", GRID_CASES, ids=lambda c: f"{c[0].value}-{c[1]}-k{c[2]}-s{c[3]}-c{int(c[6])}")
def test_grid_matches_reference(cpu_engine, rng, monkeypatch, grid_calls, case, tasks):
    mode, shape, k, s, pb, pe, ceil = case
    monkeypatch.setattr(planes, "TASKS", tasks)  # 2: several planes per task, each reusing its scratch row
    x = f32(rng.standard_normal(shape))
    out = _pool(cpu_engine, x, mode, k, s, pb, pe, ceil)
    assert grid_calls  # the grid was taken
    assert_close(out, pool64(x, mode, k, s, pb, pe, (1, 1), ceil))


@pytest.mark.parametrize("out_pad", [Padding(), Padding((0, 0, 1, 2), (0, 0, 2, 1))], ids=["dense", "padded"])
def test_grid_fused_chains(cpu_engine, rng, grid_calls, out_pad):
    """A residual sum then a clamp: once per plane on a dense output, row by row on a padded one."""
    x = f32(rng.standard_normal((2, 5, 15, 13)))
    ref = pool64(x, M.average, (3, 3), (2, 2), (1, 1), (1, 1), (1, 1), False)
    r = f32(rng.standard_normal(ref.shape))
    rlay = Layout(DataType.f32, Format.bfyx, r.shape)
    fused = [FusedOp("eltwise", FusedEltwiseAttrs("sum")),
             FusedOp("activation", FusedActivationAttrs("clamp", a=-0.5, b=1.0))]
    got = _pool(cpu_engine, x, M.average, (3, 3), (2, 2), (1, 1), (1, 1), False, out_pad, fused, [(rlay, r)])
    assert grid_calls
    assert_close(got, np.clip(ref + r, -0.5, 1.0))


def test_grid_max_skips_nan(cpu_engine, rng, grid_calls):
    """A NaN never wins a window; a window of NaN and padding only gives -inf."""
    x = f32(rng.standard_normal((1, 3, 13, 14)))
    x[0, 0, ::3, :] = np.nan
    x[0, 1, :, 1::4] = np.nan
    x[0, 2, :2, :2] = np.nan
    out = _pool(cpu_engine, x, M.max, (3, 3), (2, 2), (1, 1), (1, 1), False)
    assert grid_calls
    xm = np.where(np.isnan(x), -np.inf, x)
    assert_close(out, pool64(xm, M.max, (3, 3), (2, 2), (1, 1), (1, 1), (1, 1), False))


def test_grid_rule():
    """Stride 1 or 2 along x, unit output pitch, rows of at most one vector."""
    assert grid_mod.use_pool_grid(W, 2, 1) and grid_mod.use_pool_grid(7, 1, 1)
    assert not grid_mod.use_pool_grid(W + 1, 2, 1)  # wider rows: the row form
    assert not grid_mod.use_pool_grid(7, 3, 1) and not grid_mod.use_pool_grid(7, 2, 16)
