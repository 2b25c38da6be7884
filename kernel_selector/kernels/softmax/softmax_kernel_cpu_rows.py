"""softmax_cpu_rows: softmax / log-softmax on the CPU engine, numba loops over strided rows (or blocks of rows
side by side) instead of the reference's gathered logical arrays."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numba
import numpy as np
from numba import prange

from cldnn_py.layout import Format
from cldnn_py.ops import SoftmaxAttrs

from ...common.cpu_fastmath import exp_f32
from ...common.cpu_launch import Launcher, viewer
from ...common.cpu_layout import layout_offset
from ...common.cpu_strides import axis_offsets, inner_run, offset_table
from ...common.elementwise_numba import NJIT
from ...common.softmax import softmax_axes
from ...cpu_kernel_base import CpuKernelBase, cpu_f32_key
from ...kernel_base import FORCE_PRIORITY_3
from ...params import Params, SupportedKey
from ...selector import register
from .softmax_kernel_ref import SoftmaxKernelRef

FORMATS = frozenset({Format.bfyx, Format.byxf, Format.yxfb, Format.fyxb, Format.b_fs_yx_fsv16})
BLOCK = 256  # rows normalized side by side per task when the normalized axes are not innermost


@numba.njit(**NJIT)
def softmax_row(out: np.ndarray, x: np.ndarray) -> None:  # pragma: no cover - numba
    """out = softmax(x) over one contiguous row of float32: the maximum (NaN ignored), e = exp(x − max) through
    :func:`~kernel_selector.common.cpu_fastmath.exp_f32` (a vector loop; ``math.exp`` is one libm call per element:
    a ViT-Tiny's (3, 197, 197) attention softmax took 0.3 ms that way), Σ e in float64, e · float32(1 / Σ)."""
    nr = x.shape[0]
    m = np.float32(-np.inf)
    for r in range(nr):
        v = x[r]
        m = v if v > m else m
    s = 0.0
    for r in range(nr):
        e = exp_f32(x[r] - m)
        out[r] = e
        s += np.float64(e)
    c = np.float32(1.0 / s)
    for r in range(nr):
        out[r] *= c


@numba.njit(parallel=True, **NJIT)
def softmax_rows(out: np.ndarray, otab: np.ndarray, x: np.ndarray, xtab: np.ndarray, geo: np.ndarray,
                 log: bool) -> None:  # pragma: no cover - numba
    """Softmax of rows of ``nr`` elements (stride xsr in x, osr in out); ``ni`` rows side by side per table entry
    (stride xsi / osi), ``ib`` of them per task; ``geo`` = (nr, ni, xsr, xsi, osr, osi, ib). Per row: m = max
    (NaN ignored), s = Σ exp(x - m) in float64, y = exp(x - m) · float32(1 / s), or x - (m + log s) with ``log``."""
    nr, ni, xsr, xsi, osr, osi, ib = geo[0], geo[1], geo[2], geo[3], geo[4], geo[5], geo[6]
    nblk = (ni + ib - 1) // ib
    for t in prange(xtab.shape[0] * nblk):
        row = t // nblk
        i0 = (t - row * nblk) * ib
        n = min(ib, ni - i0)
        xb = xtab[row] + i0 * xsi
        ob = otab[row] + i0 * osi
        if n == 1 and xsr == 1 and osr == 1 and not log:  # one contiguous row: vector loops
            softmax_row(out[ob:ob + nr], x[xb:xb + nr])
            continue
        if n == 1:  # one row: scalars, no scratch
            xr, orr = x[xb:xb + (nr - 1) * xsr + 1:xsr], out[ob:ob + (nr - 1) * osr + 1:osr]
            m1 = np.float32(-np.inf)
            for r in range(nr):
                if xr[r] > m1:
                    m1 = xr[r]
            s1 = 0.0
            for r in range(nr):
                e = exp_f32(xr[r] - m1)
                s1 += e
                if not log:
                    orr[r] = e
            if log:
                c1 = m1 + np.float32(math.log(s1))
                for r in range(nr):
                    orr[r] = xr[r] - c1
            else:
                c1 = np.float32(1.0 / s1)
                for r in range(nr):
                    orr[r] *= c1
            continue
        m = np.full(n, -np.inf, np.float32)
        s = np.zeros(n, np.float64)
        for r in range(nr):
            xr = xb + r * xsr
            for i in range(n):
                v = x[xr + i * xsi]
                if v > m[i]:
                    m[i] = v
        for r in range(nr):
            xr, orr = xb + r * xsr, ob + r * osr
            for i in range(n):
                e = exp_f32(x[xr + i * xsi] - m[i])
                s[i] += e
                if not log:
                    out[orr + i * osi] = e
        c = np.empty(n, np.float32)
        for i in range(n):
            c[i] = m[i] + np.float32(math.log(s[i])) if log else np.float32(1.0 / s[i])
        for r in range(nr):
            xr, orr = xb + r * xsr, ob + r * osr
            for i in range(n):
                if log:
                    out[orr + i * osi] = x[xr + i * xsi] - c[i]
                else:
                    out[orr + i * osi] *= c[i]


def rows_reason(params: Params) -> str | None:
    """Why the normalized axes are not one stride in input and output (padding between coerce_2d's axes, the
    blocked feature axis of b_fs_yx_fsv16), or None."""
    x, out = params.inputs[0], params.output
    axes = softmax_axes(params)
    a0, a1 = axes[0], axes[-1] + 1
    if inner_run(x.shape[a0:a1], axis_offsets(x)[a0:a1], axis_offsets(out)[a0:a1])[0]:
        return f"the normalized axes {axes} of {x} / {out} are not one stride"
    return None


def plan(params: Params) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(xtab, otab, geo) of :func:`softmax_rows` (after :func:`rows_reason` said None): the tables cover every
    axis but the normalized ones and the trailing run of rows side by side."""
    x, out = params.inputs[0], params.output
    axes = softmax_axes(params)
    a0, a1 = axes[0], axes[-1] + 1
    xo, oo = axis_offsets(x), axis_offsets(out)
    _, nr, (xsr, osr) = inner_run(x.shape[a0:a1], xo[a0:a1], oo[a0:a1])
    xsr, osr = xsr or 1, osr or 1  # one element per row: any stride but 0 (a slice step)
    first, ni, (xsi, osi) = inner_run(x.shape[a1:], xo[a1:], oo[a1:])
    table = [*range(a0), *range(a1, a1 + first)]
    xtab = offset_table(xo, table, layout_offset(x))
    otab = offset_table(oo, table, layout_offset(out))
    geo = np.array([nr, ni, xsr, xsi, osr, osi, 1 if ni == 1 else min(ni, BLOCK)], np.int64)
    return xtab, otab, geo


@register
class SoftmaxKernelCpuRows(CpuKernelBase):
    """Softmax / log-softmax (``softmax_ref``'s semantics, after clDNN ``softmax_gpu_ref``: max, Σ exp(x - max),
    normalize, three passes per row) on the CPU engine. Input and output f32, the same logical shape, rank 1-6,
    bfyx / byxf / yxfb / fyxb / b_fs_yx_fsv16, padding allowed (output interior only written).

    A row is the elements that differ only in the normalized axes (:func:`..common.softmax.softmax_axes`); those
    axes must form one stride in input and output (:mod:`..common.cpu_strides`). Rows whose axes are innermost run
    one per task; otherwise up to BLOCK neighbouring rows (the trailing axes' run) run side by side, so the inner
    loops walk memory contiguously (softmax over channels of bfyx). The exponential sum is float64, the rest
    float32: within ~1e-7 relative of the float32 reference and onnxruntime. Refused (validate(), softmax_cpu_ref
    runs): normalized axes not one stride (the feature axis of b_fs_yx_fsv16; padding between coerce_2d's axes),
    fused ops (the OpenCL reference takes none). Threads: ``prange`` over (table entry, block)."""

    name = "softmax_cpu_rows"
    primitive = "softmax"
    supports_fused_ops = False

    def supported_key(self) -> SupportedKey:
        """CPU, f32, plain formats and b_fs_yx_fsv16, padding allowed."""
        return cpu_f32_key(FORMATS)

    def validate(self, params: Params) -> str | None:
        """The reference's axis and rank checks, equal shapes, normalized axes one stride, no fused ops."""
        x, out = params.inputs[0], params.output
        why = SoftmaxKernelRef().validate(params)
        if why:
            return why
        if x.shape != out.shape:
            return f"input {x} and output {out} shapes differ"
        if params.fused_ops:
            return "fused ops are not supported"
        return rows_reason(params)

    def priority(self, params: Params) -> int:
        """Ahead of the reference whenever it validates."""
        return FORCE_PRIORITY_3

    def make_fn(self, params: Params) -> Callable[..., None]:
        """fn(input, output)."""
        xtab, otab, geo = plan(params)
        log = bool(params.attrs_as(SoftmaxAttrs).log)
        vx, vo = viewer(params.inputs[0]), viewer(params.output)
        launch = Launcher(4 * params.output.count())

        def fn(*bufs: Any) -> None:
            launch(softmax_rows, vo(bufs[-1]), otab, vx(bufs[0]), xtab, geo, log)

        return fn
