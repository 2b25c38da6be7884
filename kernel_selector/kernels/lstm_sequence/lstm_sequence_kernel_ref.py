"""lstm_sequence_ref: one work-group per sequence in the batch, one work-item per hidden unit, the hidden state in
local memory, the whole time loop in one kernel (two barriers per step)."""

from __future__ import annotations

from cldnn_py.layout import DataType
from cldnn_py.ops import LstmSequenceAttrs

from ...common.nd_index import nd_check, nd_jit
from ...jitter import JitConstants
from ...kernel_base import KernelBase
from ...params import Params, SupportedKey
from ...selector import register


@register
class LstmSequenceKernelRef(KernelBase):
    """Reference LSTM sequence (the recurrence of ONNX LSTM with logistic / tanh / tanh; clDNN ``lstm_elt`` fused
    with the recurrent GEMV and the time loop). gws = (lws, batch), lws = (lws, 1): work-item j of group b
    keeps c_j in a register and h in ``__local float[hidden]``; per step it computes its four gate rows
    (xw + R·h, reading the hidden state from local memory), the peepholes and clip, then c and h, and writes both
    to the output; barriers separate the reads of h from its update. One launch for the whole sequence, where an
    unrolled graph needs about ten per step. A hidden size beyond the work-group size (capped at 256) gives each
    work-item several units; the hidden state needs 4·hidden bytes of local memory.

    INPUT0 xw (seq·batch, 4·hidden), INPUT1 h0, INPUT2 c0 (batch, hidden), INPUT3 R (4·hidden, hidden), optional
    INPUT4 P (3·hidden); any format and padding (rank <= 4); OUTPUT (seq, batch, 2·hidden) f32.
    """

    name = "lstm_sequence_ref"
    primitive = "lstm_sequence"

    def supported_key(self) -> SupportedKey:
        """OpenCL, f32 everywhere."""
        return SupportedKey(input_dtypes=frozenset({DataType.f32}), output_dtypes=frozenset({DataType.f32}))

    def validate(self, params: Params) -> str | None:
        """The hidden state fits in local memory (4·hidden bytes)."""
        n = params.inputs[1].shape[1]
        if 4 * n > params.caps.local_mem_bytes:
            return f"hidden {n} needs {4 * n} bytes of local memory, the device has {params.caps.local_mem_bytes}"
        return nd_check(params.inputs, params.output)

    @staticmethod
    def lws(params: Params) -> int:
        """Work-items per sequence: hidden, capped at 256 and at the device's work-group limits."""
        caps = params.caps
        return max(1, min(params.inputs[1].shape[1], 256, caps.max_work_group_size, caps.max_work_item_sizes[0]))

    def dispatch(self, params: Params) -> tuple[tuple[int, ...], tuple[int, ...] | None]:
        """(lws, batch) work-items in groups of (lws, 1)."""
        n = self.lws(params)
        return (n, params.inputs[1].shape[0]), (n, 1)

    def jit_constants(self, params: Params) -> JitConstants:
        """Tensors with N-D indexing; LSTM_HIDDEN, LSTM_BATCH, LSTM_SEQ, LSTM_REVERSE, LSTM_CLIP, LSTM_HAS_CLIP,
        LSTM_PEEPHOLES,
        LSTM_LWS, LSTM_PER_ITEM (hidden units per work-item)."""
        j = super().jit_constants(params)
        for i, lay in enumerate(params.inputs):
            j.update(nd_jit(f"INPUT{i}", lay))
        j.update(nd_jit("OUTPUT", params.output))
        a = params.attrs_as(LstmSequenceAttrs)
        batch, n = params.inputs[1].shape
        lws = self.lws(params)
        return j.update({"LSTM_HIDDEN": n, "LSTM_BATCH": batch, "LSTM_SEQ": params.output.shape[0],
                         "LSTM_REVERSE": int(bool(a.reverse)), "LSTM_CLIP": f"{float(a.clip)!r}f",
                         "LSTM_HAS_CLIP": int(float(a.clip) > 0),
                         "LSTM_PEEPHOLES": int(len(params.inputs) == 5), "LSTM_LWS": lws,
                         "LSTM_PER_ITEM": -(-n // lws)})
