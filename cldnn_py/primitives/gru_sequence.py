"""GruSequence: one GRU direction over a whole sequence in one primitive (OpenVINO GRUSequence; the ONNX GRU
converter uses it for the standard activations)."""

from __future__ import annotations

from dataclasses import dataclass

from ..errors import TopologyError
from ..layout import DataType, Format, Layout
from ..ops.recurrent import GruSequenceAttrs
from .base import Primitive


@dataclass(frozen=True)
class GruSequence(Primitive, type_name="gru_sequence", attrs=GruSequenceAttrs):
    """The GRU recurrence of ONNX (gates z, r, h; σ = logistic, g = tanh) over ``seq`` steps::

        z = σ(xw_z + H·R_zᵀ)     r = σ(xw_r + H·R_rᵀ)
        h~ = g(xw_h + (r∘H)·R_hᵀ)              (linear_before_reset = 0)
        h~ = g(xw_h + r∘(H·R_hᵀ + Rb_h))       (linear_before_reset = 1)
        H' = (1 − z)∘h~ + z∘H

    Inputs: ``xw`` (seq·batch, 3·hidden) rows in time order (row t·batch + b): X·Wᵀ + Wb + Rb for z and r, X·Wᵀ +
    Wb_h for h (+ Rb_h when linear_before_reset = 0), computed before, e.g. by FullyConnected; ``h0`` (batch,
    hidden); ``r`` (3·hidden, hidden); ``rbh`` (hidden,) Rb_h, given exactly when ``linear_before_reset``.
    ``reverse`` runs t = seq-1 … 0; ``clip`` > 0 clamps each pre-activation. Output (seq, batch, hidden) f32 bfyx:
    H_t at the row of step t (time order either way). Raises TopologyError for an rbh that does not match
    linear_before_reset, ShapeError for inconsistent shapes.
    """

    xw: str = ""
    h0: str = ""
    r: str = ""
    rbh: str = ""
    reverse: bool = False
    clip: float = 0.0
    linear_before_reset: bool = False

    def __post_init__(self) -> None:
        super().__post_init__()
        object.__setattr__(self, "reverse", bool(self.reverse))
        object.__setattr__(self, "clip", float(self.clip))
        object.__setattr__(self, "linear_before_reset", bool(self.linear_before_reset))
        if bool(self.rbh) != self.linear_before_reset:
            raise TopologyError(f"gru_sequence '{self.id}': rbh must be given exactly when linear_before_reset, got "
                                f"rbh {self.rbh!r}, linear_before_reset {self.linear_before_reset}")

    def dependencies(self) -> list[str]:
        """[xw, h0, r] and rbh when given."""
        return [self.xw, self.h0, self.r] + ([self.rbh] if self.rbh else [])

    def _id_fields(self) -> tuple[str, ...]:
        return ("xw", "h0", "r", "rbh")

    def calc_output_layout(self, inputs: list[Layout]) -> Layout:
        """(seq, batch, hidden) f32 bfyx."""
        if len(inputs) != (4 if self.rbh else 3):
            raise self.shape_error("number of inputs", 4 if self.rbh else 3, len(inputs))
        xw, h0, r = inputs[:3]
        if h0.rank != 2:
            raise self.shape_error("h0 shape", "(batch, hidden)", h0.shape)
        batch, n = h0.shape
        if r.shape != (3 * n, n):
            raise self.shape_error("r shape", (3 * n, n), r.shape)
        if xw.rank != 2 or xw.shape[1] != 3 * n or xw.shape[0] % batch:
            raise self.shape_error("xw shape", f"(seq * {batch}, {3 * n})", xw.shape)
        if self.rbh and inputs[3].count() != n:
            raise self.shape_error("rbh element count", n, inputs[3].count())
        return Layout(DataType.f32, Format.bfyx, (xw.shape[0] // batch, batch, n))
