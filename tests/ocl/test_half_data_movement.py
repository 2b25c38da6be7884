"""f16 storage in the data-movement kernels (reshape, permute, shuffle_channels, crop, pad, strided_slice, tile,
broadcast, gather, scatter: reference, blocked and GPU-tier forms): each forced on padded f16 buffers (NaN in the
input padding, a sentinel in the output's), compared bit for bit with the float64 reference of the half values (a
copy of half data must be exact: infinities, subnormals and -0 included); f32 <-> f16 conversions round to nearest
even like numpy. Resize and scatter's sums compute in float and are compared within half's rounding (tests/ocl/
test_half_resize.py holds resize)."""

from __future__ import annotations

import numpy as np
import pytest

import cldnn_py as cl
from cldnn_py.primitives.broadcast import Broadcast
from cldnn_py.primitives.gather import Gather
from cldnn_py.primitives.pad import Pad
from cldnn_py.primitives.scatter import Scatter
from cldnn_py.primitives.strided_slice import StridedSlice
from cldnn_py.primitives.tile import Tile
from tests.ocl.half import assert_half_close, run_kernel_half
from tests.ocl.padded import run_kernel_padded
from tests.references import pad_ref, permute_ref

F16, F32, I32 = cl.DataType.f16, cl.DataType.f32, cl.DataType.i32
BFYX, FSV16, BYXF = cl.Format.bfyx, cl.Format.b_fs_yx_fsv16, cl.Format.byxf
PAD_IN = cl.Padding((1, 0, 1, 2), (0, 0, 2, 1))
PAD_OUT = cl.Padding((0, 0, 2, 1), (1, 0, 0, 1))


def half_data(rng, shape) -> np.ndarray:
    """Seeded half values (as float32, the layouts' f32 storage that run_kernel_half turns into f16) with the
    values a lossy copy would change: +-inf, a subnormal, the largest half, -0."""
    x = (rng.standard_normal(shape) * 50).astype(np.float16)
    x.flat[:5] = [np.inf, -np.inf, np.float16(3e-6), np.float16(65504), np.float16(-0.0)]
    return x.astype(np.float32)


def assert_bits_equal(out: np.ndarray, ref: np.ndarray) -> None:
    """``out`` (f16) is ``ref`` (float64 values, exactly representable in half) bit for bit."""
    assert out.dtype == np.float16 and out.shape == ref.shape, (out.dtype, out.shape, ref.shape)
    np.testing.assert_array_equal(out.view(np.uint16), ref.astype(np.float16).view(np.uint16))


def layouts(shape, out_shape, fmt=BFYX, out_fmt=BFYX, pad=PAD_IN, out_pad=PAD_OUT, rank4=True):
    """f32 input and output layouts (run_kernel_half stores them as f16); padding only for rank <= 4."""
    small = len(shape) <= 4 and len(out_shape) <= 4 and rank4
    return (cl.Layout(F32, fmt, shape, pad if small else cl.Padding()),
            cl.Layout(F32, out_fmt, out_shape, out_pad if small else cl.Padding()))


