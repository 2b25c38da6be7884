"""shuffle_channels_ref: the channel shuffle, one work-item per output element, in the input's own format."""

from __future__ import annotations

from cldnn_py.ops import ShuffleChannelsAttrs

from ...jitter import JitConstants
from ...kernel_base import CopyKernelBase
from ...params import Params
from ...selector import register


@register
class ShuffleChannelsKernelRef(CopyKernelBase):
    """Channel shuffle (clDNN ``shuffle_channels_ref``): y[b, c, y, x] = x[b, (c % G)·(C / G) + c / G, y, x].

    INPUT0 rank 4, any format (bfyx, b_fs_yx_fsv16 ...), padding allowed; OUTPUT the same shape in its own format
    (the input's, so blocked data stays blocked between a ShuffleNet unit's convolutions). gws = (x, y, f·b), lws
    left to the driver; values copied in their own type (f32, f16, i32, i8, u8). One read and one write per element: the
    whole Reshape-Transpose-Reshape chain it replaces took four kernels and two format conversions.
    """

    name = "shuffle_channels_ref"
    primitive = "shuffle_channels"

    def validate(self, params: Params) -> str | None:
        """Rank 4 with channels a multiple of the group."""
        x = params.inputs[0]
        g = params.attrs_as(ShuffleChannelsAttrs).group
        if x.rank != 4 or x.shape[1] % g:
            return f"input {x.shape}: rank 4 with channels a multiple of group {g} expected"
        return None

    def jit_constants(self, params: Params) -> JitConstants:
        """Tensors plus GROUP and GROUP_SIZE (C / GROUP)."""
        g = params.attrs_as(ShuffleChannelsAttrs).group
        return super().jit_constants(params).add("GROUP", g).add("GROUP_SIZE", params.inputs[0].shape[1] // g)
