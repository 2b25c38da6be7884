"""crop_b_fs_yx_fsv16: crop (ONNX Slice with step 1, Split) of blocked f32 or f16 data for CPU OpenCL devices."""

from __future__ import annotations

from cldnn_py.ops import CropAttrs

from ...common.channel_gather import TEMPLATE, blocked_key, gather_dispatch, gather_jit, layout_reason
from ...jitter import JitConstants
from ...kernel_base import FORCE_PRIORITY_3, KernelBase, load_template
from ...params import Params, SupportedKey
from ...selector import register
from .crop_kernel_ref import CropKernelRef


def _offsets(params: Params) -> tuple[int, int, int, int]:
    given = tuple(params.attrs_as(CropAttrs).offsets)
    b, f, y, x = given + (0,) * (4 - len(given))
    return b, f, y, x


@register
class CropKernelBFsYxFsv16(KernelBase):
    """Crop y[b, f, y, x] = x[b + ob, f + of, y + oy, x + ox] on b_fs_yx_fsv16 (YOLO's Split of C2f blocks, channel
    Slices of detection heads), through the blocked channel gather (:mod:`..common.channel_gather`): a channel
    offset that is a multiple of 16 copies whole slices as float8 pairs, any other offset gathers lane by lane.

    INPUT0 (N, C, H, W) b_fs_yx_fsv16, y/x/batch padding allowed; OUTPUT the box, b_fs_yx_fsv16; each f32 or f16
    storage (an f16 -> f16 crop is exact). gws
    (ceil(W / 8), H, ceil(C / 16)·N), lws (1, 1, 1). The box must lie inside the input (crop_ref's check)."""

    name = "crop_b_fs_yx_fsv16"
    primitive = "crop"
    tier = "cpu"  # work-groups of one work-item: shaped for CPU devices

    def supported_key(self) -> SupportedKey:
        """f32 or f16 b_fs_yx_fsv16 in and out."""
        return blocked_key()

    def validate(self, params: Params) -> str | None:
        """The reference's box check, rank 4, no feature padding."""
        return CropKernelRef().validate(params) or layout_reason(params.inputs[0], params.output)

    def priority(self, params: Params) -> int:
        """Ahead of crop_ref whenever it validates."""
        return FORCE_PRIORITY_3

    def jit_constants(self, params: Params) -> JitConstants:
        """Tensors and the gather's constants (source channel f + OFFSET_F)."""
        offs = _offsets(params)
        return super().jit_constants(params).update(gather_jit(params.output, f"(f) + {offs[1]}", offs,
                                                               aligned=offs[1] % 16 == 0))

    def dispatch(self, params: Params) -> tuple[tuple[int, ...], tuple[int, ...]]:
        """(ceil(W / 8), H, ceil(C / 16)·N), (1, 1, 1)."""
        return gather_dispatch(params.output)

    def make_source(self, jit: JitConstants, template: str | None = None) -> tuple[str, str]:
        """The shared channel-gather template."""
        return super().make_source(jit, load_template(TEMPLATE))
