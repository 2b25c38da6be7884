"""ImportContext: the state of one ONNX import, and the helpers converters use.

- ``const(name)`` / ``is_const(name)``: folded constant values (initializers, Constant, folded nodes);
- ``ref(name)``: the primitive id holding a tensor (adds a ``Data`` for a constant on first use: float → f32,
  int64 → i32, bool → u8);
- ``add(*prims)``: add primitives and compute their output layouts at once, so ``shape(name)`` is always exact;
- ``attrs(node)``: the node's attributes as Python values; ``fresh(base)``: a unique auxiliary id;
- ``alias(out, src)``: a no-kernel output (Identity, Dropout) that refers to ``src``.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..errors import CldnnError, OnnxImportError, ShapeError, UnsupportedError
from ..layout import DataType, Format, Layout
from ..primitives import Data, InputLayout, Reorder
from ..primitives.base import Primitive
from ..topology import Topology
from .onnx_limits import check_bytes, check_fold, check_graph_folds
from .onnx_quant_fold import fold as fold_quantization

_INT_TYPES = {np.dtype(np.int64), np.dtype(np.int32), np.dtype(np.int16), np.dtype(np.uint16),
              np.dtype(np.uint32), np.dtype(np.uint64)}


class NotConstantError(UnsupportedError):
    """A converter needs tensor ``tensor`` as a constant (Reshape's ``shape``, Resize's ``sizes`` ...) and its value
    is only known at run time. ``load_onnx`` turns the graph inputs it depends on into value inputs of a dynamic
    topology (``frontend/onnx_dynamic.py``)."""

    def __init__(self, tensor: str) -> None:
        super().__init__(f"tensor '{tensor}' must be a constant (an initializer or computable at import)")
        self.tensor = tensor


def to_device_array(a: np.ndarray) -> np.ndarray:
    """A constant as the engine stores it: floats as f32, wide integers as i32, bool as u8."""
    a = np.asarray(a)
    if a.dtype.kind == "f":
        return a.astype(np.float32)
    if a.dtype == np.bool_:
        return a.astype(np.uint8)
    if a.dtype in _INT_TYPES:
        return a.astype(np.int32)
    return a


def _itemsize(elem_type: int) -> int:
    """Bytes per element of an ONNX element type (1 for a type numpy does not know: to_array names it later)."""
    try:
        return onnx_dtype_to_numpy(elem_type).itemsize
    except Exception:  # noqa: BLE001 - an unknown or corrupt data type
        return 1


def onnx_dtype_to_numpy(elem_type: int) -> np.dtype:
    """numpy dtype of an ONNX TensorProto element type."""
    from onnx import helper

    return np.dtype(helper.tensor_dtype_to_np_dtype(elem_type))


def stored_precision(model: Any) -> str | None:
    """``"f16"`` when the model stores its floats as float16: most float initializer elements are FLOAT16, or
    (no float initializers) every float graph input is; else None. The importer computes in float32 either way
    (``to_device_array``); the Program decides the storage (``BuildOptions.inference_precision``)."""
    from onnx import TensorProto

    floats = (TensorProto.FLOAT, TensorProto.FLOAT16, TensorProto.DOUBLE, TensorProto.BFLOAT16)
    sizes = {t: 0 for t in floats}
    for init in model.graph.initializer:
        if init.data_type in sizes:
            sizes[init.data_type] += math.prod(init.dims)
    total = sum(sizes.values())
    if total:
        return "f16" if 2 * sizes[TensorProto.FLOAT16] > total else None
    ins = [i.type.tensor_type.elem_type for i in model.graph.input if i.type.tensor_type.elem_type in floats]
    return "f16" if ins and all(t == TensorProto.FLOAT16 for t in ins) else None


_FLOAT_TYPES = (1, 10, 11, 16)  # TensorProto FLOAT, FLOAT16, DOUBLE, BFLOAT16
_KEEP_VALUES = 64
"""Float initializers with more elements than this lose their values in the copy given to ONNX shape inference
(weights; a Resize scale or a ConstantOfShape value keeps its own): serializing ResNet-50's 100 MB for it cost 0.5 s."""


