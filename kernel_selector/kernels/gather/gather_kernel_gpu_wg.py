"""gather_gpu_wg: the GPU-tier twin of gather_ref (same template and jit, explicit work-groups, a bounds guard)."""

from __future__ import annotations

from ...common.gpu_twin import WorkGroupTwin
from ...selector import register
from .gather_kernel_ref import GatherKernelRef


@register
class GatherKernelGpuWg(WorkGroupTwin, GatherKernelRef):
    """Gather (numpy.take / ONNX Gather), GPU tier, data and output of rank <= 4 (higher ranks stay with
    gather_ref): the semantics, formats and types of :class:`GatherKernelRef`; one work-item per output element,
    gws (X, Y, F * B) of the output rounded up to lws (64-256 work-items, x fastest), guarded by
    ``WG_OUT_OF_RANGE``. No local memory."""

    name = "gather_gpu_wg"
    ref_template = "gather_ref"
