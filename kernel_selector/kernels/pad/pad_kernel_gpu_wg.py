"""pad_gpu_wg: the GPU-tier twin of pad_ref (same template and jit, explicit work-groups, a bounds guard)."""

from __future__ import annotations

from ...common.gpu_twin import WorkGroupTwin
from ...selector import register
from .pad_kernel_ref import PadKernelRef


@register
class PadKernelGpuWg(WorkGroupTwin, PadKernelRef):
    """Pad (numpy.pad; clDNN ``border``), GPU tier, rank 1-4 (rank 5-6 stay with pad_ref): the semantics, formats
    and types of :class:`PadKernelRef`; one work-item per output element, gws (X, Y, F * B) of the output rounded
    up to lws (64-256 work-items, x fastest), guarded by ``WG_OUT_OF_RANGE``. No local memory."""

    name = "pad_gpu_wg"
    ref_template = "pad_ref"
