"""The one-pixel form of ``convolution_cpu_packed``: a dense 1×1 convolution of a 1×1 image as one GEMV per image
(:func:`~kernel_selector.common.cpu_gemv.gemv_panel` per 16-channel weight panel), with the same epilogue as the
micro-kernel's (bias, clamp, fake quantization, residual sum, clamp, fake quantization) and the rest of the fused
chain. The squeeze-and-excitation layers of MobileNetV3 / EfficientNet-style networks and classifiers written as
convolutions: the GEMM tiles spent 31 of 32 columns on nothing there (0.05 ms a layer for 0.08 MFLOP)."""

from __future__ import annotations

import numba
import numpy as np
from numba import prange

from ...common.cpu_epilogue import I0, I1, chain_span
from ...common.cpu_fastmath import exp_f32
from ...common.cpu_gemv import gemv_panel
from ...common.cpu_microkernel import HSWISH, SILU
from ...common.elementwise_numba import NJIT


@numba.njit(**NJIT)
def _fake_quant(v: float, q: np.ndarray, at: int) -> float:
    """clamp(rint(a v + b), lo, hi) * c + d with (a, b, lo, hi, c, d) = q[at:at + 6] (the micro-kernel's)."""
    t = np.rint(q[at] * v + q[at + 1])
    t = t if t > q[at + 2] else q[at + 2]
    t = t if t < q[at + 3] else q[at + 3]
    return q[at + 4] * t + q[at + 5]


@numba.njit(parallel=True, **NJIT)
def gemv_panels(wp: np.ndarray, k: int, oc: int, b: np.ndarray, b_off: int, ldb: int, c: np.ndarray, c_off: int,
                ldc: int, bias: np.ndarray, has_bias: int, res: np.ndarray, r_off: int, r_f: int,
                clamp: np.ndarray, flags: int, codes: np.ndarray, fa: np.ndarray, fb: np.ndarray, rest: np.ndarray,
                q_off: int, q_f: int, n_img: int, b_img: int, c_img: int,
                r_img: int, q_img: int) -> None:  # pragma: no cover - numba
    """For each image i and output channel o < ``oc``: c[c_off + i·c_img + o·ldc] = epilogue(Σ_t wp-panel(o, t) ·
    b[b_off + i·b_img + t·ldb]) over t < ``k``; ``wp`` the os_iyx_osv16 weights (OC padded to 16). Epilogue as
    :mod:`~kernel_selector.common.cpu_microkernel`'s: + bias[o] when ``has_bias``, clamp to clamp[0:2] when
    ``flags & 1``, the fake quantization clamp[4:10] when ``flags & 8``, SiLU when ``flags & SILU``, HardSwish when
    ``flags & HSWISH``, + res[r_off + i·r_img + o·r_f] when ``r_off >= 0``, clamp to clamp[2:4] when ``flags & 2``,
    the fake quantization clamp[10:16] when ``flags & 16`` (a NaN becomes the bound, as llvm.maxnum / minnum), then
    the chain ``codes`` with operand rest[q_off + i·q_img + o·q_f]. A task per (image, 16-channel panel)."""
    n_pan = (oc + 15) // 16
    for task in prange(n_img * n_pan):
        im = task // n_pan
        pn = task % n_pan
        y = np.empty(16, np.float32)
        gemv_panel(wp, pn * k * 16, b, b_off + im * b_img, ldb, k, y, 0)  # type: ignore[call-arg]
        o0 = pn * 16
        n = min(16, oc - o0)
        for i in range(n):
            o = o0 + i
            v = y[i]
            if has_bias:
                v += bias[o]
            if flags & 1:
                v = v if v > clamp[0] else clamp[0]
                v = v if v < clamp[1] else clamp[1]
            if flags & 8:
                v = _fake_quant(v, clamp, 4)
            if flags & SILU:
                v = v / (np.float32(1.0) + exp_f32(-v))
            if flags & HSWISH:
                t = v + np.float32(3.0)
                t = t if t > np.float32(0.0) else np.float32(0.0)
                t = t if t < np.float32(6.0) else np.float32(6.0)
                v = v * t * np.float32(1.0 / 6.0)
            if r_off >= 0:
                v += res[r_off + im * r_img + o * r_f]
            if flags & 2:
                v = v if v > clamp[2] else clamp[2]
                v = v if v < clamp[3] else clamp[3]
            if flags & 16:
                v = _fake_quant(v, clamp, 10)
            c[c_off + im * c_img + o * ldc] = v
        if codes.shape[0]:
            if ldc == 1:
                chain_span(c, c_off + im * c_img + o0, n, codes, fa, fb, rest, q_off + im * q_img + o0 * q_f, q_f)
            else:
                for i in range(n):
                    o = o0 + i
                    chain_span(c, c_off + im * c_img + o * ldc, I1, codes, fa, fb, rest,
                               q_off + im * q_img + o * q_f, I0)
