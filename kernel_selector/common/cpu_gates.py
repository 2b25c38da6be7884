"""Helpers of the CPU engine's recurrent loops (numba): their fastmath flags and the
kernels' buffer access (:func:`direct_io`)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ..params import Params
from .cpu_blas import logical_reader, output_writer

RECURRENT_FASTMATH = {"nnan", "ninf", "nsz", "contract", "afn", "reassoc"}
"""The numba fastmath flags of the recurrent loops: ``fastmath=True`` without ``arcp``. With ``arcp`` LLVM may turn
the gates' 1 / (1 + exp(-x)) into an approximate reciprocal: on a host whose AVX-512 numba targets (a Zen 4 VM that
shows it) that was ``vrcp14ps`` and a Newton step, one ulp of 1.0 off, and ONNX's GRU conformance cases (atol 1e-7
on states near zero) failed there while they passed on AVX2 hosts (2026-12-07)."""


def direct_io(params: Params, compute: Callable[[list[np.ndarray], np.ndarray], None]) -> Callable[..., None]:
    """``fn(*bufs)`` for a recurrent kernel without fused ops: every input as a logical float32 array of its
    layout's shape (a zero-copy view of an unpadded bfyx f32 buffer, a gather through the physical index
    otherwise), ``compute(inputs, out)`` filling the logical output array (a view of an unpadded bfyx f32 output
    buffer, else a float32 scratch array stored into the output's interior afterwards). The
    :class:`~kernel_selector.cpu_kernel_base.CpuRefKernel` path copies every operand both ways instead (CRNN's LSTM
    steps: 0.2 ms of a 0.5 ms layer)."""
    readers = [logical_reader(lay, lay.shape) for lay in params.inputs]
    direct, write = output_writer(params.output)
    shape, n_in = params.output.shape, len(params.inputs)

    def fn(*bufs: Any) -> None:
        xs = [np.asarray(read(buf), dtype=np.float32) for read, buf in zip(readers, bufs)]
        dst = direct(bufs[n_in])
        tgt = dst if dst is not None else np.empty(shape, np.float32)
        compute(xs, tgt)
        write(bufs[n_in], tgt)

    return fn
