"""broadcast_gpu_wg: broadcast_ref's element copy (rank <= 4) with explicit work-groups for GPUs (the GPU tier)."""

from __future__ import annotations

from cldnn_py.layout import DIMS

from ...common.gpu_dispatch import COPY_MAP_TEMPLATE, copy_map_jit, wg_tensor_dispatch, wg_tensor_validate
from ...jitter import JitConstants
from ...kernel_base import FORCE_PRIORITY_3, CopyKernelBase, load_template
from ...params import Params
from ...selector import register


@register
class BroadcastKernelGpuWg(CopyKernelBase):
    """Broadcast (numpy.broadcast_to), GPU tier, ranks <= 4 (rank 5-6 stay with broadcast_ref): the input's r
    dimensions align with the output's last R; input dimension k reads output coordinate k + R - r where the
    sizes agree, else 0.

    INPUT0 and OUTPUT any format, possibly padded. Shared template ``copy_map_gpu_wg``. One work-item per output
    element: gws (X, Y, F * B) of the output rounded up to lws (64-256 work-items, x fastest), guarded by
    ``WG_OUT_OF_RANGE``. No local memory. f32, f16, i32, i8, u8 copied in their own type.
    """

    name = "broadcast_gpu_wg"
    primitive = "broadcast"
    tier = "gpu"

    def validate(self, params: Params) -> str | None:
        """Rank <= 4, the input broadcasts to the output (numpy rule), a fitting work-group."""
        x, out = params.inputs[0], params.output
        r, big = x.rank, out.rank
        if r > big or any(n not in (1, s) for n, s in zip(x.shape, out.shape[big - r:])):
            return f"input {x.shape} does not broadcast to {out.shape}"
        return wg_tensor_validate(x, params.caps) or wg_tensor_validate(out, params.caps)

    def priority(self, params: Params) -> int:
        """Ahead of broadcast_ref in the GPU tier."""
        return FORCE_PRIORITY_3

    def jit_constants(self, params: Params) -> JitConstants:
        """Tensors, the guard and IN_*: the aligned output coordinate, or 0 (size 1 or beyond the input's rank)."""
        x, out = params.inputs[0], params.output
        shift = out.rank - x.rank
        coords = ["0"] * 4
        for k in range(x.rank):
            if x.shape[k] == out.shape[k + shift] and x.shape[k] > 1:
                coords[k] = DIMS[k + shift]
        return super().jit_constants(params).update(copy_map_jit((coords[0], coords[1], coords[2], coords[3])))

    def make_source(self, jit: JitConstants, template: str | None = None) -> tuple[str, str]:
        """The shared ``copy_map_gpu_wg`` template."""
        return super().make_source(jit, template if template is not None else load_template(COPY_MAP_TEMPLATE))

    def dispatch(self, params: Params) -> tuple[tuple[int, ...], tuple[int, ...]]:
        """gws (X, Y, F * B) of the output rounded up to lws (wg_dispatch)."""
        return wg_tensor_dispatch(params.output, params.caps)
