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
from ..host_ops import HOST_OPS
from ..io_signature import TensorSignature
from ..topology import Topology
from .onnx_context import ImportContext, NotConstantError
from .onnx_dynamic_quant import rewrite_dynamic_quantization
from .onnx_external import external_tensors, inline_external_data
from .onnx_ops import CONVERTERS, DEFAULT_DOMAINS, key_of, quantization_integer
from .onnx_qdq import fuse_qdq
from .onnx_qoperator import unfuse_qoperator

log = logging.getLogger("cldnn_py.frontend.onnx")

SHAPE_ONLY = ("Shape", "Size")
"""Operators that read only their input's shape: they fold once that shape is known."""


def _load(model: Any) -> tuple[Any, str]:
    """(ModelProto, name for messages) of a path, bytes or ModelProto, external data read in (``onnx_external``:
    from the model file's folder only; a ModelProto or bytes with external data is refused)."""
    m, name, _ = _load_serialized(model)
    return m, name


def _load_serialized(model: Any) -> tuple[Any, str, bytes | None]:
    """:func:`_load`, plus the model's serialized bytes when they were given or read and are still the model's
    (no external data was inlined), else None: the checker takes them instead of serializing the model again
    (0.5 s for ResNet-50's 100 MB)."""
    import onnx

    base_dir: str | None = None
    if isinstance(model, onnx.ModelProto):
        name = f"<ModelProto {model.graph.name!r}>"
        inline_external_data(model, None, name)  # raises if it has external tensors: no folder to read them from
        return model, name, None
    if isinstance(model, (bytes, bytearray)):
        name, data = "<bytes>", bytes(model)
    else:
        name = os.fspath(model)
        try:
            with open(name, "rb") as f:
                data = f.read()
        except OSError as e:
            raise OnnxImportError(f"cannot read ONNX model '{name}': {e}") from None
        base_dir = os.path.dirname(os.path.abspath(name))
    try:
        m = onnx.load_from_string(data)
    except Exception as e:  # noqa: BLE001 - protobuf raises DecodeError and others
        raise OnnxImportError(f"'{name}' is not a valid ONNX model (truncated or not ONNX): {e}") from None
    if not m.graph.node and not m.graph.output:
        raise OnnxImportError(f"'{name}' is not a valid ONNX model: it has no graph")
    unchanged = not external_tensors(m)
    inline_external_data(m, base_dir, name)
    return m, name, (data if unchanged else None)

def load_onnx(model: Any, input_shapes: dict[str, tuple[int, ...]] | None = None, fallback: str = "none") -> Topology:
    """Convert an ONNX model (path, bytes or ``onnx.ModelProto``) to a Topology.

    A model whose input dimensions are all static (or fixed by ``input_shapes``) and whose shapes do not depend on
    input values gives a static Topology. Otherwise (a dynamic dimension such as ``batch``, or an input whose value
    determines a shape: Reshape ``shape``, Resize ``sizes``, Slice ``starts``, Reduce ``axes`` ... fed as a graph
    input) it gives an :class:`~cldnn_py.frontend.onnx_dynamic.OnnxDynamicTopology`: ``Network(engine, topology)``
    then specializes it per input signature (``cldnn_py/dynamic_network.py``). Either way the Topology's
    ``input_signature`` / ``output_signature`` hold the model's declared dtypes and ranks (int64, bool, rank 0),
    which the Network accepts and returns.

    With ``fallback="onnxruntime"``, a model with nodes the engine cannot run is partitioned instead of refused
    (``onnx_partition.py``, as an ONNX Runtime execution provider claims nodes): a
    :class:`~cldnn_py.partitioned_network.PartitionedTopology` whose engine stages run here and whose other stages
    run in onnxruntime sessions; a model the engine runs whole gives the same Topology as without it.

    Operators whose output size depends on the data (NonMaxSuppression, NonZero, Unique, Compress:
    ``cldnn_py/host_ops``) always run on the host: a model with them gives a PartitionedTopology whose host stages
    run them (and the light index operators that read their results) in numpy between engine stages.

    Args:
        model: the model.
        input_shapes: {input name: shape} to fix dynamic or different input dimensions once (e.g. a batch of 8).
        fallback: ``"none"`` (default: unsupported nodes are an error) or ``"onnxruntime"``.
    Returns:
        A Topology whose ``outputs`` are the graph outputs, with InputLayouts named as the graph inputs.
    Raises:
        OnnxImportError: not ONNX, truncated, or fails the checker (names the file).
        UnsupportedError: lists every unsupported node at once (op type, opset, node name) and the supported list;
            with fallback, when onnxruntime is not installed.
        ShapeError: ``input_shapes`` names an unknown input or has the wrong rank.
        ValueError: ``fallback`` is neither "none" nor "onnxruntime".
    """
    if fallback not in ("none", "onnxruntime"):
        raise ValueError(f"load_onnx: fallback: expected 'none' or 'onnxruntime', got {fallback!r}")
    m, name, data = _load_serialized(model)
    check(m, name, data)
    from .onnx_partition import has_host_ops, partition

    if fallback == "onnxruntime" or has_host_ops(m):
        return partition(m, name, dict(input_shapes or {}), fallback)
    return import_checked(m, name, dict(input_shapes or {}))


