"""permute_gpu_wg: permute_ref's element copy (rank <= 4) with explicit work-groups for GPUs (the GPU tier)."""

from __future__ import annotations

from cldnn_py.layout import DIMS
from cldnn_py.ops import PermuteAttrs

from ...common.gpu_dispatch import wg_tensor_dispatch, wg_tensor_guard, wg_tensor_validate
from ...jitter import JitConstants
from ...kernel_base import FORCE_PRIORITY_3, CopyKernelBase
from ...params import Params
from ...selector import register


@register
class PermuteKernelGpuWg(CopyKernelBase):
    """Permute (ONNX Transpose), GPU tier: y[i0..ir] = x[j] with j[order[k]] = i[k], logical rank 1-4.

    INPUT0 any format, possibly padded; OUTPUT any format/padding through OUTPUT_GET_INDEX. ``IN_B/IN_F/IN_Y/IN_X``
    name the output coordinate indexing each input dimension (0 past the rank). One work-item per output
    element: gws (X, Y, F * B) of the output rounded up to lws (64-256 work-items, x fastest: the writes are
    coalesced, the reads are strided when the permutation moves x), guarded by ``WG_OUT_OF_RANGE``. No local
    memory. Rank 5-6 stay with permute_ref. Values copied in their own type (f32, f16, i32, i8, u8).
    """

    name = "permute_gpu_wg"
    primitive = "permute"
    tier = "gpu"

    def validate(self, params: Params) -> str | None:
        """Rank <= 4, the order a permutation of it, a work-group the device accepts."""
        order = tuple(params.attrs_as(PermuteAttrs).order)
        if sorted(order) != list(range(params.inputs[0].rank)):
            return f"order {order} is not a permutation of rank {params.inputs[0].rank}"
        return wg_tensor_validate(params.inputs[0], params.caps) or wg_tensor_validate(params.output, params.caps)

    def priority(self, params: Params) -> int:
        """Ahead of permute_ref in the GPU tier."""
        return FORCE_PRIORITY_3

    def jit_constants(self, params: Params) -> JitConstants:
        """Tensors, ``WG_OUT_OF_RANGE`` and ``IN_B``, ``IN_F``, ``IN_Y``, ``IN_X``."""
        j = super().jit_constants(params).update(wg_tensor_guard("OUTPUT"))
        coords = ["0"] * 4
        for i, d in enumerate(params.attrs_as(PermuteAttrs).order):
            coords[int(d)] = DIMS[i]
        for name, c in zip(DIMS, coords):
            j.add(f"IN_{name.upper()}", c)
        return j

    def dispatch(self, params: Params) -> tuple[tuple[int, ...], tuple[int, ...]]:
        """gws (X, Y, F * B) of the output rounded up to lws (wg_dispatch)."""
        return wg_tensor_dispatch(params.output, params.caps)
