"""crop_gpu_wg: crop_ref's element copy (rank <= 4) with explicit work-groups for GPUs (the GPU tier)."""

from __future__ import annotations

from cldnn_py.ops import CropAttrs

from ...common.gpu_dispatch import COPY_MAP_TEMPLATE, copy_map_jit, wg_tensor_dispatch, wg_tensor_validate
from ...jitter import JitConstants
from ...kernel_base import FORCE_PRIORITY_3, CopyKernelBase, load_template
from ...params import Params
from ...selector import register


@register
class CropKernelGpuWg(CopyKernelBase):
    """Crop (clDNN ``crop``), GPU tier: y[b, f, y, x] = x[b + ob, f + of, y + oy, x + ox], rank 1-4.

    INPUT0 and OUTPUT any format, possibly padded. Shared template ``copy_map_gpu_wg`` with IN_* = coordinate +
    offset. One work-item per output element: gws (X, Y, F * B) of the output rounded up to lws (64-256 work-items,
    x fastest), guarded by ``WG_OUT_OF_RANGE``. No local memory. f32, f16, i32, i8, u8 copied in their own type.
    """

    name = "crop_gpu_wg"
    primitive = "crop"
    tier = "gpu"

    def validate(self, params: Params) -> str | None:
        """Rank <= 4, the box inside the input, a fitting work-group."""
        x = params.inputs[0]
        given = tuple(params.attrs_as(CropAttrs).offsets)
        offs = given + (0,) * (4 - len(given))
        if any(o + s > n for o, s, n in zip(offs, params.output.dims4, x.dims4)):
            return f"crop box {params.output.shape} at {given} leaves input {x.shape}"
        return wg_tensor_validate(x, params.caps) or wg_tensor_validate(params.output, params.caps)

    def priority(self, params: Params) -> int:
        """Ahead of crop_ref in the GPU tier."""
        return FORCE_PRIORITY_3

    def jit_constants(self, params: Params) -> JitConstants:
        """Tensors, the guard and IN_* = output coordinate + offset."""
        given = tuple(params.attrs_as(CropAttrs).offsets)
        o = given + (0,) * (4 - len(given))
        return super().jit_constants(params).update(
            copy_map_jit((f"b + {o[0]}", f"f + {o[1]}", f"y + {o[2]}", f"x + {o[3]}")))

    def make_source(self, jit: JitConstants, template: str | None = None) -> tuple[str, str]:
        """The shared ``copy_map_gpu_wg`` template."""
        return super().make_source(jit, template if template is not None else load_template(COPY_MAP_TEMPLATE))

    def dispatch(self, params: Params) -> tuple[tuple[int, ...], tuple[int, ...]]:
        """gws (X, Y, F * B) of the output rounded up to lws (wg_dispatch)."""
        return wg_tensor_dispatch(params.output, params.caps)
