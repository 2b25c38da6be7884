"""crop_cpu_copy: a crop (ONNX Slice with step 1, Split) that is no view on the CPU engine, as strided row copies
(numba, :mod:`...common.cpu_row_copy`)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from cldnn_py.layout import Format, Layout
from cldnn_py.ops import CropAttrs

from ...common.cpu_layout import layout_offset
from ...common.cpu_row_copy import RowCopy
from ...common.cpu_strides import axis_offsets
from ...cpu_kernel_base import CPU, CpuKernelBase
from ...kernel_base import COPY_TYPES, FORCE_PRIORITY_3
from ...params import Params, SupportedKey
from ...selector import register

FORMATS = frozenset({Format.bfyx, Format.byxf, Format.yxfb, Format.fyxb, Format.b_fs_yx_fsv16})


def box(params: Params) -> tuple[list[np.ndarray], int]:
    """The crop box of the input as a tensor of the output's shape: (per-axis offsets, flat index of its first
    element) in the input's buffer (:mod:`...common.cpu_strides`)."""
    x, out = params.inputs[0], params.output
    offs = tuple(params.attrs_as(CropAttrs).offsets) + (0,) * (out.rank - len(params.attrs_as(CropAttrs).offsets))
    full = axis_offsets(x)
    sub = [o[k:k + n] - o[k] for o, k, n in zip(full, offs, out.shape)]
    return sub, layout_offset(x) + int(sum(o[k] for o, k in zip(full, offs)))


def _box_reason(x: Layout, out: Layout, offsets: tuple[int, ...]) -> str | None:
    if x.rank != out.rank or len(offsets) > x.rank:
        return f"input {x.shape}, output {out.shape} and offsets {offsets} disagree in rank"
    offs = offsets + (0,) * (x.rank - len(offsets))
    if any(o < 0 or o + s > n for o, s, n in zip(offs, out.shape, x.shape)):
        return f"crop box {out.shape} at {offsets} leaves input {x.shape}"
    return None


@register
class CropKernelCpuCopy(CpuKernelBase):
    """Crop (``crop_ref``'s semantics, clDNN ``crop``): y[i] = x[i + offsets] per logical dimension, the box of the
    output's shape, on the CPU engine. prepare_buffer_fusing makes most crops views; what reaches a kernel reads an
    in-place concatenation's buffer (YOLO's Split of the detection head's concat) or is a network output.

    Input and output of rank 1-6 (the same rank), bfyx / byxf / yxfb / fyxb / b_fs_yx_fsv16 (formats may differ),
    padding allowed (only the output's logical elements are written), one data type of f32, i32, i8, u8 copied bit
    for bit. Rows are the longest runs of the box that are one stride in both tensors (a whole channel range of
    a bfyx tensor when the crop cuts features only); threads: ``prange`` over row chunks. Refused (validate(),
    crop_cpu_ref runs): the box outside the input, differing data types, fused ops."""

    name = "crop_cpu_copy"
    primitive = "crop"
    supports_fused_ops = False

    def supported_key(self) -> SupportedKey:
        """CPU, f32 / i32 / i8 / u8, plain formats and b_fs_yx_fsv16, padding allowed."""
        return SupportedKey(engines=CPU, input_dtypes=COPY_TYPES, output_dtypes=COPY_TYPES, input_formats=FORMATS,
                            output_formats=FORMATS)

    def validate(self, params: Params) -> str | None:
        """The box inside the input (per logical dimension), one data type, no fused ops."""
        x, out = params.inputs[0], params.output
        if x.dtype != out.dtype:
            return f"input {x.dtype.value} and output {out.dtype.value} data types differ"
        why = _box_reason(x, out, tuple(params.attrs_as(CropAttrs).offsets))
        if why:
            return why
        return "fused ops are not supported" if params.fused_ops else None

    def priority(self, params: Params) -> int:
        """Ahead of the reference whenever it validates."""
        return FORCE_PRIORITY_3

    def make_fn(self, params: Params) -> Callable[..., None]:
        """fn(input, output)."""
        x, out = params.inputs[0], params.output
        sub, base = box(params)
        copy = RowCopy((out.shape, sub, base, x.bytes),
                       (out.shape, axis_offsets(out), layout_offset(out), out.bytes), out.dtype.size)

        def fn(*bufs: Any) -> None:
            copy(bufs[0], bufs[-1])  # no fused ops: the output is the last buffer

        return fn
