"""LstmSequence: one LSTM direction over a whole sequence in one primitive (clDNN ``lstm_seq`` / OpenVINO
LSTMSequence; the ONNX LSTM converter uses it for the standard activations)."""

from __future__ import annotations

from dataclasses import dataclass

from ..layout import DataType, Format, Layout
from ..ops.recurrent import LstmSequenceAttrs
from .base import Primitive


@dataclass(frozen=True)
class LstmSequence(Primitive, type_name="lstm_sequence", attrs=LstmSequenceAttrs):
    """The LSTM recurrence of ONNX (gates i, o, f, c; σ = logistic, g = h = tanh) over ``seq`` steps::

        z = xw[t] + R·h            (xw: X·Wᵀ + Wb + Rb for every step, computed before, e.g. by FullyConnected)
        i = σ(z_i + P_i∘c)   f = σ(z_f + P_f∘c)   c' = f∘c + i∘tanh(z_c)   o = σ(z_o + P_o∘c')   h' = o∘tanh(c')

    Inputs: ``xw`` (seq·batch, 4·hidden) rows in time order (row t·batch + b), ``h0`` and ``c0`` (batch, hidden),
    ``r`` (4·hidden, hidden), optional ``p`` (3·hidden,) peepholes (i, o, f). ``reverse`` runs t = seq-1 … 0;
    ``clip`` > 0 clamps each pre-activation (peephole term included, as onnxruntime). Output (seq, batch,
    2·hidden) f32 bfyx: h_t in [..., :hidden], c_t in [..., hidden:], at the row of step t (time order either
    way). Raises ShapeError for inconsistent shapes.
    """

    xw: str = ""
    h0: str = ""
    c0: str = ""
    r: str = ""
    p: str = ""
    reverse: bool = False
    clip: float = 0.0
    peepholes: bool = False

    def __post_init__(self) -> None:
        super().__post_init__()
        object.__setattr__(self, "reverse", bool(self.reverse))
        object.__setattr__(self, "clip", float(self.clip))
        object.__setattr__(self, "peepholes", bool(self.p))

    def dependencies(self) -> list[str]:
        """[xw, h0, c0, r] and p when given."""
        return [self.xw, self.h0, self.c0, self.r] + ([self.p] if self.p else [])

    def _id_fields(self) -> tuple[str, ...]:
        return ("xw", "h0", "c0", "r", "p")

    def calc_output_layout(self, inputs: list[Layout]) -> Layout:
        """(seq, batch, 2·hidden) f32 bfyx."""
        if len(inputs) != (5 if self.p else 4):
            raise self.shape_error("number of inputs", 5 if self.p else 4, len(inputs))
        xw, h0, c0, r = inputs[:4]
        if h0.rank != 2 or c0.shape != h0.shape:
            raise self.shape_error("h0 / c0 shapes", "(batch, hidden) each", (h0.shape, c0.shape))
        batch, n = h0.shape
        if r.shape != (4 * n, n):
            raise self.shape_error("r shape", (4 * n, n), r.shape)
        if xw.rank != 2 or xw.shape[1] != 4 * n or xw.shape[0] % batch:
            raise self.shape_error("xw shape", f"(seq * {batch}, {4 * n})", xw.shape)
        if self.p and inputs[4].count() != 3 * n:
            raise self.shape_error("p element count", 3 * n, inputs[4].count())
        return Layout(DataType.f32, Format.bfyx, (xw.shape[0] // batch, batch, 2 * n))
