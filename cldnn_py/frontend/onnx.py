"""ONNX ModelProto → Topology.

``load_onnx(model, input_shapes=None)`` parses with the ``onnx`` package (load, checker), fixes input dimensions,
folds constant subgraphs, and converts each remaining node with the converter registered for its op type in
``frontend/onnx_ops/`` (one function per op type, in a table). ONNX tensor names become primitive ids, so a
network built from the Topology reads and returns tensors under the model's own names.

Constant folding: a node whose inputs are all constants (initializers, Constant, or Shape of a tensor whose shape
is static) is evaluated at import with ``onnx.reference.ReferenceEvaluator`` (the ONNX project's own semantics),
so shape-computing chains (Shape → Gather → Unsqueeze → Concat → Reshape) and generated weights
(ConstantOfShape) vanish before any kernel is chosen.
"""

from __future__ import annotations

import logging
import os
from typing import Any

import numpy as np

from ..errors import CldnnError, OnnxImportError, ShapeError, UnsupportedError
from ..topology import Topology
from .onnx_context import ImportContext
from .onnx_ops import CONVERTERS

log = logging.getLogger("cldnn_py.frontend.onnx")

DEFAULT_DOMAINS = ("", "ai.onnx")


def _load(model: Any) -> tuple[Any, str]:
    import onnx

    if isinstance(model, onnx.ModelProto):
        return model, f"<ModelProto {model.graph.name!r}>"
    if isinstance(model, (bytes, bytearray)):
        name, data = "<bytes>", bytes(model)
    else:
        name = os.fspath(model)
        try:
            with open(name, "rb") as f:
                data = f.read()
        except OSError as e:
            raise OnnxImportError(f"cannot read ONNX model '{name}': {e}") from None
    try:
        m = onnx.load_from_string(data)
    except Exception as e:  # noqa: BLE001 - protobuf raises DecodeError and others
        raise OnnxImportError(f"'{name}' is not a valid ONNX model (truncated or not ONNX): {e}") from None
    if not m.graph.node and not m.graph.output:
        raise OnnxImportError(f"'{name}' is not a valid ONNX model: it has no graph")
    return m, name


def load_onnx(model: Any, input_shapes: dict[str, tuple[int, ...]] | None = None) -> Topology:
    """Convert an ONNX model (path, bytes or ``onnx.ModelProto``) to a Topology.

    Args:
        model: the model.
        input_shapes: {input name: shape} to fix dynamic or different input dimensions (e.g. a batch of 8).
    Returns:
        A Topology whose ``outputs`` are the graph outputs, with InputLayouts named as the graph inputs.
    Raises:
        OnnxImportError: not ONNX, truncated, or fails the checker (names the file).
        UnsupportedError: lists every unsupported node at once (op type, opset, node name) and the supported list.
        ShapeError: an input dimension is dynamic and not given in ``input_shapes``.
    """
    import onnx

    m, name = _load(model)
    opset = next((o.version for o in m.opset_import if o.domain in DEFAULT_DOMAINS), 1)
    try:
        onnx.checker.check_model(m)
    except onnx.checker.ValidationError as e:
        if "No Op registered" not in str(e):  # unknown operators are listed with all other unsupported nodes
            raise OnnxImportError(f"'{name}' fails the ONNX checker: {str(e).splitlines()[0]}") from None
    except Exception as e:  # noqa: BLE001 - a corrupt protobuf can make the checker raise anything (UnicodeError ...)
        raise OnnxImportError(f"'{name}' cannot be checked (corrupt model?): {type(e).__name__}: {e}") from None
    ctx = ImportContext(m, opset, input_shapes or {})
    _check_supported(ctx, name)
    for i, node in enumerate(m.graph.node):
        _convert(ctx, i, node)
    for out in m.graph.output:
        if out.name not in ctx.topology:
            ctx.materialize(out.name)
    ctx.topology.outputs = [o.name for o in m.graph.output]
    return ctx.topology


def _convert(ctx: ImportContext, index: int, node: Any) -> None:
    """Convert node number ``index`` with its registered converter (folded nodes are skipped); a CldnnError gets a
    note naming the ONNX node and its op type."""
    if ctx.is_folded(index):
        return
    try:
        CONVERTERS[node.op_type].fn(ctx, node)
    except CldnnError as e:
        if hasattr(e, "add_note"):
            e.add_note(f"while converting ONNX node '{node.name}' ({node.op_type})")
        raise


def _check_supported(ctx: ImportContext, name: str) -> None:
    """One pass over the graph: every node that will not be folded needs a converter for its opset version."""
    import onnx.defs

    bad = []
    for i, node in enumerate(ctx.model.graph.node):
        if ctx.foldable(node):
            ctx.mark_folded(i, node)
            continue
        domain = node.domain or ""
        conv = CONVERTERS.get(node.op_type) if domain in DEFAULT_DOMAINS else None
        if conv is None:
            bad.append(f"{node.op_type} (domain '{domain}', opset {ctx.opset}, node '{node.name}')")
            continue
        try:
            since = onnx.defs.get_schema(node.op_type, ctx.opset).since_version
        except Exception:  # noqa: BLE001 - unknown schema
            since = -1
        if since not in conv.versions:
            bad.append(f"{node.op_type} version {since} (opset {ctx.opset}, node '{node.name}'): "
                       f"semantics of versions {sorted(conv.versions)} are supported")
    if bad:
        supported = ", ".join(sorted(CONVERTERS))
        raise UnsupportedError(f"'{name}': {len(bad)} unsupported node(s):\n  " + "\n  ".join(bad)
                               + f"\nsupported operators: {supported}")


def graph_inputs(model: Any) -> dict[str, list[int | None]]:
    """{input name: dims} of an ONNX model's graph inputs that are not initializers; a dynamic dimension is None.

    ``model`` is a path, bytes or ``onnx.ModelProto``. Raises OnnxImportError for a file that is not ONNX.
    """
    m, _ = _load(model)
    init = {i.name for i in m.graph.initializer}
    return {i.name: [d.dim_value if d.HasField("dim_value") else None for d in i.type.tensor_type.shape.dim]
            for i in m.graph.input if i.name not in init}


def input_arrays_info(topology: Topology) -> dict[str, tuple[tuple[int, ...], np.dtype]]:
    """{input id: (shape, numpy dtype)} of a Topology's InputLayouts (helper for tools and the CLI)."""
    out = {}
    for p in topology:
        if p.type_name == "input_layout":
            lay = p.layout  # type: ignore[attr-defined]
            out[p.id] = (lay.shape, lay.dtype.numpy)
    return out


__all__ = ["OnnxImportError", "ShapeError", "graph_inputs", "input_arrays_info", "load_onnx"]
