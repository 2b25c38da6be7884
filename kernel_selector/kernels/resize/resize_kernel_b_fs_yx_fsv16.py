"""resize_b_fs_yx_fsv16: spatial resize (upsampling heads, FPN necks) on blocked f32 or f16 data for CPU OpenCL
devices, 16 channels per tap lookup with float8 accesses."""

from __future__ import annotations

from cldnn_py.layout import Format
from cldnn_py.ops import ResizeAttrs

from ...common.fsv16_store import fsv16_store_jit
from ...jitter import JitConstants
from ...kernel_base import FORCE_PRIORITY_3, KernelBase
from ...params import FLOATS, Params, SupportedKey
from ...selector import register
from .resize_kernel_ref import resize_jit
from .resize_taps import axis_taps, is_identity_axis

BLOCK = 4
"""Output pixels per work-item (the row, when narrower)."""


@register
class ResizeKernelBFsYxFsv16(KernelBase):
    """Resize of H and W on b_fs_yx_fsv16 (clDNN ``resample_opt`` for blocked layouts).

    INPUT0 (N, C, H, W) b_fs_yx_fsv16, y/x/batch padding allowed (none along features); OUTPUT (N, C, OH, OW)
    b_fs_yx_fsv16; each f32 or f16 storage (float accumulation: NAME_LOAD8 and a half-aware pixel store). N and C
    unchanged; every ONNX mode whose taps stay inside the input (nearest with any rounding, linear, cubic,
    antialias; not tf_crop_and_resize extrapolation): the index and weight tables are resize_ref's
    (:mod:`.resize_taps`), one lookup per tap and output pixel serving 16 channels as two float8. gws
    (ceil(OW / P), OH, ceil(C / 16)·N), lws (1, 1, 1), P = min(4, OW). No fused ops.
    """

    name = "resize_b_fs_yx_fsv16"
    primitive = "resize"
    tier = "cpu"  # work-groups of one work-item: shaped for CPU devices
    writes_padded_blocks = True  # out = output + OUTPUT_OFFSET + b, slice, y, x pitches

    def supported_key(self) -> SupportedKey:
        """OpenCL, f32 or f16, b_fs_yx_fsv16 in and out, padding allowed (validate refuses input feature padding)."""
        fsv16 = frozenset({Format.b_fs_yx_fsv16})
        return SupportedKey(input_dtypes=FLOATS, output_dtypes=FLOATS, input_formats=fsv16, output_formats=fsv16)

    def validate(self, params: Params) -> str | None:
        """Rank 4, batch and channels unchanged, no input feature padding (the output's: whole slices, an in-place
        concatenation's input), no extrapolated (tf_crop_and_resize) pixel."""
        x, out = params.inputs[0], params.output
        if x.rank != 4 or out.rank != 4:
            return f"rank {x.rank} -> {out.rank}: rank 4 only"
        a = params.attrs_as(ResizeAttrs)
        for d in (0, 1):
            if not is_identity_axis(a, d, x.shape[d], out.shape[d]):
                return f"axis {d} is resized ({x.shape[d]} -> {out.shape[d]}): only H and W here"
        if x.padding.lower[1] or x.padding.upper[1]:
            return "input padded along features"
        for d in (2, 3):
            if axis_taps(a, d, x.shape[d], out.shape[d])[2].any():
                return "tf_crop_and_resize extrapolation"
        return None

    def priority(self, params: Params) -> int:
        """Ahead of resize_ref whenever it validates."""
        return FORCE_PRIORITY_3

    def jit_constants(self, params: Params) -> JitConstants:
        """Tensors, the tap tables (:func:`resize_jit`), RS_BLOCK and RS_STORE_PIXEL (:mod:`..fsv16_store`)."""
        j = super().jit_constants(params)
        j.update(resize_jit(params)).update(fsv16_store_jit("RS_STORE_PIXEL", params.output.dtype))
        return j.add("RS_BLOCK", min(BLOCK, params.output.shape[3]))

    def dispatch(self, params: Params) -> tuple[tuple[int, ...], tuple[int, ...]]:
        """(ceil(OW / P), OH, ceil(C / 16)·N), (1, 1, 1)."""
        b, f, y, x = params.output.dims4
        return (-(-x // min(BLOCK, x)), y, -(-f // 16) * b), (1, 1, 1)
