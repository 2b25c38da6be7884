"""fully_connected_cpu_packed: the CPU engine's inner product at batches past SMALL_BATCH (the token rows of a
transformer, the time steps of a recurrent layer's input projection, a batch of images) on the row-major IR
micro-kernel (:mod:`~kernel_selector.common.cpu_microkernel_fc`), weights packed in ``os_iyx_osv16`` at build time.

y[n, m] = Σ_k x[n, k] · W[m, k] + bias[m]: tiles of FC_MR rows × FC_NR output channels, a thread task per run of
row tiles of one column block (the block's weight panels, 16·K floats each, stay in L1/L2 while the input rows
stream; column blocks × row runs at least twice the thread count, so a narrow layer still splits its rows). The
input rows are read where they lie (an unpadded bfyx input: a zero-copy (N, K) view; anything else gathered once
per call), the output is stored as it lies (row-major), the bias added in the registers, then a chain of fused
activations as one vectorized pass (:func:`~kernel_selector.common.cpu_epilogue.act_chain_inplace`) or other fused
ops in numpy. Measured on the ViT-Tiny-style model (197 tokens, width 192, MLP 768; 2-core Zen 4, AVX-512, same
process): its fully connected layers took 5.2 ms through OpenBLAS (one sgemm per numba thread: OpenBLAS runs
this host's Haswell kernels, 256-bit) and 2.7 ms here.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numba
import numpy as np
from numba import prange

from cldnn_py.layout import DataType, Format

from ...common.cpu_blas import SMALL_BATCH, logical_reader, output_writer, rows_epilogue
from ...common.cpu_fused import cpu_fused_reason
from ...common.cpu_launch import Launcher, viewer
from ...common.cpu_microkernel import PANEL
from ...common.cpu_microkernel_fc import FC_MR, FC_NR, micro_kernel_fc
from ...common.elementwise_numba import NJIT
from ...cpu_kernel_base import CPU, CpuKernelBase
from ...kernel_base import FORCE_PRIORITY_2
from ...params import Params, SupportedKey
from ...selector import register


@numba.njit(parallel=True, **NJIT)
def fc_tiles(out: np.ndarray, ldc: int, x: np.ndarray, ldx: int, n: int, wp: np.ndarray, k: int, m: int,
             bias: np.ndarray, has_bias: int, row_runs: int) -> None:  # pragma: no cover - numba
    """out[r, c] (row r at r · ldc) = Σ_k x[r · ldx + k] · W[c, k] (+ bias[c]) for r < n, c < m; ``wp`` the
    os_iyx_osv16 panels of W (m rounded up to 16, K = k), ``bias`` padded to whole tiles. Task t: column block
    t // row_runs, its share t % row_runs of the row tiles."""
    mb = (m + FC_NR - 1) // FC_NR
    nb = (n + FC_MR - 1) // FC_MR
    wstride = PANEL * k
    for t in prange(mb * row_runs):
        cb = t // row_runs
        part = t - cb * row_runs
        c0 = cb * FC_NR
        w_off = (c0 // PANEL) * wstride + c0 % PANEL
        lo = nb * part // row_runs
        hi = nb * (part + 1) // row_runs
        for rb in range(lo, hi):
            r0 = rb * FC_MR
            micro_kernel_fc(x, r0 * ldx, ldx, min(FC_MR, n - r0), wp, w_off, wstride, k, out, r0 * ldc + c0, ldc,
                            min(FC_NR, m - c0), bias, c0, has_bias)


@register
class FullyConnectedKernelCpuPacked(CpuKernelBase):
    """y[n, m] = Σ_k x[n, k] · W[m, k] + bias[m], then the fused ops, on the CPU engine's row-major micro-kernel.

    Inputs: data (N, ...) f32 of rank 1-6, N > SMALL_BATCH (flattened to (N, K) in logical order: an unpadded bfyx
    input in place, any other format or padding gathered); weights (M, K) f32 ``os_iyx_osv16`` unpadded (the layout
    optimizer packs them when this kernel takes the layer); bias (optional) with M f32 elements. Output (N, M) f32
    bfyx, padded or not. Fused ops: activations (one vectorized numba pass) and eltwise with one operand
    broadcastable to (N, M) (numpy). Threads: numba's, a task per (column block, run of row tiles).
    """

    name = "fully_connected_cpu_packed"
    primitive = "fully_connected"
    supports_fused_ops = True

    def supported_key(self) -> SupportedKey:
        """CPU, f32, any input format, padding allowed."""
        return SupportedKey(engines=CPU, input_dtypes=frozenset({DataType.f32}),
                            output_dtypes=frozenset({DataType.f32}))

    def validate(self, params: Params) -> str | None:
        """N > SMALL_BATCH (below, fully_connected_cpu_blas streams plain weights once: bandwidth-bound), f32
        os_iyx_osv16 (M, K) weights matching the input's K, bias of M f32 elements, numpy-expressible fused ops."""
        x, w = params.inputs[0], params.inputs[1]
        if x.shape[0] <= SMALL_BATCH:
            return f"batch {x.shape[0]} <= {SMALL_BATCH}: the row-streaming kernel reads plain weights once"
        if w.rank != 2 or w.format != Format.os_iyx_osv16 or not w.padding.is_zero:
            return f"weights must be unpadded rank-2 os_iyx_osv16, got {w}"
        if w.shape[1] != x.count() // x.shape[0]:
            return f"weights have {w.shape[1]} columns, input has K = {x.count() // x.shape[0]}"
        if len(params.inputs) > 2 and (params.inputs[2].count() != w.shape[0]
                                       or params.inputs[2].dtype != DataType.f32):
            return f"bias must have {w.shape[0]} f32 elements, got {params.inputs[2]}"
        if params.output.format != Format.bfyx:
            return f"output format {params.output.format.value}: needs bfyx"
        return cpu_fused_reason(params)

    def priority(self, params: Params) -> int:
        """Ahead of BLAS: it takes the packed weights BLAS refuses (where it validates, the layout optimizer packs)."""
        return FORCE_PRIORITY_2

    def make_fn(self, params: Params) -> Callable[..., None]:
        """fn(input, weights, [bias], output, [fused operands]) on raw buffers."""
        x, w, out = params.inputs[0], params.inputs[1], params.output
        n, (m, k) = x.shape[0], w.shape
        has_bias = len(params.inputs) > 2
        read_x = logical_reader(x, (n, k))
        read_b = logical_reader(params.inputs[2], (m,)) if has_bias else None
        view_w = viewer(w)
        direct, write = output_writer(out)
        epilogue = rows_epilogue(params)
        n_in = len(params.inputs)
        mb = -(-m // FC_NR)
        threads = numba.config.NUMBA_NUM_THREADS  # type: ignore[attr-defined]
        row_runs = max(1, min(-(-n // FC_MR), -(-2 * threads // mb)))
        bias = np.zeros(mb * FC_NR, np.float32)
        launch = Launcher(n * m * k // 8, chunk=1)

        def fn(*bufs: Any) -> None:
            xs = np.ascontiguousarray(read_x(bufs[0]))
            if read_b is not None:
                bias[:m] = read_b(bufs[2])
            dst = direct(bufs[n_in])
            if dst is None:
                dst = np.empty((n, m), np.float32)
            launch(fc_tiles, dst.reshape(-1), m, xs.reshape(-1), k, n, view_w(bufs[1]), k, m, bias, int(has_bias),
                   row_runs)
            epilogue(dst, bufs)
            write(bufs[n_in], dst)

        return fn
