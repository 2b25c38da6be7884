"""reorder_bfyx_to_fsv16: the network input's reorder from plain bfyx to b_fs_yx_fsv16 (f32 to f32).

``reorder_ref`` spends a work-item and two GET_INDEX computations per element; here a work-item moves a block of
pixels of one row for all channels of one 16-channel slice, with the addresses advanced by constant pitches.
"""

from __future__ import annotations

from cldnn_py.layout import DataType, Format

from ...jitter import JitConstants
from ...kernel_base import FORCE_PRIORITY_3, KernelBase
from ...params import Params, SupportedKey
from ...selector import register

MAX_BLOCK = 8  # pixels per work-item


@register
class ReorderKernelBfyxToFsv16(KernelBase):
    """Reorder of a rank-4 f32 tensor from ``bfyx`` to ``b_fs_yx_fsv16`` (same shape, no conversion).

    Input and output may be padded along batch, y and x (not features: a blocked dimension cannot be padded, and
    the kernel indexes input channels by the plain feature pitch). The output's block tail is not written (the
    buffer's zeros stay). Jit RB_BLOCK = min(8, X). gws (ceil(X / RB_BLOCK), Y, ceil(C / 16) * N), lws (1, 1, 1).
    """

    name = "reorder_bfyx_to_fsv16"
    primitive = "reorder"
    tier = "cpu"  # work-groups of one work-item, registers as the tile: shaped for CPU devices

    def supported_key(self) -> SupportedKey:
        """OpenCL, f32 bfyx in, f32 b_fs_yx_fsv16 out, padding allowed."""
        f32 = frozenset({DataType.f32})
        return SupportedKey(input_formats=frozenset({Format.bfyx}), output_formats=frozenset({Format.b_fs_yx_fsv16}),
                            input_dtypes=f32, output_dtypes=f32)

    def validate(self, params: Params) -> str | None:
        """Rank 4, the output's shape, no feature padding."""
        x, out = params.inputs[0], params.output
        if x.rank != 4 or x.shape != out.shape:
            return f"needs rank-4 input of the output's shape, got {x.shape} -> {out.shape}"
        if x.padding.lower[1] or x.padding.upper[1]:
            return "input padded along features"
        return None

    def priority(self, params: Params) -> int:
        """Well below the reference: it wins whenever it validates."""
        return FORCE_PRIORITY_3

    def block(self, params: Params) -> int:
        """Pixels per work-item: min(MAX_BLOCK, X)."""
        return min(MAX_BLOCK, params.output.dims4[3])

    def jit_constants(self, params: Params) -> JitConstants:
        """Tensors and RB_BLOCK."""
        return super().jit_constants(params).add("RB_BLOCK", self.block(params))

    def dispatch(self, params: Params) -> tuple[tuple[int, ...], tuple[int, ...]]:
        """gws (ceil(X / RB_BLOCK), Y, ceil(C / 16) * N), lws (1, 1, 1)."""
        b, f, y, x = params.output.dims4
        return (-(-x // self.block(params)), y, -(-f // 16) * b), (1, 1, 1)
