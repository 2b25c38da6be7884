"""QDQ node groups → QLinearConv (issue 18's int8 pass): the graph rewrite that lets a QDQ model's convolutions
run on the integer kernels (``QuantizedConvolution``: int8 × int8 summed in int32, requantized in the epilogue).

A QDQ model (onnxruntime's ``quantize_static`` with ``QuantFormat.QDQ``, the format TensorRT and OpenVINO read too)
keeps float operators and marks every quantized tensor with a QuantizeLinear → DequantizeLinear pair. A runtime
that has integer kernels finds the groups whose meaning is an integer operator and replaces them, as onnxruntime's
QDQ transformers (``onnxruntime/core/optimizer/qdq_transformer``, "QDQ → QLinearConv") and OpenVINO's low-precision
transformations (``ConvolutionTransformation``) do. The group, for a 2-D Conv and for a Gemm (as a 1×1 Conv):

    DQ(x_q; s_x, z_x) ─┐
    DQ(w_q; s_w, z_w) ─┼─ Conv ─ [Relu] ─ Q(·; s_y, z_y) ─ y_q
    DQ(b_i32; s_x·s_w)─┘

becomes ``QLinearConv(x_q, s_x, z_x, w_q, s_w, z_w, s_y, z_y, b_i32) → y_q``, which onnxruntime computes the same
way (int32 sums, then one float32 multiply by s_x·s_w/s_y, round half to even, z_y added, saturated). Conditions:
x_q computed at run time with one constant scale and zero point; w_q a constant 8-bit tensor with one scale (and
zero point) per tensor or per output channel; the bias absent or a constant int32 tensor dequantized with zero
point 0 and scale s_x·s_w (to float32 rounding); the Conv's (and Relu's) only reader the QuantizeLinear, with one
constant scale and zero point; a Relu only where it cannot change the result (z_y the type's minimum: every
negative value saturates there anyway). Anything else stays as it was (the float path: fake quantization fused
into the float kernels).

When: only under ``quantization_integer.INTEGER_PATH = "always"`` (``CLDNN_PY_INTEGER_PATH=always``). On this
project's CPU devices (PoCL on AVX2 without VNNI, the numba CPU engine) the float kernels with fused fake
quantization are 3-6× faster than the integer ones and stay within one quantization step of onnxruntime
(docs/precision.md), so the default keeps them; the integer path gives onnxruntime's integer arithmetic exactly and
8-bit activations.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from onnx import helper, numpy_helper

from .onnx_ops.nn_common import optional_input as _opt
from .onnx_quant_fold import QUANT_TYPES, weight_qparams


class _Graph:
    """Producers, readers and constants of a GraphProto (initializers and Constant nodes)."""

    def __init__(self, graph: Any) -> None:
        self.graph = graph
        self.producer = {o: n for n in graph.node for o in n.output if o}
        self.readers: dict[str, list[Any]] = {}
        for n in graph.node:
            for i in n.input:
                if i:
                    self.readers.setdefault(i, []).append(n)
        self.consts = {i.name: numpy_helper.to_array(i) for i in graph.initializer}
        for n in graph.node:
            if n.op_type == "Constant" and len(n.attribute) == 1 and n.attribute[0].name == "value":
                self.consts[n.output[0]] = numpy_helper.to_array(n.attribute[0].t)
        self.outputs = {o.name for o in graph.output}

    def const(self, name: str | None) -> np.ndarray | None:
        return self.consts.get(name) if name else None

    def only_reader(self, name: str) -> Any | None:
        """The single node reading tensor ``name`` (not a graph output), else None."""
        r = self.readers.get(name, [])
        return r[0] if len(r) == 1 and name not in self.outputs else None

    def dq(self, name: str) -> Any | None:
        """The DequantizeLinear producing ``name`` (no blocked quantization), else None."""
        n = self.producer.get(name)
        if n is None or n.op_type != "DequantizeLinear":
            return None
        return None if any(a.name == "block_size" and helper.get_attribute_value(a) for a in n.attribute) else n


def _axis(node: Any) -> int:
    return next((int(helper.get_attribute_value(a)) for a in node.attribute if a.name == "axis"), 1)


def _scalar_qparams(g: _Graph, node: Any) -> tuple[np.ndarray, np.ndarray] | None:
    """(scale, zero point) of a Q/DQ ``node`` with one constant float scale and one constant 8-bit zero point."""
    s, z = g.const(node.input[1]), g.const(_opt(node, 2))
    if s is None or s.size != 1 or z is None or z.size != 1 or z.dtype not in QUANT_TYPES:
        return None
    return s.reshape(()).astype(np.float32), z.reshape(())


def _weights(g: _Graph, dq: Any, channels_axis: int) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """(w_q, scale, zero point) of a weights DequantizeLinear (:func:`~.onnx_quant_fold.weight_qparams`)."""
    return weight_qparams(g.const(dq.input[0]), g.const(dq.input[1]), g.const(_opt(dq, 2)), _axis(dq),
                          channels_axis)


def _bias(g: _Graph, name: str | None, sx: np.ndarray, sw: np.ndarray, channels: int) -> np.ndarray | bool | None:
    """The int32 bias of a group (None: no bias; False: a bias the rewrite cannot take)."""
    if name is None:
        return None
    dq = g.dq(name)
    if dq is None:
        return False
    b, s, z = g.const(dq.input[0]), g.const(dq.input[1]), g.const(_opt(dq, 2))
    if b is None or b.dtype != np.int32 or b.size != channels or s is None or (z is not None and np.any(z)):
        return False
    want = np.broadcast_to(np.float32(sx) * sw.reshape(-1), (channels,))
    if not np.allclose(np.broadcast_to(s.reshape(-1).astype(np.float32), (channels,)), want, rtol=1e-5, atol=0):
        return False
    return b.reshape(-1)


def _output_q(g: _Graph, out: str) -> tuple[Any, list[Any]] | None:
    """(QuantizeLinear, [nodes replaced before it]) reading ``out``, through a Relu that cannot change the result."""
    r = g.only_reader(out)
    skipped = []
    if r is not None and r.op_type == "Relu":
        skipped.append(r)
        r = g.only_reader(r.output[0])
        if r is not None and r.op_type == "QuantizeLinear":
            qp = _scalar_qparams(g, r)
            if qp is None or int(qp[1]) != int(np.iinfo(qp[1].dtype).min):
                return None
    if r is None or r.op_type != "QuantizeLinear" or _scalar_qparams(g, r) is None or \
            any(a.name in ("output_dtype", "saturate") for a in r.attribute):
        return None
    return r, skipped


class _Rewrite:
    """One rewrite of a graph: replaced nodes, new nodes by the position of the node they replace, new constants."""

    def __init__(self, g: _Graph) -> None:
        self.g = g
        self.remove: set[int] = set()
        self.insert: dict[int, list[Any]] = {}
        self.inits: list[Any] = []
        self.count = 0

    def const(self, base: str, value: np.ndarray) -> str:
        name = f"{base}__qdq{len(self.inits)}"
        self.inits.append(numpy_helper.from_array(np.asarray(value), name))
        return name

    def group(self, op: Any) -> None:
        """Rewrite the group around Conv or Gemm node ``op`` when it has the QDQ form (module docstring)."""
        g = self.g
        gemm = op.op_type == "Gemm"
        dqx, dqw = g.dq(op.input[0]), g.dq(op.input[1])
        if dqx is None or dqw is None or dqx.input[0] in g.consts:
            return
        xp = _scalar_qparams(g, dqx)
        attrs = {a.name: helper.get_attribute_value(a) for a in op.attribute}
        if gemm:
            if attrs.get("alpha", 1.0) != 1.0 or attrs.get("beta", 1.0) != 1.0 or attrs.get("transA", 0):
                return
            wp = _weights(g, dqw, 0 if attrs.get("transB", 0) else 1)
        else:
            wp = _weights(g, dqw, 0)
        q = _output_q(g, op.output[0])
        if xp is None or wp is None or q is None:
            return
        w, sw, zw = wp
        if gemm:
            if w.ndim != 2:
                return
            if not attrs.get("transB", 0):
                w = np.ascontiguousarray(w.T)
            w = w.reshape(w.shape + (1, 1))
        elif w.ndim != 4:
            return
        bias = _bias(g, _opt(op, 2), xp[0], sw, w.shape[0])
        if bias is False:
            return
        qy, skipped = q
        yp = _scalar_qparams(g, qy)
        assert yp is not None
        base = op.name or op.output[0]
        inputs = [dqx.input[0], self.const(base + "_xs", xp[0]), self.const(base + "_xzp", xp[1]),
                  self.const(base + "_w", w), self.const(base + "_ws", sw), self.const(base + "_wzp", zw),
                  self.const(base + "_ys", yp[0]), self.const(base + "_yzp", yp[1])]
        if bias is not None:
            inputs.append(self.const(base + "_b", np.asarray(bias, np.int32)))
        nodes = self.g.graph.node
        pos = next(i for i, n in enumerate(nodes) if n is op)
        if gemm:
            rows = self.const(base + "_x4", np.array([0, -1, 1, 1], np.int64))
            flat = self.const(base + "_y2", np.array([0, -1], np.int64))
            x4, y4 = f"{base}__qdq_x4", f"{base}__qdq_y4"
            new = [helper.make_node("Reshape", [dqx.input[0], rows], [x4], name=f"{base}/x4"),
                   helper.make_node("QLinearConv", [x4] + inputs[1:], [y4], name=base),
                   helper.make_node("Reshape", [y4, flat], [qy.output[0]], name=f"{base}/y2")]
        else:
            keep = {k: v for k, v in attrs.items()
                    if k in ("auto_pad", "dilations", "group", "kernel_shape", "pads", "strides")}
            new = [helper.make_node("QLinearConv", inputs, [qy.output[0]], name=base, **keep)]
        self.insert[pos] = new
        for n in [op, *skipped, qy]:
            self.remove.add(next(i for i, m in enumerate(nodes) if m is n))
        self.count += 1

    def apply(self) -> None:
        """Replace the graph's nodes; DequantizeLinear nodes no longer read are dropped."""
        graph = self.g.graph
        out = []
        for i, n in enumerate(graph.node):
            out.extend(self.insert.get(i, []))
            if i not in self.remove:
                out.append(n)
        read = {i for n in out for i in n.input} | self.g.outputs
        while True:
            kept = [n for n in out if n.op_type != "DequantizeLinear" or any(o in read for o in n.output)]
            if len(kept) == len(out):
                break
            out = kept
            read = {i for n in out for i in n.input} | self.g.outputs
        del graph.node[:]
        graph.node.extend(out)
        graph.initializer.extend(self.inits)


def fuse_qdq(model: Any) -> tuple[Any, int]:
    """A copy of ``model`` whose QDQ Conv and Gemm groups are QLinearConv nodes (module docstring), and how many
    groups were rewritten (0: ``model`` itself is returned, untouched). Subgraphs (If, Loop) are left alone."""
    import onnx

    if not any(o.domain in ("", "ai.onnx") and o.version >= 10 for o in model.opset_import):
        return model, 0  # QLinearConv needs opset 10 (every QDQ model has 13 or more)
    m = onnx.ModelProto()
    m.CopyFrom(model)
    rw = _Rewrite(_Graph(m.graph))
    for node in list(m.graph.node):
        if node.op_type in ("Conv", "Gemm") and node.domain in ("", "ai.onnx"):
            rw.group(node)
    if not rw.count:
        return model, 0
    rw.apply()
    return m, rw.count
