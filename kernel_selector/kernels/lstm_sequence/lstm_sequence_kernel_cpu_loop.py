"""lstm_sequence_cpu_loop: the CPU engine's LSTM time loop in one numba function, R and the operands in place.

``lstm_sequence_cpu_ref`` runs the recurrence as numpy calls per step (a (batch, hidden) × (hidden, 4·hidden)
product, then ten elementwise calls on (batch, hidden) arrays), mostly call overhead at small batches. Here each
step is R·h as 4·hidden vectorized dot products over R's rows as they lie (no transpose; the step is bound by
streaming R from L2: 256 KB at hidden 128, the same 2.7 µs for the dot, axpy-over-Rᵀ and packed-panel GEMV forms),
and the gates as three straight loops on :func:`~kernel_selector.common.cpu_fastmath.logistic_f32` /
:func:`~kernel_selector.common.cpu_fastmath.tanh_f32` (Cephes-style, vector code, within 3 ulp), compiled with
``error_model="numpy"`` so that no zero-division check stops them from vectorizing. Measured on the CRNN of
``tools/real_shapes`` (hidden 128, 80 steps, batch 1, one direction): 0.25 ms for the loop (0.9 ms as per-step
BLAS sgemv and libm ``expf`` / ``tanhf`` array expressions, of which the gates were 0.25 ms unvectorized).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numba
import numpy as np

from cldnn_py.ops import LstmSequenceAttrs

from ...common.cpu_fastmath import logistic_f32, tanh_f32
from ...common.cpu_gates import RECURRENT_FASTMATH, direct_io
from ...cpu_kernel_base import CpuRefKernel
from ...kernel_base import FORCE_PRIORITY_3
from ...params import Params
from ...selector import register
from .lstm_sequence_kernel_ref import LstmSequenceKernelRef


@numba.njit(parallel=True, cache=True, fastmath=RECURRENT_FASTMATH, error_model="numpy")
def _recurrence(xw: Any, h0: Any, c0: Any, r: Any, p: Any, clip: float, reverse: bool,
                out: Any) -> None:  # pragma: no cover - numba
    """xw (seq, batch, 4n), h0 / c0 (batch, n), r = R (4n, n), p (3, n) → out (seq, batch, 2n): h then c.

    Per step: z = xw[s] + R·h as 4n dot products of length n (vector reductions; R streamed from L2, which bounds
    the step: 4n·n·4 bytes), then the gates (ONNX's i, o, f, c order) in three straight loops over the units,
    through :func:`logistic_f32` / :func:`tanh_f32` (vector code; ``np.exp`` / ``np.tanh`` are libm calls per
    element). ``error_model="numpy"``: with Python's, every division carries a zero check that stops the loops
    from vectorizing."""
    seq, batch, g4 = xw.shape
    n = g4 // 4
    lim = np.float32(clip) if clip > 0.0 else np.float32(3.4e38)  # no clip: a bound no finite value passes
    p0, p1, p2 = p[0], p[1], p[2]
    for b in numba.prange(batch):
        h = h0[b].copy()
        c = c0[b].copy()
        z = np.empty(g4, np.float32)
        for t in range(seq):
            s = seq - 1 - t if reverse else t
            xs = xw[s, b]
            for j in range(g4):
                rj = r[j]
                acc = np.float32(0.0)
                for k in range(n):
                    acc += rj[k] * h[k]
                z[j] = xs[j] + acc
            zi, zo, zf, zc = z[:n], z[n:2 * n], z[2 * n:3 * n], z[3 * n:]
            for j in range(n):  # the cell: input and forget gates see the previous c through the peepholes
                cj = c[j]
                gi = logistic_f32(min(max(zi[j] + p0[j] * cj, -lim), lim))
                gf = logistic_f32(min(max(zf[j] + p2[j] * cj, -lim), lim))
                c[j] = gf * cj + gi * tanh_f32(min(max(zc[j], -lim), lim))
            for j in range(n):  # the output gate sees the new c
                cj = c[j]
                h[j] = logistic_f32(min(max(zo[j] + p1[j] * cj, -lim), lim)) * tanh_f32(cj)
            oh, oc = out[s, b, :n], out[s, b, n:]
            for j in range(n):
                oh[j] = h[j]
                oc[j] = c[j]


@register
class LstmSequenceKernelCpuLoop(CpuRefKernel):
    """LSTM sequence on the CPU engine, the semantics of ``lstm_sequence_ref`` (INPUT0 xw (seq·batch, 4·hidden),
    INPUT1 h0 / INPUT2 c0 (batch, hidden), INPUT3 R (4·hidden, hidden), optional INPUT4 P (3·hidden); OUTPUT (seq,
    batch, 2·hidden) f32; any format and padding: unpadded bfyx f32 operands in place, others through their
    physical index), with the time loop in numba (:func:`_recurrence`). Sequences of the batch in parallel; one
    sequence (batch 1) on one core, its step bound by reading R from L2."""

    twin = LstmSequenceKernelRef
    name = "lstm_sequence_cpu_loop"

    def priority(self, params: Params) -> int:
        """Ahead of the numpy reference."""
        return FORCE_PRIORITY_3

    def validate(self, params: Params) -> str | None:
        """Any shapes the primitive accepts."""
        return None

    def make_fn(self, params: Params) -> Callable[..., None]:
        """fn(xw, h0, c0, R, [P], out) on raw buffers: operands in place where they are unpadded bfyx f32
        (:func:`~kernel_selector.common.cpu_gates.direct_io`)."""
        return direct_io(params, lambda xs, out: self._run(params, xs, out))

    @staticmethod
    def _run(params: Params, xs: list[np.ndarray], out: np.ndarray) -> None:
        a = params.attrs_as(LstmSequenceAttrs)
        xw, h, c, r = (np.ascontiguousarray(x) for x in xs[:4])
        batch, n = h.shape
        seq = xw.shape[0] // batch
        p = np.ascontiguousarray(xs[4].reshape(3, n)) if len(xs) == 5 else np.zeros((3, n), np.float32)
        _recurrence(xw.reshape(seq, batch, 4 * n), h, c, r, p, float(a.clip), bool(a.reverse),
                    out.reshape(seq, batch, 2 * n))
