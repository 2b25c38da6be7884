"""concatenation_gpu_wg (GPU tier) vs numpy.concatenate: axes, mixed input formats, odd sizes, integer data,
padded buffers (exact copies), and the selection on the described GPU."""

from __future__ import annotations

import numpy as np
import pytest

import cldnn_py as cl
from cldnn_py.layout import Layout
from tests.helpers import f32, run_topology
from tests.ocl.gpu_move import gpu, gpu_like_choice, run_gpu_padded

F = cl.Format
K = "concatenation_gpu_wg"

CASES = [
    # base shape, axis, sizes along the axis (one per input), input formats
    ((2, 0, 3, 5), 1, (5, 19, 3), (F.bfyx, F.bfyx, F.bfyx)),
    ((2, 0, 3, 4), 1, (17, 2, 16, 4), (F.b_fs_yx_fsv16, F.bfyx, F.byxf, F.yxfb)),
    ((2, 3, 0, 4), 2, (2, 5), (F.byxf, F.b_fs_yx_fsv16)),
    ((2, 3, 4, 0), -1, (3, 1, 67), (F.bfyx, F.fyxb, F.byxf)),
    ((0, 3, 2, 5), 0, (1, 3), (F.yxfb, F.bfyx)),
    ((1, 0), 1, (24, 116), (F.bfyx, F.bfyx)),
]


def _run(engine, arrays, axis, fmts):
    topo = cl.Topology()
    ids, forced = [], {"cat": K}
    for i, (a, fmt) in enumerate(zip(arrays, fmts)):
        topo.add(cl.InputLayout(f"x{i}", cl.Layout(cl.DataType.from_numpy(a.dtype), F.bfyx, a.shape)))
        ids.append(f"x{i}")
        if fmt != F.bfyx:
            topo.add(cl.Reorder(f"x{i}r", f"x{i}", fmt))
            ids[-1] = f"x{i}r"
    topo.add(cl.Concatenation("cat", ids, axis=axis))
    return run_topology(engine, topo, {f"x{i}": a for i, a in enumerate(arrays)}, gpu(forced))["cat"]


@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c[0]}-ax{c[1]}-{c[2]}")
def test_concatenation_gpu_matches_numpy(ocl_engine, rng, case):
    base, axis, sizes, fmts = case
    ax = axis % len(base)
    arrays = [f32(rng.standard_normal(base[:ax] + (s,) + base[ax + 1:])) for s in sizes]
    out = _run(ocl_engine, arrays, axis, fmts)
    np.testing.assert_array_equal(out, np.concatenate(arrays, axis=ax))


def test_concatenation_gpu_integers(ocl_engine, rng):
    arrays = [rng.integers(-100, 100, (2, c, 3, 3)).astype(np.int32) for c in (3, 5)]
    out = _run(ocl_engine, arrays, 1, (F.bfyx, F.bfyx))
    np.testing.assert_array_equal(out, np.concatenate(arrays, axis=1))


def test_concatenation_gpu_padded(ocl_engine, rng):
    pad, dt = cl.Padding, cl.DataType.f32
    a, b = f32(rng.standard_normal((2, 3, 5, 7))), f32(rng.standard_normal((2, 18, 5, 7)))
    la = Layout(dt, F.bfyx, a.shape, pad((1, 1, 0, 2), (0, 2, 1, 1)))
    lb = Layout(dt, F.b_fs_yx_fsv16, b.shape, pad((0, 0, 2, 1), (1, 0, 0, 3)))
    lout = Layout(dt, F.bfyx, (2, 21, 5, 7), pad((0, 2, 1, 1), (1, 1, 2, 0)))
    out = run_gpu_padded(ocl_engine, "concatenation", [la, lb], lout, {"axis": 1}, [a, b], K)
    np.testing.assert_array_equal(out, np.concatenate([a, b], axis=1))


def test_concatenation_gpu_selected_on_described_gpu():
    lays = [Layout(cl.DataType.f32, F.bfyx, (1, c, 28, 28)) for c in (116, 116)]
    assert gpu_like_choice("concatenation", lays, Layout(cl.DataType.f32, F.bfyx, (1, 232, 28, 28)),
                           {"axis": 1}) == K