def _shuffle(x, g):
    n, c, h, w = x.shape
    return x.reshape(n, g, c // g, h, w).transpose(0, 2, 1, 3, 4).reshape(n, c, h, w)


# (kernel, primitive, input shape, output shape, input format, output format, reference of the float64 input)
COPIES = [
    ("reshape_ref", cl.Reshape("p", "x", shape=(2, 19, 15)), (2, 19, 3, 5), (2, 19, 15), FSV16, BFYX,
     lambda v: v.reshape(2, 19, 15)),
    ("permute_ref", cl.Permute("p", "x", order=(0, 2, 3, 1)), (2, 19, 3, 4), (2, 3, 4, 19), FSV16, BYXF,
     lambda v: permute_ref(v, (0, 2, 3, 1))),
    ("permute_ref", cl.Permute("p", "x", order=(0, 4, 2, 1, 3)), (2, 3, 2, 3, 4), (2, 4, 2, 3, 3), BFYX, BFYX,
     lambda v: permute_ref(v, (0, 4, 2, 1, 3))),
    ("shuffle_channels_ref", cl.ShuffleChannels("p", "x", group=3), (2, 18, 3, 2), (2, 18, 3, 2), FSV16, FSV16,
     lambda v: _shuffle(v, 3)),
    ("shuffle_channels_b_fs_yx_fsv16", cl.ShuffleChannels("p", "x", group=4), (2, 20, 3, 11), (2, 20, 3, 11), FSV16,
     FSV16, lambda v: _shuffle(v, 4)),
    ("crop_ref", cl.Crop("p", "x", shape=(1, 5, 3, 4), offsets=(1, 2, 1, 2)), (2, 9, 5, 6), (1, 5, 3, 4), BYXF, BFYX,
     lambda v: v[1:2, 2:7, 1:4, 2:6]),
    ("crop_b_fs_yx_fsv16", cl.Crop("p", "x", shape=(1, 19, 3, 4), offsets=(1, 5, 1, 2)), (2, 26, 5, 6),
     (1, 19, 3, 4), FSV16, FSV16, lambda v: v[1:2, 5:24, 1:4, 2:6]),
    ("crop_b_fs_yx_fsv16", cl.Crop("p", "x", shape=(1, 18, 2, 9), offsets=(0, 16, 1, 0)), (1, 40, 4, 9),
     (1, 18, 2, 9), FSV16, FSV16, lambda v: v[0:1, 16:34, 1:3, 0:9]),
    ("pad_ref", Pad("p", "x", pads_begin=(0, 1, 2, 1), pads_end=(1, 0, 1, 2), mode="constant", value=0.1),
     (2, 3, 4, 5), (3, 4, 7, 8), BFYX, FSV16,
     lambda v: pad_ref(v, (0, 1, 2, 1), (1, 0, 1, 2), "constant", float(np.float16(np.float32(0.1))))),
    ("pad_ref", Pad("p", "x", pads_begin=(1, 0, 2), pads_end=(0, 3, 1), mode="reflect"), (3, 4, 5), (4, 7, 8), BFYX,
     BFYX, lambda v: pad_ref(v, (1, 0, 2), (0, 3, 1), "reflect")),
    ("strided_slice_ref", StridedSlice("p", "x", begin=(1, 3, 0, 8), end=(2, 19, 7, 0), steps=(1, 2, 3, -2)),
     (2, 19, 7, 9), (1, 8, 3, 4), FSV16, BFYX, lambda v: v[1:2, 3:19:2, 0:7:3, 8:0:-2]),
    ("tile_ref", Tile("p", "x", repeats=(1, 2, 1, 3)), (2, 3, 2, 2), (2, 6, 2, 6), BFYX, BYXF,
     lambda v: np.tile(v, (1, 2, 1, 3))),
    ("broadcast_ref", Broadcast("p", "x", shape=(2, 3, 5, 4)), (1, 3, 1, 4), (2, 3, 5, 4), BFYX, FSV16,
     lambda v: np.broadcast_to(v, (2, 3, 5, 4))),
]

# the GPU-tier forms (copy_map_gpu_wg, WorkGroupTwin and their own templates), gws rounded up to work-groups
GPU_COPIES = [
    ("reshape_gpu_wg", cl.Reshape("p", "x", shape=(2, 19, 12)), (2, 19, 3, 4), (2, 19, 12), FSV16, BFYX,
     lambda v: v.reshape(2, 19, 12)),
    ("permute_gpu_wg", cl.Permute("p", "x", order=(0, 3, 1, 2)), (2, 3, 5, 6), (2, 6, 3, 5), BFYX, BFYX,
     lambda v: permute_ref(v, (0, 3, 1, 2))),
    ("shuffle_channels_gpu_wg", cl.ShuffleChannels("p", "x", group=2), (1, 18, 3, 5), (1, 18, 3, 5), FSV16, FSV16,
     lambda v: _shuffle(v, 2)),
    ("crop_gpu_wg", cl.Crop("p", "x", shape=(1, 5, 3, 4), offsets=(1, 14, 2, 5)), (2, 19, 7, 9), (1, 5, 3, 4),
     FSV16, BFYX, lambda v: v[1:2, 14:19, 2:5, 5:9]),
    ("pad_gpu_wg", Pad("p", "x", pads_begin=(0, 0, 2, 1), pads_end=(0, 1, 1, 3), mode="edge"), (2, 3, 4, 5),
     (2, 4, 7, 9), BYXF, BFYX, lambda v: pad_ref(v, (0, 0, 2, 1), (0, 1, 1, 3), "edge")),
    ("strided_slice_gpu_wg", StridedSlice("p", "x", begin=(4, -1), end=(-6, 0), steps=(-1, -3)), (5, 33), (5, 11),
     BFYX, BFYX, lambda v: v[4:-6:-1, -1:0:-3]),
    ("tile_gpu_wg", Tile("p", "x", repeats=(1, 2, 3, 1)), (2, 3, 5, 7), (2, 6, 15, 7), FSV16, BFYX,
     lambda v: np.tile(v, (1, 2, 3, 1))),
    ("broadcast_gpu_wg", Broadcast("p", "x", shape=(2, 3, 9)), (3, 1), (2, 3, 9), BFYX, BFYX,
     lambda v: np.broadcast_to(v, (2, 3, 9))),
]


def _ids(cases):
    return [f"{c[0]}-{c[2]}" for c in cases]


@pytest.mark.ocl_every(2)
@pytest.mark.parametrize(("kernel", "prim", "shape", "out_shape", "fmt", "out_fmt", "ref"), COPIES, ids=_ids(COPIES))
def test_copy_kernels_half_exact(ocl_engine, rng, kernel, prim, shape, out_shape, fmt, out_fmt, ref):
    x = half_data(rng, shape)
    lin, lout = layouts(shape, out_shape, fmt, out_fmt)
    out, (xv,) = run_kernel_half(ocl_engine, prim.type_name, [lin], lout, prim.attrs(), [x], kernel=kernel)
    assert_bits_equal(out, ref(xv))


@pytest.mark.parametrize(("kernel", "prim", "shape", "out_shape", "fmt", "out_fmt", "ref"), GPU_COPIES,
                         ids=_ids(GPU_COPIES))
def test_gpu_copy_kernels_half_exact(ocl_engine, rng, kernel, prim, shape, out_shape, fmt, out_fmt, ref):
    x = half_data(rng, shape)
    lin, lout = layouts(shape, out_shape, fmt, out_fmt)
    out, (xv,) = run_kernel_half(ocl_engine, prim.type_name, [lin], lout, prim.attrs(), [x], kernel=kernel,
                                 kernel_tier="gpu")
    assert_bits_equal(out, ref(xv))


CONVERT_PRIMS = {"reshape": cl.Reshape("p", "x", shape=(2, 18, 27)),
                 "permute": cl.Permute("p", "x", order=(0, 2, 3, 1)),
                 "shuffle_channels": cl.ShuffleChannels("p", "x", group=3),
                 "crop": cl.Crop("p", "x", shape=(1, 17, 2, 9), offsets=(1, 1, 1, 0))}
CONVERT_REFS = {"reshape": lambda v: v.reshape(2, 18, 27), "permute": lambda v: v.transpose(0, 2, 3, 1),
                "shuffle_channels": lambda v: _shuffle(v, 3), "crop": lambda v: v[1:2, 1:18, 1:3, :]}


@pytest.mark.filterwarnings("ignore:overflow encountered in cast")
@pytest.mark.parametrize(("kernel", "kind", "tier", "fmt", "dt_in", "dt_out"), [
    ("reshape_ref", "reshape", "cpu", BFYX, F32, F16), ("permute_gpu_wg", "permute", "gpu", BFYX, F16, F32),
    ("shuffle_channels_b_fs_yx_fsv16", "shuffle_channels", "cpu", FSV16, F32, F16),
    ("shuffle_channels_b_fs_yx_fsv16", "shuffle_channels", "cpu", FSV16, F16, F32),
    ("crop_b_fs_yx_fsv16", "crop", "cpu", FSV16, F32, F16), ("crop_b_fs_yx_fsv16", "crop", "cpu", FSV16, F16, F32),
])
def test_copy_kernels_convert_f32_f16(ocl_engine, rng, kernel, kind, tier, fmt, dt_in, dt_out):
    """A mixed edge: the copy converts, f32 -> f16 rounding to nearest even (numpy's rounding), f16 -> f32 exact."""
    shape = (2, 18, 3, 9)
    x = (rng.standard_normal(shape) * 300).astype(np.float32)
    x.flat[:3] = [70000.0, 1e-9, 6.1e-5 / 3]  # past half's range, below its subnormals, a half subnormal
    xin = x.astype(dt_in.numpy)
    ref = CONVERT_REFS[kind](xin.astype(np.float64))
    lin = cl.Layout(dt_in, fmt, shape, PAD_IN)
    lout = cl.Layout(dt_out, BYXF if kind == "permute" else fmt, ref.shape, PAD_OUT)
    out = run_kernel_padded(ocl_engine, kind, [lin], lout, CONVERT_PRIMS[kind].attrs(), [xin], kernel=kernel,
                            kernel_tier=tier)
    assert out.dtype == dt_out.numpy
    np.testing.assert_array_equal(out, ref.astype(dt_out.numpy))


@pytest.mark.parametrize(("kernel", "tier"), [("gather_ref", "cpu"), ("gather_gpu_wg", "gpu")])
def test_gather_half_data_i32_indices(ocl_engine, rng, kernel, tier):
    x = half_data(rng, (5, 7, 3))
    idx = rng.integers(-7, 7, (2, 3)).astype(np.int32)
    prim = Gather("p", "x", "i", axis=1)
    lx = cl.Layout(F32, BFYX, x.shape, PAD_IN)
    li = cl.Layout(I32, BFYX, idx.shape)
    lout = cl.Layout(F32, BFYX, (5, 2, 3, 3))
    out, (xv, iv) = run_kernel_half(ocl_engine, "gather", [lx, li], lout, prim.attrs(), [x, idx], kernel=kernel,
                                    kernel_tier=tier)
    assert iv.dtype == np.int32
    assert_bits_equal(out, np.take(xv, idx, axis=1))


@pytest.mark.parametrize("reduction", ["none", "add", "max"])
def test_scatter_half(ocl_engine, rng, reduction):
    x = half_data(rng, (2, 3, 4))
    x.flat[:5] = rng.standard_normal(5)  # finite values: sums are compared within a tolerance
    x = x.astype(np.float16).astype(np.float32)
    flat = rng.integers(0, x.size, (7,)).astype(np.int32)
    flat[1] = flat[4]  # two updates of one element: applied in order
    u = (rng.standard_normal(7) * 50).astype(np.float32)
    prim = Scatter("p", "x", "i", "u", reduction=reduction)
    lx = cl.Layout(F32, BFYX, x.shape, cl.Padding((0, 1, 0, 0), (1, 0, 0, 0)))
    lays = [lx, cl.Layout(I32, BFYX, flat.shape), cl.Layout(F32, BFYX, u.shape)]
    out, (xv, fv, uv) = run_kernel_half(ocl_engine, "scatter", lays, lx.with_(padding=PAD_OUT), prim.attrs(),
                                        [x, flat, u], kernel="scatter_ref")
    ref = xv.reshape(-1).copy()
    for i, v in zip(fv, uv):
        ref[i] = {"none": v, "add": ref[i] + v, "max": max(ref[i], v)}[reduction]
    ref = ref.reshape(x.shape)
    if reduction == "add":
        assert_half_close(out, ref)
    else:  # a copy of one of two half values: exact
        assert_bits_equal(out, ref)


def test_f16_network_keeps_the_blocked_kernels(ocl_engine, rng):
    """``inference_precision="f16"``: a ShuffleNet-style chain of moves (shuffle, channel crop, nearest resize,
    permute) runs in f16 on the same kernels as in f32 (crop, shuffle and resize blocked), and the result is the
    chain applied to the half-rounded input, exactly."""
    from cldnn_py.primitives.resize import Resize

    x = (rng.standard_normal((1, 36, 4, 6)) * 10).astype(np.float32)
    topo = cl.Topology(cl.InputLayout("x", cl.Layout(F32, BFYX, x.shape)), cl.Reorder("xb", "x", format=FSV16),
                       cl.ShuffleChannels("s", "xb", group=3), cl.Crop("c", "s", shape=(1, 19, 4, 6),
                                                                       offsets=(0, 3, 0, 0)),
                       Resize("r", "c", sizes=(1, 19, 8, 12), mode="nearest",
                              coordinate_transformation_mode="asymmetric", nearest_mode="floor"),
                       cl.Permute("p", "r", order=(0, 2, 3, 1)), cl.Reorder("out", "p", format=BFYX, dtype=F32))
    kernels = {}
    for precision in ("f32", "f16"):
        net = cl.Network(cl.Program(ocl_engine, topo, cl.BuildOptions(kernel_tier="cpu",
                                                                      inference_precision=precision)))
        kernels[precision] = {i: net.program.node(i).impl.kernel_name for i in "scrp"}
        net.poison()
        out = net.run({"x": x})["out"]
    assert all(net.program.node(i).layout().dtype == F16 for i in "scrp")
    assert kernels["f16"] == kernels["f32"]
    assert [kernels["f16"][i] for i in "scr"] == ["shuffle_channels_b_fs_yx_fsv16", "crop_b_fs_yx_fsv16",
                                                  "resize_b_fs_yx_fsv16"]
    xv = x.astype(np.float16).astype(np.float64)
    ref = np.repeat(np.repeat(_shuffle(xv, 3)[:, 3:22], 2, axis=2), 2, axis=3).transpose(0, 2, 3, 1)
    assert out.dtype == np.float32
    np.testing.assert_array_equal(out, ref.astype(np.float32))


@pytest.mark.parametrize(("kind", "name", "attrs", "inp", "out"), [
    ("reshape", "reshape_gpu_wg", {"shape": (1, 2, 116, 196)}, (1, 232, 14, 14), (1, 2, 116, 196)),
    ("permute", "permute_gpu_wg", {"order": (0, 2, 1, 3)}, (1, 2, 116, 196), (1, 116, 2, 196)),
    ("shuffle_channels", "shuffle_channels_gpu_wg", {"group": 2}, (1, 116, 28, 28), (1, 116, 28, 28)),
    ("crop", "crop_gpu_wg", {"shape": (1, 58, 28, 28), "offsets": (0, 58)}, (1, 116, 28, 28), (1, 58, 28, 28)),
    ("tile", "tile_gpu_wg", {"repeats": (1, 1, 2, 2)}, (1, 8, 7, 7), (1, 8, 14, 14)),
    ("broadcast", "broadcast_gpu_wg", {"shape": (1, 8, 7, 7)}, (1, 8, 1, 1), (1, 8, 7, 7)),
    ("pad", "pad_gpu_wg", {"pads_begin": (0, 0, 1, 1), "pads_end": (0, 0, 1, 1)}, (1, 8, 7, 7), (1, 8, 9, 9)),
])
def test_gpu_tier_selected_in_f16_on_described_gpu(kind, name, attrs, inp, out):
    """On the described GPU the f16 data-movement nodes get the GPU-tier kernels, as f32 ones do (convert_precision
    keeps a node f32 when f16 would change its kernel)."""
    from tests.ocl.gpu_move import gpu_like_choice

    for dt in (F32, F16):
        assert gpu_like_choice(kind, [cl.Layout(dt, BFYX, inp)], cl.Layout(dt, BFYX, out), attrs) == name
