"""Dynamically quantized layers → float layers on a run-time fake quantization (issue 18).

onnxruntime's ``quantize_dynamic`` (and the int8 models built with it) writes every quantized layer as

    DynamicQuantizeLinear(x) → (q uint8, s, z)
    ConvInteger(q, w, z, w_z) → Cast(float) → Mul(·, s · w_s) → Add(bias) [→ Relu]      (MatMulInteger likewise)

Converted node by node, that is a uint8 tensor, an int32 tensor and two casts around every convolution: plain
layouts, reference reorders and unfused eltwise kernels between blocked convolutions (measured: dynamically
quantized SqueezeNet 522 kernels on PoCL, 2.2× onnxruntime's int8 latency, a third of its device time in
``reorder_ref``). This rewrite keeps the arithmetic and drops the integer tensors:

    q − z = saturate(round(x / s) + z) − z = clamp(round(x / s), −z, 255 − z)          (z an integer in [0, 255])

so ``Cast(ConvInteger(q, w, z, w_z))`` equals ``Round(Conv(clamp(round(x / s), −z, 255 − z), float(w − w_z)))``:
the convolution sums the same centred integers in float32, exact when :func:`float_sums_exact` bounds every partial
sum under 2^24 (and the final Round restores the integers where a Winograd product adds float error); the layer's
Mul, Add and Relu stay as they are and fuse into the convolution's epilogue, the Div / Round / Max / Min into one
eltwise kernel. The DynamicQuantizeLinear node stays for its scale and zero point (its uint8 output, when nothing
reads it any more, is trimmed at build).

When: under ``quantization_integer.integer_path() == "auto"``, for a ConvInteger / MatMulInteger whose input is a
DynamicQuantizeLinear output with that node's own zero point, whose weights and weight zero point are constant 8-bit
(the zero point one value, or one per output channel / column), whose output only a Cast to float reads, and whose
float sums the bound proves exact; anything else is left to the node-by-node converters.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from onnx import TensorProto, helper, numpy_helper

from .onnx_ops.nn_common import optional_input as _opt
from .onnx_ops.quantization_integer import centred, float_sums_exact
from .onnx_quant_fold import QUANT_TYPES

_DEFAULT = ("", "ai.onnx")


class _Rewrite:
    """One rewrite of a graph's dynamically quantized layers (module docstring)."""

    def __init__(self, graph: Any) -> None:
        self.consts = {i.name: numpy_helper.to_array(i) for i in graph.initializer}
        self.readers: dict[str, list[Any]] = {}
        for n in graph.node:
            for i in n.input:
                if i:
                    self.readers.setdefault(i, []).append(n)
        self.outputs = {o.name for o in graph.output}
        self.dql = {n.output[0]: n for n in graph.node
                    if n.op_type == "DynamicQuantizeLinear" and n.domain in _DEFAULT and len(n.output) == 3}
        self.inits: list[Any] = []
        self.clamped: dict[str, str] = {}  # DynamicQuantizeLinear output q → the name of q − z as float
        self.count = 0

    def _cast_reader(self, node: Any) -> Any | None:
        """The Cast to float that alone reads ``node``'s output, or None."""
        out = node.output[0]
        readers = self.readers.get(out, [])
        if out in self.outputs or len(readers) != 1:
            return None
        cast = readers[0]
        to = next((helper.get_attribute_value(a) for a in cast.attribute if a.name == "to"), None)
        return cast if cast.op_type == "Cast" and cast.domain in _DEFAULT and to == TensorProto.FLOAT else None

    def _centred_weights(self, node: Any) -> np.ndarray | None:
        """float32 w − w_z of the node's constant weights (ConvInteger: (OC, C/g, kh, kw), zero point per OC;
        MatMulInteger: (K, N), zero point per column), or None when not covered or not provably exact."""
        conv = node.op_type == "ConvInteger"
        w = self.consts.get(node.input[1])
        wz_name = _opt(node, 3)
        wz = self.consts.get(wz_name) if wz_name else None
        if w is None or w.dtype not in QUANT_TYPES or (wz_name and wz is None):
            return None
        if w.ndim != (4 if conv else 2) or (wz is not None and (wz.dtype != w.dtype or wz.ndim > 1)):
            return None
        channels = w.shape[0] if conv else w.shape[1]
        if wz is not None and wz.size not in (1, channels):
            return None
        rows = centred(w if conv else w.T, wz)  # (output channels, K)
        if not float_sums_exact(rows, np.dtype(np.uint8), None):
            return None
        zf = np.zeros(1, np.float32) if wz is None else wz.astype(np.float32).reshape(-1)
        if conv:
            return (w.astype(np.float32) - zf.reshape(-1, 1, 1, 1)).astype(np.float32)
        return (w.astype(np.float32) - zf.reshape(1, -1)).astype(np.float32)

    def _clamped(self, dql: Any) -> tuple[str, list[Any]]:
        """The name of clamp(round(x / s), −z, 255 − z) for ``dql`` and the nodes computing it (none when made
        before: one per DynamicQuantizeLinear, shared by its readers)."""
        q, s, z = dql.output
        if q in self.clamped:
            return self.clamped[q], []
        base = f"{dql.name or q}__dyn"
        c255 = f"{base}_255"
        self.inits.append(numpy_helper.from_array(np.array(255.0, np.float32), c255))
        zf, lo, hi, div, rnd, low, out = (f"{base}_{w}" for w in ("zf", "lo", "hi", "div", "round", "max", "q"))
        nodes = [helper.make_node("Cast", [z], [zf], name=f"{base}/zf", to=TensorProto.FLOAT),
                 helper.make_node("Neg", [zf], [lo], name=f"{base}/lo"),
                 helper.make_node("Sub", [c255, zf], [hi], name=f"{base}/hi"),
                 helper.make_node("Div", [dql.input[0], s], [div], name=f"{base}/div"),
                 helper.make_node("Round", [div], [rnd], name=f"{base}/round"),
                 helper.make_node("Max", [rnd, lo], [low], name=f"{base}/max"),
                 helper.make_node("Min", [low, hi], [out], name=f"{base}/min")]
        self.clamped[q] = out
        return out, nodes

    def node(self, node: Any) -> tuple[list[Any], Any] | None:
        """(the nodes replacing ``node``, the Cast they replace too), or None to keep it."""
        dql = self.dql.get(node.input[0])
        if dql is None or _opt(node, 2) != dql.output[2]:
            return None
        cast = self._cast_reader(node)
        wc = self._centred_weights(node) if cast is not None else None
        if cast is None or wc is None:
            return None
        x, nodes = self._clamped(dql)
        base = node.name or node.output[0]
        w_name, y = f"{base}__dyn_w", f"{base}__dyn_y"
        self.inits.append(numpy_helper.from_array(wc, w_name))
        if node.op_type == "ConvInteger":
            keep = {a.name: helper.get_attribute_value(a) for a in node.attribute}
            nodes.append(helper.make_node("Conv", [x, w_name], [y], name=base, **keep))
        else:
            nodes.append(helper.make_node("MatMul", [x, w_name], [y], name=base))
        nodes.append(helper.make_node("Round", [y], [cast.output[0]], name=f"{base}/round"))
        self.count += 1
        return nodes, cast


