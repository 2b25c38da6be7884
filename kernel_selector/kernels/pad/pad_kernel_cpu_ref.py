"""pad_cpu_ref: the CPU engine's reference pad (constant / reflect / edge / wrap, as numpy.pad), rank 1-6."""

from __future__ import annotations

import numpy as np

from cldnn_py.ops import PadAttrs

from ...cpu_kernel_base import CpuRefKernel
from ...params import Params
from ...selector import register
from .pad_kernel_ref import PadKernelRef

_MODES = ("constant", "reflect", "edge", "wrap")


def source_index(mode: str, m: int, n: int, begin: int) -> np.ndarray:
    """Input index (int64, shape (m,)) read by each of the ``m`` output indices of an axis of input size ``n``
    padded by ``begin`` in front: ``i = o - begin``, mapped into [0, n) outside the input by ``mode`` exactly as
    ``pad_ref.cl``: reflect (period 2(n-1), index 0 when n = 1), edge (clamped), wrap (i mod n); constant leaves
    it out of range (the caller masks it)."""
    i = np.arange(m, dtype=np.int64) - begin
    if mode == "reflect":
        period = 2 * (n - 1)
        if period == 0:
            return np.zeros(m, dtype=np.int64)
        r = np.mod(i, period)  # non-negative, as C's % followed by the += period fix-up
        return np.where((i >= 0) & (i < n), i, np.where(r >= n, period - r, r))
    if mode == "edge":
        return np.clip(i, 0, n - 1)
    if mode == "wrap":
        return np.mod(i, n)
    return i


@register
class PadKernelCpuRef(CpuRefKernel):
    """Reference pad on the CPU engine (twin of ``pad_ref``, clDNN ``border_ref``): output coordinate o reads input
    coordinate ``o - pads_begin`` per dimension; outside the input, ``value`` (constant, converted to the output's
    type as a C cast: float for f32, ``int(value)`` wrapped for integers) or the index mapped back by
    :func:`source_index`. Negative pads crop. Any format and padding (rank <= 4; unpadded bfyx for rank 5-6);
    values copied in their own type; f32, i32, i8, u8; no fused ops."""

    twin = PadKernelRef  # key and validate() are the OpenCL reference's: the same on both engines

    def compute(self, params: Params, inputs: list[np.ndarray]) -> np.ndarray:
        """An outer-product gather of the per-axis source indices; in constant mode the elements with any index
        outside the input get the value."""
        x, a = inputs[0], params.attrs_as(PadAttrs)
        mode = a.mode
        idx = [source_index(mode, m, n, b) for m, n, b in zip(params.output.shape, x.shape, a.pads_begin)]
        if mode != "constant":
            return x[np.ix_(*idx)]
        y = x[np.ix_(*[np.clip(i, 0, n - 1) for i, n in zip(idx, x.shape)])]
        mask = np.ones((), dtype=bool)
        for d, (i, n) in enumerate(zip(idx, x.shape)):  # np.ix_ would turn boolean masks into indices
            shape = [1] * x.ndim
            shape[d] = i.size
            mask = mask & ((i >= 0) & (i < n)).reshape(shape)
        dtype = params.output.dtype.numpy
        value = np.float32(a.value) if dtype == np.float32 else np.array(int(a.value)).astype(dtype)
        return np.where(mask, y.astype(dtype, copy=False), value)
