"""Typed attributes of lstm_sequence (the LSTM time loop in one primitive; ONNX LSTM)."""

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
