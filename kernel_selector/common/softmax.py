"""The axes a softmax normalizes together, shared by the softmax kernels of both engines."""

from __future__ import annotations

from cldnn_py.ops import SoftmaxAttrs, normalize_axes

from ..params import Params


def softmax_axes(params: Params) -> tuple[int, ...]:
    """The logical axes normalized together: (axis,), or axis .. rank-1 when ``coerce_2d`` (ONNX opset < 13)."""
    rank = params.inputs[0].rank
    axis = normalize_axes((params.attrs_as(SoftmaxAttrs).axis,), rank)[0]
    if params.attrs_as(SoftmaxAttrs).coerce_2d:
        return tuple(range(axis, rank))
    return (axis,)
