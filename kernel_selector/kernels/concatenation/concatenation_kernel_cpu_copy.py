"""concatenation_cpu_copy: the CPU engine's fast concatenation, one block copy per input (numpy slice assignments on
strided views of the physical buffers, no per-element index gather).

The idea is clDNN's: ``concatenation_gpu_simple_ref`` runs one pass per input that copies it into its slice of the
output, and the blocked (b_fs_yx_fsv16) concatenation requires every feature offset to be a multiple of 16 so an
input's feature slices land whole on output slices. On a CPU that pass is a memcpy per input (per contiguous run):
here each input's interior is viewed as an N-D strided array of its physical buffer (padding skipped by the
strides) and assigned to the matching strided view of the output's interior, so numpy copies contiguous runs (whole
rows; a whole 16-float pixel or more for fsv16) and never touches the output's padding.

The views are computed once per layout in ``make_fn`` as (byte offset, shape, byte strides) and rebuilt around each
call's raw buffer with the ``np.ndarray`` constructor (about a microsecond each).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from cldnn_py.layout import DIMS, DataType, Format, Layout
from cldnn_py.ops import ConcatenationAttrs

from ...cpu_kernel_base import CPU, CpuKernelBase
from ...kernel_base import FORCE_PRIORITY_3
from ...params import Params, SupportedKey
from ...selector import register

DTYPES = frozenset({DataType.f32, DataType.i32, DataType.i8, DataType.u8})
PLAIN = frozenset({Format.bfyx, Format.byxf, Format.yxfb, Format.fyxb})
FORMATS = PLAIN | {Format.b_fs_yx_fsv16}
LANES = 16  # b_fs_yx_fsv16: features per slice

View = tuple[int, tuple[int, ...], tuple[int, ...]]  # (byte offset, shape, byte strides) into the raw buffer


def interior(arr: np.ndarray, lay: Layout) -> np.ndarray:
    """The interior of the flat physical array ``arr`` (``lay.buffer_size`` elements) as a strided view with one
    axis per logical dimension plus a trailing lane axis: (B, F, Y, X, 1) for plain rank <= 4 formats (dims4
    order, whatever the physical order), (B, ceil(F / 16), Y, X, 16) for b_fs_yx_fsv16 (every slice and lane,
    block tail included), ``shape + (1,)`` for rank 5-6 (bfyx, never padded)."""
    if lay.rank > 4:
        return arr[:lay.count()].reshape(lay.shape + (1,))
    pd = lay.padded_dims
    lo = lay.padding.lower
    b, f, y, x = lay.dims4
    if lay.format == Format.b_fs_yx_fsv16:
        full = arr.reshape(pd[0], pd[1] // LANES, pd[2], pd[3], LANES)
        return full[lo[0]:lo[0] + b, :, lo[2]:lo[2] + y, lo[3]:lo[3] + x, :]
    order = lay.format.order
    full = arr.reshape([pd[DIMS.index(d)] for d in order]).transpose([order.index(d) for d in DIMS])
    return full[lo[0]:lo[0] + b, lo[1]:lo[1] + f, lo[2]:lo[2] + y, lo[3]:lo[3] + x, None]


def _geometry(base: np.ndarray, sub: np.ndarray) -> View:
    """(byte offset of ``sub`` in ``base``, shape, byte strides): enough to rebuild ``sub`` on another buffer."""
    off = sub.__array_interface__["data"][0] - base.__array_interface__["data"][0]
    return off, sub.shape, sub.strides


def copy_plan(params: Params) -> list[tuple[int, View, View]]:
    """(input index, input view, output view), one per input and feature part, in input order. An input's features split
    in whole slices and, for b_fs_yx_fsv16 with ``F % 16 != 0``, one tail slice of which only the first ``F % 16``
    lanes are copied (neither the input's tail lanes nor the output's ever move). Along the blocked feature axis
    the output slice index is the input's plus offset / 16 (validate() guarantees alignment); along any other axis
    the output's coordinate is the input's plus the offset."""
    out = params.output
    dt = out.dtype.numpy
    obase = np.empty(out.buffer_size, dt)
    ov_all = interior(obase, out)
    ax = int(params.attrs_as(ConcatenationAttrs).axis) % out.rank
    plan: list[tuple[int, View, View]] = []
    offset = 0
    for i, lay in enumerate(params.inputs):
        ibase = np.empty(lay.buffer_size, dt)
        iv = interior(ibase, lay)
        n = lay.dims4[ax] if lay.rank <= 4 else lay.shape[ax]
        lanes = iv.shape[-1]
        nf = lay.dims4[1] if lay.rank <= 4 else iv.shape[1]
        parts = [(0, nf // lanes, lanes)] if nf // lanes else []
        if nf % lanes:
            parts.append((nf // lanes, nf // lanes + 1, nf % lanes))
        for s0, s1, nl in parts:
            isl: list[slice] = [slice(None)] * iv.ndim
            isl[1], isl[-1] = slice(s0, s1), slice(0, nl)
            osl = list(isl)
            if ax == 1:
                osl[1] = slice(s0 + offset // lanes, s1 + offset // lanes)
            else:
                osl[ax] = slice(offset, offset + n)
            plan.append((i, _geometry(ibase, iv[tuple(isl)]), _geometry(obase, ov_all[tuple(osl)])))
        offset += n
    return plan


@register
class ConcatenationKernelCpuCopy(CpuKernelBase):
    """Concatenation on the CPU engine by block copies: inputs (N-D, the output's rank) joined along ``axis``
    (negative counts from the end) into the output, with the semantics of ``concatenation_ref``.

    Accepted: one data type everywhere (f32, i32, i8, u8: pure data movement) and one format everywhere. Plain
    formats (bfyx, byxf, yxfb, fyxb) along any axis, rank 1-4 (dims4 view) or rank 5-6 bfyx; b_fs_yx_fsv16 along
    b, y or x, and along the feature axis when every input's feature count except the last is a multiple of 16
    (SqueezeNet's fire modules: 64 + 64, 128 + 128 ...). Padding on any input and on the output is supported (the
    output's interior only is written; its padding and fsv16 block tail keep their content; input padding and
    tails are never read). Rejected (validate() says why, ``concatenation_cpu_ref`` runs): mixed formats or data
    types, shapes that disagree off the axis, fsv16 with an unaligned feature offset, weights formats, fused ops.
    """

    name = "concatenation_cpu_copy"
    primitive = "concatenation"
    n_data_inputs = None
    supports_fused_ops = False

    def supported_key(self) -> SupportedKey:
        """CPU, f32 / i32 / i8 / u8, plain activation formats or b_fs_yx_fsv16, padding allowed."""
        return SupportedKey(engines=CPU, input_dtypes=DTYPES, output_dtypes=DTYPES, input_formats=FORMATS,
                            output_formats=FORMATS)

    def validate(self, params: Params) -> str | None:
        """Same type, format and rank everywhere; shapes agree off the axis and sum along it; fsv16 along the
        features only with 16-aligned offsets."""
        out = params.output
        r = out.rank
        if not -r <= int(params.attrs_as(ConcatenationAttrs).axis) < r:
            return f"axis {params.attrs_as(ConcatenationAttrs).axis} out of range for rank {r}"
        if params.fused_ops:
            return "fused ops are not supported"
        ax = int(params.attrs_as(ConcatenationAttrs).axis) % r
        total = 0
        for i, x in enumerate(params.inputs):
            if x.dtype != out.dtype:
                return f"input {i} data type {x.dtype.value} differs from output {out.dtype.value}"
            if x.format != out.format:
                return f"input {i} format {x.format.value} differs from output {out.format.value}"
            if x.rank != r or any(a != b for d, (a, b) in enumerate(zip(x.shape, out.shape)) if d != ax):
                return f"input {i} shape {x.shape} does not match output {out.shape} except along axis {ax}"
            if out.format == Format.b_fs_yx_fsv16 and ax == 1 and total % LANES:
                return (f"b_fs_yx_fsv16 along features: input {i} starts at feature {total}, not a multiple of "
                        f"{LANES} (the slices would not align)")
            total += x.shape[ax]
        if total != out.shape[ax]:
            return f"inputs sum to {total} along axis {ax}, output has {out.shape[ax]}"
        return None

    def priority(self, params: Params) -> int:
        """Beats the reference whenever it validates."""
        return FORCE_PRIORITY_3

    def make_fn(self, params: Params) -> Callable[..., None]:
        """fn(input 0, ..., input N-1, output) on raw buffers: one or two slice assignments per input."""
        n_in = len(params.inputs)
        dt = params.output.dtype.numpy
        plan = copy_plan(params)

        def fn(*bufs: Any) -> None:
            out = bufs[n_in]
            for i, (so, ss, st), (do, ds, dst_strides) in plan:
                dst = np.ndarray(ds, dt, buffer=out, offset=do, strides=dst_strides)
                dst[...] = np.ndarray(ss, dt, buffer=bufs[i], offset=so, strides=st)

        return fn

