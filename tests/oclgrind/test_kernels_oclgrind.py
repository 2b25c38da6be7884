"""Every registered OpenCL kernel runs once under the Oclgrind simulator (DESIGN §4 rule 7): no out-of-bounds
access, no data race, no barrier divergence in Oclgrind's log, and a result equal to a float64 reference.

The kernels are discovered at collection time (``selector.candidates(prim)``, engine "ocl"), so a new kernel is
a new test id. Each is forced (``BuildOptions(force_implementations=..., kernel_tier=<its tier>)``) on a tiny
Topology: InputLayouts (reordered to the layouts the kernel accepts), Data, the primitive, a reorder to bfyx.
``CASES`` holds one small case per kernel; a kernel without one fails with "add an Oclgrind case for <kernel>",
except the GPU tier (``<prim>_gpu_*``), which runs the cases of its primitive's other kernels until one validates.
Shapes stay small: Oclgrind runs about 0.5 M multiply-adds per second.
"""

from __future__ import annotations

import dataclasses
import importlib
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
import pytest

import cldnn_py as cl
import cldnn_py.primitives as prims
from cldnn_py.errors import UnsupportedError
from cldnn_py.primitives.arg_max import ArgMax
from cldnn_py.primitives.broadcast import Broadcast
from cldnn_py.primitives.deconvolution import Deconvolution
from cldnn_py.primitives.gather import Gather
from cldnn_py.primitives.gemm import Gemm
from cldnn_py.primitives.mvn import MVN
from cldnn_py.primitives.pad import Pad
from cldnn_py.primitives.reduce import Reduce
from cldnn_py.primitives.resize import Resize
from cldnn_py.primitives.scatter import Scatter
from cldnn_py.primitives.strided_slice import StridedSlice
from cldnn_py.primitives.tile import Tile
from cldnn_py.primitives.top_k import TopK
from tests.helpers import assert_close, f32
from tests.references import (
    activation_ref,
    batch_norm_ref,
    conv_ref,
    deconv_ref,
    eltwise_ref,
    fc_ref,
    gemm_ref,
    gru_ref,
    lrn_ref,
    lstm_ref,
    mvn_ref,
    pad_ref,
    permute_ref,
    pool_ref,
    quantized_conv_ref,
    reduce_ref,
    resize_ref,
    roi_align_ref,
    scale_ref,
    softmax_ref,
)

pytestmark = pytest.mark.oclgrind

F = cl.Format
BFYX, FSV16, BYXF, OSV16 = F.bfyx, F.b_fs_yx_fsv16, F.byxf, F.os_iyx_osv16


@dataclass
class Case:
    """A primitive with id ``"p"``, its inputs (array, format the primitive reads it in), its Data (array, format
    or None for as given) and the float64 expected output (logical, any layout: the output is reordered to bfyx)."""

    prim: cl.Primitive
    inputs: dict[str, tuple[np.ndarray, F]]
    expected: np.ndarray
    data: dict[str, tuple[np.ndarray, F | None]] = field(default_factory=dict)
    rtol: float = 1e-4
    atol: float = 1e-4


def _conv(rng, fmt, wfmt):
    x, w, b = f32(rng.standard_normal((1, 16, 8, 8))), f32(rng.standard_normal((16, 16, 3, 3)) * 0.2), \
        f32(rng.standard_normal(16))
    return Case(cl.Convolution("p", "x", weights="w", bias="b", pad=(1, 1)), {"x": (x, fmt)},
                conv_ref(x, w, b, (1, 1), (1, 1), (1, 1), (1, 1), 1), {"w": (w, wfmt), "b": (b, None)})


def _conv_tails(rng):
    """Batch 2, C 5, OC 9 on 7 x 6: tails in every GEMM dimension of convolution_gpu_igemm (M 9, N 84, K 45)."""
    x, w, b = f32(rng.standard_normal((2, 5, 7, 6))), f32(rng.standard_normal((9, 5, 3, 3)) * 0.3), \
        f32(rng.standard_normal(9))
    return Case(cl.Convolution("p", "x", weights="w", bias="b", pad=(1, 1)), {"x": (x, BFYX)},
                conv_ref(x, w, b, (1, 1), (1, 1), (1, 1), (1, 1), 1), {"w": (w, None), "b": (b, None)})


def _conv_depthwise(rng):
    x, w, b = f32(rng.standard_normal((1, 16, 9, 7))), f32(rng.standard_normal((16, 1, 3, 3)) * 0.3), \
        f32(rng.standard_normal(16))
    return Case(cl.Convolution("p", "x", weights="w", bias="b", pad=(1, 1), stride=(2, 1), groups=16),
                {"x": (x, BFYX)}, conv_ref(x, w, b, (2, 1), (1, 1), (1, 1), (1, 1), 16),
                {"w": (w, None), "b": (b, None)})


def _concat(rng, fmt, c0, c1):
    a, b = f32(rng.standard_normal((1, c0, 4, 5))), f32(rng.standard_normal((1, c1, 4, 5)))
    return Case(cl.Concatenation("p", ["a", "b"], axis=1), {"a": (a, fmt), "b": (b, fmt)},
                np.concatenate([a, b], axis=1).astype(np.float64))


def _fc(rng, n, k, m, wfmt):
    x, w, b = f32(rng.standard_normal((n, k))), f32(rng.standard_normal((m, k))), f32(rng.standard_normal(m))
    return Case(cl.FullyConnected("p", "x", weights="w", bias="b"), {"x": (x, BFYX)}, fc_ref(x, w, b),
                {"w": (w, wfmt), "b": (b, None)})


def _eltwise(rng, shapes, fmt, mode):
    arrays = [f32(rng.standard_normal(s)) for s in shapes]
    names = [f"x{i}" for i in range(len(arrays))]
    return Case(cl.Eltwise("p", names, mode=mode), {n: (a, fmt) for n, a in zip(names, arrays)},
                eltwise_ref(arrays, mode))


def _gemm(rng, sa, sb):
    a, b = f32(rng.standard_normal(sa)), f32(rng.standard_normal(sb))
    return Case(Gemm("p", inputs=["a", "b"]), {"a": (a, BFYX), "b": (b, BFYX)}, gemm_ref(a, b))


def _lrn(rng, c, fmt):
    x = f32(rng.standard_normal((1, c, 4, 4)))
    return Case(cl.LRN("p", "x", size=5, alpha=0.6, beta=0.75, k=1.0), {"x": (x, fmt)}, lrn_ref(x, 5, 0.6, 0.75, 1.0))


def _pool(rng, c, fmt, mode):
    x = f32(rng.standard_normal((1, c, 8, 8)))
    return Case(cl.Pooling("p", "x", mode=mode, kernel=(3, 3), stride=(2, 2), pad=(1, 1)), {"x": (x, fmt)},
                pool_ref(x, cl.PoolingMode(mode), (3, 3), (2, 2), (1, 1), (1, 1)))


def _reorder(rng, shape, fmt):
    x = f32(rng.standard_normal(shape))
    return Case(cl.Reorder("p", "x", fmt), {"x": (x, BFYX)}, x.astype(np.float64))


def _batch_norm(rng):
    x, c = f32(rng.standard_normal((2, 5, 3, 4))), 5
    st = {"mean": f32(rng.standard_normal(c)), "var": f32(rng.uniform(0.1, 2.0, c)),
          "scale": f32(rng.standard_normal(c)), "shift": f32(rng.standard_normal(c))}
    return Case(cl.BatchNorm("p", "x", mean="mean", variance="var", scale="scale", shift="shift", epsilon=1e-5),
                {"x": (x, FSV16)}, batch_norm_ref(x, st["mean"], st["var"], st["scale"], st["shift"], 1e-5),
                {k: (v, None) for k, v in st.items()})


def _one(prim, x, fmt, expected, **kw):
    return Case(prim, {"x": (x, fmt)}, np.asarray(expected, dtype=np.float64), **kw)


def _x(rng, shape):
    return f32(rng.standard_normal(shape))


def _dynamic_quant_params_ref(x):
    """(s, z, −z, 255 − z) of ONNX DynamicQuantizeLinear in float32, written out here (the kernel's own tests
    compare with onnxruntime)."""
    f = np.float32
    lo, hi = min(f(x.min()), f(0)), max(f(x.max()), f(0))
    s = f((hi - lo) / f(255))
    z = f(np.clip(np.rint(f((f(0) - lo) / s)), 0, 255))
    return np.array([s, z, -z, f(255) - z])


def _mvn_rows(rng):
    """A LayerNorm row of 13 (one float8 and a tail) with per-element gamma and a scalar bias."""
    x, g, b = _x(rng, (2, 3, 13)), _x(rng, (13,)), _x(rng, (1,))
    return Case(MVN("p", "x", axes=(-1,), epsilon=1e-5, scale="g", bias="b"), {"x": (x, BFYX)},
                mvn_ref(x, (-1,), 1e-5, scale=g, bias=b), {"g": (g, None), "b": (b, None)})


