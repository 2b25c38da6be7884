"""strided_slice_cpu_copy: a strided slice (ONNX Slice with any steps, negative ones included) on the CPU engine as
strided row copies (numba, :mod:`...common.cpu_row_copy`) instead of the reference's gathered logical arrays."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from cldnn_py.layout import Format, Layout
from cldnn_py.ops import StridedSliceAttrs, slice_ranges

from ...common.cpu_layout import layout_offset
from ...common.cpu_row_copy import RowCopy
from ...common.cpu_strides import axis_offsets
from ...common.nd_index import nd_check
from ...cpu_kernel_base import CPU, CpuKernelBase
from ...kernel_base import COPY_TYPES, FORCE_PRIORITY_3
from ...params import Params, SupportedKey
from ...selector import register

FORMATS = frozenset({Format.bfyx, Format.byxf, Format.yxfb, Format.fyxb, Format.b_fs_yx_fsv16})


def slice_box(x: Layout, ranges: list[range]) -> tuple[list[np.ndarray], int]:
    """The elements a slice reads, as a tensor of the sliced shape inside ``x``'s buffer: (per-axis offsets relative
    to the first element read, flat index of that element). Axis d holds ``offs_d[start_d + i·step_d] −
    offs_d[start_d]``: a negative step gives decreasing offsets, a step k a stride k times the axis pitch."""
    full = axis_offsets(x)
    idx = [np.arange(r.start, r.stop, r.step, dtype=np.int64) for r in ranges]
    sub = [o[i] - o[i[0]] for o, i in zip(full, idx)]
    return sub, layout_offset(x) + int(sum(int(o[i[0]]) for o, i in zip(full, idx)))


@register
class StridedSliceKernelCpuCopy(CpuKernelBase):
    """Strided slice (clDNN ``strided_slice``, ONNX Slice; ``strided_slice_ref``'s semantics) on the CPU engine:
    ``y[o] = x[start_d + o_d · step_d]`` per logical dimension d, with the normalized ranges of
    :func:`cldnn_py.ops.slice_ranges` (Python / numpy slice rules, clamped; steps of any sign and size, never 0).

    Input and output of rank 1-6 (the same rank; rank 5-6 unpadded bfyx), bfyx / byxf / yxfb / fyxb /
    b_fs_yx_fsv16 (the two formats may differ), padding allowed (only the output's logical elements are written),
    one data type of f32, i32, i8, u8 copied bit for bit (NaN payloads included). The slice is described as a
    tensor of the output's shape inside the input's buffer (per-axis offsets, :func:`slice_box`) and copied by
    :class:`~...common.cpu_row_copy.RowCopy`: rows are the longest runs of logical elements that are one stride in
    both tensors (a step-1 slice of the trailing axes copies contiguous rows; a negative or larger step is a
    strided element loop), a table of row starts covers the other axes; threads: ``prange`` over row chunks.

    Refused by validate() (strided_slice_cpu_ref runs instead): begin/end/steps not of the input's rank, a slice
    whose shape is not the output's, differing input and output data types, rank 5-6 not unpadded bfyx, padding of
    a blocked (fsv16 feature) dimension (the row offsets do not address whole-slice padding), fused ops.
    """

    name = "strided_slice_cpu_copy"
    primitive = "strided_slice"
    supports_fused_ops = False

    def supported_key(self) -> SupportedKey:
        """CPU, f32 / i32 / i8 / u8, plain formats and b_fs_yx_fsv16, padding allowed."""
        return SupportedKey(engines=CPU, input_dtypes=COPY_TYPES, output_dtypes=COPY_TYPES, input_formats=FORMATS,
                            output_formats=FORMATS)

    def validate(self, params: Params) -> str | None:
        """The slice of the input's rank with the output's shape, one data type, layouts the rows address, no fused
        ops."""
        x, out = params.inputs[0], params.output
        a = params.attrs_as(StridedSliceAttrs)
        if x.dtype != out.dtype:
            return f"input {x.dtype.value} and output {out.dtype.value} data types differ"
        if not len(a.begin) == len(a.end) == len(a.steps) == x.rank or 0 in a.steps:
            return f"begin/end/steps {a.begin}/{a.end}/{a.steps} do not give one non-zero step per input dimension"
        shape = tuple(len(r) for r in slice_ranges(a.begin, a.end, a.steps, x.shape))
        if shape != out.shape:
            return f"slice of {x.shape} has shape {shape}, output is {out.shape}"
        why = nd_check([x], out) or self.blocked_padding_reason(params)
        if why:
            return why
        return "fused ops are not supported" if params.fused_ops else None

    def priority(self, params: Params) -> int:
        """Ahead of the reference whenever it validates."""
        return FORCE_PRIORITY_3

    def make_fn(self, params: Params) -> Callable[..., None]:
        """fn(input, output): the row tables are built here, once."""
        x, out = params.inputs[0], params.output
        a = params.attrs_as(StridedSliceAttrs)
        sub, base = slice_box(x, slice_ranges(a.begin, a.end, a.steps, x.shape))
        copy = RowCopy((out.shape, sub, base, x.bytes),
                       (out.shape, axis_offsets(out), layout_offset(out), out.bytes), out.dtype.size)

        def fn(*bufs: Any) -> None:
            copy(bufs[0], bufs[-1])  # no fused ops: the output is the last buffer

        return fn
