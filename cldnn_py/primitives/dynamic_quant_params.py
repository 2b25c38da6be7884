"""DynamicQuantParams: the run-time uint8 quantization parameters of a tensor, as ONNX DynamicQuantizeLinear
computes them, in one kernel (issue 18)."""

from __future__ import annotations

from dataclasses import dataclass

from ..layout import DataType, Format, Layout
from .base import Primitive, one_input

PARAMS = ("scale", "zero_point", "low", "high")
"""The output's four elements, in order."""


@dataclass(frozen=True)
class DynamicQuantParams(Primitive, type_name="dynamic_quant_params"):
    """y (4,) f32 = (s, z, −z, 255 − z) of the input x (any shape, rank 1-6, any format, f32 or f16 storage):
    m = min(0, min x), M = max(0, max x), s = (M − m) / 255 (a float32 division; 1 when M = m = 0, as onnxruntime
    does where the ONNX text would divide by 0), z = saturate(round_half_even((0 − m) / s)) in [0, 255] (0 when s
    is NaN), the uint8 scale and zero point of ONNX DynamicQuantizeLinear
    (onnx.ai/onnx/operators/onnx__DynamicQuantizeLinear.html). −z and 255 − z are the bounds of round(x / s) that
    saturate(round(x / s) + z) − z clamps to: the float fake quantization the dynamic-quantization rewrite
    (frontend/onnx_dynamic_quant.py) runs in place of the uint8 tensor. A NaN in x propagates to s.
    """

    input: str = ""

    def calc_output_layout(self, inputs: list[Layout]) -> Layout:
        """(4,) f32 bfyx."""
        one_input(self, inputs)
        return Layout(DataType.f32, Format.bfyx, (4,))
