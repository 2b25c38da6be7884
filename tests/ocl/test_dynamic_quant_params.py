"""dynamic_quant_params (DynamicQuantizeLinear's uint8 scale and zero point of a whole tensor, one kernel) against
onnxruntime's own DynamicQuantizeLinear on fresh data: equal scale and zero point, bit for bit. OpenCL: the float8
read of a flat buffer (a tail of 1-7), b_fs_yx_fsv16 with whole slices and with a channel tail (its padding lanes
NaN: a read of one would show), a padded input (GET_INDEX, padding NaN); both engines in a network (the CPU
engine's kernels: tests/cpu/test_dynamic_quant_params_cpu.py). Edge cases: all zeros (onnxruntime's scale 1, zero
point 0), all positive, all negative."""

from __future__ import annotations

import numpy as np
import pytest
from onnx import TensorProto, helper

import cldnn_py as cl
from cldnn_py.layout import DataType, Format, Layout, Padding
from kernel_selector import Params, selector
from tests.helpers import typed_attrs
from tests.ocl.padded import run_kernel_padded

ort = pytest.importorskip("onnxruntime")


def ort_params(x: np.ndarray) -> np.ndarray:
    """(s, z, −z, 255 − z) from onnxruntime's DynamicQuantizeLinear of x."""
    g = helper.make_graph([helper.make_node("DynamicQuantizeLinear", ["x"], ["q", "s", "z"])], "dql",
                          [helper.make_tensor_value_info("x", TensorProto.FLOAT, list(x.shape))],
                          [helper.make_tensor_value_info("q", TensorProto.UINT8, list(x.shape)),
                           helper.make_tensor_value_info("s", TensorProto.FLOAT, []),
                           helper.make_tensor_value_info("z", TensorProto.UINT8, [])])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)], ir_version=8)
    _, s, z = ort.InferenceSession(m.SerializeToString(), providers=["CPUExecutionProvider"]).run(None, {"x": x})
    z = np.float32(z)
    return np.array([s, z, -z, np.float32(255) - z], np.float32)


def _data(rng, shape, kind):
    """Fresh data; ``mixed`` has its max and min in the last two elements (a flat buffer's tail, the last channel
    of a b_fs_yx_fsv16 tail), so a kernel that skips them is wrong."""
    x = (rng.standard_normal(shape) * 3).astype(np.float32)
    x.reshape(-1)[-2:] = (50.0, -40.0)
    return {"mixed": x, "positive": np.abs(x) + 0.1, "negative": -np.abs(x) - 0.1,
            "zeros": np.zeros(shape, np.float32)}[kind]


def _prim():
    return cl.DynamicQuantParams("p", "x")


@pytest.mark.parametrize("kind", ["mixed", "positive", "negative", "zeros"])
@pytest.mark.parametrize("fmt, shape, padded", [
    (Format.bfyx, (1, 3, 7, 9), False),            # flat, 189 elements: a tail of 5
    (Format.b_fs_yx_fsv16, (2, 32, 3, 5), False),  # whole slices: flat
    (Format.b_fs_yx_fsv16, (1, 24, 5, 7), False),  # a channel tail: DQP_FSV16_TAIL
    (Format.b_fs_yx_fsv16, (1, 20, 4, 6), True),   # padded for a 3x3 convolution: GET_INDEX
    (Format.bfyx, (2, 3, 4), True),
], ids=["flat-tail", "fsv16-whole", "fsv16-tail", "fsv16-padded", "bfyx-padded"])
def test_matches_onnxruntime(ocl_engine, rng, kind, fmt, shape, padded):
    x = _data(rng, shape, kind)
    pad = Padding((0, 0, 1, 1), (0, 0, 1, 2)) if padded else Padding((0,) * 4, (0,) * 4)  # (b, f, y, x) of dims4
    lay = Layout(DataType.f32, fmt, shape, pad)
    out_lay = _prim().calc_output_layout([lay])
    p = Params("dynamic_quant_params", "ocl", [lay], out_lay, typed_attrs("dynamic_quant_params", {}),
               layer_id="p", device=ocl_engine.info, caps=ocl_engine.info.caps, kernel_tier="cpu")
    assert selector.select(p)[0].name == "dynamic_quant_params"
    got = run_kernel_padded(ocl_engine, "dynamic_quant_params", [lay], out_lay, {}, [x])
    np.testing.assert_array_equal(got.reshape(-1), ort_params(x))


def test_in_a_network_on_both_engines(engine, rng):
    """Through the Topology API, its input the output of a kernel (a ReLU of a blocked reorder)."""
    x = _data(rng, (1, 40, 6, 6), "mixed")
    t = cl.Topology(cl.InputLayout("x", Layout(DataType.f32, Format.bfyx, x.shape)),
                    cl.Reorder("xb", "x", format=Format.b_fs_yx_fsv16),
                    cl.Activation("a", "xb", "linear", a=2.0, b=-0.5),
                    cl.DynamicQuantParams("p", "a"))
    net = cl.Network(engine, t)
    net.poison()
    got = net.run({"x": x})["p"]
    np.testing.assert_array_equal(np.asarray(got).reshape(-1), ort_params(2 * x - 0.5))


def test_output_layout_is_four_f32_values():
    """(4,) f32 bfyx whatever the input's type, format and shape."""
    assert _prim().calc_output_layout([Layout(DataType.f16, Format.byxf, (2, 3, 4, 5))]) == \
        Layout(DataType.f32, Format.bfyx, (4,))
