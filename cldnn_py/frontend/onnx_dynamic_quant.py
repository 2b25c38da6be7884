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
Mul, Add and Relu stay as they are and fuse into the convolution's epilogue on OpenCL, the Div / Round / Max / Min
into one eltwise kernel (``fuse_eltwise_operand``). s, z, −z and 255 − z come from one ai.cldnn_py
DynamicQuantParams node (one ``dynamic_quant_params`` kernel) in place of the DynamicQuantizeLinear node, whose
node-by-node import is about a dozen one-element kernels (two Reduces, the scalar arithmetic, the zero point's casts):
on PoCL each costs ~40-75 µs of the device's hand-over time, more than the layer itself in a MobileNet. The
DynamicQuantizeLinear node stays (beside it) only when something else reads its uint8 output or zero point.
Measured (same process, rewrite off / on, PoCL, batch 1): dynamically quantized SqueezeNet 62.9 → 11.0 ms,
MobileNetV3-style 112 → 36 ms (924 → 235 kernels), ResNet-50 201 → 108 ms.

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
from .onnx_ops.quantization import CLDNN_DOMAIN
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

    def prologue(self, dql: Any, keep: bool) -> list[Any]:
        """The nodes computing the clamped input of ``dql``'s rewritten readers, at ``dql``'s place: one
        DynamicQuantParams (ai.cldnn_py) for (s, z, −z, 255 − z), then Div, Round, Max, Min. With ``keep`` False
        (nothing else reads its uint8 output or zero point) they replace ``dql``, and the scale keeps its name."""
        q, s, _ = dql.output
        base = f"{dql.name or q}__dyn"
        scale = f"{base}_s" if keep else s
        zf, lo, hi, div, rnd, low = (f"{base}_{w}" for w in ("z", "lo", "hi", "div", "round", "max"))
        return [helper.make_node("DynamicQuantParams", [dql.input[0]], [scale, zf, lo, hi], name=f"{base}/params",
                                 domain=CLDNN_DOMAIN),
                helper.make_node("Div", [dql.input[0], scale], [div], name=f"{base}/div"),
                helper.make_node("Round", [div], [rnd], name=f"{base}/round"),
                helper.make_node("Max", [rnd, lo], [low], name=f"{base}/max"),
                helper.make_node("Min", [low, hi], [self.clamped_name(dql)], name=f"{base}/min")]

    @staticmethod
    def clamped_name(dql: Any) -> str:
        """The tensor clamp(round(x / s), −z, 255 − z) of ``dql``'s input."""
        return f"{dql.name or dql.output[0]}__dyn_q"

    def node(self, node: Any) -> tuple[Any, list[Any], Any] | None:
        """(its DynamicQuantizeLinear, the nodes replacing ``node`` and its Cast, the Cast), or None to keep it."""
        dql = self.dql.get(node.input[0])
        if dql is None or _opt(node, 2) != dql.output[2]:
            return None
        cast = self._cast_reader(node)
        wc = self._centred_weights(node) if cast is not None else None
        if cast is None or wc is None:
            return None
        x = self.clamped_name(dql)
        base = node.name or node.output[0]
        w_name, y = f"{base}__dyn_w", f"{base}__dyn_y"
        self.inits.append(numpy_helper.from_array(wc, w_name))
        if node.op_type == "ConvInteger":
            keep = {a.name: helper.get_attribute_value(a) for a in node.attribute}
            nodes = [helper.make_node("Conv", [x, w_name], [y], name=base, **keep)]
        else:
            nodes = [helper.make_node("MatMul", [x, w_name], [y], name=base)]
        nodes.append(helper.make_node("Round", [y], [cast.output[0]], name=f"{base}/round"))
        self.count += 1
        return dql, nodes, cast


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
    layers = {}  # id of a rewritten ConvInteger / MatMulInteger → (its DynamicQuantizeLinear, new nodes, its Cast)
    for n in m.graph.node:
        if n.op_type in ("ConvInteger", "MatMulInteger") and n.domain in _DEFAULT:
            plan = rw.node(n)
            if plan is not None:
                layers[id(n)] = plan
    if not layers:
        return model, 0
    gone = set(layers)
    dqls = {id(d): d for d, _, _ in layers.values()}
    # a subgraph (If / Loop / Scan body) may read an outer tensor by name, unseen by ``readers``: keep every node
    nested = any(a.type in (onnx.AttributeProto.GRAPH, onnx.AttributeProto.GRAPHS) for n in m.graph.node
                 for a in n.attribute)
    keep = {k: nested or any(id(r) not in gone for o in (d.output[0], d.output[2]) for r in rw.readers.get(o, []))
            or d.output[0] in rw.outputs or d.output[2] in rw.outputs for k, d in dqls.items()}
    casts = {c.output[0]: nodes for _, nodes, c in layers.values()}
    out: list[Any] = []
    for n in m.graph.node:
        if id(n) in dqls:
            out.extend(([n] if keep[id(n)] else []) + rw.prologue(n, keep[id(n)]))
        elif id(n) in gone:
            continue
        elif n.op_type == "Cast" and n.output[0] in casts:
            out.extend(casts.pop(n.output[0]))
        else:
            out.append(n)
    del m.graph.node[:]
    m.graph.node.extend(out)
    m.graph.initializer.extend(rw.inits)
    m.opset_import.append(helper.make_opsetid(CLDNN_DOMAIN, 1))
    return m, rw.count
