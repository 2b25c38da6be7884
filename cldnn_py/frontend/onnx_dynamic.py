"""ONNX models with dynamic dimensions or shape-determining inputs, specialized per input signature.

``load_onnx`` returns an :class:`OnnxDynamicTopology` when a graph input has a dimension that is not fixed
(``batch``, ``width``, ``?``) or when a converter needs, as a constant, a tensor computed from graph inputs
(``value_inputs``: Reshape ``shape``, Resize ``scales``/``sizes``, Slice ``starts``/``ends``, Pad ``pads``, Reduce
``axes``, Expand/Tile sizes ... given as graph inputs). ``specialize`` re-imports the model with every input shape
fixed and the value inputs bound as initializers, so ONNX shape inference and constant folding see a static graph
(``Shape``, ``ConstantOfShape``, ``Range`` and shape arithmetic fold away) and the result is an ordinary static
Topology. ``cldnn_py.dynamic_network.DynamicNetwork`` caches one built Network per signature.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..dynamic_network import DynamicTopology
from ..io_signature import TensorSignature
from ..topology import Topology
from .onnx import SHAPE_ONLY
from .onnx_context import NotConstantError, onnx_dtype_to_numpy


def _dims(vi: Any, given: tuple[int, ...] | None) -> tuple[int | str | None, ...]:
    if given is not None:
        return tuple(int(d) for d in given)
    t = vi.type.tensor_type
    if not t.HasField("shape"):
        return ()
    out: list[int | str | None] = []
    for d in t.shape.dim:
        if d.HasField("dim_value") and d.dim_value >= 0:
            out.append(int(d.dim_value))
        else:
            out.append(d.dim_param or None)
    return tuple(out)


def signatures(m: Any, input_shapes: dict[str, tuple[int, ...]]) -> tuple[dict[str, TensorSignature],
                                                                          dict[str, TensorSignature]]:
    """({graph input: declared type}, {graph output: declared type}); ``input_shapes`` overrides input dims.

    Initializers listed as graph inputs are not inputs. Raises ShapeError when ``input_shapes`` names an
    unknown input or gives another rank than the model declares.
    """
    from ..errors import ShapeError

    init = {i.name for i in m.graph.initializer}
    declared = {i.name: i for i in m.graph.input if i.name not in init}
    unknown = set(input_shapes) - set(declared)
    if unknown:
        raise ShapeError(f"input_shapes names {sorted(unknown)}, which are not inputs of the model "
                         f"(inputs: {list(declared)})")
    ins = {}
    for name, vi in declared.items():
        given = input_shapes.get(name)
        dims = vi.type.tensor_type.shape.dim
        if given is not None and vi.type.tensor_type.HasField("shape") and len(given) != len(dims):
            raise ShapeError(f"input '{name}': input_shapes rank: expected {len(dims)}, got {tuple(given)}")
        ins[name] = TensorSignature(name, onnx_dtype_to_numpy(vi.type.tensor_type.elem_type), _dims(vi, given))
    outs = {o.name: TensorSignature(o.name, onnx_dtype_to_numpy(o.type.tensor_type.elem_type), _dims(o, None))
            for o in m.graph.output}
    return ins, outs


def _producers(m: Any) -> dict[str, Any]:
    return {o: n for n in m.graph.node for o in n.output if o}


def value_inputs_of(m: Any, tensor: str) -> list[str]:
    """The graph inputs whose values ``tensor`` depends on (not through Shape/Size, which read only shapes)."""
    init = {i.name for i in m.graph.initializer}
    inputs = {i.name for i in m.graph.input if i.name not in init}
    prod = _producers(m)
    found: list[str] = []
    seen: set[str] = set()
    stack = [tensor]
    while stack:
        t = stack.pop()
        if t in seen or not t:
            continue
        seen.add(t)
        if t in inputs:
            found.append(t)
        elif t in prod and prod[t].op_type not in SHAPE_ONLY:
            stack.extend(prod[t].input)
    return sorted(found)


def check_supported_dynamic(m: Any, name: str, opset: int) -> None:
    """The support check of a model whose shapes are not known yet: a node without a converter is accepted when
    all its inputs may be constants once shapes and integer inputs are fixed (it will be folded then).

    Raises UnsupportedError listing every other unsupported node.
    """
    from onnx import TensorProto

    from .onnx import raise_unsupported, unsupported_reason

    maybe = {i.name for i in m.graph.initializer}
    maybe |= {i.name for i in m.graph.input
              if i.type.tensor_type.elem_type in (TensorProto.INT64, TensorProto.INT32)}
    bad = []
    for node in m.graph.node:
        if node.op_type in SHAPE_ONLY or all((not i) or i in maybe for i in node.input):
            maybe |= {o for o in node.output if o}
            continue
        reason = unsupported_reason(node, opset, m)
        if reason:
            bad.append(reason)
    raise_unsupported(bad, name)


class OnnxDynamicTopology(DynamicTopology):
    """An ONNX model imported up to its input signature (see the module docstring).

    ``model``: the checked ModelProto; ``input_shapes``: the dims fixed at ``load_onnx``; ``value_inputs``: inputs
    bound as constants per specialization.
    """

    def __init__(self, model: Any, name: str, input_shapes: dict[str, tuple[int, ...]], value_inputs: list[str],
                 ins: dict[str, TensorSignature], outs: dict[str, TensorSignature]) -> None:
        super().__init__(ins, outs, value_inputs, name)
        self.model = model
        self.input_shapes = dict(input_shapes)

    def specialize(self, shapes: dict[str, tuple[int, ...]], feeds: dict[str, np.ndarray]) -> Topology:
        """Import with every input's shape fixed to ``shapes`` and the value inputs bound to ``feeds``.

        A value input found on the way (the import names a tensor it needs as a constant) is added to
        ``value_inputs`` and the import retried. Raises the import's errors; UnsupportedError when a needed
        constant depends on no graph input.
        """
        from onnx import ModelProto, numpy_helper

        from .onnx import import_static

        while True:
            m = ModelProto()
            m.CopyFrom(self.model)
            for n in self.value_inputs:
                m.graph.initializer.append(numpy_helper.from_array(np.asarray(feeds[n]).astype(
                    self.input_signature[n].dtype), n))
            fixed = {n: s for n, s in shapes.items() if n not in self.value_inputs}
            ins = {n: TensorSignature(n, s.dtype, fixed[n]) for n, s in self.input_signature.items()
                   if n in fixed}
            try:
                return import_static(m, self.name, fixed, ins, self.output_signature)
            except NotConstantError as e:
                more = [v for v in value_inputs_of(self.model, e.tensor) if v not in self.value_inputs]
                if not more or any(v not in feeds for v in more):
                    raise
                self.value_inputs.extend(more)
