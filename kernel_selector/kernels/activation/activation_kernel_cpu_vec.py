"""activation_cpu_vec: an activation (and its fused chain) on the CPU engine as straight numba loops over chunks
of an unpadded tensor: the activation that prepare_primitive_fusing could not fold into a producer (after a
concatenation or a reshape, at a network output)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numba
import numpy as np
from numba import prange

from cldnn_py.layout import Layout
from cldnn_py.ops import ActivationAttrs

from ...common.cpu_epilogue import EMPTY, I0, chain_span, fused_reason
from ...common.cpu_launch import Launcher, viewer
from ...common.cpu_layout import layout_offset
from ...common.cpu_strides import axis_offsets, inner_run, offset_table
from ...common.elementwise_numba import ACT_CODES, NJIT
from ...cpu_kernel_base import CpuKernelBase, cpu_f32_key
from ...kernel_base import FORCE_PRIORITY_3
from ...params import Params, SupportedKey
from ...selector import register

CHUNK = 16384  # elements per task (64 KB: the chain runs on it while it is in L2)


@numba.njit(parallel=True, **NJIT)
def activation_flat(out: np.ndarray, x: np.ndarray, n: int, codes: np.ndarray, fa: np.ndarray,
                    fb: np.ndarray) -> None:  # pragma: no cover - numba
    """out[i] = chain(x[i]) for i < n: a copy, then the activation and the fused activations op by op on the chunk
    (:func:`~kernel_selector.common.cpu_epilogue.chain_span`)."""
    for t in prange((n + CHUNK - 1) // CHUNK):
        s = t * CHUNK
        e = min(n, s + CHUNK)
        o, v = out[s:e], x[s:e]
        for i in range(e - s):
            o[i] = v[i]
        chain_span(out, s, e - s, codes, fa, fb, EMPTY, I0, I0)


@numba.njit(parallel=True, **NJIT)
def activation_runs(out: np.ndarray, o_starts: np.ndarray, x: np.ndarray, x_starts: np.ndarray, run: int,
                    codes: np.ndarray, fa: np.ndarray, fb: np.ndarray) -> None:  # pragma: no cover - numba
    """out[o_starts[r] + j] = chain(x[x_starts[r] + j]) for every run r and j < ``run`` (contiguous runs of a
    padded tensor: a concatenation's slice, a cropped view)."""
    for r in prange(o_starts.shape[0]):
        o0, x0 = o_starts[r], x_starts[r]
        o, v = out[o0:o0 + run], x[x0:x0 + run]
        for i in range(run):
            o[i] = v[i]
        chain_span(out, o0, run, codes, fa, fb, EMPTY, I0, I0)


def contiguous_runs(x: Layout, out: Layout) -> tuple[np.ndarray, np.ndarray, int] | None:
    """(output run starts, input run starts, run length) when both tensors are contiguous along their common
    trailing run (:func:`~kernel_selector.common.cpu_strides.inner_run` with stride 1 in both), else None."""
    ox, oo = axis_offsets(x), axis_offsets(out)
    first, run, strides = inner_run(out.shape, ox, oo)
    if strides != (1, 1) or run < 2:
        return None
    return (offset_table(oo, range(first), layout_offset(out)), offset_table(ox, range(first), layout_offset(x)),
            run)


@register
class ActivationKernelCpuVec(CpuKernelBase):
    """y = func(x; a, b), then fused activations, on the CPU engine, for an unpadded f32 tensor in any format whose
    output has the same layout (one flat loop; a blocked channel tail is computed and stays a don't-care), or for
    tensors of any padding that are contiguous along a common trailing run (a loop per run: a detection head's
    sigmoid writing into a concatenation's slice). Every
    function of the element-wise table; relu, leaky relu, clamp, linear, hard_swish, hard_sigmoid, logistic and
    swish as float32 vector loops (:mod:`~kernel_selector.common.cpu_epilogue`). A fused eltwise is left to the
    reference (validate() says so)."""

    name = "activation_cpu_vec"
    primitive = "activation"
    supports_fused_ops = True

    def supported_key(self) -> SupportedKey:
        """CPU, f32, any format, padding checked by validate()."""
        return cpu_f32_key(None)

    def validate(self, params: Params) -> str | None:
        """Input and output unpadded with the same layout, or contiguous runs in both; only activations fused."""
        x, out = params.inputs[0], params.output
        same = x.padding.is_zero and x == out.with_(dtype=x.dtype) and x.buffer_size == out.buffer_size
        if not same and (x.shape != out.shape or x.rank > 6 or contiguous_runs(x, out) is None):
            return f"input {x} and output {out} share no unpadded layout and no contiguous runs"
        if any(op.kind != "activation" for op in params.fused_ops):
            return "a fused eltwise"
        return fused_reason(params)

    def priority(self, params: Params) -> int:
        """Ahead of the reference whenever it validates."""
        return FORCE_PRIORITY_3

    def make_fn(self, params: Params) -> Callable[..., None]:
        """fn(input, output)."""
        a = params.attrs_as(ActivationAttrs)
        acts = [(a.func.value, a.a, a.b)] + [(op.act().func, op.act().a, op.act().b) for op in params.fused_ops]
        codes = np.array([ACT_CODES[f] for f, _, _ in acts], np.int64)
        fa = np.array([v for _, v, _ in acts], np.float32)
        fb = np.array([v for _, _, v in acts], np.float32)
        x, out = params.inputs[0], params.output
        n = out.buffer_size
        vx, vo = viewer(x), viewer(out)
        launch = Launcher(2 * n)
        same = x.padding.is_zero and x == out.with_(dtype=x.dtype) and x.buffer_size == out.buffer_size
        runs = None if same else contiguous_runs(x, out)

        def fn(*bufs: Any) -> None:
            if runs is None:
                launch(activation_flat, vo(bufs[1]), vx(bufs[0]), n, codes, fa, fb)
            else:
                launch(activation_runs, vo(bufs[1]), runs[0], vx(bufs[0]), runs[1], runs[2], codes, fa, fb)

        return fn
