"""shuffle_channels_gpu_wg: the GPU-tier twin of shuffle_channels_ref (same template and jit, explicit work-groups,
a bounds guard)."""

from __future__ import annotations

from ...common.gpu_twin import WorkGroupTwin
from ...selector import register
from .shuffle_channels_kernel_ref import ShuffleChannelsKernelRef


@register
class ShuffleChannelsKernelGpuWg(WorkGroupTwin, ShuffleChannelsKernelRef):
    """Channel shuffle, GPU tier: the semantics, formats and types of :class:`ShuffleChannelsKernelRef`; one
    work-item per output element, gws (X, Y, F * B) of the output rounded up to lws (64-256 work-items, x fastest),
    guarded by ``WG_OUT_OF_RANGE``. No local memory."""

    name = "shuffle_channels_gpu_wg"
    ref_template = "shuffle_channels_ref"
