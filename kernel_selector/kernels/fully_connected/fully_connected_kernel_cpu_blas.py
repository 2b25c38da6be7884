"""fully_connected_cpu_blas: the CPU engine's fast inner product, y = x·Wᵀ + bias: a numba row-streaming kernel for
small batches (N <= SMALL_BATCH, weights read once, bandwidth-bound) and numpy's BLAS (OpenBLAS sgemm, its own
threads) for larger ones; bias and fused ops applied in place on the output.

Input of any rank and format flattened to (N, K) in logical order, k = (f·Y + y)·X + x, as ``fully_connected_ref``
(cl_kernels/fully_connected_ref.cl) does: an unpadded bfyx input is a zero-copy view, anything else (b_fs_yx_fsv16
straight after a convolution, padded buffers) is gathered once per call through its physical index (N·K floats,
negligible next to the N·K·M product). Weights (M, K) plain, read in place through their pitches (no copy when
row-major).

Small batches (the inference case): :func:`fc_rows`, one numba task per 16 weight rows, each row streamed once and
dotted with the N input rows from cache (2 x 4 register blocks of vectorized float32 reductions); measured at 1
thread on this machine: ResNet-50 FC (2048->1000) batch 8 0.74 ms vs 7 ms for OpenBLAS, AlexNet FC6 (9216->4096)
batch 8 16 ms vs 46 ms, batch 1 equal (memory-bound). Larger batches: BLAS, with the long dimension first
(OpenBLAS is 2-4x faster on this machine computing ``W @ xᵀ`` than ``x @ Wᵀ``: FC6 at N = 8, 70 ms vs 245 ms),
the transpose copied out.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numba
import numpy as np
from numba import prange

from cldnn_py.layout import DataType, Format, Layout

from ...common.cpu_fused import cpu_fused_reason
from ...cpu_kernel_base import (
    CPU,
    CpuKernelBase,
    align_operand,
    apply_fused,
    physical_index,
    read_logical,
    write_logical,
)
from ...kernel_base import FORCE_PRIORITY_3
from ...params import Params, SupportedKey
from ...selector import register
from ..cpu_epilogue import EMPTY, NJIT, layout_offset
from ..cpu_launch import Launcher, viewer

F32 = frozenset({DataType.f32})
SMALL_BATCH = 16  # batches up to this run fc_rows; larger ones BLAS
ROWS_PER_TASK = 16


@numba.njit(parallel=True, **NJIT)
def fc_rows(out: np.ndarray, x: np.ndarray, w: np.ndarray, bias: np.ndarray, has_bias: bool) -> None:
    """out[i, j] = Σ_t x[i, t] · w[j, t] (+ bias[j]) for C-contiguous out (N, M), x (N, K), w (M, K).

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
                    p, q = w0[t], w1[t]
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
                    a0 += w0[t] * u0
                    b0 += w1[t] * u0
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


def strided_2d(lay: Layout) -> Callable[[np.ndarray], np.ndarray]:
    """A function buffer -> the (rows, cols) view of a rank-2 plain layout through its pitches (no copy)."""
    rows, cols = lay.shape
    view = viewer(lay)
    if lay.format in (Format.bfyx, Format.oiyx) and lay.padding.is_zero:  # row-major: a plain reshape (cheap)
        return lambda buf: view(buf)[:rows * cols].reshape(rows, cols)
    off, p = layout_offset(lay), lay.pitches
    size = lay.dtype.size
    strides = (p["b"] * size, p["f"] * size)
    return lambda buf: np.lib.stride_tricks.as_strided(view(buf)[off:], (rows, cols), strides)


def output_writer(lay: Layout) -> tuple[Callable[[np.ndarray], np.ndarray | None], Callable[..., None]]:
    """(direct, write): ``direct(buf)`` is a writable logical view of the output when it is unpadded bfyx (None
    otherwise); ``write(buf, value)`` stores a logical value into the interior."""
    if lay.format == Format.bfyx and lay.padding.is_zero:
        view, count = viewer(lay), lay.count()
        return (lambda buf: view(buf)[:count].reshape(lay.shape)), (lambda buf, v: None)
    return (lambda buf: None), (lambda buf, v: write_logical(buf, lay, v))


