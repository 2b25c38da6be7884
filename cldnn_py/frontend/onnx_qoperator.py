"""QOperator nodes → QDQ groups (issue 18): the inverse of ``onnx_qdq.py``, so that a QOperator model (QLinearConv,
QLinearMatMul between QuantizeLinear / DequantizeLinear, onnxruntime's ``QuantFormat.QOperator`` and the int8
models of the ONNX Model Zoo) runs on the same fast path as a QDQ model.

Why: a QLinearConv whose float32 sums provably cannot round (``quantization_integer.float_sums_exact``) takes the
float path, and converted on its own that path dequantizes its uint8 input (a cast, a subtraction, a product),
convolves, and quantizes its output back to a uint8 tensor: three or four primitives of glue around every layer, in
plain formats between blocked convolutions (measured: QOperator ResNet-50 3.5× onnxruntime's int8 latency on PoCL,
QDQ ResNet-50 1.4×). Written as a QDQ group instead,

    QLinearConv(x, s_x, z_x, w, s_w, z_w, s_y, z_y, B)
        →  DQ(x; s_x, z_x) ─ Conv(·, DQ(w; s_w, z_w), DQ(B; s_x·s_w)) ─ Q(·; s_y, z_y)

the weights and bias fold at import, and each QuantizeLinear read only by DequantizeLinear nodes (the next
QLinearConv's input, a DequantizeLinear before a Relu or a Sum) becomes a fake quantization fused into the producing
convolution's kernel (``quantization._fake_quantize``). The arithmetic is the float path's own: it was already
dequantize, convolve in float, quantize. QLinearMatMul likewise (MatMul with per-column B scales along axis 1).

When: under ``quantization_integer.integer_path() == "auto"``, for nodes whose scales, zero points and weights are
constants of one value (per-tensor x and y) or one per output channel (weights), and whose float path the bound
proves exact; the others stay as they are and take the integer kernels (``quantization_integer.py``).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from onnx import helper, numpy_helper

from .onnx_ops.nn_common import optional_input as _opt
from .onnx_ops.quantization_integer import centred, float_sums_exact
from .onnx_quant_fold import QUANT_TYPES, weight_qparams


def _const(consts: dict[str, np.ndarray], name: str | None) -> np.ndarray | None:
    return consts.get(name) if name else None


class _Unfuse:
    """One rewrite of a graph's QLinearConv / QLinearMatMul nodes (module docstring)."""

    def __init__(self, graph: Any) -> None:
        self.graph = graph
        self.consts = {i.name: numpy_helper.to_array(i) for i in graph.initializer}
        self.inits: list[Any] = []
        self.count = 0

    def _name(self, base: str, what: str) -> str:
        return f"{base}__qop_{what}{self.count}"

    def _scalars(self, node: Any, scale: int, zp: int) -> bool:
        s, z = _const(self.consts, node.input[scale]), _const(self.consts, _opt(node, zp))
        return s is not None and s.size == 1 and z is not None and z.size == 1 and z.dtype in QUANT_TYPES

    def _weights(self, node: Any, w_i: int, channels_axis: int) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
        """(w, scale, zero point) of the node's constant weights (per tensor, or per output channel)."""
        c = self.consts
        return weight_qparams(_const(c, node.input[w_i]), _const(c, node.input[w_i + 1]),
                              _const(c, _opt(node, w_i + 2)), channels_axis, channels_axis)

    def node(self, node: Any) -> list[Any] | None:
        """The QDQ nodes replacing ``node``, or None to keep it."""
        conv = node.op_type == "QLinearConv"
        if not (self._scalars(node, 1, 2) and self._scalars(node, 6, 7)):
            return None
        wp = self._weights(node, 3, 0 if conv else 1)
        if wp is None or (conv and wp[0].ndim != 4) or (not conv and wp[0].ndim != 2):
            return None
        w, ws, wz = wp
        rows = centred(w, wz) if conv else centred(w.T, wz)  # (output channels, K), as the integer path bounds it
        x_zp = self.consts[node.input[2]]
        if not float_sums_exact(rows, x_zp.dtype, int(x_zp.reshape(-1)[0])):
            return None
        bias = _opt(node, 8) if conv else None
        if bias is not None:
            b = _const(self.consts, bias)
            if b is None or b.dtype != np.int32 or b.size != w.shape[0]:
                return None
        base = node.name or node.output[0]
        xf, wf, yf = self._name(base, "x"), self._name(base, "w"), self._name(base, "y")
        axis = 0 if conv else 1
        nodes = [helper.make_node("DequantizeLinear", node.input[0:3], [xf], name=f"{base}/dq_x"),
                 helper.make_node("DequantizeLinear", node.input[3:6], [wf], name=f"{base}/dq_w", axis=axis)]
        ins = [xf, wf]
        if bias is not None:
            bs = (np.float32(self.consts[node.input[1]].reshape(())) * ws.astype(np.float32)).astype(np.float32)
            bs_name, bf = self._name(base, "bs"), self._name(base, "b")
            self.inits.append(numpy_helper.from_array(bs, bs_name))
            nodes.append(helper.make_node("DequantizeLinear", [bias, bs_name], [bf], name=f"{base}/dq_b", axis=0))
            ins.append(bf)
        if conv:
            keep = {a.name: helper.get_attribute_value(a) for a in node.attribute}
            nodes.append(helper.make_node("Conv", ins, [yf], name=base, **keep))
        else:
            nodes.append(helper.make_node("MatMul", ins, [yf], name=base))
        nodes.append(helper.make_node("QuantizeLinear", [yf, node.input[6], node.input[7]], [node.output[0]],
                                      name=f"{base}/q_y"))
        self.count += 1
        return nodes


def unfuse_qoperator(model: Any) -> tuple[Any, int]:
    """A copy of ``model`` whose QLinearConv / QLinearMatMul nodes on the float path are QDQ groups (module
    docstring), and how many were rewritten (0: ``model`` itself, untouched). Needs opset 13 or later for per-axis
    DequantizeLinear; subgraphs are left alone."""
    import onnx

    if not any(o.domain in ("", "ai.onnx") and o.version >= 13 for o in model.opset_import):
        return model, 0
    if not any(n.op_type in ("QLinearConv", "QLinearMatMul") and n.domain in ("", "ai.onnx")
               for n in model.graph.node):
        return model, 0
    m = onnx.ModelProto()
    m.CopyFrom(model)
    rw = _Unfuse(m.graph)
    out = []
    for n in m.graph.node:
        new = rw.node(n) if n.op_type in ("QLinearConv", "QLinearMatMul") and n.domain in ("", "ai.onnx") else None
        out.extend(new if new is not None else [n])
    if not rw.count:
        return model, 0
    del m.graph.node[:]
    m.graph.node.extend(out)
    m.graph.initializer.extend(rw.inits)
    return m, rw.count
