"""dynamic_quant_params on the CPU engine: the flat numpy kernel and the reference (a padded input) against
onnxruntime's DynamicQuantizeLinear, bit for bit (tests/ocl/test_dynamic_quant_params.py has the OpenCL kernel)."""

from __future__ import annotations

import numpy as np
import pytest

from cldnn_py.layout import DataType, Format, Layout, Padding
from tests.cpu.kernel_harness import run_kernel
from tests.ocl.test_dynamic_quant_params import _data, _prim, ort_params


@pytest.mark.parametrize("kind", ["mixed", "zeros", "negative"])
@pytest.mark.parametrize("padded", [False, True], ids=["flat", "padded"])
def test_cpu_engine_matches_onnxruntime(cpu_engine, rng, kind, padded):
    shape = (1, 5, 6, 7)
    x = _data(rng, shape, kind)
    pad = Padding((0, 0, 1, 1), (0, 0, 1, 1)) if padded else Padding((0,) * 4, (0,) * 4)
    lay = Layout(DataType.f32, Format.bfyx, shape, pad)
    out_lay = _prim().calc_output_layout([lay])
    want = "dynamic_quant_params_cpu_ref" if padded else "dynamic_quant_params_cpu_flat"
    got, chosen = run_kernel(cpu_engine, "dynamic_quant_params", [lay], out_lay, {}, [x], want)
    assert chosen == want
    np.testing.assert_array_equal(got.reshape(-1), ort_params(x))
