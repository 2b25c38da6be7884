"""concatenation vs numpy.concatenate: every axis (negative too), ranks 1-4, 1-4 inputs, mixed input formats."""

from __future__ import annotations

import numpy as np
import pytest

import cldnn_py as cl
from tests.helpers import assert_close, f32, run_topology
from tests.ocl.padded import run_kernel_padded

F = cl.Format


def run_concat(engine, arrays, axis, fmts):
    """Inputs x0.. fed as bfyx, each reordered to its own format from ``fmts``; the concatenation (in the first
    input's format) is read back as a logical array."""
    topo = cl.Topology()
    ids = []
    for i, (a, fmt) in enumerate(zip(arrays, fmts)):
        dt = cl.DataType.from_numpy(a.dtype)
        topo.add(cl.InputLayout(f"x{i}", cl.Layout(dt, F.bfyx, a.shape)))
        if fmt != F.bfyx:
            topo.add(cl.Reorder(f"x{i}_{fmt.value}", f"x{i}", fmt))
            ids.append(f"x{i}_{fmt.value}")
        else:
            ids.append(f"x{i}")
    topo.add(cl.Concatenation("cat", ids, axis=axis))
    out = run_topology(engine, topo, {f"x{i}": a for i, a in enumerate(arrays)})["cat"]
    return out


CASES = [
    # base shape, axis, sizes along the axis (one per input), input formats
    ((2, 0, 3, 4), 1, (5, 19, 3), (F.bfyx, F.bfyx, F.bfyx)),
    ((2, 0, 3, 4), 1, (5, 19, 3), (F.b_fs_yx_fsv16,) * 3),
    ((2, 0, 3, 4), 1, (17, 2, 16, 4), (F.b_fs_yx_fsv16, F.bfyx, F.byxf, F.yxfb)),
    ((2, 3, 0, 4), 2, (2, 5), (F.byxf, F.b_fs_yx_fsv16)),
    ((2, 3, 4, 0), -1, (3, 1, 6), (F.bfyx, F.fyxb, F.byxf)),
    ((0, 3, 2, 5), 0, (1, 3), (F.yxfb, F.bfyx)),
    ((2, 6, 3, 0), 3, (4,), (F.b_fs_yx_fsv16,)),   # a single input: a copy
    ((0, 7), 0, (2, 3, 1), (F.bfyx, F.byxf, F.bfyx)),       # rank 2
    ((4, 0), -1, (10, 7), (F.b_fs_yx_fsv16, F.bfyx)),        # rank 2, concat of FC outputs
    ((0,), 0, (5, 9, 2), (F.bfyx, F.b_fs_yx_fsv16, F.byxf)),  # rank 1
    ((2, 0, 5), 1, (18, 3), (F.b_fs_yx_fsv16, F.byxf)),      # rank 3
    ((2, 4, 0), -1, (3, 6), (F.bfyx, F.bfyx)),               # rank 3, last axis = dims4 y
]


@pytest.mark.ocl_every(2)
@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c[0]}-axis{c[1]}-{c[2]}-{'_'.join(f.value for f in c[3])}")
def test_concatenation_matches_numpy(engine, rng, case):
    base, axis, sizes, fmts = case
    ax = axis % len(base)
    arrays = []
    for s in sizes:
        shape = list(base)
        shape[ax] = s
        arrays.append(f32(rng.standard_normal(shape)))
    out = run_concat(engine, arrays, axis, fmts)
    assert_close(out, np.concatenate([a.astype(np.float64) for a in arrays], axis=axis), rtol=0, atol=0)


def test_concatenation_output_format_follows_first_input(engine, rng):
    """The output takes input 0's format; checked on the raw buffer of a b_fs_yx_fsv16 output."""
    a, b = f32(rng.standard_normal((1, 3, 2, 2))), f32(rng.standard_normal((1, 14, 2, 2)))
    topo = cl.Topology()
    topo.add(cl.InputLayout("a", cl.Layout(cl.DataType.f32, F.bfyx, a.shape)),
             cl.InputLayout("b", cl.Layout(cl.DataType.f32, F.bfyx, b.shape)),
             cl.Reorder("a16", "a", F.b_fs_yx_fsv16),
             cl.Concatenation("cat", ["a16", "b"], axis=1))
    net = cl.Network(cl.Program(engine, topo))
    net.poison()
    for k, v in {"a": a, "b": b}.items():
        net.set_input_data(k, v)
    res = net.execute()["cat"]
    assert res.layout.format == F.b_fs_yx_fsv16
    host = np.empty(res.layout.buffer_size, np.float32)
    engine.read_buffer(res.memory.buffer, host, wait_for=[res.event])
    full = np.zeros((1, 32, 2, 2))
    full[:, :17] = np.concatenate([a, b], axis=1)
    expected = full.reshape(1, 2, 16, 2, 2).transpose(0, 1, 3, 4, 2).reshape(-1)   # [b][fs][y][x][16]
    np.testing.assert_array_equal(host, expected)


@pytest.mark.parametrize("dtype", [np.int32, np.int8, np.uint8])
def test_concatenation_integer_types(engine, rng, dtype):
    """Integers are copied bit-exactly, whatever the input formats."""
    info = np.iinfo(dtype)
    arrays = [rng.integers(info.min, info.max, size=(2, c, 3, 2), endpoint=True).astype(dtype) for c in (4, 13)]
    out = run_concat(engine, arrays, 1, (F.byxf, F.b_fs_yx_fsv16))
    assert out.dtype == dtype
    np.testing.assert_array_equal(out, np.concatenate(arrays, axis=1))


@pytest.mark.parametrize("axis", [1, 3])
def test_concatenation_padded_buffers(engine, rng, axis):
    """Padded inputs in different formats and a padded output: each enqueue writes only its slice's interior."""
    base = [2, 5, 3, 4]
    sizes, fmts = (5, 19, 2), (F.b_fs_yx_fsv16, F.byxf, F.bfyx)
    pads = [cl.Padding((1, 0, 1, 2), (0, 0, 2, 1)), cl.Padding((0, 1, 0, 1), (1, 2, 1, 0)),
            cl.Padding((0, 0, 0, 0), (0, 0, 1, 1))]
    arrays, layouts = [], []
    for s, fmt, pad in zip(sizes, fmts, pads):
        shape = list(base)
        shape[axis] = s
        arrays.append(f32(rng.standard_normal(shape)))
        layouts.append(cl.Layout(cl.DataType.f32, fmt, tuple(shape), pad))
    ref = np.concatenate(arrays, axis=axis)
    lout = cl.Layout(cl.DataType.f32, F.yxfb, ref.shape, cl.Padding((1, 2, 0, 1), (0, 1, 3, 0)))
    out = run_kernel_padded(engine, "concatenation", layouts, lout, {"axis": axis}, arrays)
    np.testing.assert_array_equal(out, ref)
