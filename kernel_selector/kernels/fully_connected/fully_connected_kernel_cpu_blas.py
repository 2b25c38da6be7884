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

f16 storage (``inference_precision="f16"``, docs/precision.md) on the small-batch path only: weights, bias, input
and output each f32 or f16. Half weights stay half and :func:`fc_rows` converts them as it streams them (F16C
``vcvtph2ps`` in its vector loop): at batch 1 the layer is bound by the weights' bytes, which half storage halves
(AlexNet's three layers read 226 MB of f32 weights). The input rows and the bias (N·K and M values) are converted
to float32 on the host, the output computed in float32 and rounded to half by numpy on the store. Larger batches
are compute-bound BLAS products, float32 only.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numba
import numpy as np

from cldnn_py.layout import DataType, Format, Layout

from ...common.cpu_blas import SMALL_BATCH, dot_rows, fc_rows, logical_reader, output_writer, rows_epilogue
from ...common.cpu_blas_threads import active as blas_active
from ...common.cpu_epilogue import EMPTY, layout_offset
from ...common.cpu_fused import cpu_fused_reason
from ...common.cpu_half import numba_viewer
from ...common.cpu_launch import Launcher
from ...cpu_kernel_base import CPU, CpuKernelBase
from ...kernel_base import FORCE_PRIORITY_3
from ...params import FLOATS, Params, SupportedKey
from ...selector import register


def _as_f32(read: Callable[[np.ndarray], np.ndarray], lay: Layout) -> Callable[[np.ndarray], np.ndarray]:
    """``read`` itself for an f32 tensor; for f16, its result converted to float32 (a host copy)."""
    if lay.dtype == DataType.f32:
        return read
    return lambda buf: read(buf).astype(np.float32)


def strided_2d(lay: Layout) -> Callable[[np.ndarray], np.ndarray]:
    """A function buffer -> the (rows, cols) view of a rank-2 plain layout through its pitches (no copy); f16 as
    its ``uint16`` bit patterns (:func:`~kernel_selector.common.cpu_half.numba_viewer`), what fc_rows takes."""
    rows, cols = lay.shape
    view = numba_viewer(lay)
    if lay.format in (Format.bfyx, Format.oiyx) and lay.padding.is_zero:  # row-major: a plain reshape (cheap)
        return lambda buf: view(buf)[:rows * cols].reshape(rows, cols)
    off, p = layout_offset(lay), lay.pitches
    size = lay.dtype.size
    strides = (p["b"] * size, p["f"] * size)
    return lambda buf: np.lib.stride_tricks.as_strided(view(buf)[off:], (rows, cols), strides)


@register
class FullyConnectedKernelCpuBlas(CpuKernelBase):
    """y[n, m] = Σ_k x[n, k] · W[m, k] + bias[m], then the fused ops, on the CPU engine through BLAS.

    Inputs: data (N, ...) f32 of rank 1-6 (flattened to (N, K) in logical order), any format, padded or not;
    weights (M, K) f32 in a plain format (``os_iyx_osv16`` is rejected: a packed panel would make BLAS run 256
    skinny products; reorder_inputs then keeps the weights plain); bias (optional) with M f32 elements of any shape
    and layout. Output (N, M) f32 bfyx, padded or not. At N <= SMALL_BATCH with unpadded bfyx / oiyx weights,
    each of data, weights, bias and output may be f16 instead (module docstring). Fused ops: activations and
    eltwise (sum/sub/prod/div/max/min/pow) with one operand broadcastable to (N, M), applied in numpy; a chain of
    activations only runs as the vectorized numba epilogue
    (:func:`~kernel_selector.common.cpu_epilogue.act_chain_inplace`: a fused GELU took 3 ms of a (197, 768) layer
    in numpy, 0.15 there). Threads: OpenBLAS's (one during a network's execution:
    :mod:`~kernel_selector.common.cpu_blas_threads`; then a product at N > SMALL_BATCH is split by rows into one
    BLAS call per numba thread).
    """

    name = "fully_connected_cpu_blas"
    primitive = "fully_connected"
    supports_fused_ops = True

    def supported_key(self) -> SupportedKey:
        """CPU, f32 or f16 data and output, any format, padding allowed."""
        return SupportedKey(engines=CPU, input_dtypes=FLOATS, output_dtypes=FLOATS)

    def validate(self, params: Params) -> str | None:
        """Plain f32 / f16 (M, K) weights matching the input's K, bias of M f32 / f16 elements, numpy-expressible
        fused ops; f16 anywhere only where the small-batch path runs (N <= SMALL_BATCH, unpadded plain weights)."""
        x, w = params.inputs[0], params.inputs[1]
        if w.rank != 2 or w.dtype not in FLOATS:
            return f"weights must be rank-2 f32 or f16, got {w}"
        if w.format.is_blocked:
            return f"weights format {w.format.value} is packed; BLAS reads (M, K) plain"
        if w.shape[1] != x.count() // x.shape[0]:
            return f"weights have {w.shape[1]} columns, input has K = {x.count() // x.shape[0]}"
        if len(params.inputs) > 2 and (params.inputs[2].count() != w.shape[0]
                                       or params.inputs[2].dtype not in FLOATS):
            return f"bias must have {w.shape[0]} f32 or f16 elements, got {params.inputs[2]}"
        half = [lay for lay in [*params.inputs[:3], params.output] if lay.dtype == DataType.f16]
        if half:
            if x.shape[0] > SMALL_BATCH:
                return (f"f16 storage runs only the small-batch path (N <= {SMALL_BATCH}); at N = {x.shape[0]} "
                        "the product is BLAS, float32 only")
            if w.format not in (Format.bfyx, Format.oiyx) or not w.padding.is_zero:
                return (f"f16 storage needs unpadded bfyx / oiyx weights (the small-batch path), got "
                        f"{w.format.value}{' padded' if not w.padding.is_zero else ''}")
        return cpu_fused_reason(params)

    def priority(self, params: Params) -> int:
        """Beats the reference whenever it validates."""
        return FORCE_PRIORITY_3

    def make_fn(self, params: Params) -> Callable[..., None]:
        """fn(input, weights, [bias], output, [fused operands]) on raw buffers."""
        x, w, out = params.inputs[0], params.inputs[1], params.output
        n, (m, k) = x.shape[0], w.shape
        has_bias = len(params.inputs) > 2
        read_x = _as_f32(logical_reader(x, (n, k)), x)
        read_w = strided_2d(w)
        read_b = _as_f32(logical_reader(params.inputs[2], (m,)), params.inputs[2]) if has_bias else None
        direct, write = output_writer(out)
        epilogue = rows_epilogue(params)
        n_in = len(params.inputs)
        launch = Launcher(m * k)
        split = Launcher(n * m * k, chunk=1)
        parts = numba.config.NUMBA_NUM_THREADS  # type: ignore[attr-defined]  # one BLAS product per numba thread
        small = n <= SMALL_BATCH and w.format in (Format.bfyx, Format.oiyx) and w.padding.is_zero

        def fn(*bufs: Any) -> None:
            xs, wm = read_x(bufs[0]), read_w(bufs[1])
            dst = direct(bufs[n_in])
            if small:
                if dst is None:
                    dst = np.empty((n, m), np.float32)
                bias = read_b(bufs[2]) if read_b is not None else EMPTY
                launch(fc_rows, dst, xs, wm, bias, read_b is not None)
            elif blas_active() and xs.flags.c_contiguous and (wm.flags.c_contiguous or wm.flags.f_contiguous):
                tgt = dst if dst is not None and dst.flags.c_contiguous else np.empty((n, m), np.float32)
                split(dot_rows, tgt, xs, wm.T, parts)
                if dst is None:
                    dst = tgt
                elif tgt is not dst:  # a padded output: its interior view
                    np.copyto(dst, tgt)
            else:
                val = np.dot(wm, xs.T).T
                if dst is None:
                    dst = np.array(val)
                else:
                    np.copyto(dst, val)
            if not small and read_b is not None:
                dst += read_b(bufs[2])
            epilogue(dst, bufs)
            write(bufs[n_in], dst)

        return fn
