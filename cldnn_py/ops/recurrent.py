"""Typed attributes of lstm_sequence and gru_sequence (the LSTM / GRU time loop in one primitive; ONNX LSTM, GRU)."""

from __future__ import annotations

from dataclasses import dataclass

from .base import OpAttrs


@dataclass(frozen=True)
class LstmSequenceAttrs(OpAttrs):
    """One LSTM direction over the whole sequence: ``reverse`` walks time backwards; ``clip`` > 0 clamps every gate
    pre-activation to [-clip, clip] (ONNX ``clip``; 0: none); ``peepholes``: a P input is given."""

    reverse: bool = False
    clip: float = 0.0
    peepholes: bool = False


@dataclass(frozen=True)
class GruSequenceAttrs(OpAttrs):
    """One GRU direction over the whole sequence: ``reverse`` walks time backwards; ``clip`` > 0 clamps every gate
    pre-activation to [-clip, clip] (ONNX ``clip``; 0: none); ``linear_before_reset``: ONNX's attribute (the reset
    gate multiplies H·Rhᵀ + Rbh instead of H; torch's GRU is exported with 1)."""

    reverse: bool = False
    clip: float = 0.0
    linear_before_reset: bool = False
