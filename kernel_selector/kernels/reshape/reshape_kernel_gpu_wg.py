"""reshape_gpu_wg: reshape_ref's element copy with explicit work-groups for GPUs (the GPU tier)."""

from __future__ import annotations

from ...common.gpu_dispatch import wg_tensor_dispatch, wg_tensor_guard, wg_tensor_validate
from ...jitter import JitConstants
from ...kernel_base import FORCE_PRIORITY_3, CopyKernelBase
from ...params import Params
from ...selector import register


@register
class ReshapeKernelGpuWg(CopyKernelBase):
    """Reshape (clDNN ``reshape_ref`` shape), GPU tier: the same elements in logical row-major order, new shape.

    INPUT0 any format, possibly padded, rank 1-4; OUTPUT rank 1-4, any format/padding through OUTPUT_GET_INDEX.
    One work-item per output element: output coordinate -> row-major linear index -> input coordinate. gws
    (X, Y, F * B) of the output rounded up to lws (64-256 work-items, x fastest), guarded by ``WG_OUT_OF_RANGE``.
    No local memory. Values copied in their own type (f32, f16, i32, i8, u8).
    """

    name = "reshape_gpu_wg"
    primitive = "reshape"
    tier = "gpu"

    def validate(self, params: Params) -> str | None:
        """Input and output rank <= 4, a work-group the device accepts."""
        return wg_tensor_validate(params.inputs[0], params.caps) or wg_tensor_validate(params.output, params.caps)

    def priority(self, params: Params) -> int:
        """Ahead of reshape_ref in the GPU tier."""
        return FORCE_PRIORITY_3

    def jit_constants(self, params: Params) -> JitConstants:
        """Tensors and ``WG_OUT_OF_RANGE`` over the output."""
        return super().jit_constants(params).update(wg_tensor_guard("OUTPUT"))

    def dispatch(self, params: Params) -> tuple[tuple[int, ...], tuple[int, ...]]:
        """gws (X, Y, F * B) of the output rounded up to lws (wg_dispatch)."""
        return wg_tensor_dispatch(params.output, params.caps)
