"""batch_norm_ref: inference batch normalization, one work-item per output element, any data format."""

from __future__ import annotations

from cldnn_py.ops import BatchNormAttrs
from cldnn_py.ops.elementwise import float_literal

from ...jitter import JitConstants
from ...kernel_base import KernelBase
from ...params import FLOATS, Params, SupportedKey
from ...selector import register


@register
class BatchNormKernelRef(KernelBase):
    """Reference batch normalization, inference form (Ioffe & Szegedy 2015; clDNN ``batch_norm_gpu_ref``).

    y[b,f,y,x] = (x[b,f,y,x] - mean[f]) / sqrt(var[f] + epsilon) * scale[f] + shift[f].

    Inputs: INPUT0 data (N, C[, H[, W]]) in any format; INPUT1 mean and INPUT2 variance, then INPUT3 scale when
    ``has_scale`` and the next one shift when ``has_shift``: each holds C values in any shape (``(C,)``,
    ``(1, C, 1, 1)`` ...) and any format; the kernel maps channel c to that tensor's own (b, f, y, x)
    coordinate and reads it through its GET_INDEX macro. Missing scale/shift mean 1 and 0. Every tensor f32 or f16
    (storage, each its own access macros); the arithmetic is float.
    """

    name = "batch_norm_ref"
    primitive = "batch_norm"
    supports_fused_ops = True

    def supported_key(self) -> SupportedKey:
        """OpenCL; f32 or f16 (storage, float arithmetic) in and out; any format, padding allowed."""
        return SupportedKey(input_dtypes=FLOATS, output_dtypes=FLOATS)

    def validate(self, params: Params) -> str | None:
        """The input count must match has_scale/has_shift; every statistic must hold C f32 or f16 values."""
        a = params.attrs_as(BatchNormAttrs)
        want = 3 + int(bool(a.has_scale)) + int(bool(a.has_shift))
        if len(params.inputs) != want:
            return f"expected {want} inputs (x, mean, variance[, scale][, shift]), got {len(params.inputs)}"
        c = params.inputs[0].dims4[1]
        for i, s in enumerate(params.inputs[1:], 1):
            if s.count() != c:
                return f"input {i} holds {s.count()} values, expected {c} (one per channel)"
            if s.dtype not in FLOATS:
                return f"input {i} data type {s.dtype.value} is not f32 or f16"
        return None

    def jit_constants(self, params: Params) -> JitConstants:
        """Tensors plus EPSILON, HAS_SCALE, HAS_SHIFT and the scale/shift inputs' index and load macros
        (``SCALE_INDEX(c)`` / ``SCALE_LOAD(p, i)``, ``SHIFT_INDEX(c)`` / ``SHIFT_LOAD(p, i)``)."""
        j = super().jit_constants(params)
        a = params.attrs_as(BatchNormAttrs)
        has_scale, has_shift = bool(a.has_scale), bool(a.has_shift)
        j.update({"EPSILON": float_literal(a.epsilon), "HAS_SCALE": has_scale, "HAS_SHIFT": has_shift})
        if has_scale:
            j.add("SCALE_INDEX(c)", "STAT_INDEX(INPUT3, c)")
            j.add("SCALE_LOAD(p, i)", "INPUT3_LOAD(p, i)")
        if has_shift:
            j.add("SHIFT_INDEX(c)", f"STAT_INDEX(INPUT{3 + int(has_scale)}, c)")
            j.add("SHIFT_LOAD(p, i)", f"INPUT{3 + int(has_scale)}_LOAD(p, i)")
        return j
