"""Gemm: batched matrix product with numpy ``matmul`` semantics, transposes, alpha/beta and an added C
(clDNN ``gemm``; ONNX MatMul and Gemm)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ..errors import TopologyError
from ..layout import Format, Layout
from ..ops.gemm import GemmAttrs, gemm_shapes
from .base import Primitive


@dataclass(frozen=True)
class Gemm(Primitive, type_name="gemm", attrs=GemmAttrs):
    """y = alpha · op(A) · op(B) + beta · C, with op = transpose of the last two dimensions when asked.

    ``inputs`` = (A, B) or (A, B, C). A and B follow numpy ``matmul``: ranks 1-6, rank-1 operands are a row (A) or
    a column (B) whose dimension is dropped from the result, leading (batch) dimensions broadcast. C, when given,
    broadcasts to the output by numpy rules (ONNX Gemm's unidirectional broadcast of C to (M, N) is a special
    case). The output (batch..., M, N) is f32 bfyx; a scalar result is stored as shape (1,). Raises ShapeError
    naming the primitive for mismatched inner dimensions or shapes that do not broadcast.
    """

    inputs: Any = ()
    transpose_a: bool = False
    transpose_b: bool = False
    alpha: float = 1.0
    beta: float = 1.0

    def __post_init__(self) -> None:
        super().__post_init__()
        if isinstance(self.inputs, str) or len(self.inputs) not in (2, 3) or not all(self.inputs):
            raise TopologyError(f"gemm '{self.id}': inputs must be (A, B) or (A, B, C) ids, got {self.inputs!r}")
        object.__setattr__(self, "inputs", tuple(self.inputs))
        object.__setattr__(self, "transpose_a", bool(self.transpose_a))
        object.__setattr__(self, "transpose_b", bool(self.transpose_b))
        object.__setattr__(self, "alpha", float(self.alpha))
        object.__setattr__(self, "beta", float(self.beta))

    def dependencies(self) -> list[str]:
        """[A, B] + [C] when given."""
        return list(self.inputs)

    def calc_output_layout(self, inputs: list[Layout]) -> Layout:
        """(batch..., M, N) f32 bfyx; raises ShapeError for mismatched shapes."""
        if len(inputs) < 2:
            raise self.shape_error("number of inputs", "2 or 3", len(inputs))
        a, b = inputs[0], inputs[1]
        try:
            _, _, _, _, out = gemm_shapes(a.shape, b.shape, self.transpose_a, self.transpose_b)
        except ValueError as e:
            raise self.shape_error("A and B shapes", f"compatible for matmul ({e})",
                                   (a.shape, b.shape)) from None
        if not out:
            out = (1,)
        if len(out) > 6:
            raise self.shape_error("output rank", "<= 6", len(out))
        if len(inputs) > 2:
            c = inputs[2]
            try:
                ok = np.broadcast_shapes(c.shape, out) == out
            except ValueError:
                ok = False
            if not ok:
                raise self.shape_error(f"C '{self.inputs[2]}' shape broadcastable to the output", out, c.shape)
        if a.dtype != b.dtype:
            raise self.shape_error("input data types", "equal", (a.dtype.value, b.dtype.value))
        return Layout(a.dtype, Format.bfyx, out)