def _deconv(rng):
    x, w, b = _x(rng, (1, 3, 4, 4)), _x(rng, (3, 4, 3, 3)), _x(rng, (4,))
    return Case(Deconvolution("p", "x", weights="w", bias="b", stride=(2, 2), pad=(1, 1), pad_end=(1, 1)),
                {"x": (x, BFYX)}, deconv_ref(x, w, b, (2, 2), (1, 1), (1, 1), (1, 1), (0, 0), 1),
                {"w": (w, None), "b": (b, None)})


def _deconv_fsv16(rng):
    x, w, b = _x(rng, (1, 18, 3, 4)), _x(rng, (18, 3, 2, 2)), _x(rng, (3,))
    return Case(Deconvolution("p", "x", weights="w", bias="b", stride=(2, 2)), {"x": (x, FSV16)},
                deconv_ref(x, w, b, (2, 2), (1, 1), (0, 0), (0, 0), (0, 0), 1), {"w": (w, None), "b": (b, None)})


def _gather(rng):
    x, idx = _x(rng, (3, 4, 5)), np.array([3, 0, 2], dtype=np.int32)
    return Case(Gather("p", "x", "i", axis=1), {"x": (x, BFYX)}, np.take(x, idx, axis=1), {"i": (idx, None)})


def _gather_rows(rng):
    """Rows of 13 (one vector and a tail) gathered along axis 1, a negative index."""
    x, idx = _x(rng, (2, 4, 13)), np.array([3, -4, 2], dtype=np.int32)
    return Case(Gather("p", "x", "i", axis=1), {"x": (x, BFYX)}, np.take(x, idx, axis=1), {"i": (idx, None)})


def _scale(rng):
    x, s, b = _x(rng, (2, 5, 3, 4)), _x(rng, (1, 5, 1, 1)), _x(rng, (1, 5, 1, 1))
    return Case(cl.Scale("p", "x", scale="s", bias="b"), {"x": (x, BYXF)}, scale_ref(x, s, b),
                {"s": (s, None), "b": (b, None)})


def _lstm(rng):
    xw, h, c = _x(rng, (6, 16)), _x(rng, (2, 4)), _x(rng, (2, 4))
    r, p = _x(rng, (16, 4)), _x(rng, (12,))
    return Case(cl.LstmSequence("p", "xw", "h", "c", "r", "pp", clip=2.0), {"xw": (xw, BFYX), "h": (h, BFYX),
                "c": (c, BFYX)}, lstm_ref(xw, h, c, r, p, False, 2.0), {"r": (r, None), "pp": (p, None)})


def _lstm_packed(rng):
    xw, h, c = _x(rng, (6, 64)), _x(rng, (2, 16)), _x(rng, (2, 16))
    r, p = _x(rng, (64, 16)) * 0.3, _x(rng, (48,))
    return Case(cl.LstmSequence("p", "xw", "h", "c", "r", "pp", reverse=True), {"xw": (xw, BFYX), "h": (h, BFYX),
                "c": (c, BFYX)}, lstm_ref(xw, h, c, r, p, True, 0.0), {"r": (r, OSV16), "pp": (p, None)})


def _gru(rng, lbr, r_fmt):
    xw, h = _x(rng, (6, 48)), _x(rng, (2, 16))
    r, b = _x(rng, (48, 16)) * 0.3, _x(rng, (16,))
    prim = cl.GruSequence("p", "xw", "h", "r", "rb" if lbr else "", linear_before_reset=lbr, clip=2.0)
    return Case(prim, {"xw": (xw, BFYX), "h": (h, BFYX)}, gru_ref(xw, h, r, b if lbr else None, False, 2.0),
                {"r": (r, r_fmt)} | ({"rb": (b, None)} if lbr else {}))


def _scatter(rng):
    x = _x(rng, (2, 3, 4))
    flat = rng.integers(0, x.size, (5,)).astype(np.int32)
    u = _x(rng, (5,))
    ref = x.reshape(-1).copy()
    np.add.at(ref, flat, u)
    return Case(Scatter("p", "x", "i", "u", reduction="add"), {"x": (x, BFYX)}, ref.reshape(x.shape),
                {"i": (flat, None), "u": (u, None)})


def _roi_align(rng, dtype=np.float32, mode="avg"):
    """RoIs partly outside the map, one past its last row and column, a NaN one and batch indices outside [0, N)
    (zeros, nothing read), adaptive sampling, a blocked feature map of 5 channels."""
    x = rng.standard_normal((2, 5, 6, 7)).astype(dtype)
    rois = np.array([[-2.0, 1.0, 5.5, 7.0], [3.2, 2.1, 9.0, 8.5], [1.0, 1.0, 2.5, 4.0], [0.0, np.nan, 3.0, 3.0],
                     [0.5, 0.5, 4.0, 3.0], [1.0, 0.0, 6.0, 5.0]], dtype)
    bi = np.array([0, 1, 1, 0, 2, -1], np.int32)
    prim = cl.RoiAlign("p", "x", "rois", "bi", output_height=2, output_width=3, spatial_scale=1.0, mode=mode)
    return Case(prim, {"x": (x, FSV16), "rois": (rois, BFYX)}, roi_align_ref(x, rois, bi, 2, 3, 0, 1.0, mode),
                {"bi": (bi, None)})


def _winograd_in(rng):
    """A 6x7 map (tiles past both edges), pad 1, 16 channels: V by loops over the 6x6 tiles (float64)."""
    from cldnn_py.ops.winograd import BT

    x = rng.standard_normal((1, 16, 6, 7)).astype(np.float32)
    xp = np.zeros((1, 16, 2 * 4 + 2, 2 * 4 + 2))
    xp[:, :, 1:7, 1:8] = x
    v = np.zeros((36, 4, 16))
    for ty in range(2):
        for tx in range(2):
            for c in range(16):
                d = xp[0, c, ty * 4:ty * 4 + 6, tx * 4:tx * 4 + 6]
                v[:, ty * 2 + tx, c] = (BT @ d @ BT.T).reshape(36)
    return Case(cl.WinogradInput("p", "x", pad_y=1, pad_x=1, tiles_y=2, tiles_x=2), {"x": (x, FSV16)}, v)


def _winograd_out(rng):
    """M for 2 images of 2x2 tiles, 16 channels, a 6x7 output (the last tiles stick out), bias."""
    from cldnn_py.ops.winograd import AT

    m = rng.standard_normal((36, 8, 16)).astype(np.float32)
    b = rng.standard_normal(16).astype(np.float32)
    y = np.zeros((2, 16, 8, 8))
    for t in range(8):
        n, ty, tx = t // 4, (t % 4) // 2, t % 2
        for o in range(16):
            y[n, o, ty * 4:ty * 4 + 4, tx * 4:tx * 4 + 4] = AT @ m[:, t, o].reshape(6, 6).astype(np.float64) @ AT.T
    prim = cl.WinogradOutput("p", "m", bias="b", out_y=6, out_x=7, tiles_y=2, tiles_x=2, format=FSV16)
    return Case(prim, {"m": (m, BFYX)}, y[:, :, :6, :7] + b.reshape(1, 16, 1, 1), {"b": (b, None)})


def _qconv(rng):
    """quantized_convolution: u8 data (zero point 7), i8 weights with per-channel zero points, int32 bias, a
    per-channel scale and a u8 output (zero point 100): 12 output channels (a partial block of 8), 11 columns (a
    partial run of 8 pixels), padding (checked and unchecked taps). Exact."""
    x = rng.integers(0, 256, (1, 5, 6, 11)).astype(np.uint8)
    w = rng.integers(-128, 128, (12, 5, 3, 3)).astype(np.int8)
    w_zp = rng.integers(-5, 6, 12).astype(np.int8)
    bias = rng.integers(-2000, 2000, 12).astype(np.int32)
    scale = rng.uniform(0.002, 0.01, 12).astype(np.float32)
    expected = quantized_conv_ref(x, w, (1, 1), (1, 1), (1, 1), (1, 1), 1, 7, w_zp, bias, scale, np.uint8, 100)
    prim = cl.QuantizedConvolution("p", "x", "w", bias="b", input_zero_point="x_zp", weights_zero_point="w_zp",
                                   output_scale="s", output_dtype=cl.DataType.u8, output_zero_point=100, pad=1)
    data = {"w": (w, None), "b": (bias, None), "x_zp": (np.array([7], np.uint8), None), "w_zp": (w_zp, None),
            "s": (scale, None)}
    return Case(prim, {"x": (x, BFYX)}, expected.astype(np.float64), data, rtol=0.0, atol=1e-9)


