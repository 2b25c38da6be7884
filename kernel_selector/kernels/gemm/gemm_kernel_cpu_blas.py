"""gemm_cpu_blas: the CPU engine's fast gemm, y = alpha · op(A) · op(B) + beta · C through ``numpy.matmul``
(OpenBLAS sgemm per matrix of the batch, its own threads).

The semantics of ``gemm_ref`` (kernel_selector/kernels/gemm/gemm_kernel_ref.py, cl_kernels/gemm_ref.cl): numpy
``matmul`` rules (rank-1 A is a row, rank-1 B a column, their dimension dropped; batch dimensions broadcast), the
transposes on the last two dimensions of operands of rank >= 2, C broadcast numpy-style to the output. Operands
are read as logical arrays: an unpadded bfyx tensor is a zero-copy view (a transpose is a view too: BLAS takes it
as a transposed operand), any other layout is gathered once through its physical index. When the output has fewer
rows than columns the product is computed transposed (op(B)ᵀ · op(A)ᵀ, OpenBLAS is 2-4x faster with the long
dimension first on this machine, see fully_connected_cpu_blas) and copied back. ONNX Gemm used as a fully connected
layer (2-D A with at most SMALL_BATCH rows, B transposed) runs fully_connected_cpu_blas's numba ``fc_rows`` instead
(OpenBLAS is slow on such skinny products). Alpha, C and the fused ops are then applied in place on the output.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numba
import numpy as np

from cldnn_py.layout import DataType
from cldnn_py.ops import GemmAttrs, gemm_shapes

from ...common.cpu_blas import SMALL_BATCH, dot_batched, fc_rows, logical_reader, output_writer
from ...common.cpu_blas_threads import active as blas_active
from ...common.cpu_epilogue import EMPTY
from ...common.cpu_fused import cpu_fused_reason
from ...common.cpu_launch import Launcher
from ...cpu_kernel_base import CPU, CpuKernelBase, align_operand, apply_fused, read_logical
from ...kernel_base import FORCE_PRIORITY_3
from ...params import Params, SupportedKey
from ...selector import register

F32 = frozenset({DataType.f32})


@register
class GemmKernelCpuBlas(CpuKernelBase):
    """Batched matrix product on the CPU engine: y[.., m, n] = alpha · Σ_k op(A)[.., m, k] · op(B)[.., k, n]
    + beta · C[broadcast], then the fused ops.

    Inputs A, B (and C) f32 of rank 1-6 in any format, padded or not (rank 5-6: unpadded bfyx, as every Layout of
    that rank); output f32 bfyx (batch..., M, N), or (1,) for two vectors, padded or not. Fused ops: activations
    and eltwise with one operand broadcastable to the output (numpy). Threads: OpenBLAS's.
    """

    name = "gemm_cpu_blas"
    primitive = "gemm"
    supports_fused_ops = True
    n_data_inputs = None

    def supported_key(self) -> SupportedKey:
        """CPU, f32 inputs (all of them) and output, any format, padding allowed."""
        return SupportedKey(engines=CPU, input_dtypes=F32, output_dtypes=F32)

    def validate(self, params: Params) -> str | None:
        """Two or three inputs whose inner dimensions match and whose batches broadcast; numpy-expressible fused
        ops."""
        if len(params.inputs) not in (2, 3):
            return f"expected 2 or 3 inputs, got {len(params.inputs)}"
        try:
            gemm_shapes(params.inputs[0].shape, params.inputs[1].shape, bool(params.attrs_as(GemmAttrs).transpose_a),
                        bool(params.attrs_as(GemmAttrs).transpose_b))
        except ValueError as e:
            return str(e)
        return cpu_fused_reason(params)

    def priority(self, params: Params) -> int:
        """Beats the reference whenever it validates."""
        return FORCE_PRIORITY_3

    def make_fn(self, params: Params) -> Callable[..., None]:
        """fn(A, B, [C], output, [fused operands]) on raw buffers."""
        a, b, out = params.inputs[0], params.inputs[1], params.output
        at = params.attrs_as(GemmAttrs)
        ta, tb = at.transpose_a and a.rank > 1, at.transpose_b and b.rank > 1
        _, m, _, n, _ = gemm_shapes(a.shape, b.shape, ta, tb)
        alpha, beta = np.float32(at.alpha), np.float32(at.beta)
        read_a, read_b = logical_reader(a, a.shape), logical_reader(b, b.shape)
        has_c = len(params.inputs) > 2
        read_c = logical_reader(params.inputs[2], params.inputs[2].shape) if has_c else None
        swap = a.rank > 1 and b.rank > 1 and m < n  # long dimension first for OpenBLAS
        launch = Launcher(n * max(a.shape))
        rows = a.rank == 2 and b.rank == 2 and not ta and tb and m <= SMALL_BATCH  # x · Wᵀ: fc_rows
        direct, write = output_writer(out)
        ops = list(params.fused_ops)
        extra = [lay for op in ops for lay in op.extra_inputs]
        n_in = len(params.inputs)
        batched = a.rank >= 3 and b.rank == a.rank and a.shape[:-2] == b.shape[:-2]  # no broadcast of the batch
        split = Launcher(n * m * max(a.shape), chunk=1)
        parts = numba.config.NUMBA_NUM_THREADS  # type: ignore[attr-defined]

        def fn(*bufs: Any) -> None:
            xa, xb = read_a(bufs[0]), read_b(bufs[1])
            if ta:
                xa = xa.swapaxes(-1, -2)
            if tb:
                xb = xb.swapaxes(-1, -2)
            r: np.ndarray
            if rows:
                r = np.empty((m, n), np.float32)
                launch(fc_rows, r, np.ascontiguousarray(xa), np.ascontiguousarray(xb.T), EMPTY,
                     False)
            elif batched and blas_active():  # one BLAS call per (batch item, row block) on numba's threads
                a3 = np.ascontiguousarray(xa).reshape(-1, m, xa.shape[-1])
                r = np.empty((a3.shape[0], m, n), np.float32)
                split(dot_batched, r, a3, np.ascontiguousarray(xb).reshape(-1, xb.shape[-2], n), parts)
            elif swap:
                r = np.matmul(xb.swapaxes(-1, -2), xa.swapaxes(-1, -2)).swapaxes(-1, -2)
            else:
                r = np.matmul(xa, xb)
            dst = direct(bufs[n_in])
            if dst is None:
                dst = np.empty(out.shape, np.float32)
            r = r.reshape(out.shape)
            if alpha != 1.0:
                np.multiply(r, alpha, out=dst)
            else:
                np.copyto(dst, r)
            if read_c is not None:
                c = align_operand(read_c(bufs[2]), out.rank)
                dst += c if beta == 1.0 else beta * c
            if ops:
                operands = [read_logical(buf, lay) for buf, lay in zip(bufs[n_in + 1:], extra)]
                dst[...] = apply_fused(dst, ops, operands)
            write(bufs[n_in], dst)

        return fn