def check(m: Any, name: str, serialized: bytes | None = None) -> None:
    """Run the ONNX checker on ``m`` (or on ``serialized``, its bytes, when given); unknown operators and deprecated
    versions pass (they are reported with the unsupported nodes). Raises OnnxImportError naming ``name``."""
    import onnx

    try:
        onnx.checker.check_model(serialized if serialized is not None else m)
    except onnx.checker.ValidationError as e:
        # unknown operators are listed with all other unsupported nodes; an operator version the checker calls
        # deprecated (GroupNormalization-18 at opsets 18-20) is still a defined version that exporters write
        if "No Op registered" not in str(e) and "is deprecated in domain_version" not in str(e):
            raise OnnxImportError(f"'{name}' fails the ONNX checker: {str(e).splitlines()[0]}") from None
    except Exception as e:  # noqa: BLE001 - a corrupt protobuf can make the checker raise anything (UnicodeError ...)
        raise OnnxImportError(f"'{name}' cannot be checked (corrupt model?): {type(e).__name__}: {e}") from None


def import_checked(m: Any, name: str, shapes: dict[str, tuple[int, ...]]) -> Topology:
    """A checked model as a static Topology or an OnnxDynamicTopology (see :func:`load_onnx`); raises its errors."""
    from .onnx_dynamic import OnnxDynamicTopology, check_supported_dynamic, signatures, value_inputs_of

    ins, outs = signatures(m, shapes)
    if not all(sig.is_static for sig in ins.values()):
        check_supported_dynamic(m, name, _opset(m))
        return OnnxDynamicTopology(m, name, shapes, [], ins, outs)
    try:
        return import_static(m, name, {n: s.dims for n, s in ins.items()}, ins, outs)  # type: ignore[misc]
    except NotConstantError as e:
        values = value_inputs_of(m, e.tensor)
        if not values:
            raise
        return OnnxDynamicTopology(m, name, shapes, values, ins, outs)


def _opset(m: Any) -> int:
    return next((o.version for o in m.opset_import if o.domain in DEFAULT_DOMAINS), 1)


def import_static(m: Any, name: str, input_shapes: dict[str, tuple[int, ...]], ins: dict[str, TensorSignature],
                  outs: dict[str, TensorSignature]) -> Topology:
    """Import a checked model whose every input shape is known (``input_shapes`` and static dims).

    Raises UnsupportedError (NotConstantError when a converter needs a run-time value as a constant), ShapeError.
    """
    if quantization_integer.integer_path() == "always":  # QDQ groups onto the integer kernels (onnx_qdq.py)
        m, fused = fuse_qdq(m)
        if fused:
            log.debug("%s: %d QDQ groups rewritten as QLinearConv", name, fused)
    else:  # QOperator nodes the float path takes as QDQ groups, for the fused fake quantization (onnx_qoperator.py)
        m, unfused = unfuse_qoperator(m)
        if unfused:
            log.debug("%s: %d QLinearConv / QLinearMatMul nodes rewritten as QDQ groups", name, unfused)
        m, dynamic = rewrite_dynamic_quantization(m)  # ConvInteger / MatMulInteger on a float fake quantization
        if dynamic:
            log.debug("%s: %d dynamically quantized layers rewritten as float layers", name, dynamic)
    ctx = ImportContext(m, _opset(m), input_shapes)
    _check_supported(ctx, name)
    for i, node in enumerate(m.graph.node):
        _convert(ctx, i, node)
    topo = ctx.topology
    for out in m.graph.output:
        if ctx.is_empty(out.name):  # no zero-size buffers: the Network returns the empty array itself
            topo.empty_outputs[out.name] = ctx.consts[out.name]
        elif out.name not in ctx.topology:
            ctx.materialize(out.name)
    topo.outputs = [o.name for o in m.graph.output if o.name not in topo.empty_outputs]
    init = {i.name for i in m.graph.initializer}
    topo.input_signature = {n: s for n, s in ins.items() if n not in init}
    topo.output_signature = {}
    no_shape = {o.name for o in m.graph.output if not o.type.tensor_type.HasField("shape")}  # rank unknown too
    for n, s in outs.items():  # a dynamic or undeclared output shape: the one the import computed
        shape = ctx.inferred.get(n) if not s.is_static or n in no_shape else None
        topo.output_signature[n] = TensorSignature(n, s.dtype, shape) if shape is not None else s
    return topo