class ImportContext:
    """State of one import. ``topology`` is the result; ``layouts`` the output Layout of every primitive added."""

    def __init__(self, model: Any, opset: int, input_shapes: dict[str, tuple[int, ...]]) -> None:
        import onnx
        from onnx import numpy_helper

        self.model = model
        self.opset = opset
        self.topology = Topology()
        self.layouts: dict[str, Layout] = {}
        self.consts: dict[str, np.ndarray] = {}
        self.aliases: dict[str, str] = {}
        self.folded: set[int] = set()  # indices of folded nodes in graph.node
        self.output_names = {o.name for o in model.graph.output}
        self._n = 0
        for init in model.graph.initializer:
            check_bytes(f"initializer '{init.name}'", init.dims, _itemsize(init.data_type))
            try:
                self.consts[init.name] = numpy_helper.to_array(init)
            except Exception as e:  # noqa: BLE001 - onnx raises ValueError, TypeError ... on corrupt tensors
                raise OnnxImportError(f"initializer '{init.name}' (dims {list(init.dims)}, data type "
                                      f"{init.data_type}) cannot be read: {type(e).__name__}: {e}") from None
        self.topology.preferred_precision = stored_precision(model)
        unknown = set(input_shapes) - {i.name for i in model.graph.input}
        if unknown:
            raise ShapeError(f"input_shapes names {sorted(unknown)}, which are not inputs of the model "
                             f"(inputs: {[i.name for i in model.graph.input if i.name not in self.consts]})")
        # fix input shapes, then let ONNX infer the static shapes of everything else
        m = onnx.ModelProto()
        m.CopyFrom(model)
        for init in m.graph.initializer:  # weights do not decide shapes: infer_shapes need not serialize them
            if init.data_type in _FLOAT_TYPES and int(np.prod(init.dims, dtype=np.int64)) > _KEEP_VALUES:
                init.ClearField("raw_data")
                init.ClearField("float_data")
                init.ClearField("double_data")
                init.ClearField("int32_data")  # f16 / bf16 values
        for inp in m.graph.input:
            if inp.name in self.consts:
                continue
            shape = self._input_shape(inp, input_shapes.get(inp.name))
            np_dtype = onnx_dtype_to_numpy(inp.type.tensor_type.elem_type)
            if 0 in shape:  # an empty input's value is known: a zero-size constant
                self.consts[inp.name] = np.zeros(shape, np_dtype)
            dims = inp.type.tensor_type.shape.dim
            del dims[:]
            for s in shape:
                dims.add().dim_value = s
            if 0 in shape:
                continue
            dt = DataType.from_numpy(to_device_array(np.zeros(1, np_dtype)).dtype)
            self.add(InputLayout(inp.name, Layout(dt, Format.bfyx, shape if shape else (1,))))
        check_graph_folds(m.graph, self.consts)
        try:
            inferred = onnx.shape_inference.infer_shapes(m, data_prop=True)
        except Exception:  # noqa: BLE001 - inference is a help, not a requirement
            inferred = m
        self.inferred: dict[str, tuple[int, ...]] = {}
        for vi in list(inferred.graph.value_info) + list(inferred.graph.output):
            t = vi.type.tensor_type
            if t.HasField("shape") and all(d.HasField("dim_value") for d in t.shape.dim):
                self.inferred[vi.name] = tuple(d.dim_value for d in t.shape.dim)

    def _input_shape(self, inp: Any, given: tuple[int, ...] | None) -> tuple[int, ...]:
        dims = inp.type.tensor_type.shape.dim
        if given is not None:
            given = tuple(int(s) for s in given)
            if len(given) != len(dims) and len(dims) > 0:
                raise ShapeError(f"input '{inp.name}': input_shapes rank: expected {len(dims)}, got {given}")
            return given
        shape = []
        for i, d in enumerate(dims):
            if not d.HasField("dim_value") or d.dim_value <= 0:
                raise ShapeError(f"input '{inp.name}': dimension {i} is dynamic ({d.dim_param or '?'}); give it "
                                 f"with input_shapes={{'{inp.name}': (...)}}")
            shape.append(d.dim_value)
        return tuple(shape)

    # ----- constants and folding --------------------------------------------------------------------------------
    def is_const(self, name: str) -> bool:
        """True when the tensor's value is known at import."""
        return name in self.consts

    def const(self, name: str) -> np.ndarray:
        """The constant value of a tensor; raises UnsupportedError when it is computed at run time."""
        if name not in self.consts:
            raise NotConstantError(name)
        return self.consts[name]

    def empty(self, name: str, shape: tuple[int, ...], like: str) -> None:
        """Tensor ``name`` is empty (a dimension of 0): its value is known, a zero-size constant of ``like``'s
        dtype. The engine has no zero-size buffers; consumers fold or drop it (Concat), and an empty graph output
        is returned by the Network without a kernel (``Topology.empty_outputs``)."""
        dtype = self.consts[like].dtype if like in self.consts else self.layout(like).dtype.numpy
        self.consts[name] = np.zeros(shape, dtype)

    def is_empty(self, name: str) -> bool:
        """True for a zero-size constant."""
        return name in self.consts and self.consts[name].size == 0

    def foldable(self, node: Any) -> bool:
        """All inputs constant, or Shape/Size of a tensor whose shape is static."""
        if node.op_type in ("Shape", "Size") and node.input[0] not in self.consts:
            return self.static_shape(node.input[0]) is not None
        return all((not i) or i in self.consts for i in node.input)

    def mark_folded(self, index: int, node: Any) -> None:
        """Evaluate a foldable node with onnx.reference and store its outputs as constants. Raises OnnxImportError
        naming the node when its output is (or, for ConstantOfShape, Tile, Expand and Range, would be) larger than
        CLDNN_PY_MAX_TENSOR_BYTES, before the evaluator allocates it."""
        from onnx import helper
        from onnx.reference import ReferenceEvaluator

        if node.op_type in ("Shape", "Size") and node.input[0] not in self.consts:
            shape = np.array(self.static_shape(node.input[0]), dtype=np.int64)
            if node.op_type == "Size":
                self.consts[node.output[0]] = np.array(math.prod(int(d) for d in shape), dtype=np.int64)
                self.folded.add(index)
                return
            a = self.attrs(node)
            r = len(shape)
            start, end = a.get("start", 0), a.get("end", r)
            start, end = (start + r if start < 0 else start), (end + r if end < 0 else end)
            self.consts[node.output[0]] = shape[max(0, start):min(r, end)]
            self.folded.add(index)
            return
        check_fold(node, self.consts)  # ConstantOfShape / Tile / Expand / Range: the size before the allocation
        quant = fold_quantization(node.op_type, [self.consts[i] if i else None for i in node.input], self.attrs(node))
        if quant is not None:  # QuantizeLinear / DequantizeLinear of any version (onnx.reference: from 19 only)
            for name, val in zip([o for o in node.output if o], quant):
                self.consts[name] = val
            self.folded.add(index)
            return
        opsets = {o.domain or "": o.version for o in self.model.opset_import}
        g = helper.make_graph([node], "fold", [helper.make_tensor_value_info(i, 0, None) for i in node.input if i],
                              [helper.make_tensor_value_info(o, 0, None) for o in node.output if o])
        m = helper.make_model(g, opset_imports=[helper.make_opsetid(d, v) for d, v in opsets.items()])
        try:
            outs = ReferenceEvaluator(m).run(None, {i: self.consts[i] for i in node.input if i})
        except Exception as e:  # noqa: BLE001
            raise CldnnError(f"{node.op_type} '{node.name}': constant folding failed: {e}") from None
        for name, val in zip([o for o in node.output if o], outs):
            val = np.asarray(val)
            check_bytes(f"{node.op_type} '{node.name}' (constant folding, output '{name}')", val.shape, val.itemsize)
            self.consts[name] = val
        self.folded.add(index)

    def static_shape(self, name: str) -> tuple[int, ...] | None:
        """The static shape of a tensor if known (constant, converted primitive, or ONNX shape inference). A
        constant's own shape comes first: the Data primitive made for it once it is read at run time has no rank 0
        (a scalar is stored as (1,)), and a second reader of a shared scalar (a Gather index that onnxruntime's
        optimizer deduplicated across attention blocks) would otherwise see a rank-1 tensor."""
        if name in self.consts:
            return tuple(self.consts[name].shape)
        pid = self.aliases.get(name, name)
        if pid in self.layouts:
            return self.layouts[pid].shape
        return self.inferred.get(name)

    # ----- conversion -------------------------------------------------------------------------------------------
    def is_folded(self, index: int) -> bool:
        """True when node number ``index`` was folded at import (its outputs are constants; nothing to convert)."""
        return index in self.folded

    def attrs(self, node: Any) -> dict[str, Any]:
        """The node's attributes as Python values (bytes decoded to str)."""
        from onnx import helper

        out = {}
        for a in node.attribute:
            v = helper.get_attribute_value(a)
            if isinstance(v, bytes):
                v = v.decode()
            out[a.name] = v
        return out

    def fresh(self, base: str) -> str:
        """A new primitive id derived from ``base`` that is not used yet."""
        while True:
            self._n += 1
            pid = f"{base}__{self._n}"
            if pid not in self.topology and pid not in self.consts:
                return pid

    def ref(self, name: str) -> str:
        """The primitive id that holds tensor ``name`` (a Data is added for a constant on first use)."""
        pid = self.aliases.get(name, name)
        if pid in self.topology:
            return pid
        if name in self.consts:
            arr = to_device_array(self.consts[name])
            self.add(Data(name, arr.reshape(1) if arr.ndim == 0 else arr))
            return name
        raise CldnnError(f"tensor '{name}' is used before it is produced")

    def shape(self, name: str) -> tuple[int, ...]:
        """Static shape of a tensor; raises ShapeError when unknown."""
        s = self.static_shape(name)
        if s is None:
            raise ShapeError(f"the shape of tensor '{name}' is not static")
        return s

    def layout(self, name: str) -> Layout:
        """Layout of the primitive holding tensor ``name`` (adds a Data for a constant)."""
        return self.layouts[self.ref(name)]

    def add(self, *prims: Primitive) -> str:
        """Add primitives in order, computing each output layout; returns the id of the last one. Raises
        OnnxImportError naming the primitive when its output is larger than CLDNN_PY_MAX_TENSOR_BYTES."""
        for p in prims:
            lay = p.calc_output_layout([self.layouts[d] for d in p.dependencies()])
            check_bytes(f"{p.type_name} '{p.id}'", lay.shape, lay.dtype.size)
            self.topology.add(p)
            self.layouts[p.id] = lay
        return prims[-1].id

    def alias(self, out: str, src: str) -> None:
        """Make tensor ``out`` refer to ``src`` without a kernel (a copy is added if ``out`` is a graph output)."""
        if src in self.consts and out not in self.output_names:
            self.consts[out] = self.consts[src]
            return
        pid = self.ref(src)
        if out in self.output_names:
            self.add(Reorder(out, pid, format=self.layouts[pid].format))
        else:
            self.aliases[out] = pid

    def materialize(self, name: str) -> None:
        """Give a graph output a primitive of its own name (a constant becomes Data, an alias a copy)."""
        if name in self.consts:
            self.ref(name)
        elif name in self.aliases:
            self.add(Reorder(name, self.aliases[name], format=self.layouts[self.aliases[name]].format))
        else:
            raise CldnnError(f"graph output '{name}' is never produced")
