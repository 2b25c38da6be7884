"""reshape_gpu_wg and permute_gpu_wg (GPU tier) vs numpy: exact copies on odd shapes, mixed formats, integer data,
padded buffers, ShuffleNet's channel shuffle (reshape-permute-reshape), and the selection on the described GPU."""

from __future__ import annotations

import numpy as np
import pytest

import cldnn_py as cl
from cldnn_py.layout import Layout
from cldnn_py.primitives.gather import Gather
from cldnn_py.primitives.pad import Pad
from cldnn_py.primitives.strided_slice import StridedSlice
from tests.helpers import f32, run_single, run_topology
from tests.ocl.gpu_move import gpu, gpu_like_choice, run_gpu_padded

F = cl.Format
DT = cl.DataType


@pytest.mark.parametrize(("shape", "new"), [((2, 6, 5, 7), (2, 3, 2, 35)), ((1, 19, 3, 3), (19, 9)),
                                            ((35,), (5, 7)), ((3, 4, 5), (1, 60, 1, 1))])
@pytest.mark.parametrize("fmt", [F.bfyx, F.b_fs_yx_fsv16])
def test_reshape_gpu(ocl_engine, rng, shape, new, fmt):
    if fmt == F.b_fs_yx_fsv16 and len(shape) < 2:
        pytest.skip("a blocked rank-1 input is the same as bfyx")
    x = f32(rng.standard_normal(shape))
    out = run_single(ocl_engine, cl.Reshape("r", "x", shape=new), {"x": x}, fmt=fmt,
                     options=gpu({"r": "reshape_gpu_wg"}))
    np.testing.assert_array_equal(out, x.reshape(new))


@pytest.mark.ocl_every(2)
@pytest.mark.parametrize(("shape", "order"), [((2, 3, 5, 7), (0, 2, 3, 1)), ((2, 3, 5, 7), (3, 1, 0, 2)),
                                              ((1, 17, 33), (0, 2, 1)), ((5, 9), (1, 0)), ((4,), (0,))])
@pytest.mark.parametrize("fmt", [F.bfyx, F.byxf])
def test_permute_gpu(ocl_engine, rng, shape, order, fmt):
    x = f32(rng.standard_normal(shape))
    out = run_single(ocl_engine, cl.Permute("p", "x", order=order), {"x": x}, fmt=fmt,
                     options=gpu({"p": "permute_gpu_wg"}))
    np.testing.assert_array_equal(out, np.transpose(x, order))


def test_permute_gpu_integers_padded(ocl_engine, rng):
    x = rng.integers(-128, 127, (2, 3, 5, 6)).astype(np.int8)
    lin = Layout(DT.i8, F.bfyx, x.shape, cl.Padding((0, 1, 2, 1), (1, 0, 1, 2)))
    lout = Layout(DT.i8, F.bfyx, (2, 6, 3, 5), cl.Padding((1, 0, 0, 1), (0, 2, 1, 0)))
    out = run_gpu_padded(ocl_engine, "permute", [lin], lout, {"order": (0, 3, 1, 2)}, [x], "permute_gpu_wg")
    np.testing.assert_array_equal(out, np.transpose(x, (0, 3, 1, 2)))


def test_reshape_gpu_padded(ocl_engine, rng):
    x = f32(rng.standard_normal((2, 19, 3, 4)))
    lin = Layout(DT.f32, F.b_fs_yx_fsv16, x.shape, cl.Padding((1, 0, 1, 2), (0, 0, 2, 1)))
    lout = Layout(DT.f32, F.bfyx, (2, 19, 12), cl.Padding((0, 1, 2, 0), (1, 2, 0, 0)))
    out = run_gpu_padded(ocl_engine, "reshape", [lin], lout, {"shape": (2, 19, 12)}, [x], "reshape_gpu_wg")
    np.testing.assert_array_equal(out, x.reshape(2, 19, 12))


