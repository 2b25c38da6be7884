"""gru_sequence_packed: the GRU time loop for CPU devices with R packed in os_iyx_osv16, 8 units per float8.

``lstm_sequence_packed``'s recipe (docs/onnx.md, "Recurrent operators"): reorder_inputs packs R (3·hidden, hidden)
as [3·hidden/16][hidden][16] at build, so the 8 rows of a gate that a unit block needs are 32 contiguous bytes at
every k; one work-item runs a whole sequence, two blocks at a time, no barriers. A step is one pass of H·R_zᵀ,
H·R_rᵀ (and H·R_hᵀ with linear_before_reset) and, without linear_before_reset, a second pass of (r∘H)·R_hᵀ.
"""

from __future__ import annotations

from cldnn_py.layout import Format

from ...kernel_base import FORCE_PRIORITY_3
from ...params import Params
from ...selector import register
from .gru_sequence_kernel_ref import GruSequenceKernelRef

UNITS = 8  # hidden units per block: one float8 per gate
PACKED = Format.os_iyx_osv16


@register
class GruSequenceKernelPacked(GruSequenceKernelRef):
    """GRU sequence (the semantics of :class:`GruSequenceKernelRef`), CPU tier, for hidden % 8 == 0 with INPUT2 R
    (3·hidden, hidden) in ``os_iyx_osv16`` unpadded: gws = (batch,), lws = (1,); work-item b keeps h
    (double-buffered), z and a reset product of every unit in ``__local`` memory of its group of one (16·hidden
    bytes). INPUT0 xw, INPUT1 h0, INPUT3 Rb_h in any format and padding (rank <= 4, N-D index macros); OUTPUT
    (seq, batch, hidden); all f32."""

    name = "gru_sequence_packed"
    tier = "cpu"

    def validate(self, params: Params) -> str | None:
        """hidden % 8 == 0, R packed unpadded, the reference's local memory."""
        n = params.inputs[1].shape[1]
        if n % UNITS:
            return f"hidden {n} is not a multiple of {UNITS}"
        r = params.inputs[2]
        if r.format != PACKED or not r.padding.is_zero:
            return f"R must be {PACKED.value} without padding, got {r.format.value} {r.padding}"
        return super().validate(params)

    def priority(self, params: Params) -> int:
        """Ahead of the reference."""
        return FORCE_PRIORITY_3
