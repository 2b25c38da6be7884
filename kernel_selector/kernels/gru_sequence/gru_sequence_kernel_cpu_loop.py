"""gru_sequence_cpu_loop: the CPU engine's GRU time loop in one numba function (``lstm_sequence_cpu_loop``'s form).

Per step and sequence: R_zr·h as 2·hidden vectorized dot products over R's rows as they lie, the update and reset
gates as straight loops on :func:`~kernel_selector.common.cpu_fastmath.logistic_f32`, R_h·h (or R_h·(r ⊙ h)) the
same way, then the candidate state through :func:`~kernel_selector.common.cpu_fastmath.tanh_f32` (vector code,
``error_model="numpy"``); the sequences of the batch in parallel (``prange``). The numpy reference makes the same
products with a dozen numpy calls per step around them; the previous form of this loop (per-step sgemv and libm
``expf`` / ``tanhf`` array expressions) took 2-3x as long.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numba
import numpy as np

from cldnn_py.ops import GruSequenceAttrs

from ...common.cpu_fastmath import logistic_f32, tanh_f32
from ...common.cpu_gates import RECURRENT_FASTMATH, direct_io
from ...cpu_kernel_base import CpuRefKernel
from ...kernel_base import FORCE_PRIORITY_3
from ...params import Params
from ...selector import register
from .gru_sequence_kernel_ref import GruSequenceKernelRef


@numba.njit(parallel=True, cache=True, fastmath=RECURRENT_FASTMATH, error_model="numpy")
def _recurrence(xw: Any, h0: Any, r: Any, rbh: Any, lbr: bool, clip: float, reverse: bool,
                out: Any) -> None:  # pragma: no cover - numba
    """xw (seq, batch, 3n), h0 (batch, n), r = R (3n, n) (rows z, r, h), rbh (n,) → out (seq, batch, n)."""
    seq, batch, g3 = xw.shape
    n = g3 // 3
    one = np.float32(1.0)
    lim = np.float32(clip) if clip > 0.0 else np.float32(3.4e38)  # no clip: a bound no finite value passes
    for b in numba.prange(batch):
        h = h0[b].copy()
        zr = np.empty(2 * n, np.float32)
        a = np.empty(n, np.float32)
        rh = np.empty(n, np.float32)
        for t in range(seq):
            s = seq - 1 - t if reverse else t
            x = xw[s, b]
            for j in range(2 * n):
                rj = r[j]
                acc = np.float32(0.0)
                for k in range(n):
                    acc += rj[k] * h[k]
                zr[j] = logistic_f32(min(max(x[j] + acc, -lim), lim))
            if lbr:
                for j in range(n):
                    rj = r[2 * n + j]
                    acc = np.float32(0.0)
                    for k in range(n):
                        acc += rj[k] * h[k]
                    a[j] = x[2 * n + j] + zr[n + j] * (acc + rbh[j])
            else:
                for k in range(n):
                    rh[k] = zr[n + k] * h[k]
                for j in range(n):
                    rj = r[2 * n + j]
                    acc = np.float32(0.0)
                    for k in range(n):
                        acc += rj[k] * rh[k]
                    a[j] = x[2 * n + j] + acc
            for j in range(n):
                z = zr[j]
                h[j] = (one - z) * tanh_f32(min(max(a[j], -lim), lim)) + z * h[j]
            o = out[s, b]
            for j in range(n):
                o[j] = h[j]


@register
class GruSequenceKernelCpuLoop(CpuRefKernel):
    """GRU sequence on the CPU engine, the semantics of ``gru_sequence_ref`` (INPUT0 xw (seq·batch, 3·hidden),
    INPUT1 h0 (batch, hidden), INPUT2 R (3·hidden, hidden), INPUT3 Rb_h with linear_before_reset; OUTPUT (seq,
    batch, hidden) f32; any format and padding: unpadded bfyx f32 operands in place, others through their physical
    index), with the time loop in numba (module docstring)."""

    twin = GruSequenceKernelRef
    name = "gru_sequence_cpu_loop"

    def priority(self, params: Params) -> int:
        """Ahead of the numpy reference."""
        return FORCE_PRIORITY_3

    def validate(self, params: Params) -> str | None:
        """Any shapes the primitive accepts."""
        return None

    def make_fn(self, params: Params) -> Callable[..., None]:
        """fn(xw, h0, R, [Rb_h], out) on raw buffers: operands in place where they are unpadded bfyx f32
        (:func:`~kernel_selector.common.cpu_gates.direct_io`)."""
        return direct_io(params, lambda xs, out: self._run(params, xs, out))

    @staticmethod
    def _run(params: Params, xs: list[np.ndarray], out: np.ndarray) -> None:
        a = params.attrs_as(GruSequenceAttrs)
        xw, h, r = (np.ascontiguousarray(x) for x in xs[:3])
        batch, n = h.shape
        seq = xw.shape[0] // batch
        rbh = np.ascontiguousarray(xs[3].reshape(n)) if len(xs) == 4 else np.zeros(n, np.float32)
        _recurrence(xw.reshape(seq, batch, 3 * n), h, r, rbh, len(xs) == 4, float(a.clip), bool(a.reverse),
                    out.reshape(seq, batch, n))
