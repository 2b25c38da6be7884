"""reorder_bfyx_to_fsv16: the network input's reorder from plain bfyx to b_fs_yx_fsv16 (f32 or f16 on each side).

``reorder_ref`` spends a work-item and two GET_INDEX computations per element; here a work-item moves a block of
pixels of one row for all channels of one 16-channel slice, with the addresses advanced by constant pitches.
"""

from __future__ import annotations

from cldnn_py.layout import Format
from cldnn_py.ops import ReorderAttrs

from ...common.inline_half import inline_half_jit
from ...jitter import JitConstants
from ...kernel_base import FORCE_PRIORITY_3, KernelBase
from ...params import FLOATS, Params, SupportedKey
from ...selector import register

MAX_BLOCK = 8  # pixels per work-item


@register
class ReorderKernelBfyxToFsv16(KernelBase):
    """Reorder of a rank-4 tensor from ``bfyx`` to ``b_fs_yx_fsv16`` (same shape), f32 or f16 on each side: f32 to f16
    rounds to nearest even (as reorder_ref), f16 to f32 is exact.

    Input and output may be padded along batch, y and x (not features: a blocked dimension cannot be padded, and
    the kernel indexes input channels by the plain feature pitch). The output's block tail is not written (the
    buffer's zeros stay). Jit RB_BLOCK = min(8, X). gws (ceil(X / RB_BLOCK), Y, ceil(C / 16) * N), lws (1, 1, 1).
    """

    name = "reorder_bfyx_to_fsv16"
    primitive = "reorder"
    tier = "cpu"  # work-groups of one work-item, registers as the tile: shaped for CPU devices

    def supported_key(self) -> SupportedKey:
        """OpenCL, f32 or f16 bfyx in, f32 or f16 b_fs_yx_fsv16 out, padding allowed."""
        return SupportedKey(input_formats=frozenset({Format.bfyx}), output_formats=frozenset({Format.b_fs_yx_fsv16}),
                            input_dtypes=FLOATS, output_dtypes=FLOATS)

    def validate(self, params: Params) -> str | None:
        """Rank 4, the output's shape, no feature padding, a value-preserving conversion (not ``bool``)."""
        x, out = params.inputs[0], params.output
        if params.attrs_as(ReorderAttrs).convert_mode == "bool":
            return "convert_mode 'bool'"
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
        """Tensors, RB_BLOCK and INPUT0_ILOAD (:func:`inline_half_jit`)."""
        j = super().jit_constants(params).update(inline_half_jit({"INPUT0": params.inputs[0]}))
        return j.add("RB_BLOCK", self.block(params))

    def dispatch(self, params: Params) -> tuple[tuple[int, ...], tuple[int, ...]]:
        """gws (ceil(X / RB_BLOCK), Y, ceil(C / 16) * N), lws (1, 1, 1)."""
        b, f, y, x = params.output.dims4
        return (-(-x // self.block(params)), y, -(-f // 16) * b), (1, 1, 1)
