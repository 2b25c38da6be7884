"""gru_sequence_cpu_loop: the CPU engine's GRU time loop in one numba function (``lstm_sequence_cpu_loop``'s form).

Per step and sequence: H·R_zrᵀ as one BLAS product (numba's ``np.dot``: scipy's sgemv), the gates as float32
array expressions, then the candidate state; the sequences of the batch in parallel (``prange``). The numpy
reference makes the same products with a dozen numpy calls per step around them.
"""

from __future__ import annotations

from typing import Any

import numba
import numpy as np

from cldnn_py.ops import GruSequenceAttrs

from ...common.cpu_gates import RECURRENT_FASTMATH, gate_clip
from ...cpu_kernel_base import CpuRefKernel
from ...kernel_base import FORCE_PRIORITY_3
from ...params import Params
from ...selector import register
from .gru_sequence_kernel_ref import GruSequenceKernelRef


@numba.njit(parallel=True, cache=True, fastmath=RECURRENT_FASTMATH)
def _recurrence(xw: Any, h0: Any, rzr: Any, rh: Any, rbh: Any, lbr: bool, clip: float, reverse: bool,
                out: Any) -> None:
    """xw (seq, batch, 3n), h0 (batch, n), rzr = R_zrᵀ (n, 2n), rh = R_hᵀ (n, n), rbh (n,) → out (seq, batch, n)."""
    seq, batch, g3 = xw.shape
    n = g3 // 3
    one = np.float32(1.0)
    for b in numba.prange(batch):
        h = h0[b].copy()
        for t in range(seq):
            s = seq - 1 - t if reverse else t
            x = xw[s, b]
            zr = x[:2 * n] + np.dot(h, rzr)
            z = one / (one + np.exp(-gate_clip(zr[:n], clip)))
            r = one / (one + np.exp(-gate_clip(zr[n:], clip)))
            if lbr:
                a = x[2 * n:] + r * (np.dot(h, rh) + rbh)
            else:
                a = x[2 * n:] + np.dot(r * h, rh)
            h = (one - z) * np.tanh(gate_clip(a, clip)) + z * h
            out[s, b] = h


@register
class GruSequenceKernelCpuLoop(CpuRefKernel):
    """GRU sequence on the CPU engine, the semantics of ``gru_sequence_ref`` (INPUT0 xw (seq·batch, 3·hidden),
    INPUT1 h0 (batch, hidden), INPUT2 R (3·hidden, hidden), INPUT3 Rb_h with linear_before_reset; OUTPUT (seq,
    batch, hidden) f32; any format and padding, read and written through :class:`CpuRefKernel`'s logical index
    maps), with the time loop in numba (module docstring)."""

    twin = GruSequenceKernelRef
    name = "gru_sequence_cpu_loop"

    def priority(self, params: Params) -> int:
        """Ahead of the numpy reference."""
        return FORCE_PRIORITY_3

    def validate(self, params: Params) -> str | None:
        """Any shapes the primitive accepts."""
        return None

    def compute(self, params: Params, inputs: list[np.ndarray]) -> np.ndarray:
        """(seq, batch, hidden): H_t."""
        a = params.attrs_as(GruSequenceAttrs)
        xw, h, r = (np.ascontiguousarray(x, dtype=np.float32) for x in inputs[:3])
        batch, n = h.shape
        seq = xw.shape[0] // batch
        rbh = inputs[3].astype(np.float32).reshape(n) if len(inputs) == 4 else np.zeros(n, np.float32)
        out = np.empty((seq, batch, n), np.float32)
        _recurrence(xw.reshape(seq, batch, 3 * n), h, np.ascontiguousarray(r[:2 * n].T),
                    np.ascontiguousarray(r[2 * n:].T), rbh, len(inputs) == 4, float(a.clip), bool(a.reverse), out)
        return out
