"""Shared parts of the fast CPU convolutions (``convolution_cpu_fsv16``, ``convolution_cpu_gemm``); no kernel here.

- Geometry of a convolution's Params as one int64 array (:func:`geometry`), so every shape runs the same compiled
  numba function (shapes are arguments, not closure constants: few signatures, one cache entry each).
- Tensor descriptors (:func:`tensor_desc`): element offset of logical (0, 0, 0, 0) and the strides of b, feature
  slice (16 features), feature within a slice, y, x. This covers every plain format (bfyx, byxf, yxfb, fyxb) and
  ``b_fs_yx_fsv16``, with padding, and broadcasting (stride 0) for a fused eltwise operand.
- The epilogue (:func:`epilogue`, numba): bias, then the fused ops in order, on one output value. Fused ops are
  encoded by :func:`encode_fused` as int/float tables: activations by their code in the element-wise table
  (:data:`ACT_CODES`, numba renderer :mod:`kernel_selector.common.elementwise_numba`), and at most one eltwise
  (:data:`ELT_CODES`) with its operand buffer.
"""

from __future__ import annotations

import numba
import numpy as np

from cldnn_py.layout import DataType, Format, Layout
from cldnn_py.ops import ConvolutionAttrs

from ...common.conv_window import params_halo
from ...common.cpu_fused import cpu_fused_reason
from ...common.elementwise_numba import ACT_CODES, ELT_CODES, activate, binary
from ...cpu_kernel_base import cpu_f32_key
from ...params import Params, SupportedKey

PLAIN_DATA = frozenset({Format.bfyx, Format.byxf, Format.yxfb, Format.fyxb})
PLAIN_WEIGHTS = frozenset({Format.bfyx, Format.oiyx})

# indices into the geometry array
(G_N, G_C, G_H, G_W, G_OC, G_OH, G_OW, G_KH, G_KW, G_SY, G_SX, G_DY, G_DX, G_PY, G_PX, G_GROUPS, G_ICG, G_OCG,
 G_YMIN, G_YMAX, G_XMIN, G_XMAX, G_BIAS, G_DEPTHWISE) = range(24)


def tensor_desc(lay: Layout, like: Layout | None = None) -> np.ndarray:
    """int64 [offset, stride b, stride feature slice, stride feature in slice, stride y, stride x] (elements) of a
    rank <= 4 layout; with ``like`` (the output), dimensions of size 1 that ``like`` has larger get stride 0."""
    p = lay.pitches
    lo = lay.padding.lower
    if lay.format == Format.b_fs_yx_fsv16:
        sfs, sfl = p["f"], 1
    else:
        sfs, sfl = 16 * p["f"], p["f"]
    off = lo[0] * p["b"] + lo[1] * sfl + lo[2] * p["y"] + lo[3] * p["x"]
    st = [p["b"], sfs, sfl, p["y"], p["x"]]
    if like is not None:
        for i, (d, t) in enumerate(zip(lay.dims4, like.dims4)):
            if d == 1 and t > 1:
                st[i + (1 if i > 1 else 0)] = 0
                if i == 1:
                    st[2] = 0
    return np.array([off] + st, np.int64)


def readable_window(params: Params) -> tuple[int, int, int, int]:
    """(ymin, ymax, xmin, xmax): the logical input rows/columns a kernel may read without a check (zeros in the
    padding when it holds the convolution's whole halo, :func:`~kernel_selector.common.conv_window.params_halo`,
    otherwise the tensor itself)."""
    x = params.inputs[0]
    _, _, h, w = x.dims4
    (by, ay), (bx, ax) = params_halo(params)
    lo, hi = x.padding.lower, x.padding.upper
    yh = lo[2] >= by and hi[2] >= ay
    xh = lo[3] >= bx and hi[3] >= ax
    return (-lo[2] if yh else 0, h + hi[2] if yh else h, -lo[3] if xh else 0, w + hi[3] if xh else w)


def geometry(params: Params) -> np.ndarray:
    """int64 array indexed by the ``G_*`` constants: sizes, stride, dilation, pads, groups, readable halo, bias flag,
    depthwise flag."""
    a = params.attrs_as(ConvolutionAttrs)
    n, c, h, w = params.inputs[0].dims4
    oc, icg, kh, kw = params.inputs[1].shape
    _, _, oh, ow = params.output.dims4
    g = int(a.groups)
    ymin, ymax, xmin, xmax = readable_window(params)
    depthwise = int(g > 1 and icg == 1 and oc == g)
    return np.array([n, c, h, w, oc, oh, ow, kh, kw, a.stride[0], a.stride[1], a.dilation[0],
                     a.dilation[1], a.pad[0], a.pad[1], g, icg, oc // g, ymin, ymax, xmin, xmax,
                     int(len(params.inputs) > 2), depthwise], np.int64)


