"""Reference CPU kernels on f16 tensors compute in float32 (half is storage only, docs/precision.md): the base class
hands every float16 input and fused operand to ``compute`` as float32."""

from __future__ import annotations

import numpy as np

from cldnn_py.layout import DataType, Format, Layout
from cldnn_py.ops import NoAttrs
from kernel_selector import Params
from kernel_selector.cpu_kernel_base import CpuRefKernel


class _ShiftBack(CpuRefKernel):
    """(x + 1000) - 1000: x itself in float32, x rounded to a multiple of 0.5 in float16 arithmetic."""

    name = "test_shift_back_cpu_ref"
    primitive = "activation"

    def compute(self, params, inputs):
        (x,) = inputs
        return (x + 1000) - 1000  # numpy keeps the array's type with a Python int


def test_half_inputs_reach_compute_as_float32(cpu_engine, rng):
    lay = Layout(DataType.f16, Format.bfyx, (1, 3, 4, 5))
    x = rng.uniform(0.05, 0.45, lay.shape).astype(np.float16)
    params = Params("activation", "cpu", [lay], lay, NoAttrs(), [], "activation", cpu_engine.info)
    src, dst = np.zeros(lay.bytes, np.uint8), np.zeros(lay.bytes, np.uint8)
    src.view(np.float16)[:] = lay.to_physical(x)
    _ShiftBack().make_fn(params)(src, dst)
    y = lay.from_physical(dst.view(np.float16))
    ref = ((x.astype(np.float64) + 1000) - 1000).astype(np.float16)  # float32 and float64 agree here
    np.testing.assert_array_equal(y, ref)
    assert len(np.unique(y)) > 20  # float16 arithmetic would give 0, 0.5 only
