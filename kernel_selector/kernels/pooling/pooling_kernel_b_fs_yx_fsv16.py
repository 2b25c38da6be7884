"""pooling_b_fs_yx_fsv16: blocked max / average pooling for CPU OpenCL (PoCL), data in b_fs_yx_fsv16.

The pooling counterpart of ``convolution_b_fs_yx_fsv16`` (docs/performance.md): 16 channels x P
output pixels per work-item, aligned float8 pointer loads, ``v > m ? v : m`` instead of ``fmax`` (a call on the
pip PoCL), local size 1. Blocked data stays blocked through the pooling (reorder_inputs keeps a pooling in its
input's format), so the pools between the fast convolutions of ResNet-50 / GoogLeNet / SqueezeNet / AlexNet run
here instead of ``pooling_ref`` (one work-item per element, a GET_INDEX per tap).
"""

from __future__ import annotations

from cldnn_py.layout import Format
from cldnn_py.ops import PoolingAttrs, PoolingMode

from ...common.fused_ops import fused_ops8_jit, fused_ops8_reason
from ...common.pooling import POOL_MODE_CODE, pooling_window
from ...jitter import JitConstants
from ...kernel_base import FORCE_PRIORITY_3, Arg, ClKernelData, KernelBase, KernelData
from ...params import FLOATS, Params, SupportedKey
from ...selector import register

MAX_BLOCK = 4  # output pixels per work-item; 1-8 measured within noise of each other (memory bound), 4 a bit ahead


def pool_block(ow: int, max_block: int = MAX_BLOCK) -> int:
    """Output pixels per work-item for an output row of ``ow`` pixels: the whole row when it fits, else the
    block in [min(4, max_block), max_block] that recomputes the fewest pixels in the shifted last block (ties: the
    wider)."""
    if ow <= max_block:
        return ow
    return min(range(max_block, min(4, max_block) - 1, -1), key=lambda p: (-(-ow // p) * p, -p))


@register
class PoolingKernelBFsYxFsv16(KernelBase):
    """2-D max / average pooling on b_fs_yx_fsv16 data; one work-item = 16 channels x P pixels of one output row.

    INPUT0 (N, C, H, W) and output (N, C, OH, OW), both ``b_fs_yx_fsv16``, f32 or f16 (storage: loads and stores
    through the access macros, accumulation in float either way), y/x/batch padding allowed (the
    output's interior is written, its padding and block tail are not; the input's padding is never read as data).
    Every attribute of the pooling primitive is honoured exactly as ``pooling_ref`` does (modes max / average /
    average_no_padding, pad and pad_end, dilation, ceil mode through the output size, global pooling through
    :func:`pooling_window`); fused activations and eltwise ops run in the epilogue through ``FUSED_OPS8``.
    Jit: OUT_BLOCK = P (:func:`pool_block`), CHECK_X (0 when no window leaves the row). gws (ceil(OW / P), OH,
    ceil(C / 16) * N), lws (1, 1, 1).
    """

    name = "pooling_b_fs_yx_fsv16"
    primitive = "pooling"
    tier = "cpu"  # work-groups of one work-item, registers as the tile: shaped for CPU devices
    writes_padded_blocks = True  # out = output + OUTPUT_OFFSET + b, slice, y, x pitches
    supports_fused_ops = True  # through FUSED_OPS8 (fused_ops8_jit), not the jitter's scalar FUSED_OPS

    def supported_key(self) -> SupportedKey:
        """OpenCL, f32 or f16 (storage) in and out, b_fs_yx_fsv16 in and out, padding allowed."""
        fsv16 = frozenset({Format.b_fs_yx_fsv16})
        return SupportedKey(input_formats=fsv16, output_formats=fsv16, input_dtypes=FLOATS, output_dtypes=FLOATS)

    def validate(self, params: Params) -> str | None:
        """Rank-4 data, a known mode, fused ops that FUSED_OPS8 can express."""
        if params.inputs[0].rank != 4:
            return f"input rank {params.inputs[0].rank} is not 4"
        if PoolingMode(params.attrs_as(PoolingAttrs).mode) not in POOL_MODE_CODE:
            return f"pooling mode {params.attrs_as(PoolingAttrs).mode!r} is not supported"
        return fused_ops8_reason(params)

    def priority(self, params: Params) -> int:
        """Well below the reference: it wins whenever it validates."""
        return FORCE_PRIORITY_3

    def block(self, params: Params) -> int:
        """P, the output pixels per work-item."""
        return pool_block(params.output.dims4[3])

    def jit_constants(self, params: Params) -> JitConstants:
        """Tensors, window geometry as in pooling_ref (POOL_SIZE_*, STRIDE_*, DILATION_*, PAD_*, PAD_END_*,
        POOL_MODE), OUT_BLOCK and CHECK_X."""
        j = super().jit_constants(params)
        k, s, pb, pe = pooling_window(params)
        a = params.attrs_as(PoolingAttrs)
        d = (1, 1) if a.global_pooling else a.dilation
        w, ow = params.inputs[0].dims4[3], params.output.dims4[3]
        check_x = pb[1] > 0 or (ow - 1) * s[1] - pb[1] + (k[1] - 1) * d[1] >= w
        j.update({"POOL_SIZE_Y": k[0], "POOL_SIZE_X": k[1], "STRIDE_Y": s[0], "STRIDE_X": s[1],
                  "DILATION_Y": d[0], "DILATION_X": d[1],
                  "PAD_Y": pb[0], "PAD_X": pb[1], "PAD_END_Y": pe[0], "PAD_END_X": pe[1],
                  "POOL_MODE": POOL_MODE_CODE[PoolingMode(a.mode)], "OUT_BLOCK": self.block(params),
                  "CHECK_X": int(check_x)})
        return j

    def dispatch(self, params: Params) -> tuple[tuple[int, ...], tuple[int, ...]]:
        """gws (ceil(OW / P), OH, ceil(C / 16) * N), lws (1, 1, 1)."""
        b, f, y, x = params.output.dims4
        return (-(-x // self.block(params)), y, -(-f // 16) * b), (1, 1, 1)

    def kernel_data(self, params: Params) -> KernelData:
        """One enqueue; the fused ops' extra inputs are appended to the arguments."""
        jit = self.jit_constants(params)
        jit.update(fused_ops8_jit(params.fused_ops, params.output.dims4[1]))
        args = [Arg("input", 0), Arg("output", 0)] + [Arg("input", i) for op in params.fused_ops
                                                       for i in op.dep_indices]
        entry, src = self.make_source(jit)
        gws, lws = self.dispatch(params)
        return KernelData(self.name, [ClKernelData(entry, src, gws, lws, args)])
