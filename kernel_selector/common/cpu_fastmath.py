"""A float32 exponential that LLVM vectorizes, for the CPU kernels' logistic, SiLU (swish) and softmax loops.

numba lowers ``np.exp`` on float32 to ``llvm.exp.f32``, which LLVM can only turn into one libm ``expf`` call per
element (numba's vector math comes from Intel SVML, which the pip llvmlite is not built with): YOLO-style networks
spent most of a SiLU-fused 1×1 convolution's time in those calls (32 → 32 channels at 80×80: 0.46 ms, 28 GFLOP/s).
:func:`exp_f32` is Cephes' ``expf`` (S. Moshier; the algorithm of most SIMD math libraries, e.g. SLEEF's and
oneDNN's jit ``exp``): n = round(x / ln 2), r = x − n·ln 2 in two parts (Cody & Waite), a degree-6 polynomial for
e^r on [−ln 2 / 2, ln 2 / 2], and 2^n built from its exponent bits (:func:`bits_f32`, a bitcast). Every step is a
select or an arithmetic operation, so a loop over it becomes vector instructions (0.2 ns an element here against
1.8 for ``expf``). Accuracy: within 5 ulp of
``expf`` on [−87, 88] (tested); above 88.72 it is +inf, below −87 it is 0 (``expf`` gives subnormals down to −103:
an absolute difference below 1.2e-38), between 88 and 88.72 it is e^88 (the true value is at most 2x larger:
nothing a logistic, SiLU or softmax can see). NaN gives NaN.
"""

from __future__ import annotations

from typing import Any

import numba
import numpy as np
from llvmlite import ir
from numba import types
from numba.extending import intrinsic

from .elementwise_numba import NJIT

LOG2E = np.float32(1.44269504088896341)
LN2_HI = np.float32(0.693359375)
LN2_LO = np.float32(-2.12194440e-4)
X_HI = np.float32(88.0)  # n = 127 at most: 2^n stays a normal float
X_INF = np.float32(88.72283935546875)  # expf overflows above this
X_LO = np.float32(-87.0)  # n = -126 at least


@intrinsic
def bits_f32(typingctx: Any, i: Any) -> Any:
    """The float32 whose IEEE bits are the int32 ``i`` (a bitcast, no conversion)."""
    sig = types.float32(types.int32)

    def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
        return builder.bitcast(args[0], ir.FloatType())

    return sig, codegen


@numba.njit(inline="always", **NJIT)
def exp_f32(x: float) -> float:  # pragma: no cover - numba
    """e^x in float32 (module docstring: range, accuracy, NaN)."""
    xc = x if x < X_HI else X_HI
    xc = xc if xc > X_LO else X_LO  # (a NaN becomes X_LO here; restored at the end)
    n = np.floor(xc * LOG2E + np.float32(0.5))
    r = xc - n * LN2_HI
    r = r - n * LN2_LO
    p = np.float32(1.9875691500e-4)
    p = p * r + np.float32(1.3981999507e-3)
    p = p * r + np.float32(8.3334519073e-3)
    p = p * r + np.float32(4.1665795894e-2)
    p = p * r + np.float32(1.6666665459e-1)
    p = p * r + np.float32(5.0000001201e-1)
    y = (p * r * r + r + np.float32(1.0)) * bits_f32((np.int32(n) + np.int32(127)) << np.int32(23))  # type: ignore[call-arg]
    y = np.float32(np.inf) if x > X_INF else y
    y = np.float32(0.0) if x < X_LO else y
    return x if x != x else y


@numba.njit(inline="always", **NJIT)
def gelu_f32(x: float) -> float:  # pragma: no cover - numba
    """GELU (erf form) x·Φ(x) = 0.5·x·erfc(−x/√2) in float32, vectorizable: erfc(a) for a = |x|/√2 ≥ 0 is
    t·exp(−a² + P(t)), t = 1 / (1 + a/2), P of degree 9 (Numerical Recipes' erfcc, Press et al. 2007 §6.2.2: relative
    error under 1.2e-7 for every a ≥ 0) on :func:`exp_f32`; then 0.5·x·e for x < 0 and 0.5·x·(2 − e) otherwise, so
    neither tail cancels (the OpenCL kernels' CLDNN_GELU8 is the same formula). NaN gives NaN; below the float32
    range the result is 0."""
    half = np.float32(0.5)
    a = (x if x >= np.float32(0.0) else -x) * np.float32(0.70710678118654752)
    t = np.float32(1.0) / (np.float32(1.0) + half * a)
    p = np.float32(0.17087277)
    p = p * t + np.float32(-0.82215223)
    p = p * t + np.float32(1.48851587)
    p = p * t + np.float32(-1.13520398)
    p = p * t + np.float32(0.27886807)
    p = p * t + np.float32(-0.18628806)
    p = p * t + np.float32(0.09678418)
    p = p * t + np.float32(0.37409196)
    p = p * t + np.float32(1.00002368)
    p = p * t + np.float32(-1.26551223)
    e = t * exp_f32(p - a * a)
    return half * x * (e if x < np.float32(0.0) else np.float32(2.0) - e)


@numba.njit(inline="always", **NJIT)
def logistic_f32(x: float) -> float:  # pragma: no cover - numba
    """1 / (1 + e^−x) in float32 on :func:`exp_f32` (a vector loop; libm's ``expf`` is one call per element).
    Below x = −88.72 the result is 0, above 87 it is 1; NaN gives NaN."""
    return np.float32(1.0) / (np.float32(1.0) + exp_f32(-x))


@numba.njit(inline="always", **NJIT)
def tanh_f32(x: float) -> float:  # pragma: no cover - numba
    """tanh(x) in float32 without calls, Cephes' ``tanhf`` (S. Moshier) in select form: for |x| < 0.625 the odd
    polynomial x + x³·P(x²) (degree 4 in x²; no cancellation near 0), else 1 − 2 / (e^{2|x|} + 1) on
    :func:`exp_f32` (at least 0.55, so the subtraction loses nothing), the sign of x put back. Both branches are
    computed and one selected, so a loop over it vectorizes. Within a few ulp of ``np.tanh`` (tested); ±1 beyond
    |x| = 44; NaN gives NaN."""
    a = x if x >= np.float32(0.0) else -x
    z = a * a
    p = np.float32(-5.70498872745e-3)
    p = p * z + np.float32(2.06390887954e-2)
    p = p * z + np.float32(-5.37397155531e-2)
    p = p * z + np.float32(1.33314422036e-1)
    p = p * z + np.float32(-3.33332819422e-1)
    small = p * z * a + a
    big = np.float32(1.0) - np.float32(2.0) / (exp_f32(a + a) + np.float32(1.0))
    r = small if a < np.float32(0.625) else big
    r = r if x >= np.float32(0.0) else -r
    return x if x != x else r
