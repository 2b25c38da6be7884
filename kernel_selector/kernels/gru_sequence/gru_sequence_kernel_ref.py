"""gru_sequence_ref: one work-item per sequence runs the whole GRU time loop (scalar loops, any layout)."""

from __future__ import annotations

from cldnn_py.layout import DataType
from cldnn_py.ops import GruSequenceAttrs

from ...common.nd_index import nd_check, nd_jit
from ...jitter import JitConstants
from ...kernel_base import KernelBase
from ...params import Params, SupportedKey
from ...selector import register


@register
class GruSequenceKernelRef(KernelBase):
    """Reference GRU sequence (the recurrence of ONNX GRU with logistic / tanh, both linear_before_reset forms;
    OpenVINO GRUSequence's semantics). gws = (batch,), lws = (1,): work-item b walks the steps of sequence b; per
    step it computes z and r of every unit (xw + R·h, h from local memory), then h~ and the new state (with
    linear_before_reset 0 the reset gates of all units are needed first, hence the two passes). INPUT0 xw
    (seq·batch, 3·hidden), INPUT1 h0 (batch, hidden), INPUT2 R (3·hidden, hidden), INPUT3 Rb_h (hidden) with
    linear_before_reset; any format and padding (rank <= 4); OUTPUT (seq, batch, hidden) f32. Needs 16·hidden bytes
    of local memory."""

    name = "gru_sequence_ref"
    primitive = "gru_sequence"

    def supported_key(self) -> SupportedKey:
        """OpenCL, f32 everywhere."""
        return SupportedKey(input_dtypes=frozenset({DataType.f32}), output_dtypes=frozenset({DataType.f32}))

    def validate(self, params: Params) -> str | None:
        """The state and gate scratch fit in local memory (16·hidden bytes)."""
        n = params.inputs[1].shape[1]
        if 16 * n > params.caps.local_mem_bytes:
            return f"hidden {n} needs {16 * n} bytes of local memory, the device has {params.caps.local_mem_bytes}"
        return nd_check(params.inputs, params.output)

    def dispatch(self, params: Params) -> tuple[tuple[int, ...], tuple[int, ...] | None]:
        """One work-item per sequence."""
        return (params.inputs[1].shape[0],), (1,)

    def jit_constants(self, params: Params) -> JitConstants:
        """Tensors with N-D indexing; GRU_HIDDEN, GRU_BATCH, GRU_SEQ, GRU_REVERSE, GRU_CLIP, GRU_HAS_CLIP, GRU_LBR."""
        j = super().jit_constants(params)
        for i, lay in enumerate(params.inputs):
            j.update(nd_jit(f"INPUT{i}", lay))
        j.update(nd_jit("OUTPUT", params.output))
        a = params.attrs_as(GruSequenceAttrs)
        batch, n = params.inputs[1].shape
        return j.update({"GRU_HIDDEN": n, "GRU_BATCH": batch, "GRU_SEQ": params.output.shape[0],
                         "GRU_REVERSE": int(bool(a.reverse)), "GRU_CLIP": f"{float(a.clip)!r}f",
                         "GRU_HAS_CLIP": int(float(a.clip) > 0), "GRU_LBR": int(bool(a.linear_before_reset))})
