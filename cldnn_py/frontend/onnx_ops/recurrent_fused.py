"""LSTM and GRU with the standard activations as LstmSequence / GruSequence primitives: the time loop in one kernel
per direction.

An unrolled LSTM costs about ten kernels per step and O(steps) distinct kernels to build (each step reads its rows
at another offset), so a new sequence length costs seconds of compilation. An LSTM whose activations are ONNX's
defaults (Sigmoid, Tanh, Tanh) without ``input_forget`` and without ``sequence_lens`` becomes, per direction, one
FullyConnected (X·Wᵀ + Wb + Rb for all steps) and one ``LstmSequence`` (the recurrence, peepholes and clip
included); Y, Y_h and Y_c are Crops of its (seq, batch, 2·hidden) output. A GRU with ONNX's default activations
(Sigmoid, Tanh) without ``sequence_lens`` likewise becomes a FullyConnected and a ``GruSequence`` per direction
(either ``linear_before_reset``; Rb_h stays out of the bias when it is 1). Other LSTMs, GRUs and RNN stay unrolled
(recurrent.py). The same split as OpenVINO's LSTMSequence: the input projection as a GEMM, the recurrence as one
operation.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ...primitives.crop import Crop
from ...primitives.fully_connected import FullyConnected
from ...primitives.gru_sequence import GruSequence
from ...primitives.lstm_sequence import LstmSequence
from ...primitives.reshape import Reshape
from .nn_common import const_data


def fusable(node: Any, p: dict[str, Any]) -> bool:
    """True for an LSTM whose every direction uses the default activations, with no input_forget and no
    sequence_lens that differ from the sequence length."""
    if node.op_type != "LSTM" or p["input_forget"] or p["lens"] is not None:
        return False
    return all([a.name for a in acts] == ["sigmoid", "tanh", "tanh"] for acts in p["acts"])


def fused_direction(ctx: Any, node: Any, base: str, x2d: str, d: int, reverse: bool, p: dict[str, Any],
                    h0: str, c0: str, clip: float | None) -> tuple[str | None, str, str]:
    """One direction: (Y rows (seq·batch, hidden) in time order or None, H_T (batch, hidden), C_T)."""
    seq, batch, n = p["seq"], p["batch"], p["hidden"]
    wb, rb = p["B"][d][:4 * n], p["B"][d][4 * n:]
    xw = ctx.add(FullyConnected(ctx.fresh(f"{base}_xw"), x2d, weights=const_data(ctx, f"{base}_W", p["W"][d]),
                                bias=const_data(ctx, f"{base}_B", np.asarray(wb + rb, np.float32))))
    r = const_data(ctx, f"{base}_R", np.ascontiguousarray(p["R"][d], dtype=np.float32))
    peep = "" if p["P"] is None else const_data(ctx, f"{base}_P", np.asarray(p["P"][d], np.float32))
    seq_out = ctx.add(LstmSequence(ctx.fresh(f"{base}_seq"), xw, h0, c0, r, peep, reverse=reverse,
                                   clip=0.0 if clip is None else clip))
    last = 0 if reverse else seq - 1
    y = None
    if p["want_y"]:
        yc = ctx.add(Crop(ctx.fresh(f"{base}_y"), seq_out, shape=(seq, batch, n), offsets=(0, 0, 0)))
        y = ctx.add(Reshape(ctx.fresh(f"{base}_y2d"), yc, shape=(seq * batch, n)))
    hc = ctx.add(Crop(ctx.fresh(f"{base}_hT"), seq_out, shape=(1, batch, n), offsets=(last, 0, 0)))
    cc = ctx.add(Crop(ctx.fresh(f"{base}_cT"), seq_out, shape=(1, batch, n), offsets=(last, 0, n)))
    h_t = ctx.add(Reshape(ctx.fresh(f"{base}_hT2"), hc, shape=(batch, n)))
    c_t = ctx.add(Reshape(ctx.fresh(f"{base}_cT2"), cc, shape=(batch, n)))
    return y, h_t, c_t


def fusable_gru(node: Any, p: dict[str, Any]) -> bool:
    """True for a GRU whose every direction uses the default activations (Sigmoid, Tanh), with no sequence_lens
    that differ from the sequence length."""
    if node.op_type != "GRU" or p["lens"] is not None:
        return False
    return all([a.name for a in acts] == ["sigmoid", "tanh"] for acts in p["acts"])


def fused_gru_direction(ctx: Any, node: Any, base: str, x2d: str, d: int, reverse: bool, p: dict[str, Any],
                        h0: str, clip: float | None) -> tuple[str | None, str, None]:
    """One GRU direction: (Y rows (seq·batch, hidden) in time order or None, H_T (batch, hidden), None)."""
    seq, batch, n = p["seq"], p["batch"], p["hidden"]
    wb, rb = p["B"][d][:3 * n], p["B"][d][3 * n:]
    fold = np.asarray(wb + rb, np.float32)
    rbh = ""
    if p["lbr"]:  # Rb_h is applied inside the reset product
        fold[2 * n:] = wb[2 * n:]
        rbh = const_data(ctx, f"{base}_Rbh", np.asarray(rb[2 * n:], np.float32))
    xw = ctx.add(FullyConnected(ctx.fresh(f"{base}_xw"), x2d, weights=const_data(ctx, f"{base}_W", p["W"][d]),
                                bias=const_data(ctx, f"{base}_B", fold)))
    r = const_data(ctx, f"{base}_R", np.ascontiguousarray(p["R"][d], dtype=np.float32))
    seq_out = ctx.add(GruSequence(ctx.fresh(f"{base}_seq"), xw, h0, r, rbh, reverse=reverse,
                                  clip=0.0 if clip is None else clip, linear_before_reset=p["lbr"]))
    last = 0 if reverse else seq - 1
    y = ctx.add(Reshape(ctx.fresh(f"{base}_y2d"), seq_out, shape=(seq * batch, n))) if p["want_y"] else None
    hc = ctx.add(Crop(ctx.fresh(f"{base}_hT"), seq_out, shape=(1, batch, n), offsets=(last, 0, 0)))
    return y, ctx.add(Reshape(ctx.fresh(f"{base}_hT2"), hc, shape=(batch, n))), None
