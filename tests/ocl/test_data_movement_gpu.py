"""reshape_gpu_wg and permute_gpu_wg (GPU tier) vs numpy: exact copies on odd shapes, mixed formats, integer data,
padded buffers, ShuffleNet's channel shuffle (reshape-permute-reshape), and the selection on the described GPU."""

from __future__ import annotations

import numpy as np
import pytest

import cldnn_py as cl
from cldnn_py.layout import Layout
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
])
def test_copy_map_gpu_selected_on_described_gpu(kind, name, attrs, inp, out):
    lin, lout = Layout(DT.f32, F.bfyx, inp), Layout(DT.f32, F.bfyx, out)
    assert gpu_like_choice(kind, [lin], lout, attrs) == name
