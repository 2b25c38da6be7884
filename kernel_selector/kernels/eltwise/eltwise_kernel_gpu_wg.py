"""eltwise_gpu_wg: the GPU-tier twin of eltwise_ref (same template and jit, explicit work-groups, a bounds guard)."""

from __future__ import annotations

from ...common.gpu_twin import WorkGroupTwin
from ...selector import register
from .eltwise_kernel_ref import EltwiseKernelRef


@register
class EltwiseKernelGpuWg(WorkGroupTwin, EltwiseKernelRef):
    """y = in0 ∘ in1 ∘ ... ∘ in(N-1) left to right, GPU tier, ranks 1-6 (the reference indexes rank 5-6 through the
    output's dims4, its last dimensions merged into x, and so does the guard): the
    semantics, broadcasting, data types and fused ops of :class:`EltwiseKernelRef`; one work-item per output element,
    gws (X, Y, F * B) of the output rounded up to lws (64-256 work-items, x fastest, so neighbouring work-items touch
    neighbouring addresses of bfyx tensors), guarded by ``WG_OUT_OF_RANGE``. No local memory."""

    name = "eltwise_gpu_wg"
    ref_template = "eltwise_ref"
    max_rank = 6
