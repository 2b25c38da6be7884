"""broadcast_cpu_copy: broadcast (clDNN ``broadcast``, ONNX Expand, numpy.broadcast_to) on the CPU engine as
strided row copies (numba, the per-axis gather of :mod:`...common.cpu_axis_gather`)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ...common.cpu_axis_gather import AxisGather, composed_offsets, copy_key, same_dtype_reason
from ...common.cpu_layout import layout_offset
from ...cpu_kernel_base import CpuKernelBase
from ...kernel_base import FORCE_PRIORITY_3
from ...params import Params, SupportedKey
from ...selector import register
from .broadcast_kernel_ref import BroadcastKernelRef


@register
class BroadcastKernelCpuCopy(CpuKernelBase):
    """Broadcast (``broadcast_ref``'s semantics: clDNN ``broadcast``, ONNX Expand, ``numpy.broadcast_to``) on the
    CPU engine: the input's r dimensions align with the output's last r; input dimension k reads output coordinate
    ``o_{k + R - r}`` where its size equals the output's, else 0 (size 1); the output's leading R - r dimensions
    repeat the whole input.

    Input of rank 1-6 and output of rank >= the input's (rank 5-6 unpadded bfyx), bfyx / byxf / yxfb / fyxb /
    b_fs_yx_fsv16 (formats may differ), padding allowed (only the output's logical elements are written), one data
    type of f32, i32, i8, u8 copied bit for bit. Algorithm (:class:`~...common.cpu_axis_gather.AxisGather`): the
    trailing axes that are one stride in both tensors (a stride 0 where broadcast: one value written along a whole
    row, e.g. a per-channel value over its plane) form the row, the leading axes a table of row starts;
    threads: ``prange`` over row groups × segment chunks. Refused (validate(), broadcast_cpu_ref runs): what
    ``broadcast_ref`` refuses (no numpy broadcast, rank 5-6 not unpadded bfyx), differing data types, fused ops."""

    name = "broadcast_cpu_copy"
    primitive = "broadcast"
    supports_fused_ops = False

    def supported_key(self) -> SupportedKey:
        """CPU, f32 / i32 / i8 / u8, plain formats and b_fs_yx_fsv16, padding allowed."""
        return copy_key()

    def validate(self, params: Params) -> str | None:
        """broadcast_ref's checks, one data type, no fused ops."""
        return BroadcastKernelRef().validate(params) or same_dtype_reason(params)

    def priority(self, params: Params) -> int:
        """Ahead of the reference whenever it validates."""
        return FORCE_PRIORITY_3

    def make_fn(self, params: Params) -> Callable[..., None]:
        """fn(input, output)."""
        x, out = params.inputs[0], params.output
        shift = out.rank - x.rank
        index = [np.arange(m, dtype=np.int64) if d >= shift and x.shape[d - shift] == m
                 else np.zeros(m, np.int64) for d, m in enumerate(out.shape)]
        offs, _ = composed_offsets(x, index)
        gather = AxisGather(out, offs, layout_offset(x), x.bytes, None, 0)

        def fn(*bufs: Any) -> None:
            gather(bufs[0], bufs[-1])  # no fused ops: the output is the last buffer

        return fn
