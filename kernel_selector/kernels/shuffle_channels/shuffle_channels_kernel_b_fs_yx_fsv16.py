"""shuffle_channels_b_fs_yx_fsv16: the channel shuffle of blocked data, a row of pixels of one output slice per
work-item (CPU tier).

ShuffleNet's units shuffle b_fs_yx_fsv16 convolution outputs. ``shuffle_channels_ref`` runs one work-item per
element with two GET_INDEX computations each (PoCL: 3.5 ms of ShuffleNet's 60 at batch 8 for the first shuffle
alone, about 15% of the network over its 16 shuffles); this kernel finds the 16 source rows of an output slice once
and copies SHUF_BLOCK pixels x 16 channels with plain pointer arithmetic.
"""

from __future__ import annotations

from cldnn_py.layout import Format
from cldnn_py.ops import ShuffleChannelsAttrs

from ...jitter import JitConstants
from ...kernel_base import CL_COPY_TYPES, FORCE_PRIORITY_3, ClKernelData, KernelBase, KernelData
from ...params import FLOATS, Params, SupportedKey
from ...selector import register
from .shuffle_channels_kernel_ref import ShuffleChannelsKernelRef

SHUF_BLOCK = 8  # pixels of one row per work-item


@register
class ShuffleChannelsKernelBFsYxFsv16(KernelBase):
    """Channel shuffle y[b, c, y, x] = x[b, (c % G)·(C / G) + c / G, y, x] of rank-4 ``b_fs_yx_fsv16`` data into
    ``b_fs_yx_fsv16`` (values copied in their own type: f32, f16, i32, i8, u8).

    Input and output may be padded along batch, y and x. The output's block tail (the lanes
    past C in the last slice) is not written. gws (ceil(X / SHUF_BLOCK), Y, ceil(C / 16)·N), lws (1, 1, 1): each
    work-item computes the 16 source rows of its output slice once, then copies SHUF_BLOCK pixels x 16 lanes.
    Origin: clDNN's ``shuffle_channels`` primitive; the one-row-per-work-item shape is this project's CPU tier.
    """

    name = "shuffle_channels_b_fs_yx_fsv16"
    primitive = "shuffle_channels"
    tier = "cpu"  # work-groups of one work-item: shaped for CPU devices

    def supported_key(self) -> SupportedKey:
        """OpenCL, b_fs_yx_fsv16 in and out, the copy types, padding allowed."""
        fsv16 = frozenset({Format.b_fs_yx_fsv16})
        return SupportedKey(input_formats=fsv16, output_formats=fsv16, input_dtypes=CL_COPY_TYPES,
                            output_dtypes=CL_COPY_TYPES)

    def validate(self, params: Params) -> str | None:
        """The reference's rules (rank 4, C a multiple of the group) and the same type in and out, or f32 <-> f16
        (a blocked layout cannot be padded along features, so every slice starts at a multiple of 16)."""
        reason = ShuffleChannelsKernelRef().validate(params)
        if reason is not None:
            return reason
        x, out = params.inputs[0], params.output
        if x.dtype != out.dtype and not {x.dtype, out.dtype} <= FLOATS:
            return f"input type {x.dtype.value} differs from the output's {out.dtype.value}"
        return None

    def priority(self, params: Params) -> int:
        """Well below the reference: it wins whenever it validates."""
        return FORCE_PRIORITY_3

    def jit_constants(self, params: Params) -> JitConstants:
        """Tensors plus GROUP, GROUP_SIZE (C / GROUP) and SHUF_BLOCK."""
        g = params.attrs_as(ShuffleChannelsAttrs).group
        j = super().jit_constants(params)
        return j.add("GROUP", g).add("GROUP_SIZE", params.inputs[0].shape[1] // g).add("SHUF_BLOCK", SHUF_BLOCK)

    def dispatch(self, params: Params) -> tuple[tuple[int, ...], tuple[int, ...]]:
        """gws (ceil(X / SHUF_BLOCK), Y, ceil(C / 16)·N), lws (1, 1, 1)."""
        b, f, y, x = params.output.dims4
        return (-(-x // SHUF_BLOCK), y, -(-f // 16) * b), (1, 1, 1)

    def kernel_data(self, params: Params) -> KernelData:
        """One enqueue: the input, then the output."""
        entry, src = self.make_source(self.jit_constants(params))
        gws, lws = self.dispatch(params)
        return KernelData(self.name, [ClKernelData(entry, src, gws, lws, self.args(params))])