# One small case per OpenCL kernel name; each builds its data from the test's rng.
CASES: dict[str, Callable[[np.random.Generator], Case]] = {
    "quantized_convolution_ref": _qconv,
    "quantized_convolution_blocks": _qconv,
    "activation_ref": lambda r: (lambda x: _one(cl.Activation("p", "x", func="elu", a=0.5), x, FSV16,
                                                activation_ref(x, "elu", 0.5)))(_x(r, (2, 5, 3, 4))),
    "activation_vec8": lambda r: (lambda x: _one(cl.Activation("p", "x", func="logistic"), x, FSV16,
                                                 activation_ref(x, "logistic")))(_x(r, (2, 21, 3, 5))),
    "arg_max_ref": lambda r: (lambda x: _one(ArgMax("p", "x", axis=1, keep_dims=True), x, BYXF,
                                             np.argmax(x, axis=1)[:, None]))(_x(r, (2, 7, 3, 4))),
    "top_k_ref": lambda r: (lambda x: _one(TopK("p", "x", axis=1, k=3), x, BYXF,
                                           -np.sort(-x, axis=1, kind="stable")[:, :3]))(_x(r, (2, 7, 3, 4))),
    "scatter_ref": _scatter,
    "lstm_sequence_ref": _lstm,
    "lstm_sequence_packed": _lstm_packed,
    "lstm_sequence_gpu_packed": _lstm_packed,
    "gru_sequence_ref": lambda r: _gru(r, False, None),
    "gru_sequence_packed": lambda r: _gru(r, True, OSV16),
    "batch_norm_ref": _batch_norm,
    "batch_norm_b_fs_yx_fsv16": _batch_norm,
    "broadcast_ref": lambda r: (lambda x: _one(Broadcast("p", "x", shape=(2, 3, 5, 4)), x, BFYX,
                                               np.broadcast_to(x, (2, 3, 5, 4))))(_x(r, (1, 3, 1, 4))),
    "concatenation_ref": lambda r: _concat(r, BFYX, 3, 5),
    "concatenation_b_fs_yx_fsv16": lambda r: _concat(r, FSV16, 16, 7),
    "convolution_ref": lambda r: _conv(r, BFYX, None),
    "convolution_b_fs_yx_fsv16": lambda r: _conv(r, FSV16, OSV16),
    "convolution_gpu_depthwise": _conv_depthwise,
    "convolution_gpu_igemm": _conv_tails,
    "crop_ref": lambda r: (lambda x: _one(cl.Crop("p", "x", shape=(1, 2, 3, 4), offsets=(1, 1, 1, 2)), x, FSV16,
                                          x[1:2, 1:3, 1:4, 2:6]))(_x(r, (2, 4, 5, 6))),
    "crop_b_fs_yx_fsv16": lambda r: (lambda x: _one(cl.Crop("p", "x", shape=(1, 19, 3, 4), offsets=(1, 5, 1, 2)),
                                                    x, FSV16, x[1:2, 5:24, 1:4, 2:6]))(_x(r, (2, 26, 5, 6))),
    "deconvolution_ref": _deconv,
    "deconvolution_b_fs_yx_fsv16": _deconv_fsv16,
    "eltwise_ref": lambda r: _eltwise(r, [(2, 3, 4, 5), (1, 3, 1, 5)], BFYX, cl.EltwiseMode.sum),
    "eltwise_vec8": lambda r: _eltwise(r, [(1, 20, 4, 5), (1, 20, 4, 5)], FSV16, cl.EltwiseMode.prod),
    "fully_connected_ref": lambda r: _fc(r, 2, 12, 5, None),
    "fully_connected_gemm": lambda r: _fc(r, 10, 24, 20, OSV16),
    "fully_connected_gemv": lambda r: _fc(r, 2, 16, 5, None),
    "gather_ref": _gather,
    "gather_rows": _gather_rows,
    "gemm_ref": lambda r: _gemm(r, (3, 5), (5, 4)),
    "gemm_tiled": lambda r: _gemm(r, (5, 24), (24, 16)),
    "lrn_ref": lambda r: _lrn(r, 7, BFYX),
    "lrn_b_fs_yx_fsv16": lambda r: _lrn(r, 20, FSV16),
    "mvn_ref": lambda r: (lambda x: _one(MVN("p", "x", axes=(2, 3), epsilon=1e-5), x, BFYX,
                                         mvn_ref(x, (2, 3), 1e-5)))(_x(r, (2, 3, 4, 5))),
    "mvn_rows": lambda r: _mvn_rows(r),
    "pad_ref": lambda r: (lambda x: _one(Pad("p", "x", pads_begin=(0, 1, 1, 2), pads_end=(0, 0, 2, 1),
                                             mode="reflect"), x, BFYX,
                                         pad_ref(x, (0, 1, 1, 2), (0, 0, 2, 1), "reflect")))(_x(r, (1, 2, 3, 4))),
    "permute_tiled": lambda r: (lambda x: _one(cl.Permute("p", "x", order=(0, 2, 1)), x, BFYX,
                                               permute_ref(x, (0, 2, 1))))(_x(r, (2, 13, 10))),
    "permute_ref": lambda r: (lambda x: _one(cl.Permute("p", "x", order=(0, 2, 3, 1)), x, FSV16,
                                             permute_ref(x, (0, 2, 3, 1))))(_x(r, (2, 19, 3, 4))),
    "pooling_ref": lambda r: _pool(r, 3, BFYX, "max"),
    "pooling_b_fs_yx_fsv16": lambda r: _pool(r, 16, FSV16, "average"),
    "dynamic_quant_params": lambda r: (lambda x: _one(prims.DynamicQuantParams("p", "x"), x, FSV16,
                                                      _dynamic_quant_params_ref(x)))(_x(r, (1, 24, 5, 7))),
    "reduce_ref": lambda r: (lambda x: _one(Reduce("p", "x", mode="sum", axes=(1, 3), keep_dims=True), x, BFYX,
                                            reduce_ref(x, "sum", (1, 3), True)))(_x(r, (2, 3, 4, 5))),
    "reduce_flat_vec8": lambda r: (lambda x: _one(Reduce("p", "x", mode="max", axes=(), keep_dims=True), x, BFYX,
                                                  reduce_ref(x, "max", (0, 1, 2, 3), True)))(_x(r, (2, 3, 4, 5))),
    "reorder_ref": lambda r: _reorder(r, (2, 5, 3, 4), BYXF),
    "reorder_bfyx_to_fsv16": lambda r: _reorder(r, (1, 20, 3, 5), FSV16),
    "reshape_ref": lambda r: (lambda x: _one(cl.Reshape("p", "x", shape=(2, 10, 3, 4)), x, FSV16,
                                             x.reshape(2, 10, 3, 4)))(_x(r, (1, 20, 2, 6))),
    "resize_ref": lambda r: (lambda x: _one(Resize("p", "x", sizes=(1, 2, 6, 7), mode="linear"), x, BFYX,
                                            resize_ref(x, (1, 2, 6, 7), mode="linear")))(_x(r, (1, 2, 3, 4))),
    "roi_align_ref": lambda r: _roi_align(r, mode="max"),
    "winograd_input_b_fs_yx_fsv16": _winograd_in,
    "winograd_output_b_fs_yx_fsv16": _winograd_out,
    "resize_b_fs_yx_fsv16": lambda r: (lambda x: _one(Resize("p", "x", sizes=(1, 18, 5, 7), mode="linear"), x,
                                                      FSV16, resize_ref(x, (1, 18, 5, 7), mode="linear")))(
        _x(r, (1, 18, 3, 4))),
    "scale_ref": _scale,
    "shuffle_channels_ref": lambda r: (lambda x: _one(cl.ShuffleChannels("p", "x", group=3), x, FSV16,
                                                      x.reshape(2, 3, 6, 3, 2).transpose(0, 2, 1, 3, 4)
                                                      .reshape(2, 18, 3, 2)))(_x(r, (2, 18, 3, 2))),
    "shuffle_channels_b_fs_yx_fsv16": lambda r: (lambda x: _one(cl.ShuffleChannels("p", "x", group=3), x, FSV16,
                                                                x.reshape(2, 3, 6, 3, 9).transpose(0, 2, 1, 3, 4)
                                                                .reshape(2, 18, 3, 9)))(_x(r, (2, 18, 3, 9))),
    "softmax_ref": lambda r: (lambda x: _one(cl.Softmax("p", "x", axis=1), x, BFYX,
                                             softmax_ref(x, 1)))(_x(r, (2, 5, 3, 4))),
    "softmax_rows": lambda r: (lambda x: _one(cl.Softmax("p", "x", axis=-1), x, BFYX,
                                              softmax_ref(x, 3)))(_x(r, (1, 2, 3, 21))),
    "strided_slice_ref": lambda r: (lambda x: _one(StridedSlice("p", "x", begin=(1, 0, 4), end=(3, 6, 0),
                                                                steps=(1, 2, -1)), x, BFYX,
                                                   x[1:3, 0:6:2, 4:0:-1]))(_x(r, (4, 6, 5))),
    "tile_ref": lambda r: (lambda x: _one(Tile("p", "x", repeats=(1, 2, 1, 3)), x, BFYX,
                                          np.tile(x, (1, 2, 1, 3))))(_x(r, (2, 3, 2, 2))),
}

