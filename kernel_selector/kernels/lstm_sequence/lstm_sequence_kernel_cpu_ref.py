"""lstm_sequence_cpu_ref: the CPU engine's LSTM sequence, a numpy loop over time (one GEMM per step)."""

from __future__ import annotations

import numpy as np

from cldnn_py.ops import LstmSequenceAttrs

from ...cpu_kernel_base import CpuRefKernel
from ...params import Params
from ...selector import register
from .lstm_sequence_kernel_ref import LstmSequenceKernelRef


def _sigmoid(x: np.ndarray) -> np.ndarray:
    with np.errstate(over="ignore"):
        return np.float32(1.0) / (np.float32(1.0) + np.exp(-x))


@register
class LstmSequenceKernelCpuRef(CpuRefKernel):
    """LSTM sequence on the CPU engine, the semantics of ``lstm_sequence_ref``: per step z = xw[t] + h·Rᵀ (one
    (batch, hidden) × (hidden, 4·hidden) GEMM), peepholes, clip, then c and h, in float32."""

    twin = LstmSequenceKernelRef

    def validate(self, params: Params) -> str | None:
        """Any shapes the primitive accepts (no local memory on the CPU engine)."""
        return None

    def compute(self, params: Params, inputs: list[np.ndarray]) -> np.ndarray:
        """(seq, batch, 2·hidden): h_t then c_t."""
        a = params.attrs_as(LstmSequenceAttrs)
        xw, h, c, r = (x.astype(np.float32, copy=False) for x in inputs[:4])
        batch, n = h.shape
        seq = xw.shape[0] // batch
        xw = xw.reshape(seq, batch, 4 * n)
        p = inputs[4].astype(np.float32).reshape(3, n) if len(inputs) == 5 else np.zeros((3, n), np.float32)
        clip = float(a.clip)

        def cl(v: np.ndarray) -> np.ndarray:
            return np.clip(v, -clip, clip) if clip > 0 else v

        rt = np.ascontiguousarray(r.T)
        out = np.empty((seq, batch, 2 * n), np.float32)
        for t in range(seq):
            s = seq - 1 - t if a.reverse else t
            z = xw[s] + h @ rt
            zi, zo, zf, zc = z[:, :n], z[:, n:2 * n], z[:, 2 * n:3 * n], z[:, 3 * n:]
            gi, gf = _sigmoid(cl(zi + p[0] * c)), _sigmoid(cl(zf + p[2] * c))
            c = gf * c + gi * np.tanh(cl(zc))
            h = _sigmoid(cl(zo + p[1] * c)) * np.tanh(c)
            out[s, :, :n], out[s, :, n:] = h, c
        return out