@register
class FullyConnectedKernelCpuBlas(CpuKernelBase):
    """y[n, m] = Σ_k x[n, k] · W[m, k] + bias[m], then the fused ops, on the CPU engine through BLAS.

    Inputs: data (N, ...) f32 of rank 1-6 (flattened to (N, K) in logical order), any format, padded or not;
    weights (M, K) f32 in a plain format (``os_iyx_osv16`` is rejected: a packed panel would make BLAS run 256
    skinny products; reorder_inputs then keeps the weights plain); bias (optional) with M f32 elements of any shape
    and layout. Output (N, M) f32 bfyx, padded or not. Fused ops: activations and eltwise (sum/sub/prod/div/max/
    min/pow) with one operand broadcastable to (N, M), applied in numpy. Threads: OpenBLAS's.
    """

    name = "fully_connected_cpu_blas"
    primitive = "fully_connected"
    supports_fused_ops = True

    def supported_key(self) -> SupportedKey:
        """CPU, f32 data and output, any format, padding allowed."""
        return SupportedKey(engines=CPU, input_dtypes=F32, output_dtypes=F32)

    def validate(self, params: Params) -> str | None:
        """Plain f32 (M, K) weights matching the input's K, bias of M f32 elements, numpy-expressible fused ops."""
        x, w = params.inputs[0], params.inputs[1]
        if w.rank != 2 or w.dtype != DataType.f32:
            return f"weights must be rank-2 f32, got {w}"
        if w.format.is_blocked:
            return f"weights format {w.format.value} is packed; BLAS reads (M, K) plain"
        if w.shape[1] != x.count() // x.shape[0]:
            return f"weights have {w.shape[1]} columns, input has K = {x.count() // x.shape[0]}"
        if len(params.inputs) > 2 and (params.inputs[2].count() != w.shape[0]
                                       or params.inputs[2].dtype != DataType.f32):
            return f"bias must have {w.shape[0]} f32 elements, got {params.inputs[2]}"
        return cpu_fused_reason(params)

    def priority(self, params: Params) -> int:
        """Beats the reference whenever it validates."""
        return FORCE_PRIORITY_3

    def make_fn(self, params: Params) -> Callable[..., None]:
        """fn(input, weights, [bias], output, [fused operands]) on raw buffers."""
        x, w, out = params.inputs[0], params.inputs[1], params.output
        n, (m, k) = x.shape[0], w.shape
        has_bias = len(params.inputs) > 2
        read_x = logical_reader(x, (n, k))
        read_w = strided_2d(w)
        read_b = logical_reader(params.inputs[2], (m,)) if has_bias else None
        direct, write = output_writer(out)
        ops = list(params.fused_ops)
        extra = [lay for op in ops for lay in op.extra_inputs]
        n_in = len(params.inputs)
        launch = Launcher(m * k)
        small = n <= SMALL_BATCH and w.format in (Format.bfyx, Format.oiyx) and w.padding.is_zero

        def fn(*bufs: Any) -> None:
            xs, wm = read_x(bufs[0]), read_w(bufs[1])
            dst = direct(bufs[n_in])
            if small:
                if dst is None:
                    dst = np.empty((n, m), np.float32)
                bias = read_b(bufs[2]) if read_b is not None else EMPTY
                launch(fc_rows, dst, xs, wm, bias, read_b is not None)
            else:
                val = np.dot(wm, xs.T).T
                if dst is None:
                    dst = np.array(val)
                else:
                    np.copyto(dst, val)
                if read_b is not None:
                    dst += read_b(bufs[2])
            if ops:
                operands = [read_logical(b, lay) for b, lay in zip(bufs[n_in + 1:], extra)]
                dst[...] = apply_fused(dst, ops, [align_operand(o, 2) for o in operands])
            write(bufs[n_in], dst)

        return fn
