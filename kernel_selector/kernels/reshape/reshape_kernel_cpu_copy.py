"""reshape_cpu_copy: a reshape that is no view (a padded input or output, a non-bfyx format) on the CPU engine, as
strided row copies of the logical elements (numba, :mod:`...common.cpu_row_copy`)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from cldnn_py.layout import Format

from ...common.cpu_layout import layout_offset
from ...common.cpu_row_copy import RowCopy
from ...common.cpu_strides import axis_offsets
from ...cpu_kernel_base import CPU, CpuKernelBase
from ...kernel_base import COPY_TYPES, FORCE_PRIORITY_3
from ...params import Params, SupportedKey
from ...selector import register

FORMATS = frozenset({Format.bfyx, Format.byxf, Format.yxfb, Format.fyxb, Format.b_fs_yx_fsv16})


@register
class ReshapeKernelCpuCopy(CpuKernelBase):
    """Reshape (``reshape_ref``'s semantics, clDNN ``reshape_ref``): the input's logical elements in row-major
    (NCHW) order written to the output's logical shape, on the CPU engine. prepare_buffer_fusing makes an unpadded
    bfyx reshape a view; what reaches a kernel is a padded input or output (YOLO's head reshapes, which write into
    their slice of a concatenation: output padded along the concatenated axis) or another format.

    Input and output of rank 1-6, bfyx / byxf / yxfb / fyxb / b_fs_yx_fsv16, padding allowed (only the output's
    logical elements are written), one data type of f32, i32, i8, u8 copied bit for bit. Rows are the longest runs
    of logical elements that are one stride in both tensors (a whole concat slice row for YOLO: 1600 floats);
    threads: ``prange`` over row chunks. Refused (validate(), reshape_cpu_ref runs): differing data types or
    element counts, fused ops."""

    name = "reshape_cpu_copy"
    primitive = "reshape"
    supports_fused_ops = False

    def supported_key(self) -> SupportedKey:
        """CPU, f32 / i32 / i8 / u8, plain formats and b_fs_yx_fsv16, padding allowed."""
        return SupportedKey(engines=CPU, input_dtypes=COPY_TYPES, output_dtypes=COPY_TYPES, input_formats=FORMATS,
                            output_formats=FORMATS)

    def validate(self, params: Params) -> str | None:
        """One data type, equal element counts, no fused ops."""
        x, out = params.inputs[0], params.output
        if x.dtype != out.dtype:
            return f"input {x.dtype.value} and output {out.dtype.value} data types differ"
        if x.count() != out.count():
            return f"input {x.shape} and output {out.shape} element counts differ"
        return "fused ops are not supported" if params.fused_ops else None

    def priority(self, params: Params) -> int:
        """Ahead of the reference whenever it validates."""
        return FORCE_PRIORITY_3

    def make_fn(self, params: Params) -> Callable[..., None]:
        """fn(input, output)."""
        x, out = params.inputs[0], params.output
        copy = RowCopy((x.shape, axis_offsets(x), layout_offset(x), x.bytes),
                       (out.shape, axis_offsets(out), layout_offset(out), out.bytes), out.dtype.size)

        def fn(*bufs: Any) -> None:
            copy(bufs[0], bufs[-1])  # no fused ops: the output is the last buffer

        return fn
