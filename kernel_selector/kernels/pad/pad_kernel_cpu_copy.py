"""pad_cpu_copy: pad (clDNN ``border``, ONNX Pad) on the CPU engine as strided row copies (numba), through the
per-axis index gather it shares with tile_cpu_copy and broadcast_cpu_copy (:mod:`...common.cpu_axis_gather`)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from cldnn_py.ops import PadAttrs

from ...common.cpu_axis_gather import AxisGather, composed_offsets, copy_key, same_dtype_reason
from ...common.cpu_layout import layout_offset
from ...cpu_kernel_base import CpuKernelBase
from ...kernel_base import FORCE_PRIORITY_3
from ...params import Params, SupportedKey
from ...selector import register
from .pad_kernel_cpu_ref import source_index
from .pad_kernel_ref import PadKernelRef


def pad_fill(params: Params) -> Any:
    """The constant mode's value in the output's type, as ``pad_ref.cl`` converts it: a float32 for f32, else a
    C cast of ``int(value)`` (wrapped). Raises ValueError / OverflowError when it has no such integer."""
    dtype = params.output.dtype.numpy
    value = params.attrs_as(PadAttrs).value
    if dtype == np.float32:
        return np.float32(value)
    return np.array(int(value), dtype=np.int64).astype(dtype)[()]


@register
class PadKernelCpuCopy(CpuKernelBase):
    """Pad (``pad_ref``'s semantics: clDNN ``border``, ONNX Pad, numpy.pad) on the CPU engine: output coordinate o
    reads input coordinate ``i = o - pads_begin`` per dimension; outside [0, n) by mode: constant (``value``, in
    the output's type), reflect (period 2(n-1), the edge not repeated; n = 1 reads 0), edge (clamped), wrap
    (i mod n), the maps of :func:`.pad_kernel_cpu_ref.source_index`. Negative pads crop.

    Input and output of rank 1-6 (the same rank; rank 5-6 unpadded bfyx), bfyx / byxf / yxfb / fyxb /
    b_fs_yx_fsv16 (formats may differ), padding allowed (only the output's logical elements are written), one data
    type of f32, i32, i8, u8 copied bit for bit. Algorithm (:class:`AxisGather`): each output row (the trailing
    axes, or the last one when it is padded) is a few segments: the fill before, the input run, the fill after
    (a reflected border a run with source stride -1); threads: ``prange`` over row groups × segment chunks.
    Refused (validate(), pad_cpu_ref runs): what ``pad_ref`` refuses (output not input + pads, unknown mode,
    rank 5-6 not unpadded bfyx), differing data types, an integer output with a constant value that is no
    integer (NaN, inf, beyond int64), fused ops."""

    name = "pad_cpu_copy"
    primitive = "pad"
    supports_fused_ops = False

    def supported_key(self) -> SupportedKey:
        """CPU, f32 / i32 / i8 / u8, plain formats and b_fs_yx_fsv16, padding allowed."""
        return copy_key()

    def validate(self, params: Params) -> str | None:
        """pad_ref's checks, one data type, a representable constant, no fused ops."""
        why = PadKernelRef().validate(params) or same_dtype_reason(params)
        if why:
            return why
        try:
            pad_fill(params)
        except (ValueError, OverflowError):
            return f"pad value {params.attrs_as(PadAttrs).value} has no {params.output.dtype.value} value"
        return None

    def priority(self, params: Params) -> int:
        """Ahead of the reference whenever it validates."""
        return FORCE_PRIORITY_3

    def make_fn(self, params: Params) -> Callable[..., None]:
        """fn(input, output)."""
        x, out = params.inputs[0], params.output
        a = params.attrs_as(PadAttrs)
        index = [source_index(a.mode, m, n, b) for m, n, b in zip(out.shape, x.shape, a.pads_begin)]
        offs, valid = composed_offsets(x, index)
        gather = AxisGather(out, offs, layout_offset(x), x.bytes, valid, pad_fill(params))

        def fn(*bufs: Any) -> None:
            gather(bufs[0], bufs[-1])  # no fused ops: the output is the last buffer

        return fn
