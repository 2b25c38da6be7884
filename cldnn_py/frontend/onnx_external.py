"""External tensor data of an ONNX model: read from the model file's own folder, never from anywhere else.

ONNX keeps large tensors in side files (``data_location = EXTERNAL``, ``external_data`` entries ``location``,
``offset``, ``length``). ``location`` is relative to the folder of the model file (as ``onnx.load(path)`` and
onnxruntime resolve it), not to the current directory. A model file is untrusted: a location that is absolute, leads
out of the model's folder (``../../etc/passwd``) or is a symlink resolving outside it is refused, as is a missing
file; each error names the tensor and the location. A model given as bytes or a ModelProto has no folder: its
external tensors are refused with a message saying how to load it. The data is read by ``onnx`` itself
(``load_external_data_for_tensor``: offset and length are checked against the file size) into the model, so the
rest of the import sees ordinary tensors.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any

import numpy as np

from ..errors import OnnxImportError
from .onnx_limits import check_bytes


def _tensors(graph: Any) -> Iterator[Any]:
    """Every TensorProto of a graph: initializers, sparse initializers, tensor attributes, and subgraphs'."""
    yield from graph.initializer
    for sp in graph.sparse_initializer:
        yield sp.values
        yield sp.indices
    for node in graph.node:
        for a in node.attribute:
            if a.HasField("t"):
                yield a.t
            yield from a.tensors
            if a.HasField("g"):
                yield from _tensors(a.g)
            for g in a.graphs:
                yield from _tensors(g)


def external_tensors(model: Any) -> list[Any]:
    """The tensors of ``model`` whose data lives in an external file."""
    from onnx import TensorProto

    return [t for t in _tensors(model.graph) if t.data_location == TensorProto.EXTERNAL]


def _location(tensor: Any) -> str:
    return next((e.value for e in tensor.external_data if e.key == "location"), "")


def resolve_location(tensor: Any, base_dir: str) -> str:
    """The real path of ``tensor``'s external file inside ``base_dir``; raises OnnxImportError naming the tensor and
    the location when it is empty, absolute, outside ``base_dir`` (``..``, a symlink) or missing."""
    loc = _location(tensor)
    what = f"tensor '{tensor.name}': external data location '{loc}'"
    if not loc:
        raise OnnxImportError(f"tensor '{tensor.name}': external data without a location")
    if os.path.isabs(loc) or os.path.splitdrive(loc)[0] or loc.startswith(("/", "\\")):
        raise OnnxImportError(f"{what} is an absolute path; it must be relative to the model's folder")
    root = os.path.realpath(base_dir)
    real = os.path.realpath(os.path.join(root, loc))
    if os.path.commonpath([root, real]) != root:
        raise OnnxImportError(f"{what} leads outside the model's folder '{root}' (to '{real}'); refused")
    if not os.path.isfile(real):
        raise OnnxImportError(f"{what}: no such file in the model's folder '{root}'")
    return real


def inline_external_data(model: Any, base_dir: str | None, name: str) -> None:
    """Read every external tensor of ``model`` (a ModelProto the caller owns) from ``base_dir`` into the model.

    Raises OnnxImportError naming the tensor: no ``base_dir`` (a model given as bytes or a ModelProto), a location
    refused by :func:`resolve_location`, a tensor larger than CLDNN_PY_MAX_TENSOR_BYTES, or unreadable data (offset
    or length past the end of the file). On error the model may hold some tensors inlined: callers discard it.
    """
    from onnx import external_data_helper, helper

    tensors = external_tensors(model)
    if not tensors:
        return
    if base_dir is None:
        t = tensors[0]
        raise OnnxImportError(
            f"'{name}': tensor '{t.name}' keeps its data in the external file '{_location(t)}', and a model given "
            f"as bytes or a ModelProto has no folder to find it in: pass the model's path instead (or load the "
            f"data first with onnx.load(path))")
    for t in tensors:
        resolve_location(t, base_dir)
        try:
            itemsize = np.dtype(helper.tensor_dtype_to_np_dtype(t.data_type)).itemsize
        except Exception:  # noqa: BLE001 - an unknown data type: the checker or to_array names it
            itemsize = 1
        check_bytes(f"tensor '{t.name}' (external data '{_location(t)}')", t.dims, itemsize)
    for t in tensors:
        try:
            external_data_helper.load_external_data_for_tensor(t, os.path.realpath(base_dir))
        except Exception as e:  # noqa: BLE001 - onnx raises ValueError, OSError, its checker's errors ...
            raise OnnxImportError(f"'{name}': tensor '{t.name}': external data '{_location(t)}' cannot be read: "
                                  f"{type(e).__name__}: {e}") from None