# Kernels that no small case can make valid under Oclgrind, with the reason (none so far).
SKIP: dict[str, str] = {}


def ocl_kernels() -> list[tuple[str, str, str]]:
    """(primitive type, kernel name, tier) of every OpenCL kernel the library registers, found now (collection time);
    kernels that test modules register for their own purposes (e.g. a deliberately broken one) are not the
    library's."""
    candidates = importlib.import_module("kernel_selector.selector").candidates
    kinds = sorted({c.type_name for c in vars(prims).values()
                    if isinstance(c, type) and issubclass(c, prims.Primitive)})
    return [(kind, k.name, k.tier) for kind in kinds for k in candidates(kind)
            if k.engine == "ocl" and type(k).__module__.startswith("kernel_selector.kernels.")]


KERNELS = ocl_kernels()


def cases_for(prim: str, name: str) -> list[Callable[[np.random.Generator], Case]]:
    """The kernel's own case; for a GPU-tier kernel without one, the cases of its primitive's other kernels."""
    if name in CASES:
        return [CASES[name]]
    if "_gpu_" in name:
        return [CASES[n] for p, n, _ in KERNELS if p == prim and n in CASES]
    return []


def run_case(engine: cl.Engine, case: Case, kernel: str, tier: str, precision: str = "f32",
             ran_dtype: list | None = None) -> tuple[np.ndarray, str]:
    """Build the case's topology with ``kernel`` forced on ``"p"``, poison, run; (bfyx output, kernel that ran).
    ``precision``: the build's inference_precision; ``ran_dtype``, when given, receives p's output data type."""
    topo = cl.Topology()
    feeds = {}
    for name, (arr, fmt) in case.inputs.items():
        lay = cl.Layout(cl.DataType.from_numpy(arr.dtype), BFYX, arr.shape)
        if fmt == BFYX:
            topo.add(cl.InputLayout(name, lay))
            feeds[name] = arr
        else:
            topo.add(cl.InputLayout(name + "__host", lay), cl.Reorder(name, name + "__host", fmt))
            feeds[name + "__host"] = arr
    for name, (arr, fmt) in case.data.items():
        if fmt is None:
            topo.add(cl.Data(name, arr))
        else:
            topo.add(cl.Data(name + "__data", arr), cl.Reorder(name, name + "__data", fmt))
    topo.add(case.prim, cl.Reorder("out", case.prim.id, BFYX))
    opts = cl.BuildOptions(force_implementations={case.prim.id: kernel}, kernel_tier=tier or "auto",
                           tuning="off", emulate_subgroups=True,  # sub-group kernels (*_sg) run emulated
                           inference_precision=precision)
    net = cl.Network(cl.Program(engine, topo, opts))
    net.poison()
    out = net.run(feeds)["out"]
    if ran_dtype is not None:
        ran_dtype.append(net.program.node(case.prim.id).layout().dtype)
    return out, net.program.node(case.prim.id).impl.kernel_name


@pytest.mark.parametrize("prim, kernel, tier", KERNELS, ids=[k for _, k, _ in KERNELS])
def test_kernel_is_oclgrind_clean(oclgrind_engine, oclgrind_log, rng, prim, kernel, tier):
    if kernel in SKIP:
        pytest.skip(SKIP[kernel])
    builders = cases_for(prim, kernel)
    if not builders:
        pytest.fail(f"add an Oclgrind case for {kernel} (tests/oclgrind/test_kernels_oclgrind.py CASES)")
    refusals = []
    for build in builders:
        case = build(rng)
        try:
            out, ran = run_case(oclgrind_engine, case, kernel, tier)
        except UnsupportedError as e:  # a generic case this GPU-tier kernel does not take: try the next
            if len(builders) == 1:
                raise
            refusals.append(str(e).splitlines()[0])
            continue
        assert ran == kernel, f"{ran} ran instead of the forced {kernel}"
        oclgrind_log.assert_clean()
        if case.expected.dtype.kind in "iub" or out.dtype.kind in "iu":
            np.testing.assert_array_equal(out, case.expected)
        else:
            assert_close(out, case.expected, rtol=case.rtol, atol=case.atol)
        return
    pytest.fail(f"no generic {prim} case validates for {kernel}; add an Oclgrind case for {kernel}:\n"
                + "\n".join(refusals))


def _half_tol(case: Case) -> Case:
    """``case`` with the tolerance of an f16 output: one rounding to half, relative to the largest magnitude."""
    scale = float(np.abs(case.expected).max())
    return dataclasses.replace(case, rtol=2e-3, atol=2e-3 * scale)


def _fc_half(rng, n, k, m, wfmt):
    """:func:`_fc` with x, W and bias stored as f16 (rounded first: the reference sees what the kernel reads)."""
    x, w, b = (rng.standard_normal(s).astype(np.float16) for s in ((n, k), (m, k), (m,)))
    return _half_tol(Case(cl.FullyConnected("p", "x", weights="w", bias="b"), {"x": (x, BFYX)}, fc_ref(x, w, b),
                          {"w": (w, wfmt), "b": (b, None)}))


def _gemm_half(rng, sa, sb):
    """:func:`_gemm` with A and B stored as f16."""
    a, b = rng.standard_normal(sa).astype(np.float16), rng.standard_normal(sb).astype(np.float16)
    return _half_tol(Case(Gemm("p", inputs=["a", "b"]), {"a": (a, BFYX), "b": (b, BFYX)}, gemm_ref(a, b)))


