"""fully_connected_gpu_gemv_sg: GPU-tier GEMV inner product for batch 1 whose row sums are sub-group reductions
(``sub_group_reduce_add``): no ``__local`` memory and no barrier on devices with sub-groups."""

from __future__ import annotations

from ...common.fc_plain import fc_dims
from ...common.gpu_tile import FLOAT_BYTES, caps_reason
from ...jitter import JitConstants
from ...kernel_base import FORCE_PRIORITY_1, FORCE_PRIORITY_5, FORCE_PRIORITY_9
from ...params import Params
from ...selector import register
from .fully_connected_kernel_gpu_gemv import FullyConnectedKernelGpuGemv

EMULATED_WIDTH = 16
"""Sub-group width of the emulation (SG_NATIVE 0): 16 consecutive work-items, Intel's usual width."""
SG_VARIANTS = ({"lws": 128, "rows": 8}, {"lws": 64, "rows": 4}, {"lws": 256, "rows": 16}, {"lws": 128, "rows": 16})


@register
class FullyConnectedKernelGpuGemvSg(FullyConnectedKernelGpuGemv):
    """Sub-group GEMV fully connected: y[n, m] = Σ_k x[n, k] · W[m, k] + bias[m], then the fused ops.

    Inputs, output, dispatch and tuning as :class:`FullyConnectedKernelGpuGemv` (its subclass): a work-group of LWS
    work-items (default 128) owns ROWS (8) output rows of one batch item, gws (ceil(M / ROWS)·LWS, N), lws (LWS, 1).
    Its sub-groups take the rows in turn, the lanes of a sub-group stride over K (coalesced), and
    ``sub_group_reduce_add`` finishes each row, lane 0 adding the bias and the fused ops.

    Needs ``cl_khr_subgroups`` or ``cl_intel_subgroups`` (any sub-group width: the kernel asks
    ``get_sub_group_size()``); ahead of fully_connected_gpu_gemv at batch 1 there (no local memory, no barrier).
    With ``BuildOptions(emulate_subgroups=True)`` on a device without sub-groups the collectives are emulated by 16
    work-items and a ``__local`` sum (``cldnn_sg_sum_emulated``), so the kernel's indexing runs and is checked on PoCL
    and Oclgrind; then it is never preferred. Origin: clDNN's sub-group fully-connected kernels
    (``fully_connected_gpu_bf_tiled`` reduces with sub-group collectives), and the CUDA warp-reduction GEMV.
    """

    name = "fully_connected_gpu_gemv_sg"
    VARIANTS = SG_VARIANTS

    def batch_block(self, params: Params) -> int:
        """One batch item per work-group (the template has no batch block)."""
        return 1

    @staticmethod
    def _emulated(params: Params) -> bool:
        return not params.caps.native_subgroups

    def variant_reason(self, params: Params, v: dict[str, int]) -> str | None:
        """Emulated: the rows must split evenly over the LWS / 16 sub-groups (every work-item reaches the same
        barriers) and the ``__local`` scratch of LWS floats must fit; native: the work-group must fit."""
        emulated = self._emulated(params)
        if emulated and v["rows"] % (v["lws"] // EMULATED_WIDTH):
            return f"emulated sub-groups: rows {v['rows']} is not a multiple of {v['lws'] // EMULATED_WIDTH} sub-groups"
        return caps_reason(params.caps, (v["lws"], 1), FLOAT_BYTES * v["lws"] if emulated else 0)

    def validate(self, params: Params) -> str | None:
        """Sub-groups on the device (or emulated), then the GEMV's checks."""
        return params.caps.subgroup_reason() or super().validate(params)

    def priority(self, params: Params) -> int:
        """Native sub-groups at batch 1: FORCE_PRIORITY_1 (ahead of fully_connected_gpu_gemv); larger batches
        FORCE_PRIORITY_5; emulated: FORCE_PRIORITY_9 (only when forced or tuned)."""
        if self._emulated(params):
            return FORCE_PRIORITY_9
        return FORCE_PRIORITY_1 if fc_dims(params)[0] == 1 else FORCE_PRIORITY_5

    def jit_constants(self, params: Params, variant: dict[str, int] | None = None) -> JitConstants:
        """The GEMV's constants plus SG_NATIVE and SG_WIDTH (the emulated width)."""
        j = super().jit_constants(params, variant)
        return j.update({"SG_NATIVE": 0 if self._emulated(params) else 1, "SG_WIDTH": EMULATED_WIDTH})
