"""The pooling window of a kernel's Params and the mode codes the OpenCL pooling kernels' jit uses."""

from __future__ import annotations

from cldnn_py.ops import PoolingAttrs, PoolingMode

from ..params import Params

POOL_MODE_CODE = {PoolingMode.max: 0, PoolingMode.average: 1, PoolingMode.average_no_padding: 2}
"""POOL_MODE jit value per mode (0 max, 1 average, 2 average without the padding)."""


def pooling_window(params: Params) -> tuple[tuple[int, int], tuple[int, int], tuple[int, int], tuple[int, int]]:
    """(kernel, stride, pad, pad_end), each (y, x), with global pooling resolved for the input layout
    (:meth:`cldnn_py.ops.PoolingAttrs.window`, the one place of the rule)."""
    return params.attrs_as(PoolingAttrs).window(params.inputs[0].shape)
