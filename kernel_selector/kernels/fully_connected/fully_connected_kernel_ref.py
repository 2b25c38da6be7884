"""fully_connected_ref: one work-item per output (n, m); the input is flattened in logical NCHW order."""

from __future__ import annotations

from ...common.fc_plain import float_reason
from ...jitter import JitConstants
from ...kernel_base import KernelBase
from ...params import FLOATS, Params, SupportedKey
from ...selector import register


@register
class FullyConnectedKernelRef(KernelBase):
    """Reference inner product (clDNN ``fully_connected_gpu_ref``): y[n, m] = Σ_k x[n, k] · W[m, k] + bias[m].

    Inputs: INPUT0 data (N, ...) of rank 2-4 in any format (e.g. b_fs_yx_fsv16 straight after a convolution),
    flattened to (N, K) in logical order, k = (f·Y + y)·X + x; INPUT1 weights (M, K), any format; INPUT2 bias of
    any shape with M elements ((M,), (1, M) ...) when present. Output (N, M). Every tensor f32 or f16 (storage:
    read and written through its own LOAD / STORE macro, accumulated in float). Cost: N·M work-items of K
    multiply-adds each, walking the input with three nested loops (no division per k) and two accumulators;
    AlexNet FC6 (9216 -> 4096) takes ~40 ms on PoCL, about the time to stream its 151 MB of weights.
    """

    name = "fully_connected_ref"
    primitive = "fully_connected"
    supports_fused_ops = True

    def supported_key(self) -> SupportedKey:
        """OpenCL, f32 or f16 data in and out, any format, padding allowed."""
        return SupportedKey(input_dtypes=FLOATS, output_dtypes=FLOATS)

    def validate(self, params: Params) -> str | None:
        """Weights must be 2-D (M, K); bias, when present, must have M elements; both f32 or f16."""
        w = params.inputs[1]
        if w.rank != 2:
            return f"weights rank {w.rank} is not 2"
        if len(params.inputs) > 2 and params.inputs[2].count() != w.shape[0]:
            return f"bias has {params.inputs[2].count()} elements, expected {w.shape[0]}"
        return float_reason(params.inputs[1:])

    def jit_constants(self, params: Params) -> JitConstants:
        """Tensors plus ``BIAS_TERM`` and ``BIAS_INDEX(m)`` (the m-th logical element of a bias of any shape)."""
        j = super().jit_constants(params)
        has_bias = len(params.inputs) > 2
        j.add("BIAS_TERM", int(has_bias))
        if has_bias:  # logical flat index m -> (b, f, y, x) of the bias tensor, whatever its rank
            j.add("BIAS_INDEX(m)", "INPUT2_GET_INDEX((m) / (INPUT2_FEATURE_NUM * INPUT2_SIZE_Y * INPUT2_SIZE_X), "
                  "(m) / (INPUT2_SIZE_Y * INPUT2_SIZE_X) % INPUT2_FEATURE_NUM, "
                  "(m) / INPUT2_SIZE_X % INPUT2_SIZE_Y, (m) % INPUT2_SIZE_X)")
        return j

    def dispatch(self, params: Params) -> tuple[tuple[int, ...], tuple[int, ...] | None]:
        """gws = (M, N)."""
        n, m = params.output.dims4[:2]
        return (m, n), None
