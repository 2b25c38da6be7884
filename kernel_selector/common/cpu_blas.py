"""Helpers of the BLAS-backed CPU kernels (fully_connected_cpu_blas, gemm_cpu_blas): the small-batch numba
product :func:`fc_rows` (float32 or half weights) and logical readers / writers of buffers."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numba
import numpy as np
from numba import prange

from cldnn_py.layout import DataType, Format, Layout

from ..cpu_kernel_base import align_operand, apply_fused, physical_index, read_logical, write_logical
from ..params import Params
from .cpu_epilogue import act_chain_inplace, chain_arrays
from .cpu_half import as_f32
from .cpu_launch import Launcher, viewer
from .elementwise_numba import NJIT

SMALL_BATCH = 16  # batches up to this run fc_rows; larger ones BLAS


ROWS_PER_TASK = 16


@numba.njit(parallel=True, **NJIT)
def fc_rows(out: np.ndarray, x: np.ndarray, w: np.ndarray, bias: np.ndarray, has_bias: bool) -> None:
    """out[i, j] = Σ_t x[i, t] · w[j, t] (+ bias[j]) for C-contiguous out (N, M), x (N, K), w (M, K); out, x and
    bias float32, w float32 or the bit patterns of half weights (``uint16``: converted on load by
    :func:`~.cpu_half.as_f32`, ``vcvtph2ps`` in the vectorized loop; one more specialization, the float32 one
    unchanged).

    One task per ROWS_PER_TASK weight rows; register blocks of 2 weight rows x 4 input rows (8 vector
    accumulators, each loaded value used 4 or 2 times), the last 1-3 input rows in 2 x 1 blocks; with an odd row
    count the last block re-reads its row and drops the copy's results. The dot products index 1-D row views
    with the bare loop variable (vectorized; a 2-D index ``w[j, t]`` measured 7-40x slower). Measured at 1
    thread: AlexNet FC6 batch 8 16 ms (one row x one input per dot product: 28 ms), ResNet-50 FC batch 8 0.74 ms
    (1.5 ms)."""
    n, k = x.shape
    m = w.shape[0]
    for blk in prange((m + ROWS_PER_TASK - 1) // ROWS_PER_TASK):
        je = min(m, blk * ROWS_PER_TASK + ROWS_PER_TASK)
        for j in range(blk * ROWS_PER_TASK, je, 2):
            j1 = min(j + 1, je - 1)
            w0, w1 = w[j], w[j1]
            c0 = bias[j] if has_bias else np.float32(0.0)
            c1 = bias[j1] if has_bias else np.float32(0.0)
            i = 0
            while i + 4 <= n:
                x0, x1, x2, x3 = x[i], x[i + 1], x[i + 2], x[i + 3]
                a0 = a1 = a2 = a3 = b0 = b1 = b2 = b3 = np.float32(0.0)
                for t in range(k):
                    p, q = as_f32(w0[t]), as_f32(w1[t])
                    u0, u1, u2, u3 = x0[t], x1[t], x2[t], x3[t]
                    a0 += p * u0
                    a1 += p * u1
                    a2 += p * u2
                    a3 += p * u3
                    b0 += q * u0
                    b1 += q * u1
                    b2 += q * u2
                    b3 += q * u3
                out[i, j], out[i + 1, j], out[i + 2, j], out[i + 3, j] = a0 + c0, a1 + c0, a2 + c0, a3 + c0
                if j1 > j:
                    out[i, j1], out[i + 1, j1], out[i + 2, j1], out[i + 3, j1] = b0 + c1, b1 + c1, b2 + c1, b3 + c1
                i += 4
            while i < n:  # the last 1-3 input rows: 2 x 1 blocks
                xr = x[i]
                a0 = b0 = np.float32(0.0)
                for t in range(k):
                    u0 = xr[t]
                    a0 += as_f32(w0[t]) * u0
                    b0 += as_f32(w1[t]) * u0
                out[i, j] = a0 + c0
                if j1 > j:
                    out[i, j1] = b0 + c1
                i += 1


def logical_reader(lay: Layout, shape: tuple[int, ...]) -> Callable[[np.ndarray], np.ndarray]:
    """A function buffer -> the tensor as a logical array of ``shape`` (same element count): a zero-copy view for
    an unpadded bfyx layout, a gather through the physical index otherwise."""
    view, count = viewer(lay), lay.count()
    if lay.format == Format.bfyx and lay.padding.is_zero:
        return lambda buf: view(buf)[:count].reshape(shape)
    idx = physical_index(lay).reshape(shape)
    return lambda buf: view(buf)[idx]


def output_writer(lay: Layout) -> tuple[Callable[[np.ndarray], np.ndarray | None], Callable[..., None]]:
    """(direct, write): ``direct(buf)`` is a writable logical view of the output when it is unpadded bfyx f32 (None
    otherwise: the kernel computes into a float32 array); ``write(buf, value)`` stores a logical value into the
    interior, converted to the output's type (numpy's ``astype``: half rounds to nearest even) unless ``direct``
    gave the view it was computed in."""
    view, count = viewer(lay), lay.count()
    if lay.format == Format.bfyx and lay.padding.is_zero:
        if lay.dtype == DataType.f32:
            return (lambda buf: view(buf)[:count].reshape(lay.shape)), (lambda buf, v: None)

        def store(buf: np.ndarray, v: np.ndarray) -> None:
            with np.errstate(over="ignore"):  # past the type's range: infinity, as the OpenCL stores
                view(buf)[:count].reshape(lay.shape)[...] = v

        return (lambda buf: None), store
    return (lambda buf: None), (lambda buf, v: write_logical(buf, lay, v))


def rows_epilogue(params: Params) -> Callable[[np.ndarray, tuple[Any, ...]], None]:
    """``apply(dst, bufs)``: the fused ops of a fully connected layer on its (N, M) float32 result ``dst`` in place;
    a chain of activations only as the vectorized numba pass
    (:func:`~kernel_selector.common.cpu_epilogue.act_chain_inplace`) when ``dst`` is contiguous, anything else in
    numpy with the eltwise operands read from ``bufs`` (the kernel's buffers: inputs, output, then the operands)."""
    out, ops = params.output, list(params.fused_ops)
    extra = [lay for op in ops for lay in op.extra_inputs]
    acts = chain_arrays(ops, out)[:3] if ops and all(op.kind == "activation" for op in ops) else None
    n_in = len(params.inputs)
    launch = Launcher(out.count())

    def apply(dst: np.ndarray, bufs: tuple[Any, ...]) -> None:
        if acts is not None and dst.flags.c_contiguous:
            launch(act_chain_inplace, dst.reshape(-1), *acts)
        elif ops:
            operands = [read_logical(b, lay) for b, lay in zip(bufs[n_in + 1:], extra)]
            dst[...] = apply_fused(dst, ops, [align_operand(o, 2) for o in operands])

    return apply


@numba.njit(parallel=True, **NJIT)
def dot_rows(out: np.ndarray, x: np.ndarray, wt: np.ndarray, parts: int) -> None:  # pragma: no cover - numba
    """out = x · wt with the rows of x split into ``parts`` equal blocks, one BLAS product per block on numba's
    threads (balance211-style static split: block p has rows n·p/parts to n·(p+1)/parts). x (N, K) and out (N, M)
    C-contiguous, wt (K, M) C- or F-contiguous. Only with BLAS on one thread (:mod:`.cpu_blas_threads`: concurrent
    calls into a multi-threaded OpenBLAS are not safe); that is how a product then uses both cores."""
    n = x.shape[0]
    for p in prange(parts):
        r0, r1 = n * p // parts, n * (p + 1) // parts
        if r1 > r0:
            np.dot(x[r0:r1], wt, out[r0:r1])


@numba.njit(parallel=True, **NJIT)
def dot_batched(out: np.ndarray, a: np.ndarray, b: np.ndarray, parts: int) -> None:  # pragma: no cover - numba
    """out[i] = a[i] · b[i] for every batch item i of C-contiguous (batch, M, K), (batch, K, N) and (batch, M, N),
    each product's rows split into ``parts`` blocks: batch · parts BLAS calls on numba's threads (an attention
    block's 3-12 heads balance over 2 threads that way). Only with BLAS on one thread, as :func:`dot_rows`."""
    m = a.shape[1]
    for t in prange(a.shape[0] * parts):
        i, p = t // parts, t % parts
        r0, r1 = m * p // parts, m * (p + 1) // parts
        if r1 > r0:
            np.dot(a[i, r0:r1], b[i], out[i, r0:r1])
