"""com.microsoft DynamicQuantizeLSTM → the LSTM converter on dequantized weights (issue 18).

onnxruntime's ``quantize_dynamic`` turns an ONNX LSTM into this contrib operator (``onnxruntime/quantization/
operators/lstm.py``; schema in onnxruntime's ``contrib_ops/quantization_defs.cc``): the inputs are LSTM's, with W and
R stored as int8 (or uint8) and *transposed*, W (num_directions, input_size, 4·hidden), R (num_directions, hidden,
4·hidden), followed by W_scale, W_zero_point, R_scale, R_zero_point, each of shape (num_directions,) (per tensor of
a direction) or (num_directions, 4·hidden) (per gate row). The attributes are LSTM's without ``layout``.

The weights are dequantized at import, ``(q − zero_point) · scale`` in float32, transposed back to ONNX LSTM's
(num_directions, 4·hidden, input_size), and the node is converted by the LSTM converter (``recurrent.py``): the
fused LstmSequence kernel or the unrolled steps. onnxruntime also quantizes X and each step's H to uint8 on the
fly (per tensor, a dynamic range) and multiplies in integers; this converter keeps the activations in float32, as
OpenVINO's ONNX frontend does for this operator, so its result is the float LSTM on the quantized weights: closer
to the original float model than onnxruntime's, and different from onnxruntime's by its activation rounding
(about 1e-2 on gate values in ±3).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from onnx import helper

from ...errors import UnsupportedError
from ..onnx_quant_fold import QUANT_TYPES
from . import converter
from .nn_common import optional_input, where
from .recurrent import recurrent

_LSTM_INPUTS = 8  # X, W, R, B, sequence_lens, initial_h, initial_c, P
_QUANT = {8: ("W", "W_scale", "W_zero_point"), 10: ("R", "R_scale", "R_zero_point")}


def _dequantized(ctx: Any, node: Any, q_index: int, s_index: int) -> str:
    """Tensor name of the float32 (num_directions, 4·hidden, k) weights of input ``q_index`` (W or R, stored
    (num_directions, k, 4·hidden)) dequantized with the scale / zero point at ``s_index`` / ``s_index + 1``.

    Raises UnsupportedError naming the node for a run-time weight, scale or zero point, a type other than
    int8 / uint8, a zero point of another type than the weights, or a scale / zero point of another shape than
    (num_directions,) or (num_directions, 4·hidden)."""
    what, s_what, z_what = _QUANT[s_index]
    names = [node.input[q_index], optional_input(node, s_index), optional_input(node, s_index + 1)]
    for name, w in zip(names, (what, s_what, z_what)):
        if name is None or not ctx.is_const(name):
            raise UnsupportedError(f"{where(node)}: {w} must be a constant (an initializer), got "
                                   f"{'none' if name is None else 'a tensor computed at run time'}")
    q, s, z = (np.asarray(ctx.const(n)) for n in names)
    if q.dtype not in QUANT_TYPES or q.ndim != 3:
        raise UnsupportedError(f"{where(node)}: {what} must be a 3-D int8 or uint8 tensor, got {q.dtype} {q.shape}")
    if z.dtype != q.dtype:
        raise UnsupportedError(f"{where(node)}: {z_what} must be {q.dtype} as {what}, got {z.dtype}")
    nd, gates = q.shape[0], q.shape[2]
    if s.shape not in ((nd,), (nd, gates)) or z.shape != s.shape:
        raise UnsupportedError(f"{where(node)}: {s_what} / {z_what} must have shape ({nd},) or ({nd}, {gates}), "
                               f"got {s.shape} / {z.shape}")
    if not np.all(np.isfinite(s)) or np.any(s <= 0):
        raise UnsupportedError(f"{where(node)}: {s_what} must be finite and positive")
    s3 = s.astype(np.float32).reshape(nd, 1, -1)
    z3 = z.astype(np.float32).reshape(nd, 1, -1)
    w = ((q.astype(np.float32) - z3) * s3).transpose(0, 2, 1)
    name = ctx.fresh(f"{node.name or node.output[0]}_{what}")
    ctx.consts[name] = np.ascontiguousarray(w, dtype=np.float32)
    return name


@converter("DynamicQuantizeLSTM", versions=(1,), domain="com.microsoft")
def dynamic_quantize_lstm(ctx: Any, node: Any) -> None:
    """DynamicQuantizeLSTM(X, W, R, B, sequence_lens, initial_h, initial_c, P, W_scale, W_zero_point, R_scale,
    R_zero_point): LSTM on dequantized weights (see the module docstring); X (seq, batch, input) float32, outputs
    Y (seq, num_directions, batch, hidden), Y_h / Y_c (num_directions, batch, hidden) as LSTM's.

    Raises UnsupportedError naming the node for fewer than 12 inputs, a run-time W / R / scale / zero point, or
    their types and shapes (see :func:`_dequantized`); LSTM's own errors otherwise."""
    if len(node.input) < 12:
        raise UnsupportedError(f"{where(node)}: DynamicQuantizeLSTM takes 12 inputs (X, W, R, B, sequence_lens, "
                               f"initial_h, initial_c, P, W_scale, W_zero_point, R_scale, R_zero_point), got "
                               f"{len(node.input)}")
    inputs = list(node.input[:_LSTM_INPUTS])
    inputs[1] = _dequantized(ctx, node, 1, 8)
    inputs[2] = _dequantized(ctx, node, 2, 10)
    attrs = {a.name: helper.get_attribute_value(a) for a in node.attribute if a.name != "layout"}
    recurrent(ctx, helper.make_node("LSTM", inputs, list(node.output), name=node.name, **attrs))