def validate_common(params: Params, weight_formats: frozenset[Format]) -> str | None:
    """Rank-4 f32 data, weights f32 unpadded in ``weight_formats``, bias plain unpadded f32 of OC values, fused ops
    that :func:`encode_fused` can express; None when all hold."""
    x, w, out = params.inputs[0], params.inputs[1], params.output
    if x.rank != 4 or out.rank > 4 or w.rank != 4:
        return f"input rank {x.rank}, weights rank {w.rank}: needs 4"
    if w.format not in weight_formats or not w.padding.is_zero or w.dtype != DataType.f32:
        return f"weights must be f32 unpadded {sorted(f.value for f in weight_formats)}, got {w}"
    if len(params.inputs) > 2:
        b = params.inputs[2]
        if (b.format.is_blocked or not b.padding.is_zero or b.dtype != DataType.f32 or b.count() != w.shape[0]
                or sum(d > 1 for d in b.dims4) > 1):
            return f"bias must be {w.shape[0]} plain unpadded f32 values, got {b}"
    return cpu_fused_reason(params, _operand_reason, max_eltwise=1)


def _operand_reason(e: Layout, out: Layout) -> str | None:
    """Why a fused eltwise operand cannot be read through a :func:`tensor_desc` of the output, or None."""
    if e.rank != 4 or e.dtype != DataType.f32 or e.format not in PLAIN_DATA | {Format.b_fs_yx_fsv16} or \
            any(d not in (1, t) for d, t in zip(e.dims4, out.dims4)):
        return f"fused eltwise operand {e} is not a rank-4 f32 tensor broadcastable to {out}"
    return None


def encode_fused(params: Params) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(ops_i int64 (n, 2): kind 0 activation / 1 eltwise, code; ops_f float32 (n, 2): a, b; the eltwise
    operand's :func:`tensor_desc` broadcast to the output, zeros when there is none)."""
    ops = list(params.fused_ops)
    oi = np.zeros((max(len(ops), 1), 2), np.int64)
    of = np.zeros((max(len(ops), 1), 2), np.float32)
    rdesc = np.zeros(6, np.int64)
    for k, op in enumerate(ops):
        if op.kind == "activation":
            oi[k] = (0, ACT_CODES[op.act().func])
            of[k] = (op.act().a, op.act().b)
        else:
            oi[k] = (1, ELT_CODES[op.elt().mode])
            rdesc = tensor_desc(op.extra_inputs[0], params.output)
    return oi[:len(ops)], of[:len(ops)], rdesc


def f32_view(buf: np.ndarray) -> np.ndarray:
    """The whole raw uint8 buffer as float32 (the tail that is not a whole float dropped)."""
    return buf[:buf.size // 4 * 4].view(np.float32)


@numba.njit(cache=True, fastmath=True, inline="always")
def epilogue(v: float, oc: int, n: int, y: int, x: int, bias: np.ndarray, has_bias: int, ops_i: np.ndarray,
             ops_f: np.ndarray, res: np.ndarray, rd: np.ndarray) -> float:  # pragma: no cover - numba
    """``v`` of output (n, oc, y, x) plus bias, then every fused op in order (the eltwise reads ``res`` through
    its descriptor ``rd``)."""
    if has_bias:
        v += bias[oc]
    for k in range(ops_i.shape[0]):
        code = ops_i[k, 1]
        if ops_i[k, 0] == 0:
            v = activate(v, code, ops_f[k, 0], ops_f[k, 1])
        else:
            e = res[rd[0] + n * rd[1] + (oc // 16) * rd[2] + (oc % 16) * rd[3] + y * rd[4] + x * rd[5]]
            v = binary(v, e, code)
    return v


def fused_buffers(params: Params, bufs: tuple[np.ndarray, ...], n_own: int) -> np.ndarray:
    """The eltwise operand's buffer (float32 view) among the fused-op buffers that follow the output, or a dummy."""
    extra = bufs[n_own + 1:]
    k = 0
    for op in params.fused_ops:
        for _ in op.dep_indices:
            if op.kind == "eltwise":
                return f32_view(extra[k])
            k += 1
    return np.zeros(1, np.float32)


def thin_grouped(params: Params) -> bool:
    """A grouped convolution whose per-group GEMM is thin (C/groups·KH·KW < 64 and groups > 1: depthwise and few
    channels per group). Measured (benchmarks/cpu_kernels.py): the numba ``convolution_cpu_fsv16`` wins there, BLAS
    (``convolution_cpu_gemm``) everywhere else, ungrouped thin shapes included."""
    icg, kh, kw = params.inputs[1].shape[1:]
    return icg * kh * kw < 64 and int(params.attrs_as(ConvolutionAttrs).groups) > 1


def f32_key(formats: frozenset[Format]) -> SupportedKey:
    """The CPU convolutions' key: CPU engine, f32 in and out, data in ``formats``, padding allowed."""
    return cpu_f32_key(formats)

