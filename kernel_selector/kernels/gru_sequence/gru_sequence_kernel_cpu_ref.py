"""gru_sequence_cpu_ref: the CPU engine's GRU sequence, a numpy loop over time (two products per step)."""

from __future__ import annotations

import numpy as np

from cldnn_py.ops import GruSequenceAttrs

from ...cpu_kernel_base import CpuRefKernel
from ...params import Params
from ...selector import register
from .gru_sequence_kernel_ref import GruSequenceKernelRef


def _sigmoid(x: np.ndarray) -> np.ndarray:
    with np.errstate(over="ignore"):
        return np.float32(1.0) / (np.float32(1.0) + np.exp(-x))


@register
class GruSequenceKernelCpuRef(CpuRefKernel):
    """GRU sequence on the CPU engine, the semantics of ``gru_sequence_ref``: per step z, r = σ(xw + h·R_zrᵀ), then
    h~ = tanh(xw_h + (r∘h)·R_hᵀ) or tanh(xw_h + r∘(h·R_hᵀ + Rb_h)) (linear_before_reset), h = (1 − z)∘h~ + z∘h,
    in float32."""

    twin = GruSequenceKernelRef

    def validate(self, params: Params) -> str | None:
        """Any shapes the primitive accepts (no local memory on the CPU engine)."""
        return None

    def compute(self, params: Params, inputs: list[np.ndarray]) -> np.ndarray:
        """(seq, batch, hidden): H_t."""
        a = params.attrs_as(GruSequenceAttrs)
        xw, h, r = (x.astype(np.float32, copy=False) for x in inputs[:3])
        batch, n = h.shape
        seq = xw.shape[0] // batch
        xw = xw.reshape(seq, batch, 3 * n)
        rbh = inputs[3].astype(np.float32).reshape(n) if len(inputs) == 4 else None
        clip = float(a.clip)

        def cl(v: np.ndarray) -> np.ndarray:
            return np.clip(v, -clip, clip) if clip > 0 else v

        rzr, rh = np.ascontiguousarray(r[:2 * n].T), np.ascontiguousarray(r[2 * n:].T)
        out = np.empty((seq, batch, n), np.float32)
        for t in range(seq):
            s = seq - 1 - t if a.reverse else t
            zr = xw[s, :, :2 * n] + h @ rzr
            z, rg = _sigmoid(cl(zr[:, :n])), _sigmoid(cl(zr[:, n:]))
            if rbh is not None:
                hh = np.tanh(cl(xw[s, :, 2 * n:] + rg * (h @ rh + rbh)))
            else:
                hh = np.tanh(cl(xw[s, :, 2 * n:] + (rg * h) @ rh))
            h = (np.float32(1.0) - z) * hh + z * h
            out[s] = h
        return out
