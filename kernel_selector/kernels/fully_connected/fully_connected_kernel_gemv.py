"""fully_connected_gemv: bandwidth-bound GEMV-style inner product for small batches (1-8) on CPU OpenCL (PoCL).

Each work-item computes 8 outputs (rows of the weights) of one batch item, streaming the 8 weight rows in aligned
float8 chunks and reading each input chunk once (docs/performance.md: pointer loads, ``a*b+c``,
local size 1, vectors written by hand). Beside :mod:`fully_connected_kernel_ref`, which it overrides whenever it
validates.
"""

from __future__ import annotations

from cldnn_py.layout import Format

from ...common.fc_plain import float_reason
from ...common.inline_half import inline_half_jit
from ...jitter import JitConstants
from ...kernel_base import FORCE_PRIORITY_3, KernelBase
from ...params import FLOATS, Params, SupportedKey
from ...selector import register

ROWS = 8  # output rows per work-item: 8 float8 accumulators + input chunk + one weight chunk <= 16 ymm registers
PLAIN = frozenset({Format.bfyx})


@register
class FullyConnectedKernelGemv(KernelBase):
    """GEMV fully connected: y[n, m] = Σ_k x[n, k] · W[m, k] + bias[m], then the fused ops.

    Inputs: INPUT0 data (N, ...) of any rank in bfyx without padding (K = product of the non-batch dims, the
    flattening is then the buffer's own order); INPUT1 weights (M, K) bfyx unpadded; K a multiple of 8 (every
    weight and input row then starts 32-byte aligned); INPUT2 bias with M elements, any layout (read through
    ``BIAS_INDEX``), when present. Output (N, M) bfyx. Each tensor f32 or f16 (half storage: the float8 chunks are
    read through ``NAME_LOAD8``, the sums stay float; half weights halve the bytes this bandwidth-bound kernel
    streams). validate() gives the reason for anything else, and the
    selector falls back to ``fully_connected_ref``. gws (N, ceil(M / 8)), lws (1, 1); the last row block clamps
    its weight rows to M - 1 and stores only rows < M.
    """

    name = "fully_connected_gemv"
    primitive = "fully_connected"
    tier = "cpu"  # work-groups of one work-item, registers as the tile: shaped for CPU devices
    supports_fused_ops = True

    def supported_key(self) -> SupportedKey:
        """OpenCL, f32 or f16, input and output bfyx, input unpadded."""
        return SupportedKey(input_dtypes=FLOATS, output_dtypes=FLOATS, input_formats=PLAIN, output_formats=PLAIN,
                            padded_inputs=False)

    def validate(self, params: Params) -> str | None:
        """Input bfyx unpadded; weights (M, K) bfyx f32 or f16 unpadded with K % 8 == 0; bias with M f32 or f16
        elements."""
        x, w = params.inputs[0], params.inputs[1]
        if x.format != Format.bfyx or not x.padding.is_zero:
            return f"input must be bfyx without padding, got {x.format.value}{'' if x.padding.is_zero else ' padded'}"
        if w.rank != 2:
            return f"weights rank {w.rank} is not 2"
        if w.format != Format.bfyx or not w.padding.is_zero:
            return (f"weights must be bfyx without padding, got {w.format.value}"
                    f"{'' if w.padding.is_zero else ' padded'}")
        k = x.count() // x.shape[0]
        if k % 8:
            return f"K = {k} is not a multiple of 8"
        if w.shape[1] != k:
            return f"weights have {w.shape[1]} columns, input has K = {k}"
        if len(params.inputs) > 2 and params.inputs[2].count() != w.shape[0]:
            return f"bias has {params.inputs[2].count()} elements, expected {w.shape[0]}"
        return float_reason(params.inputs[1:])

    def priority(self, params: Params) -> int:
        """Well below the reference: it wins whenever it validates."""
        return FORCE_PRIORITY_3

    def jit_constants(self, params: Params) -> JitConstants:
        """Tensors plus ``GEMV_M``, ``GEMV_K``, ``ROWS``, ``BIAS_TERM``, ``BIAS_INDEX(m)`` and the call-free
        loads ``INPUT0_ALOAD8`` / ``INPUT1_ALOAD8`` / ``INPUT2_ILOAD`` (:func:`inline_half_jit`)."""
        j = super().jit_constants(params)
        j.update(inline_half_jit({f"INPUT{i}": x for i, x in enumerate(params.inputs)} | {"OUTPUT": params.output}))
        m, k = params.inputs[1].shape
        has_bias = len(params.inputs) > 2
        j.update({"GEMV_M": m, "GEMV_K": k, "ROWS": ROWS, "BIAS_TERM": int(has_bias)})
        if has_bias:  # logical flat index m -> (b, f, y, x) of the bias tensor, whatever its rank
            j.add("BIAS_INDEX(m)", "INPUT2_GET_INDEX((m) / (INPUT2_FEATURE_NUM * INPUT2_SIZE_Y * INPUT2_SIZE_X), "
                  "(m) / (INPUT2_SIZE_Y * INPUT2_SIZE_X) % INPUT2_FEATURE_NUM, "
                  "(m) / INPUT2_SIZE_X % INPUT2_SIZE_Y, (m) % INPUT2_SIZE_X)")
        return j

    def dispatch(self, params: Params) -> tuple[tuple[int, ...], tuple[int, ...]]:
        """gws (N, ceil(M / ROWS)): the batch items of one row block are neighbours and reuse its weights from cache;
        lws (1, 1)."""
        n, m = params.output.dims4[:2]
        return (n, -(-m // ROWS)), (1, 1)
