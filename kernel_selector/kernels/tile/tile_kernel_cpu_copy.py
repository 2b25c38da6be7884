"""tile_cpu_copy: tile (clDNN ``tile``, ONNX Tile, numpy.tile) on the CPU engine as strided row copies (numba,
the per-axis gather of :mod:`...common.cpu_axis_gather`)."""

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
from .tile_kernel_ref import TileKernelRef


@register
class TileKernelCpuCopy(CpuKernelBase):
    """Tile (``tile_ref``'s semantics: clDNN ``tile``, ONNX Tile, ``numpy.tile``) on the CPU engine:
    ``y[o] = x[o_d mod n_d]`` per dimension, output size ``n_d · repeats[d]``.

    Input and output of rank 1-6 (the same rank; rank 5-6 unpadded bfyx), bfyx / byxf / yxfb / fyxb /
    b_fs_yx_fsv16 (formats may differ), padding allowed (only the output's logical elements are written), one data
    type of f32, i32, i8, u8 copied bit for bit. Algorithm (:class:`~...common.cpu_axis_gather.AxisGather`): an
    output row (the trailing untiled axes, or the last axis) is ``repeats`` copies of the input row as segments
    (one broadcast run when that axis has size 1), the leading axes a table of row starts that visits each input
    row ``repeats`` times; threads: ``prange`` over row groups × segment chunks. Refused (validate(), tile_cpu_ref
    runs): what ``tile_ref`` refuses (rank or output shape not input · repeats, rank 5-6 not unpadded bfyx),
    differing data types, fused ops."""

    name = "tile_cpu_copy"
    primitive = "tile"
    supports_fused_ops = False

    def supported_key(self) -> SupportedKey:
        """CPU, f32 / i32 / i8 / u8, plain formats and b_fs_yx_fsv16, padding allowed."""
        return copy_key()

    def validate(self, params: Params) -> str | None:
        """tile_ref's checks, one data type, no fused ops."""
        return TileKernelRef().validate(params) or same_dtype_reason(params)

    def priority(self, params: Params) -> int:
        """Ahead of the reference whenever it validates."""
        return FORCE_PRIORITY_3

    def make_fn(self, params: Params) -> Callable[..., None]:
        """fn(input, output)."""
        x, out = params.inputs[0], params.output
        index = [np.arange(m, dtype=np.int64) % n for m, n in zip(out.shape, x.shape)]
        offs, _ = composed_offsets(x, index)
        gather = AxisGather(out, offs, layout_offset(x), x.bytes, None, 0)

        def fn(*bufs: Any) -> None:
            gather(bufs[0], bufs[-1])  # no fused ops: the output is the last buffer

        return fn