def _conv_half(rng, shape, oc, fmt, wfmt, groups=1, stride=(1, 1)):
    """A 3x3 pad-1 convolution with x, W and bias stored as f16 (rounded first)."""
    x, w, b = (rng.standard_normal(s).astype(np.float16) for s in (shape, (oc, shape[1] // groups, 3, 3), (oc,)))
    w = (w * np.float16(0.3)).astype(np.float16)
    return _half_tol(Case(cl.Convolution("p", "x", weights="w", bias="b", pad=(1, 1), stride=stride, groups=groups),
                          {"x": (x, fmt)}, conv_ref(x, w, b, stride, (1, 1), (1, 1), (1, 1), groups),
                          {"w": (w, wfmt), "b": (b, None)}))


def _deconv_half(rng, shape, oc, fmt):
    """A 3x3 stride-2 transposed convolution with x, W and bias stored as f16."""
    x, w, b = (rng.standard_normal(s).astype(np.float16) for s in (shape, (shape[1], oc, 3, 3), (oc,)))
    return _half_tol(Case(Deconvolution("p", "x", weights="w", bias="b", stride=(2, 2), pad=(1, 1), pad_end=(1, 1)),
                          {"x": (x, fmt)}, deconv_ref(x, w, b, (2, 2), (1, 1), (1, 1), (1, 1), (0, 0), 1),
                          {"w": (w, None), "b": (b, None)}))


# f16 storage (issue 18): the kernels whose templates read and write through the jitter's LOAD / STORE macros, one
# small case each with half inputs, Data and output (in Oclgrind the macros' vload_half / vstore_half_rte forms).
HALF_CASES: dict[str, Callable[[np.random.Generator], Case]] = {
    "fully_connected_ref": lambda r: _fc_half(r, 2, 12, 5, None),
    "fully_connected_gemm": lambda r: _fc_half(r, 10, 24, 20, OSV16),
    "fully_connected_gemv": lambda r: _fc_half(r, 2, 16, 5, None),
    "fully_connected_gpu_gemv": lambda r: _fc_half(r, 3, 33, 9, None),
    "fully_connected_gpu_gemv_sg": lambda r: _fc_half(r, 3, 33, 9, None),
    "fully_connected_gpu_tiled": lambda r: _fc_half(r, 3, 33, 9, None),
    "gemm_ref": lambda r: _gemm_half(r, (3, 5), (5, 4)),
    "gemm_tiled": lambda r: _gemm_half(r, (5, 24), (24, 16)),
    "gemm_gpu_tiled": lambda r: _gemm_half(r, (3, 17), (17, 5)),
    "convolution_ref": lambda r: _conv_half(r, (1, 5, 6, 7), 7, BFYX, None),
    "convolution_b_fs_yx_fsv16": lambda r: _conv_half(r, (1, 18, 5, 6), 20, FSV16, OSV16),
    "convolution_gpu_igemm": lambda r: _conv_half(r, (2, 5, 7, 6), 9, BFYX, None),
    "convolution_gpu_direct": lambda r: _conv_half(r, (1, 5, 7, 6), 9, BFYX, None),
    "convolution_gpu_depthwise": lambda r: _conv_half(r, (1, 16, 9, 7), 16, BFYX, None, groups=16, stride=(2, 1)),
    "deconvolution_ref": lambda r: _deconv_half(r, (1, 3, 4, 4), 4, BFYX),
    "deconvolution_b_fs_yx_fsv16": lambda r: _deconv_half(r, (1, 18, 3, 4), 3, FSV16),
    "reorder_bfyx_to_fsv16": lambda r: (lambda x: _one(cl.Reorder("p", "x", FSV16), x, BFYX, x))(
        (r.standard_normal((1, 20, 3, 5)) * 300).astype(np.float16)),
    "roi_align_ref": lambda r: _half_tol(_roi_align(r, np.float16)),
}
HALF_KERNELS = [(p, k, t) for p, k, t in KERNELS if k in HALF_CASES]


@pytest.mark.parametrize("prim, kernel, tier", HALF_KERNELS, ids=[k for _, k, _ in HALF_KERNELS])
def test_half_kernel_is_oclgrind_clean(oclgrind_engine, oclgrind_log, rng, prim, kernel, tier):
    """The kernel forced on its f16 case: clean log, an f16 output within half rounding of the float64 reference."""
    case = HALF_CASES[kernel](rng)
    out, ran = run_case(oclgrind_engine, case, kernel, tier)
    assert ran == kernel, f"{ran} ran instead of the forced {kernel}"
    oclgrind_log.assert_clean()
    assert out.dtype == np.float16
    assert_close(out, case.expected, rtol=case.rtol, atol=case.atol)


def test_every_half_case_names_a_kernel():
    """A HALF_CASES key that is no registered OpenCL kernel (a typo, a rename) would silently test nothing."""
    assert set(HALF_CASES) <= {k for _, k, _ in KERNELS}

# Kernels that take f16 storage (issue 18), run once more in a build with inference_precision="f16" (inputs converted
# to half by their reorders, constants stored as half, the forced kernel loading and storing half). concatenation_ref
# and concatenation_gpu_wg run directly (test_concatenation_is_oclgrind_clean_in_f16): in an f16 build the
# converting reorders of their plain inputs write straight into the output (prepare_buffer_fusing), no kernel runs.
HALF_KERNELS = {"pooling_ref", "pooling_b_fs_yx_fsv16", "pooling_gpu_wg", "lrn_ref", "lrn_b_fs_yx_fsv16", "lrn_gpu_wg",
                "concatenation_b_fs_yx_fsv16", "eltwise_vec8", "eltwise_gpu_wg", "activation_vec8",
                "activation_gpu_wg", "scale_ref", "scale_gpu_wg", "batch_norm_ref", "batch_norm_gpu_wg",
                "batch_norm_b_fs_yx_fsv16", "roi_align_ref"}
HALF_RTOL = 1e-2
"""f16 runs: the case's f32 inputs rounded to half (2^-11 relative each) and one rounding of the half output."""


@pytest.mark.parametrize("prim, kernel, tier", [k for k in KERNELS if k[1] in HALF_KERNELS],
                         ids=[k for _, k, _ in KERNELS if k in HALF_KERNELS])
def test_kernel_is_oclgrind_clean_in_f16(oclgrind_engine, oclgrind_log, rng, prim, kernel, tier):
    """The kernel's case (a GPU-tier kernel: the first of its primitive's cases it takes) with half storage: clean
    log, the node ran the forced kernel in f16, values within :data:`HALF_RTOL` of the float64 reference."""
    for build in cases_for(prim, kernel):
        case, dtype = build(rng), []
        try:
            out, ran = run_case(oclgrind_engine, case, kernel, tier, precision="f16", ran_dtype=dtype)
        except UnsupportedError:
            continue
        assert (ran, dtype) == (kernel, [cl.DataType.f16]), f"{ran} ran in {dtype}, not the forced {kernel} in f16"
        oclgrind_log.assert_clean()
        scale = float(np.abs(case.expected).max())
        assert_close(out, case.expected, rtol=HALF_RTOL, atol=HALF_RTOL * scale)
        return
    pytest.fail(f"no {prim} case validates for {kernel} in f16")


@pytest.mark.parametrize("kernel, tier", [("concatenation_ref", "cpu"), ("concatenation_gpu_wg", "gpu")])
def test_concatenation_is_oclgrind_clean_in_f16(oclgrind_engine, oclgrind_log, rng, kernel, tier):
    """An f16 and an f32 input (padded, plain and blocked) into a padded f16 output, one enqueue per input: clean
    log, the f16 input copied exactly, the f32 one rounded to nearest even."""
    from cldnn_py.layout import DataType, Layout, Padding
    from tests.ocl.padded import run_kernel_padded

    a, b = _x(rng, (1, 3, 4, 5)).astype(np.float16), _x(rng, (1, 5, 4, 5))
    lays = [Layout(DataType.f16, BFYX, a.shape, Padding((0, 0, 1, 0), (0, 0, 0, 1))),
            Layout(DataType.f32, FSV16, b.shape)]
    lout = Layout(DataType.f16, FSV16, (1, 8, 4, 5), Padding((0, 0, 0, 1), (0, 0, 1, 0)))
    out = run_kernel_padded(oclgrind_engine, "concatenation", lays, lout, {"axis": 1}, [a, b], kernel=kernel,
                            kernel_tier=tier)
    oclgrind_log.assert_clean()
    np.testing.assert_array_equal(out, np.concatenate([a, b.astype(np.float16)], axis=1))


def test_gemm_tiled_b_panels_is_oclgrind_clean(oclgrind_engine, oclgrind_log, rng):
    """gemm_tiled reading a constant B as 16-column panels (transposed, b_fs_yx_fsv16: winograd_convolutions'
    filters), 3 panels so that PANELS 2 leaves a short last group, M 7 below the row tile: clean log, correct."""
    a, bt = _x(rng, (2, 7, 19)), _x(rng, (2, 48, 19))
    case = Case(Gemm("p", inputs=["a", "b"], transpose_b=True), {"a": (a, BFYX)},
                gemm_ref(a, bt.transpose(0, 2, 1)), {"b": (bt, FSV16)})
    out, ran = run_case(oclgrind_engine, case, "gemm_tiled", "cpu")
    assert ran == "gemm_tiled"
    oclgrind_log.assert_clean()
    assert_close(out, case.expected, rtol=case.rtol, atol=case.atol)


def test_gemm_tiled_unaligned_n_is_oclgrind_clean(oclgrind_engine, oclgrind_log, rng):
    """gemm_tiled with N % 8 != 0 (B_UNALIGNED: the panel packed and the output stored element by element, past N
    neither read nor written): attention's q·kᵀ shape with 21 tokens, batch (1, 3): clean log, correct."""
    case = _gemm(rng, (1, 3, 21, 16), (1, 3, 16, 21))
    out, ran = run_case(oclgrind_engine, case, "gemm_tiled", "cpu")
    assert ran == "gemm_tiled"
    oclgrind_log.assert_clean()
    assert_close(out, case.expected, rtol=case.rtol, atol=case.atol)


def test_eltwise_vec8_scalar_operand_is_oclgrind_clean(oclgrind_engine, oclgrind_log, rng):
    """eltwise_vec8's flat variant with a one-element operand (x / c, 3 x 7 x 5 = 105 elements: a tail of 1):
    clean log (the scalar is read at its one element only), correct."""
    x, c = _x(rng, (3, 7, 5)), f32(rng.uniform(0.5, 2.0, (1,)))
    case = Case(cl.Eltwise("p", ["x", "c"], mode=cl.EltwiseMode.div), {"x": (x, BFYX), "c": (c, BFYX)},
                eltwise_ref([x, c], cl.EltwiseMode.div))
    out, ran = run_case(oclgrind_engine, case, "eltwise_vec8", "cpu")
    assert ran == "eltwise_vec8"
    oclgrind_log.assert_clean()
    assert_close(out, case.expected, rtol=case.rtol, atol=case.atol)


def test_eltwise_vec8_fsv16_scalar_operand_is_oclgrind_clean(oclgrind_engine, oclgrind_log, rng):
    """eltwise_vec8's b_fs_yx_fsv16 variant with a one-element operand (a dynamic quantization's x / s), 24
    channels (a tail), 5 x 7 pixels: clean log, correct."""
    x, c = _x(rng, (1, 24, 5, 7)), f32(rng.uniform(0.5, 2.0, (1,)))
    case = Case(cl.Eltwise("p", ["x", "c"], mode=cl.EltwiseMode.div), {"x": (x, FSV16), "c": (c, BFYX)},
                eltwise_ref([x, c], cl.EltwiseMode.div))
    out, ran = run_case(oclgrind_engine, case, "eltwise_vec8", "cpu")
    assert ran == "eltwise_vec8"
    oclgrind_log.assert_clean()
    assert_close(out, case.expected, rtol=case.rtol, atol=case.atol)


def test_reduce_flat_vec8_rows_is_oclgrind_clean(oclgrind_engine, oclgrind_log, rng):
    """reduce_flat_vec8 over the last axis, one work-item per row: rows of 21 floats (not 32-byte aligned, a tail of
    5), mean: clean log (no read past the last row), correct."""
    x = _x(rng, (2, 3, 21))
    case = Case(Reduce("p", "x", mode="mean", axes=(-1,), keep_dims=True), {"x": (x, BFYX)},
                reduce_ref(x, "mean", (2,), True))
    out, ran = run_case(oclgrind_engine, case, "reduce_flat_vec8", "cpu")
    assert ran == "reduce_flat_vec8"
    oclgrind_log.assert_clean()
    assert_close(out, case.expected, rtol=case.rtol, atol=case.atol)


@pytest.mark.parametrize("channels", [32, 40], ids=["whole-slices", "channel-tail"])
def test_reduce_flat_vec8_whole_blocked_tensor_is_oclgrind_clean(oclgrind_engine, oclgrind_log, rng, channels):
    """reduce_flat_vec8 over a whole b_fs_yx_fsv16 tensor (a DynamicQuantizeLinear's max between blocked
    convolutions), 5 x 7 pixels, whole slices or a tail of 8 channels: clean log (no read past the buffer),
    correct. That the tail's padding lanes are not read is tests/ocl/test_reduce_flat.py's (NaN in those lanes)."""
    x = _x(rng, (1, channels, 5, 7))
    case = Case(Reduce("p", "x", mode="max", axes=(), keep_dims=False), {"x": (x, FSV16)},
                reduce_ref(x, "max", (0, 1, 2, 3), False))
    out, ran = run_case(oclgrind_engine, case, "reduce_flat_vec8", "cpu")
    assert ran == "reduce_flat_vec8"
    oclgrind_log.assert_clean()
    assert_close(out, case.expected, rtol=case.rtol, atol=case.atol)


def test_permute_tiled_runs_are_oclgrind_clean(oclgrind_engine, oclgrind_log, rng):
    """permute_tiled with the innermost axis kept (runs of 13: one vector and a tail, copied per chunk): clean log,
    exact."""
    x = _x(rng, (3, 4, 13))
    case = Case(cl.Permute("p", "x", order=(1, 0, 2)), {"x": (x, BFYX)}, permute_ref(x, (1, 0, 2)))
    out, ran = run_case(oclgrind_engine, case, "permute_tiled", "cpu")
    assert ran == "permute_tiled"
    oclgrind_log.assert_clean()
    np.testing.assert_array_equal(out, x.transpose(1, 0, 2))


def test_convolution_fsv16_flat_is_oclgrind_clean(oclgrind_engine, oclgrind_log, rng):
    """convolution_b_fs_yx_fsv16's FLAT form (1x1 stride 1 over OH * OW pixels as one row; 5 x 8 = 40 pixels leave a
    shifted last block at the default P), batch 2, 20 -> 24 channels (tails on both sides): clean log, correct."""
    x, w, b = _x(rng, (2, 20, 5, 8)), f32(rng.standard_normal((24, 20, 1, 1)) * 0.3), f32(rng.standard_normal(24))
    case = Case(cl.Convolution("p", "x", weights="w", bias="b"), {"x": (x, FSV16)},
                conv_ref(x, w, b, (1, 1), (1, 1), (0, 0), (0, 0), 1), {"w": (w, OSV16), "b": (b, None)})
    out, ran = run_case(oclgrind_engine, case, "convolution_b_fs_yx_fsv16", "cpu")
    assert ran == "convolution_b_fs_yx_fsv16"
    oclgrind_log.assert_clean()
    assert_close(out, case.expected, rtol=case.rtol, atol=case.atol)


def test_concatenation_fsv16_lane_copy_is_oclgrind_clean(oclgrind_engine, oclgrind_log, rng):
    """concatenation_b_fs_yx_fsv16 where slices mix inputs (CAT_LANES: 20 + 5 + 9 channels, three inputs in slice
    1, a partial last slice), batch 2: clean log, exact."""
    xs = [_x(rng, (2, c, 3, 4)) for c in (20, 5, 9)]
    case = Case(cl.Concatenation("p", ["a", "b", "c"], axis=1), {k: (x, FSV16) for k, x in zip("abc", xs)},
                np.concatenate(xs, axis=1))
    out, ran = run_case(oclgrind_engine, case, "concatenation_b_fs_yx_fsv16", "cpu")
    assert ran == "concatenation_b_fs_yx_fsv16"
    oclgrind_log.assert_clean()
    np.testing.assert_array_equal(out, case.expected)


def test_in_place_fsv16_concatenation_is_oclgrind_clean(oclgrind_engine, oclgrind_log, rng):
    """A b_fs_yx_fsv16 concatenation in place (prepare_buffer_fusing): a 1x1 convolution (16 channels, slice 0), a
    3x3 max pooling (slice 1) and a 3x3 convolution (24 channels, slices 2-3: the last ends inside its slice) write
    into one buffer through outputs padded along features: no write outside a producer's slice, correct."""
    x = _x(rng, (1, 16, 5, 7))
    w1, w2 = f32(rng.standard_normal((16, 16, 1, 1)) * 0.3), f32(rng.standard_normal((24, 16, 3, 3)) * 0.2)
    topo = cl.Topology(cl.InputLayout("x", cl.Layout(cl.DataType.f32, BFYX, x.shape)),
                       cl.Reorder("xb", "x", FSV16), cl.Data("w1", w1), cl.Data("w2", w2),
                       cl.Convolution("c1", "xb", "w1"),
                       cl.Pooling("p", "xb", mode="max", kernel=(3, 3), stride=(1, 1), pad=(1, 1)),
                       cl.Convolution("c2", "xb", "w2", pad=(1, 1)),
                       cl.Concatenation("cat", ["c1", "p", "c2"], axis=1), cl.Reorder("out", "cat", BFYX))
    net = cl.Network(cl.Program(oclgrind_engine, topo, cl.BuildOptions(kernel_tier="cpu", tuning="off")))
    assert net.program.node("cat").in_place
    net.poison()
    out = net.run({"x": x})["out"]
    oclgrind_log.assert_clean()
    expected = np.concatenate([conv_ref(x, w1, None, (1, 1), (1, 1), (0, 0), (0, 0), 1),
                               pool_ref(x, "max", (3, 3), (1, 1), (1, 1), (1, 1)),
                               conv_ref(x, w2, None, (1, 1), (1, 1), (1, 1), (1, 1), 1)], axis=1)
    assert_close(out, expected, rtol=1e-4, atol=1e-4)


def test_oclgrind_log_catches_an_out_of_bounds_write(oclgrind_engine, oclgrind_log):
    """The plumbing itself: a kernel writing one element past its buffer shows in the log (OCLGRIND_LOG was set
    before the platform loaded), and the check sees it."""
    import pyopencl

    ctx, queue = oclgrind_engine.context, oclgrind_engine.queue
    src = "__kernel void past_the_end(__global float* y) { y[get_global_id(0) + 1] = 1.0f; }"
    program = pyopencl.Program(ctx, src).build()
    buf = pyopencl.Buffer(ctx, pyopencl.mem_flags.READ_WRITE, 4 * 4)
    program.past_the_end(queue, (4,), None, buf)
    queue.finish()
    text = oclgrind_log.new_text()
    assert "Invalid write" in text, f"Oclgrind did not log the out-of-bounds write; log text: {text!r}"
    with pytest.raises(pytest.fail.Exception, match="Invalid write"):
        oclgrind_log.assert_clean()


def test_oclgrind_log_catches_an_uninitialized_read(oclgrind_engine, oclgrind_log):
    """Uninitialized-value checks are on (tests/conftest.py sets OCLGRIND_UNINITIALIZED) and survive the engine's
    build path (its -cl-opt-disable on the simulator): a kernel storing a never-written private value is logged."""
    import pyopencl

    ctx, queue = oclgrind_engine.context, oclgrind_engine.queue
    assert "-cl-opt-disable" in oclgrind_engine.default_build_options
    src = ("__kernel void never_written(__global float* y, int n) {\n"
           "  float t[8];\n  for (int i = 0; i < n; ++i) t[i] = 1.0f;\n"
           "  y[get_global_id(0)] = t[7];\n}")
    program = oclgrind_engine.build(src)
    buf = pyopencl.Buffer(ctx, pyopencl.mem_flags.READ_WRITE, 4 * 4)
    program.never_written(queue, (4,), None, buf, np.int32(2))
    queue.finish()
    text = oclgrind_log.new_text()
    assert "ninitiali" in text, f"Oclgrind did not log the uninitialized read; log text: {text!r}"
    with pytest.raises(pytest.fail.Exception, match="ninitiali"):
        oclgrind_log.assert_clean()


@pytest.mark.parametrize("halo", [True, False], ids=["unchecked", "border"])
def test_conv_vec16_form_is_oclgrind_clean(oclgrind_engine, oclgrind_log, rng, halo):
    """convolution_b_fs_yx_fsv16's VEC16 form (chosen on AVX-512 devices; Oclgrind reports a narrow native vector, so
    the generic case runs the float8 form) forced through the DeviceCaps, with one and four output slices per work-item
    with a plain bfyx first-layer input and with a plain bfyx output: clean log, float64 reference."""
    import dataclasses

    from cldnn_py.layout import DataType, Layout, Padding
    from cldnn_py.ops import ConvolutionAttrs
    from tests.ocl.padded import run_kernel_padded

    x, w, b = _x(rng, (1, 18, 4, 5)), _x(rng, (20, 18, 3, 3)), _x(rng, (20,))
    x4, w4, b4 = _x(rng, (1, 18, 4, 5)), _x(rng, (64, 18, 1, 1)), _x(rng, (64,))
    caps = dataclasses.replace(oclgrind_engine.info.caps, native_vector_width_float=16)
    pad = Padding((0, 0, 1, 1), (0, 0, 1, 1)) if halo else Padding()
    lin = Layout(DataType.f32, FSV16, x.shape, pad)
    lays = [lin, Layout(DataType.f32, OSV16, w.shape), Layout(DataType.f32, BFYX, (20,))]
    lout = Layout(DataType.f32, FSV16, (1, 20, 4, 5))
    attrs = ConvolutionAttrs(pad=(1, 1), pad_end=(1, 1))
    out = run_kernel_padded(oclgrind_engine, "convolution", lays, lout, dataclasses.asdict(attrs), [x, w, b],
                            kernel="convolution_b_fs_yx_fsv16", caps=caps, pad_fill=0.0)
    # four output slices per work-item (OC_BLOCKS 4), a 1x1 with 64 output channels
    lays4 = [lin, Layout(DataType.f32, OSV16, w4.shape), Layout(DataType.f32, BFYX, (64,))]
    lout4 = Layout(DataType.f32, FSV16, (1, 64, 4, 5))
    out4 = run_kernel_padded(oclgrind_engine, "convolution", lays4, lout4, dataclasses.asdict(ConvolutionAttrs()),
                             [x4, w4, b4], kernel="convolution_b_fs_yx_fsv16", caps=caps, pad_fill=0.0,
                             variant={"block": 5, "loop_order": 0, "oc_blocks": 4})
    # a first layer reading its 3-channel bfyx input where it lies (INPUT_PLAIN), strided, border rows
    xp, wp = _x(rng, (1, 3, 7, 9)), _x(rng, (16, 3, 3, 3))
    lays_p = [Layout(DataType.f32, BFYX, xp.shape), Layout(DataType.f32, OSV16, wp.shape),
              Layout(DataType.f32, BFYX, (16,))]
    attrs_p = ConvolutionAttrs(stride=(2, 2), pad=(1, 1), pad_end=(1, 1))
    out_p = run_kernel_padded(oclgrind_engine, "convolution", lays_p, Layout(DataType.f32, FSV16, (1, 16, 4, 5)),
                              dataclasses.asdict(attrs_p), [xp, wp, b[:16]], kernel="convolution_b_fs_yx_fsv16",
                              caps=caps)
    # a narrow head writing bfyx (OUTPUT_PLAIN): 3 output channels
    w3 = _x(rng, (3, 18, 3, 3))
    lays3 = [lin, Layout(DataType.f32, OSV16, w3.shape), Layout(DataType.f32, BFYX, (3,))]
    out3 = run_kernel_padded(oclgrind_engine, "convolution", lays3, Layout(DataType.f32, BFYX, (1, 3, 4, 5)),
                             dataclasses.asdict(attrs), [x, w3, b[:3]], kernel="convolution_b_fs_yx_fsv16",
                             caps=caps, pad_fill=0.0)
    oclgrind_log.assert_clean()
    assert_close(out3, conv_ref(x, w3, b[:3], (1, 1), (1, 1), (1, 1), (1, 1), 1), rtol=1e-4, atol=1e-4)
    assert_close(out, conv_ref(x, w, b, (1, 1), (1, 1), (1, 1), (1, 1), 1), rtol=1e-4, atol=1e-4)
    assert_close(out4, conv_ref(x4, w4, b4, (1, 1), (1, 1), (0, 0), (0, 0), 1), rtol=1e-4, atol=1e-4)
    assert_close(out_p, conv_ref(xp, wp, b[:16], (2, 2), (1, 1), (1, 1), (1, 1), 1), rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("vec", [0, 1], ids=["scalar", "vector"])
def test_conv_igemm_read_forms_are_oclgrind_clean(oclgrind_engine, oclgrind_log, rng, vec):
    """convolution_gpu_igemm's two local-read forms (the generic case runs one tile's default form only) on the
    smallest tile of each form's default (32 x 32 of 8 x 8 work-items: float4 reads; 16 x 16: float2), with tails in
    M (9), N (2 x 42 pixels) and K (45) and a padded input: clean log, float64 reference."""
    import dataclasses

    from cldnn_py.layout import DataType, Layout, Padding
    from cldnn_py.ops import ConvolutionAttrs
    from tests.ocl.padded import run_kernel_padded

    x, w, b = _x(rng, (2, 5, 7, 6)), _x(rng, (9, 5, 3, 3)), _x(rng, (9,))
    lays = [Layout(DataType.f32, BFYX, x.shape, Padding((0, 0, 1, 0), (0, 0, 0, 2))),
            Layout(DataType.f32, BFYX, w.shape), Layout(DataType.f32, BFYX, (9,))]
    attrs = ConvolutionAttrs(pad=(1, 1), pad_end=(1, 1))
    for tile in ({"tx": 8, "ty": 8, "wpt": 4, "kwg": 16}, {"tx": 8, "ty": 8, "wpt": 2, "kwg": 16}):
        out = run_kernel_padded(oclgrind_engine, "convolution", lays, Layout(DataType.f32, BFYX, (2, 9, 7, 6)),
                                dataclasses.asdict(attrs), [x, w, b], kernel="convolution_gpu_igemm",
                                variant=dict(tile, vec=vec), kernel_tier="gpu")
        assert_close(out, conv_ref(x, w, b, (1, 1), (1, 1), (1, 1), (1, 1), 1), rtol=1e-4, atol=1e-4)
    oclgrind_log.assert_clean()


def _conv_half_forms(rng, caps16):
    """(kernel, primitive, layouts, output layout, attrs, arrays, run_kernel_padded keywords, reference): the forms of
    the convolution family's f16 storage that HALF_CASES' networks do not reach: VEC16 over an unpadded input (border
    rows) and a zero halo, plain first-layer input with a plain head output, padded and mixed f32 / f16 tensors, the
    plain deconvolution output, reorder_bfyx_to_fsv16 converting f32 to f16."""
    from cldnn_py.layout import DataType, Layout, Padding
    from cldnn_py.ops import ConvolutionAttrs, DeconvolutionAttrs, ReorderAttrs

    h, f = DataType.f16, DataType.f32

    def conv(kernel, shape, oc, fmt=BFYX, wfmt=BFYX, out_fmt=None, pad=None, dt=(h, h, h, h), **kw):
        x, w, b = _x(rng, shape), _x(rng, (oc, shape[1], 3, 3)) * 0.3, _x(rng, (oc,))
        lays = [Layout(dt[0], fmt, shape, pad or Padding()), Layout(dt[1], wfmt, w.shape), Layout(dt[2], BFYX, (oc,))]
        lout = Layout(dt[3], out_fmt or fmt, (shape[0], oc) + shape[2:], Padding((0, 0, 0, 1), (0, 0, 1, 0)))
        vals = [a.astype(lay.dtype.numpy) for a, lay in zip((x, w, b), lays)]
        ref = conv_ref(*[v.astype(np.float64) for v in vals], (1, 1), (1, 1), (1, 1), (1, 1), 1)
        return kernel, "convolution", lays, lout, ConvolutionAttrs(pad=(1, 1), pad_end=(1, 1)), vals, kw, ref

    x, w, b = (rng.standard_normal(s).astype(np.float16) for s in ((1, 18, 3, 4), (18, 3, 2, 2), (3,)))
    xr = (_x(rng, (1, 20, 3, 5)) * 300).astype(np.float32)
    return [
        conv("convolution_ref", (1, 5, 5, 6), 7, pad=Padding((0, 0, 1, 0), (0, 0, 0, 2)), dt=(f, h, f, h)),
        conv("convolution_b_fs_yx_fsv16", (1, 18, 4, 5), 20, FSV16, OSV16, pad=Padding((0, 0, 1, 1), (0, 0, 1, 1)),
             caps=caps16, pad_fill=0.0),
        conv("convolution_b_fs_yx_fsv16", (1, 18, 4, 5), 20, FSV16, OSV16, caps=caps16),
        conv("convolution_b_fs_yx_fsv16", (1, 3, 4, 5), 3, BFYX, OSV16, dt=(f, h, h, h)),
        conv("convolution_gpu_igemm", (2, 5, 7, 6), 9, dt=(h, f, h, f), kernel_tier="gpu"),
        ("deconvolution_b_fs_yx_fsv16", "deconvolution", [Layout(h, FSV16, x.shape), Layout(h, BFYX, w.shape),
                                                          Layout(h, BFYX, (3,))],
         Layout(h, BFYX, (1, 3, 6, 8), Padding((0, 0, 1, 0), (0, 0, 0, 1))), DeconvolutionAttrs(stride=(2, 2)),
         [x, w, b], {}, deconv_ref(x, w, b, (2, 2), (1, 1), (0, 0), (0, 0), (0, 0), 1)),
        ("reorder_bfyx_to_fsv16", "reorder", [Layout(f, BFYX, xr.shape)], Layout(h, FSV16, xr.shape),
         ReorderAttrs(format=FSV16, dtype=h), [xr], {}, xr.astype(np.float16).astype(np.float64)),
    ]


def test_conv_half_forms_are_oclgrind_clean(oclgrind_engine, oclgrind_log, rng):
    """:func:`_conv_half_forms` run directly on padded buffers (tests/ocl/padded.py): in Oclgrind half goes through
    vload_half / vstore_half_rte (vload_half16 for VEC16); clean log, f16 output within half rounding of the float64
    reference."""
    from tests.ocl.half import assert_half_close
    from tests.ocl.padded import run_kernel_padded

    caps16 = dataclasses.replace(oclgrind_engine.info.caps, native_vector_width_float=16)
    for kernel, prim, lays, lout, attrs, vals, kw, ref in _conv_half_forms(rng, caps16):
        out = run_kernel_padded(oclgrind_engine, prim, lays, lout, dataclasses.asdict(attrs), vals, kernel=kernel, **kw)
        assert out.dtype == lout.dtype.numpy, kernel
        assert_half_close(out, ref, rtol=2e-3 if lout.dtype == cl.DataType.f16 else 2e-5)
    oclgrind_log.assert_clean()


@pytest.mark.parametrize("halo", [True, False], ids=["unchecked", "border"])
def test_conv_row_blocks_are_oclgrind_clean(oclgrind_engine, oclgrind_log, rng, halo):
    """convolution_b_fs_yx_fsv16 with ROW_BLOCKS > 1 (the rule a CPU device gets; Oclgrind reports a GPU, so its
    DeviceCaps are forced to "cpu"): a 13-pixel row in blocks of 3 is 5 blocks, 4 per work-item, so the second
    work-item runs one block and leaves the loop; the shifted last block and the border path run inside the loop.
    Clean log, float64 reference."""
    import dataclasses

    from cldnn_py.layout import DataType, Layout, Padding
    from cldnn_py.ops import ConvolutionAttrs
    from kernel_selector.kernels.convolution.convolution_kernel_b_fs_yx_fsv16 import ConvolutionKernelBFsYxFsv16
    from kernel_selector.params import Params
    from tests.ocl.padded import run_kernel_padded, typed_attrs

    x, w, b = _x(rng, (1, 18, 3, 13)), _x(rng, (20, 18, 3, 3)), _x(rng, (20,))
    caps = dataclasses.replace(oclgrind_engine.info.caps, device_type="cpu")
    pad = Padding((0, 0, 1, 1), (0, 0, 1, 1)) if halo else Padding()
    lays = [Layout(DataType.f32, FSV16, x.shape, pad), Layout(DataType.f32, OSV16, w.shape),
            Layout(DataType.f32, BFYX, (20,))]
    lout = Layout(DataType.f32, FSV16, (1, 20, 3, 13))
    attrs = ConvolutionAttrs(pad=(1, 1), pad_end=(1, 1))
    variant = {"block": 3, "loop_order": 0, "oc_blocks": 1}
    out = run_kernel_padded(oclgrind_engine, "convolution", lays, lout, dataclasses.asdict(attrs), [x, w, b],
                            kernel="convolution_b_fs_yx_fsv16", caps=caps, pad_fill=0.0, variant=variant)
    oclgrind_log.assert_clean()
    assert_close(out, conv_ref(x, w, b, (1, 1), (1, 1), (1, 1), (1, 1), 1), rtol=1e-4, atol=1e-4)
    params = Params(kind="convolution", engine="ocl", inputs=lays, output=lout,
                    attrs=typed_attrs("convolution", dataclasses.asdict(attrs)), layer_id="p",
                    device=oclgrind_engine.info, caps=caps)
    kern = ConvolutionKernelBFsYxFsv16()
    assert kern.row_blocks(params, 3) == 4 and kern.dispatch(params, 3, 1)[0][0] == 2  # the loop really ran


@pytest.mark.parametrize("halo", [True, False], ids=["unchecked", "border"])
def test_conv_block_diagonal_is_oclgrind_clean(oclgrind_engine, oclgrind_log, rng, halo):
    """convolution_b_fs_yx_fsv16 on densified grouped weights (BLOCK_DIAG: 68 channels in 4 groups of 17, so output
    slice 0 reads one whole input slice and one more channel, slice 1 two whole slices and one more): the whole-slice
    loop and the channel-by-channel head and tail, interior and border paths. Clean log, float64 reference of the
    grouped convolution."""
    import dataclasses

    from cldnn_py.layout import DataType, Layout, Padding
    from cldnn_py.ops import ConvolutionAttrs
    from cldnn_py.passes.densify_grouped_convolutions import dense_weights
    from tests.ocl.padded import run_kernel_padded

    x, wg, b = _x(rng, (1, 68, 3, 5)), _x(rng, (68, 17, 3, 3)), _x(rng, (68,))
    w = dense_weights(wg, 4)
    pad = Padding((0, 0, 1, 1), (0, 0, 1, 1)) if halo else Padding()
    lays = [Layout(DataType.f32, FSV16, x.shape, pad), Layout(DataType.f32, OSV16, w.shape),
            Layout(DataType.f32, BFYX, (68,))]
    attrs = ConvolutionAttrs(pad=(1, 1), pad_end=(1, 1), block_diagonal=4)
    out = run_kernel_padded(oclgrind_engine, "convolution", lays, Layout(DataType.f32, FSV16, (1, 68, 3, 5)),
                            dataclasses.asdict(attrs), [x, w, b], kernel="convolution_b_fs_yx_fsv16", pad_fill=0.0)
    oclgrind_log.assert_clean()
    assert_close(out, conv_ref(x, wg, b, (1, 1), (1, 1), (1, 1), (1, 1), 4), rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("kernel", ["activation_ref", "activation_gpu_wg", "activation_vec8"])
def test_activation_with_fused_activations_is_oclgrind_clean(oclgrind_engine, oclgrind_log, rng, kernel):
    """An activation kernel applying a chain fused into it (a fake quantization: linear 1/s → round → clamp →
    linear s; an activation hosts fused activations since 2026-11-27), on a b_fs_yx_fsv16 output with a channel
    tail (19 of 32): clean log, padding and tail untouched, equal to float64."""
    from cldnn_py.ops import FusedActivationAttrs
    from kernel_selector.params import FusedOp
    from tests.cpu.kernel_harness import run_kernel

    shape = (1, 19, 3, 4)
    lay = cl.Layout(cl.DataType.f32, cl.Format.b_fs_yx_fsv16, shape)
    x = f32(rng.standard_normal(shape) * 3)
    fused = [FusedOp("activation", FusedActivationAttrs("round", 0.0, 0.0)),
             FusedOp("activation", FusedActivationAttrs("clamp", -9.0, 9.0)),
             FusedOp("activation", FusedActivationAttrs("linear", 0.25, 0.0))]
    attrs = cl.Activation("a", "x", "linear", a=4.0, b=0.0).attrs()
    tier = "gpu" if "_gpu_" in kernel else "cpu"
    out, _ = run_kernel(oclgrind_engine, "activation", [lay], lay, attrs, [x], kernel, fused, tier=tier)
    oclgrind_log.assert_clean()
    np.testing.assert_array_equal(out, np.clip(np.rint(x.astype(np.float64) * 4.0), -9, 9) * 0.25)