def test_channel_shuffle_gpu(ocl_engine, rng):
    """ShuffleNet's channel shuffle, groups 2: reshape (N, g, C/g, H, W) as rank 4 by merging H*W, permute, back."""
    n, c, h, w, g = 1, 10, 3, 5, 2
    x = f32(rng.standard_normal((n, c, h, w)))
    topo = cl.Topology()
    topo.add(cl.InputLayout("x", cl.Layout(DT.f32, F.bfyx, x.shape)))
    topo.add(cl.Reshape("r1", "x", shape=(n * g, c // g, h * w)))
    topo.add(cl.Reshape("r1b", "r1", shape=(g, c // g, h * w)))
    topo.add(cl.Permute("p", "r1b", order=(1, 0, 2)))
    topo.add(cl.Reshape("r2", "p", shape=(n, c, h, w)))
    forced = {"r1": "reshape_gpu_wg", "r1b": "reshape_gpu_wg", "p": "permute_gpu_wg", "r2": "reshape_gpu_wg"}
    out = run_topology(ocl_engine, topo, {"x": x}, gpu(forced))["r2"]
    ref = x.reshape(g, c // g, h, w).transpose(1, 0, 2, 3).reshape(n, c, h, w)
    np.testing.assert_array_equal(out, ref)


@pytest.mark.parametrize(("kind", "inp", "out", "attrs", "name"), [
    ("reshape", (1, 232, 14, 14), (1, 2, 116, 196), {"shape": (1, 2, 116, 196)}, "reshape_gpu_wg"),
    ("permute", (1, 2, 116, 196), (1, 116, 2, 196), {"order": (0, 2, 1, 3)}, "permute_gpu_wg"),
])
def test_data_movement_gpu_selected_on_described_gpu(kind, inp, out, attrs, name):
    lin, lout = Layout(DT.f32, F.bfyx, inp), Layout(DT.f32, F.bfyx, out)
    assert gpu_like_choice(kind, [lin], lout, attrs) == name


def test_rank6_stays_with_reference():
    lin = Layout(DT.f32, F.bfyx, (1, 2, 3, 2, 2, 2))
    lout = Layout(DT.f32, F.bfyx, (1, 3, 2, 2, 2, 2))
    assert gpu_like_choice("permute", [lin], lout, {"order": (0, 2, 1, 3, 4, 5)}) == "permute_ref"


@pytest.mark.parametrize(("shape", "crop", "offsets"), [((2, 19, 7, 9), (1, 5, 3, 4), (1, 14, 2, 5)),
                                                        ((3, 33), (2, 17), (1, 16)), ((4, 5, 6), (3, 5, 1), (1, 0, 5))])
@pytest.mark.parametrize("fmt", [F.bfyx, F.b_fs_yx_fsv16])
def test_crop_gpu(ocl_engine, rng, shape, crop, offsets, fmt):
    x = f32(rng.standard_normal(shape))
    out = run_single(ocl_engine, cl.Crop("c", "x", shape=crop, offsets=offsets), {"x": x}, fmt=fmt,
                     out_fmt=F.bfyx, options=gpu({"c": "crop_gpu_wg"}))
    o = tuple(offsets) + (0,) * (len(shape) - len(offsets))
    np.testing.assert_array_equal(out, x[tuple(slice(a, a + n) for a, n in zip(o, crop))])


@pytest.mark.parametrize(("shape", "reps"), [((2, 3, 5, 7), (1, 2, 3, 1)), ((3, 5), (3, 2)), ((7,), (5,))])
def test_tile_gpu(ocl_engine, rng, shape, reps):
    x = rng.integers(-1000, 1000, shape).astype(np.int32)
    out = run_single(ocl_engine, cl.Tile("t", "x", repeats=reps), {"x": x}, options=gpu({"t": "tile_gpu_wg"}))
    np.testing.assert_array_equal(out, np.tile(x, reps))


@pytest.mark.parametrize(("shape", "target"), [((1, 3, 1, 7), (2, 3, 5, 7)), ((5,), (2, 3, 5)), ((3, 1), (2, 3, 9))])
def test_broadcast_gpu(ocl_engine, rng, shape, target):
    x = f32(rng.standard_normal(shape))
    out = run_single(ocl_engine, cl.Broadcast("bc", "x", shape=target), {"x": x},
                     options=gpu({"bc": "broadcast_gpu_wg"}))
    np.testing.assert_array_equal(out, np.broadcast_to(x, target))


@pytest.mark.parametrize(("kind", "name", "attrs", "inp", "out"), [
    ("crop", "crop_gpu_wg", {"shape": (1, 58, 28, 28), "offsets": (0, 58)}, (1, 116, 28, 28), (1, 58, 28, 28)),
    ("tile", "tile_gpu_wg", {"repeats": (1, 1, 2, 2)}, (1, 8, 7, 7), (1, 8, 14, 14)),
    ("broadcast", "broadcast_gpu_wg", {"shape": (1, 8, 7, 7)}, (1, 8, 1, 1), (1, 8, 7, 7)),
    ("strided_slice", "strided_slice_gpu_wg", {"begin": (0, 0, 0, 0), "end": (1, 8, 7, 7), "steps": (1, 1, 2, 2)},
     (1, 8, 7, 7), (1, 8, 4, 4)),
    ("pad", "pad_gpu_wg", {"pads_begin": (0, 0, 1, 1), "pads_end": (0, 0, 1, 1)}, (1, 8, 7, 7), (1, 8, 9, 9)),
])
def test_copy_map_gpu_selected_on_described_gpu(kind, name, attrs, inp, out):
    lin, lout = Layout(DT.f32, F.bfyx, inp), Layout(DT.f32, F.bfyx, out)
    assert gpu_like_choice(kind, [lin], lout, attrs) == name


@pytest.mark.parametrize(("shape", "begin", "end", "steps"), [
    ((2, 19, 7, 9), (1, 3, 0, 8), (2, 19, 7, 0), (1, 2, 3, -2)),
    ((5, 33), (4, -1), (-6, 0), (-1, -3)), ((17,), (1,), (17,), (5,))])
@pytest.mark.parametrize("fmt", [F.bfyx, F.b_fs_yx_fsv16])
def test_strided_slice_gpu(ocl_engine, rng, shape, begin, end, steps, fmt):
    x = f32(rng.standard_normal(shape))
    out = run_single(ocl_engine, StridedSlice("s", "x", begin=begin, end=end, steps=steps), {"x": x}, fmt=fmt,
                     out_fmt=F.bfyx, options=gpu({"s": "strided_slice_gpu_wg"}))
    np.testing.assert_array_equal(out, x[tuple(slice(b, e, st) for b, e, st in zip(begin, end, steps))])


@pytest.mark.parametrize(("shape", "begin", "end", "mode"), [
    ((2, 3, 5, 7), (0, 1, 2, 3), (1, 0, 3, 1), "constant"), ((2, 3, 5, 7), (0, 0, 4, 6), (0, 2, 3, 5), "reflect"),
    ((3, 4, 5), (1, 0, 2), (2, 3, 0), "edge"), ((6, 7), (5, 9), (8, 3), "wrap")])
def test_pad_gpu(ocl_engine, rng, shape, begin, end, mode):
    x = f32(rng.standard_normal(shape))
    out = run_single(ocl_engine, Pad("p", "x", pads_begin=begin, pads_end=end, mode=mode, value=1.5), {"x": x},
                     options=gpu({"p": "pad_gpu_wg"}))
    kw = {"constant_values": 1.5} if mode == "constant" else {}
    np.testing.assert_array_equal(out, np.pad(x, list(zip(begin, end)), mode=mode, **kw))


def test_pad_gpu_padded_buffers(ocl_engine, rng):
    x = rng.integers(-50, 50, (2, 3, 4, 5)).astype(np.int32)
    lin = Layout(DT.i32, F.bfyx, x.shape, cl.Padding((1, 0, 2, 1), (0, 1, 1, 2)))
    lout = Layout(DT.i32, F.byxf, (2, 4, 7, 8), cl.Padding((0, 1, 1, 0), (1, 0, 0, 2)))
    attrs = {"pads_begin": (0, 1, 2, 0), "pads_end": (0, 0, 1, 3), "mode": "reflect"}
    out = run_gpu_padded(ocl_engine, "pad", [lin], lout, attrs, [x], "pad_gpu_wg")
    np.testing.assert_array_equal(out, np.pad(x, [(0, 0), (1, 0), (2, 1), (0, 3)], mode="reflect"))


@pytest.mark.parametrize(("shape", "ishape", "axis"), [((5, 7, 3), (4,), 1), ((2, 9, 5), (2, 3), 2),
                                                       ((11, 6), (3,), 0), ((3, 13), (2, 2), -1)])
def test_gather_gpu(ocl_engine, rng, shape, ishape, axis):
    x = f32(rng.standard_normal(shape))
    n = shape[axis]
    idx = rng.integers(-n, n, ishape).astype(np.int32)
    out = run_single(ocl_engine, Gather("g", "x", "i", axis=axis), {"x": x}, data={"i": idx},
                     options=gpu({"g": "gather_gpu_wg"}))
    np.testing.assert_array_equal(out, np.take(x, idx, axis=axis))


def test_gather_gpu_selected_on_described_gpu():
    lx, li = Layout(DT.f32, F.bfyx, (1000, 64)), Layout(DT.i32, F.bfyx, (1, 16))
    assert gpu_like_choice("gather", [lx, li], Layout(DT.f32, F.bfyx, (1, 16, 64)), {"axis": 0}) == "gather_gpu_wg"