def _convert(ctx: ImportContext, index: int, node: Any) -> None:
    """Fold or convert node number ``index`` (folding and conversion in one walk: a node whose inputs became
    constants, or a Shape/Size of a converted tensor, folds here); a CldnnError gets a note naming the ONNX node
    and its op type."""
    if ctx.is_folded(index):
        return
    try:
        if ctx.foldable(node):
            ctx.mark_folded(index, node)
            return
        conv = CONVERTERS.get(key_of(node.op_type, node.domain))
        if conv is None:  # deferred by _check_supported as foldable later; it was not
            raise UnsupportedError(f"{node.op_type} '{node.name}': its inputs are computed at run time (a "
                                   f"{node.op_type} is only supported when it folds at import)")
        conv.fn(ctx, node)
    except CldnnError as e:
        if getattr(e, "onnx_node", None) is None:
            e.onnx_node = node.name  # type: ignore[attr-defined]  # the partitioner hands this node to onnxruntime
        if hasattr(e, "add_note"):
            e.add_note(f"while converting ONNX node '{node.name}' ({node.op_type})")
        raise


def _check_supported(ctx: ImportContext, name: str) -> None:
    """One pass over the graph: every node that will not be folded needs a converter for its opset version.

    Nodes foldable now are folded; a Shape/Size of a tensor whose shape is known only once it is converted, and
    nodes fed only by such values and constants, are deferred to the conversion walk (which folds them).
    """
    bad = []
    later: set[str] = set()
    for i, node in enumerate(ctx.model.graph.node):
        if ctx.foldable(node):
            ctx.mark_folded(i, node)
            continue
        if node.op_type in SHAPE_ONLY or all((not t) or t in later or ctx.is_const(t) for t in node.input):
            later |= {o for o in node.output if o}  # folded (or, with a converter, converted) by the walk
            continue
        reason = unsupported_reason(node, ctx.opset, ctx.model)
        if reason:
            bad.append(reason)
    raise_unsupported(bad, name)


def since_version(node: Any, opset: int) -> int:
    """The version (``since_version``) of the operator definition ``node`` follows at ``opset``; -1 when ONNX has no
    schema for it."""
    import onnx.defs

    try:
        return int(onnx.defs.get_schema(node.op_type, opset).since_version)
    except Exception:  # noqa: BLE001 - unknown schema
        return -1


def unsupported_reason(node: Any, opset: int, model: Any = None) -> str | None:
    """Why a node (not folded) cannot be converted: no converter, or not for its operator version; None if it can.
    ``opset`` is the model's ONNX opset; a node of another domain (``com.microsoft``) is checked against that
    domain's version in ``model``'s ``opset_import`` (1 when no model is given: every onnxruntime contrib operator
    is at version 1)."""
    domain = node.domain or ""
    conv = CONVERTERS.get(key_of(node.op_type, domain))
    if conv is None:
        return f"{node.op_type} (domain '{domain}', opset {opset}, node '{node.name}')"
    if domain not in DEFAULT_DOMAINS:
        ver = next((o.version for o in model.opset_import if o.domain == domain), 1) if model is not None else 1
        if ver not in conv.versions:
            return (f"{node.op_type} (domain '{domain}' version {ver}, node '{node.name}'): versions "
                    f"{sorted(conv.versions)} are supported")
        return None
    since = since_version(node, opset)
    if since not in conv.versions:
        return (f"{node.op_type} version {since} (opset {opset}, node '{node.name}'): "
                f"semantics of versions {sorted(conv.versions)} are supported")
    return None


def raise_unsupported(bad: list[str], name: str) -> None:
    """Raise one UnsupportedError listing every unsupported node and the supported operators (if any)."""
    if bad:
        supported = ", ".join(sorted(set(CONVERTERS) | set(HOST_OPS)))
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


def input_signatures(model: Any) -> dict[str, TensorSignature]:
    """{input name: declared dtype and dims} of an ONNX model's graph inputs that are not initializers (a dynamic
    dimension is its symbolic name or None). Raises OnnxImportError for a file that is not ONNX."""
    from .onnx_dynamic import signatures

    m, _ = _load(model)
    return signatures(m, {})[0]


def input_arrays_info(topology: Topology) -> dict[str, tuple[tuple[int, ...], np.dtype]]:
    """{input id: (shape, numpy dtype)} of a Topology's InputLayouts (helper for tools and the CLI)."""
    out = {}
    for p in topology:
        if p.type_name == "input_layout":
            lay = p.layout  # type: ignore[attr-defined]
            out[p.id] = (lay.shape, lay.dtype.numpy)
    return out


__all__ = ["OnnxImportError", "ShapeError", "graph_inputs", "input_arrays_info", "input_signatures", "load_onnx"]
