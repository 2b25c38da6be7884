"""batch_norm_gpu_wg: the GPU-tier twin of batch_norm_ref (same template and jit, explicit work-groups, a bounds
guard)."""

from __future__ import annotations

from ...common.gpu_twin import WorkGroupTwin
from ...selector import register
from .batch_norm_kernel_ref import BatchNormKernelRef


@register
class BatchNormKernelGpuWg(WorkGroupTwin, BatchNormKernelRef):
    """Batch normalization, inference form (Ioffe & Szegedy 2015; clDNN ``batch_norm_gpu_ref``), GPU tier, rank
    1-4: y = (x - mean[f]) / sqrt(var[f] + epsilon) * scale[f] + shift[f], then the fused ops, as
    :class:`BatchNormKernelRef`; one work-item per output element, gws (X, Y, F * B) of the output rounded up to lws
    (64-256 work-items, x fastest: a row shares f, so the statistics' loads are uniform), guarded by
    ``WG_OUT_OF_RANGE``. No local memory."""

    name = "batch_norm_gpu_wg"
    ref_template = "batch_norm_ref"
