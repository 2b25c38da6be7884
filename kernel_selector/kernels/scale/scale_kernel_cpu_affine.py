"""scale_cpu_affine: y = x · scale + bias with numpy broadcasting of scale and bias on the CPU engine, as numba loops
over strided rows instead of the reference's gathered logical arrays."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numba
import numpy as np
from numba import prange

from cldnn_py.layout import DataType, Format, Layout

from ...common.cpu_launch import Launcher, viewer
from ...common.cpu_layout import layout_offset
from ...common.cpu_strides import axis_offsets, inner_run, offset_table
from ...common.elementwise_numba import NJIT
from ...cpu_kernel_base import CPU, CpuKernelBase
from ...kernel_base import FORCE_PRIORITY_3
from ...params import Params, SupportedKey
from ...selector import register

F32 = frozenset({DataType.f32})
FORMATS = frozenset({Format.bfyx, Format.byxf, Format.yxfb, Format.fyxb, Format.b_fs_yx_fsv16})
CHUNK = 16384  # elements per task: a long row is split, short rows are grouped up to this
ZERO = np.zeros(1, np.float32)  # the bias of a scale without one (stride 0, never read)


@numba.njit(parallel=True, **NJIT)
def scale_rows(out: np.ndarray, otab: np.ndarray, x: np.ndarray, xtab: np.ndarray, s: np.ndarray,
               stab: np.ndarray, b: np.ndarray, btab: np.ndarray, geo: np.ndarray,
               has_bias: bool) -> None:  # pragma: no cover - numba
    """out[otab[r] + j·so] = x[xtab[r] + j·sx] · s[stab[r] + j·ss] (+ b[btab[r] + j·sb]) for every row r and
    j < n; ``geo`` = (n, sx, so, ss, sb, rows per task, elements per task). A task is one chunk of a long row or
    a group of short rows; a row with contiguous x and y and a scale / bias of stride 0 (one value per row: per
    channel, scalar) or 1 (per element) is a straight loop LLVM vectorizes, any other a strided element loop."""
    n, sx, so, ss, sb, per, ch = geo[0], geo[1], geo[2], geo[3], geo[4], geo[5], geo[6]
    nrows = xtab.shape[0]
    nch = (n + ch - 1) // ch
    for t in prange(((nrows + per - 1) // per) * nch):
        g = t // nch
        c0 = (t - g * nch) * ch
        m = min(n, c0 + ch) - c0
        for r in range(g * per, min(nrows, g * per + per)):
            xb = xtab[r] + c0 * sx
            ob = otab[r] + c0 * so
            s0 = stab[r] + c0 * ss
            b0 = btab[r] + c0 * sb
            if sx == 1 and so == 1 and ss == 0 and (sb == 0 or not has_bias):
                src = x[xb:xb + m]
                dst = out[ob:ob + m]
                mul = s[s0]
                if has_bias:
                    add = b[b0]
                    for i in range(m):
                        dst[i] = src[i] * mul + add
                else:
                    for i in range(m):
                        dst[i] = src[i] * mul
            elif sx == 1 and so == 1 and ss == 1 and (sb == 1 or not has_bias):
                src = x[xb:xb + m]
                dst = out[ob:ob + m]
                sv = s[s0:s0 + m]
                if has_bias:
                    bv = b[b0:b0 + m]
                    for i in range(m):
                        dst[i] = src[i] * sv[i] + bv[i]
                else:
                    for i in range(m):
                        dst[i] = src[i] * sv[i]
            elif has_bias:
                for i in range(m):
                    out[ob + i * so] = x[xb + i * sx] * s[s0 + i * ss] + b[b0 + i * sb]
            else:
                for i in range(m):
                    out[ob + i * so] = x[xb + i * sx] * s[s0 + i * ss]


def broadcast_offsets(op: Layout, shape: tuple[int, ...]) -> list[np.ndarray]:
    """Per-axis element offsets of operand ``op`` read as a tensor of ``shape`` by numpy broadcasting (trailing
    axes aligned): an axis the operand lacks or has as 1 is offset 0 at every index (stride 0)."""
    own = axis_offsets(op)
    lead = len(shape) - op.rank
    return [np.zeros(n, np.int64) if d < lead or op.shape[d - lead] == 1 else own[d - lead]
            for d, n in enumerate(shape)]


def _broadcast_reason(i: int, op: Layout, shape: tuple[int, ...]) -> str | None:
    if op.rank > len(shape):
        return f"input {i} rank {op.rank} exceeds the input rank {len(shape)}"
    lead = len(shape) - op.rank
    if any(n not in (1, shape[lead + d]) for d, n in enumerate(op.shape)):
        return f"input {i} shape {op.shape} does not broadcast to {shape}"
    return None


@register
class ScaleKernelCpuAffine(CpuKernelBase):
    """Scale (clDNN ``scale``, ``scale_ref``'s semantics) on the CPU engine: y = x · scale + bias in float32, scale
    and bias (when ``has_bias``) broadcast to x by numpy rules (trailing dimensions aligned: per channel (1, C, 1,
    1) or (C, 1, 1), per element, per row, a scalar (1,) ...).

    x of rank 1-4 and the output (x's shape) in bfyx / byxf / yxfb / fyxb / b_fs_yx_fsv16 (may differ), scale and
    bias of rank <= x's in the same formats; every tensor f32 and possibly padded (only the output's logical
    elements are written). Each tensor is described by per-axis offsets (:mod:`...common.cpu_strides`, a
    broadcast axis is stride 0); the longest trailing run that is one stride in all of them is a row (a whole
    bfyx plane for a per-channel scale), a table of row starts per tensor, built once, covers the other axes.
    Rows with contiguous x and y and a scale / bias of stride 0 or 1 are straight vectorized loops, the rest
    strided element loops; threads: ``prange`` over row chunks / groups of short rows (:func:`scale_rows`). The
    product and the sum may contract to one fma (float32, as ``fastmath`` allows).

    Refused by validate() (scale_cpu_ref runs instead): x of rank > 4, an output not of x's shape, a scale or bias
    that does not broadcast to x, padding of a blocked (fsv16 feature) dimension (the row offsets do not address
    whole-slice padding), fused ops (the fusing pass does not fuse into scale: FUSABLE_HOSTS; the per-(batch,
    channel) affine base of eltwise_cpu_channel would cover only the per-channel case).
    """

    name = "scale_cpu_affine"
    primitive = "scale"
    supports_fused_ops = False
    n_data_inputs = None  # x, scale and bias: all f32 in the formats of the key

    def supported_key(self) -> SupportedKey:
        """CPU, f32 in and out (scale and bias too), plain formats and b_fs_yx_fsv16, padding allowed."""
        return SupportedKey(engines=CPU, input_dtypes=F32, output_dtypes=F32, input_formats=FORMATS,
                            output_formats=FORMATS)

    def validate(self, params: Params) -> str | None:
        """x of rank <= 4 with the output's shape, scale and bias broadcasting to it, layouts the rows address, no
        fused ops."""
        x, out = params.inputs[0], params.output
        if x.rank > 4:
            return f"input rank {x.rank} > 4"
        if out.shape != x.shape:
            return f"output shape {out.shape} is not the input's {x.shape}"
        if not 2 <= len(params.inputs) <= 3:
            return f"{len(params.inputs)} inputs: needs x, scale and an optional bias"
        for i, op in enumerate(params.inputs[1:], start=1):
            why = _broadcast_reason(i, op, x.shape)
            if why:
                return why
        for what, lay in [*((f"input {i}", t) for i, t in enumerate(params.inputs)), ("output", out)]:
            if lay.pads_blocked_dim:
                return f"{what} pads its blocked dimension ({lay.format.value})"
        return "fused ops are not supported" if params.fused_ops else None

    def priority(self, params: Params) -> int:
        """Ahead of the reference whenever it validates."""
        return FORCE_PRIORITY_3

    def make_fn(self, params: Params) -> Callable[..., None]:
        """fn(x, scale, [bias], output): the row tables are built here, once."""
        x, out = params.inputs[0], params.output
        has_bias = len(params.inputs) > 2  # as scale_ref: the bias is the third input when present
        shape = x.shape
        offs = [axis_offsets(out), axis_offsets(x), broadcast_offsets(params.inputs[1], shape)]
        bases = [layout_offset(out), layout_offset(x), layout_offset(params.inputs[1])]
        if has_bias:
            offs.append(broadcast_offsets(params.inputs[2], shape))
            bases.append(layout_offset(params.inputs[2]))
        first, n, strides = inner_run(shape, *offs)
        tabs = [offset_table(o, range(first), base) for o, base in zip(offs, bases)]
        if not has_bias:
            tabs.append(np.zeros_like(tabs[0]))
            strides = (*strides, 0)
        so, sx, ss, sb = strides
        per = max(1, CHUNK // n)
        geo = np.array([n, sx, so, ss, sb, per, min(n, CHUNK)], np.int64)
        otab, xtab, stab, btab = tabs
        view_out, view_x, view_s = viewer(out), viewer(x), viewer(params.inputs[1])
        view_b = viewer(params.inputs[2]) if has_bias else None
        n_in = len(params.inputs)
        launch = Launcher(2 * out.count())

        def fn(*bufs: Any) -> None:
            bias = view_b(bufs[2]) if view_b is not None else ZERO
            launch(scale_rows, view_out(bufs[n_in]), otab, view_x(bufs[0]), xtab, view_s(bufs[1]), stab, bias, btab,
                   geo, has_bias)

        return fn