def rewrite_dynamic_quantization(model: Any) -> tuple[Any, int]:
    """A copy of ``model`` whose dynamically quantized ConvInteger / MatMulInteger layers read a float fake
    quantization of their input (module docstring), and how many were rewritten (0: ``model`` itself, untouched).
    Needs opset 11 or later (Round); subgraphs are left alone."""
    import onnx

    if not any(o.domain in _DEFAULT and o.version >= 11 for o in model.opset_import):
        return model, 0
    if not any(n.op_type == "DynamicQuantizeLinear" and n.domain in _DEFAULT for n in model.graph.node):
        return model, 0
    m = onnx.ModelProto()
    m.CopyFrom(model)
    rw = _Rewrite(m.graph)
    out: list[Any] = []
    replaced: dict[str, list[Any]] = {}  # a Cast's output → the nodes that now make it, placed where the Cast was
    for n in m.graph.node:
        new = rw.node(n) if n.op_type in ("ConvInteger", "MatMulInteger") and n.domain in _DEFAULT else None
        if new is not None:
            replaced[new[1].output[0]] = new[0]
            continue
        if n.op_type == "Cast" and n.output[0] in replaced:
            out.extend(replaced.pop(n.output[0]))
            continue
        out.append(n)
    if not rw.count:
        return model, 0
    del m.graph.node[:]
    m.graph.node.extend(out)
    m.graph.initializer.extend(rw.inits)
    return m, rw.count
