"""tile_gpu_wg: tile_ref's element copy (rank <= 4) with explicit work-groups for GPUs (the GPU tier)."""

from __future__ import annotations

from cldnn_py.ops import TileAttrs

from ...common.gpu_dispatch import COPY_MAP_TEMPLATE, copy_map_jit, wg_tensor_dispatch, wg_tensor_validate
from ...jitter import JitConstants
from ...kernel_base import FORCE_PRIORITY_3, CopyKernelBase, load_template
from ...params import Params
from ...selector import register


@register
class TileKernelGpuWg(CopyKernelBase):
    """Tile (numpy.tile), GPU tier: y[o] = x[o_d mod n_d] per dimension, rank 1-4 (rank 5-6 stay with tile_ref).

    INPUT0 and OUTPUT any format, possibly padded, same rank. Shared template ``copy_map_gpu_wg`` with IN_* =
    coordinate mod the input's size. One work-item per output element: gws (X, Y, F * B) of the output rounded
    up to lws (64-256 work-items, x fastest), guarded by ``WG_OUT_OF_RANGE``. No local memory. f32, f16, i32, i8, u8.
    """

    name = "tile_gpu_wg"
    primitive = "tile"
    tier = "gpu"

    def validate(self, params: Params) -> str | None:
        """Rank <= 4, output = input * repeats, a fitting work-group."""
        x, out = params.inputs[0], params.output
        reps = tuple(params.attrs_as(TileAttrs).repeats)
        if x.rank != out.rank or tuple(n * r for n, r in zip(x.shape, reps)) != out.shape:
            return f"input {x.shape} tiled {reps} is not the output {out.shape}"
        return wg_tensor_validate(x, params.caps) or wg_tensor_validate(out, params.caps)

    def priority(self, params: Params) -> int:
        """Ahead of tile_ref in the GPU tier."""
        return FORCE_PRIORITY_3

    def jit_constants(self, params: Params) -> JitConstants:
        """Tensors, the guard and IN_* = output coordinate mod the input's size."""
        return super().jit_constants(params).update(copy_map_jit(
            ("b % INPUT0_BATCH_NUM", "f % INPUT0_FEATURE_NUM", "y % INPUT0_SIZE_Y", "x % INPUT0_SIZE_X")))

    def make_source(self, jit: JitConstants, template: str | None = None) -> tuple[str, str]:
        """The shared ``copy_map_gpu_wg`` template."""
        return super().make_source(jit, template if template is not None else load_template(COPY_MAP_TEMPLATE))

    def dispatch(self, params: Params) -> tuple[tuple[int, ...], tuple[int, ...]]:
        """gws (X, Y, F * B) of the output rounded up to lws (wg_dispatch)."""
        return wg_tensor_dispatch(params.output, params.caps)
