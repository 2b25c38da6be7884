"""batch_norm_b_fs_yx_fsv16: inference batch normalization on blocked f32 or f16 data for CPU OpenCL devices
(PoCL), 16 channels x a few pixels per work-item with float8 accesses and the fused ops' float8 form."""

from __future__ import annotations

from cldnn_py.layout import Format
from cldnn_py.ops import BatchNormAttrs
from cldnn_py.ops.elementwise import float_literal

from ...common.fused_ops import fused_ops8_jit, fused_ops8_reason
from ...common.runtime_shapes import move_shapes_to_args
from ...jitter import JitConstants
from ...kernel_base import FORCE_PRIORITY_3, Arg, ClKernelData, KernelBase, KernelData
from ...params import FLOATS, Params, SupportedKey
from ...selector import register

BLOCK = 4
"""Pixels per work-item (fewer when the row is narrower)."""


@register
class BatchNormKernelBFsYxFsv16(KernelBase):
    """y = (x - mean[c]) / sqrt(var[c] + eps) · scale[c] + shift[c], then the fused ops (Ioffe & Szegedy 2015,
    inference form), on b_fs_yx_fsv16.

    INPUT0 (N, C, H, W) b_fs_yx_fsv16, padded along y/x/batch as it likes (not along features); INPUT1 mean,
    INPUT2 variance, then scale and shift when the attributes say so: C values each, unpadded, any shape and
    plain format (contiguous). OUTPUT b_fs_yx_fsv16 of the input's shape. Every tensor f32 or f16 (storage, each
    its own; float arithmetic). gws (ceil(W / P), H, ceil(C / 16)·N),
    lws (1, 1, 1), P = min(4, W): each work-item folds the statistics of its 16 channels into a multiplier and an
    offset once, then streams P pixels with aligned float8 loads and stores (docs/performance.md: no builtin call
    in the loop). Fused activations and eltwise operands through FUSED_OPS8. Serves the batch norms that cannot
    fold into a convolution's weights: DenseNet's pre-activation BN -> ReLU -> conv after each concatenation
    (62 of them in DenseNet-121, 9 ms of batch_norm_ref on PoCL).
    """

    name = "batch_norm_b_fs_yx_fsv16"
    primitive = "batch_norm"
    tier = "cpu"  # work-groups of one work-item: shaped for CPU devices
    supports_fused_ops = True  # through FUSED_OPS8
    n_data_inputs = None

    def supported_key(self) -> SupportedKey:
        """OpenCL, f32 or f16 (storage; each tensor its own) in and out, any format (validate narrows it)."""
        return SupportedKey(input_dtypes=FLOATS, output_dtypes=FLOATS)

    def validate(self, params: Params) -> str | None:
        """Data and output b_fs_yx_fsv16 rank 4 without feature padding; statistics C contiguous values each;
        fused ops FUSED_OPS8 expresses."""
        a = params.attrs_as(BatchNormAttrs)
        want = 3 + int(bool(a.has_scale)) + int(bool(a.has_shift))
        if len(params.inputs) != want:
            return f"expected {want} inputs (x, mean, variance[, scale][, shift]), got {len(params.inputs)}"
        x, out = params.inputs[0], params.output
        for name, t in (("input", x), ("output", out)):
            if t.format != Format.b_fs_yx_fsv16 or t.rank != 4 or t.padding.lower[1] or t.padding.upper[1]:
                return f"{name} must be rank-4 b_fs_yx_fsv16 without feature padding, got {t.format.value} {t.shape}"
        c = x.shape[1]
        for i, s in enumerate(params.inputs[1:], 1):
            if s.count() != c or s.format.is_blocked or not s.padding.is_zero or s.buffer_size != c:
                return f"statistic {i} must be {c} contiguous values, got {s.format.value} {s.shape}"
        return fused_ops8_reason(params)

    def priority(self, params: Params) -> int:
        """Ahead of the reference whenever it validates."""
        return FORCE_PRIORITY_3

    def jit_constants(self, params: Params) -> JitConstants:
        """Tensors, EPSILON, HAS_SCALE, HAS_SHIFT, BN_BLOCK, and ``SCALE_TYPE`` / ``SCALE_LOAD(p, i)``,
        ``SHIFT_TYPE`` / ``SHIFT_LOAD(p, i)`` (the scale and shift inputs' type and load macro)."""
        a = params.attrs_as(BatchNormAttrs)
        j = super().jit_constants(params)
        j.update({"EPSILON": float_literal(a.epsilon), "HAS_SCALE": bool(a.has_scale),
                  "HAS_SHIFT": bool(a.has_shift), "BN_BLOCK": min(BLOCK, params.output.shape[3])})
        nxt = 3
        for what, has in (("SCALE", a.has_scale), ("SHIFT", a.has_shift)):
            if has:
                j.update({f"{what}_TYPE": f"INPUT{nxt}_TYPE", f"{what}_LOAD(p, i)": f"INPUT{nxt}_LOAD(p, i)"})
                nxt += 1
        return j

    def dispatch(self, params: Params) -> tuple[tuple[int, ...], tuple[int, ...]]:
        """(ceil(W / P), H, ceil(C / 16)·N), (1, 1, 1)."""
        b, f, y, x = params.output.dims4
        return (-(-x // min(BLOCK, x)), y, -(-f // 16) * b), (1, 1, 1)

    def kernel_data(self, params: Params) -> KernelData:
        """One enqueue: data, statistics, output, then the fused ops' extra inputs. Without fused eltwise operands
        the data and output shapes are kernel arguments (``common/runtime_shapes.py``): one binary for every batch
        norm of a network (DenseNet-121 has 62, each with its own channel count)."""
        jit = self.jit_constants(params)
        jit.update(fused_ops8_jit(params.fused_ops, params.output.dims4[1]))
        args = ([Arg("input", i) for i in range(len(params.inputs))] + [Arg("output", 0)]
                + [Arg("input", i) for op in params.fused_ops for i in op.dep_indices])
        if not any(op.dep_indices for op in params.fused_ops):
            args += move_shapes_to_args(jit, [f"INPUT{i}" for i in range(len(params.inputs))] + ["OUTPUT"])
        else:
            jit.add("RUNTIME_SHAPE_ARGS", "")
        entry, src = self.make_source(jit)
        gws, lws = self.dispatch(params)
        return KernelData(self.name, [ClKernelData(entry, src, gws, lws, args)])
