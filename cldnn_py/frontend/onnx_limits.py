"""Size limits of an ONNX import: nothing a model file declares is allocated before its size is known to be sane.

A model file is untrusted input: ``ConstantOfShape([2**20, 2**20])`` asks constant folding for 4 TiB, a Tile or
Expand with huge repeats for more. Sizes are computed with Python integers (no int64 wrap-around) and compared with
``CLDNN_PY_MAX_TENSOR_BYTES`` (:func:`cldnn_py.env.max_tensor_bytes`, 16 GiB by default) before the array exists:
initializers and external tensors by their declared dims, folded nodes by the output shape predicted from their
inputs (ConstantOfShape, Tile, Expand, Range) and, for every other folded node, by the result it returned; converted
tensors by their layout. The error names the tensor or node and the size in bytes.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from ..env import max_tensor_bytes
from ..errors import OnnxImportError


def check_bytes(what: str, shape: Sequence[int], itemsize: int) -> None:
    """Raise OnnxImportError naming ``what`` when a tensor of ``shape`` and ``itemsize`` bytes per element is larger
    than ``CLDNN_PY_MAX_TENSOR_BYTES`` (or has a negative dimension)."""
    dims = [int(d) for d in shape]
    if any(d < 0 for d in dims):
        raise OnnxImportError(f"{what}: shape {tuple(dims)} has a negative dimension")
    n = math.prod(dims) * int(itemsize)
    limit = max_tensor_bytes()
    if n > limit:
        raise OnnxImportError(f"{what}: shape {tuple(dims)} is {n} bytes, more than the limit of {limit} bytes for "
                              f"one tensor (CLDNN_PY_MAX_TENSOR_BYTES)")


def _ints(a: np.ndarray) -> list[int]:
    return [int(v) for v in np.asarray(a).reshape(-1)]


def _broadcast(a: Sequence[int], b: Sequence[int]) -> list[int]:
    r = max(len(a), len(b))
    a = [1] * (r - len(a)) + list(a)
    b = [1] * (r - len(b)) + list(b)
    return [max(x, y) if 1 in (x, y) else x for x, y in zip(a, b)]


def predicted_shape(node: Any, consts: dict[str, np.ndarray]) -> list[int] | None:
    """The output shape of a size-multiplying node about to be folded (ConstantOfShape, Tile, Expand, Range), from
    its constant inputs, without computing it; None for other operators or inputs the rule cannot read."""
    ins = [consts.get(i) if i else None for i in node.input]
    try:
        if node.op_type == "ConstantOfShape" and ins and ins[0] is not None:
            return _ints(ins[0])
        if node.op_type == "Tile" and len(ins) >= 2 and ins[0] is not None and ins[1] is not None:
            return [d * r for d, r in zip(ins[0].shape, _ints(ins[1]))]
        if node.op_type == "Expand" and len(ins) >= 2 and ins[0] is not None and ins[1] is not None:
            return _broadcast(list(ins[0].shape), _ints(ins[1]))
        if node.op_type == "Range" and len(ins) >= 3 and all(x is not None for x in ins[:3]):
            start, limit, delta = (float(np.asarray(x).reshape(-1)[0]) for x in ins[:3])
            if delta == 0 or not all(map(math.isfinite, (start, limit, delta))):
                return None
            return [max(0, math.ceil((limit - start) / delta))]
    except (TypeError, ValueError, OverflowError):
        return None
    return None


def check_fold(node: Any, consts: dict[str, np.ndarray]) -> None:
    """Before folding ``node``: refuse an output the size rules predict past the limit (8 bytes per element, the
    widest type folding produces), naming the node."""
    shape = predicted_shape(node, consts)
    if shape is not None:
        check_bytes(f"{node.op_type} '{node.name}' (constant folding, output '{node.output[0]}')", shape, 8)


def check_graph_folds(graph: Any, consts: dict[str, np.ndarray]) -> None:
    """Before ONNX shape inference (whose data propagation computes Range's values, and allocates them): apply
    :func:`check_fold` to every size-multiplying node fed by initializers (``consts``) or Constant nodes."""
    from onnx import numpy_helper

    known = dict(consts)
    for node in graph.node:
        value = [a for a in node.attribute if a.name == "value"] if node.op_type == "Constant" else []
        if value and node.output:
            t = value[0].t
            if math.prod(int(d) for d in t.dims) <= 64:  # only small values can be shape arguments worth reading
                try:
                    known[node.output[0]] = numpy_helper.to_array(t)
                except Exception:  # noqa: BLE001 - a corrupt tensor: the import names it later
                    pass
        elif node.op_type in ("ConstantOfShape", "Tile", "Expand", "Range"):
            check_fold(node, known)
