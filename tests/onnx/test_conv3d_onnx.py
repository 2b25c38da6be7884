"""3-D Conv and ConvTranspose (nn_conv3d.py: depth taps stacked on the channels, one 2-D convolution) vs
onnxruntime on both engines: strides, explicit and auto pads, dilations, groups (depthwise too), bias or none,
kD = 1, output_padding, output_shape, constant and run-time weights; and the refusal that remains."""

from __future__ import annotations

import pytest

import cldnn_py as cl
from cldnn_py.frontend.onnx import load_onnx
from tests.onnx.nn_util import check, model, randn

pytest.importorskip("onnxruntime")

CONV3D = [
    # x shape, W shape, bias, attrs
    ((1, 3, 5, 6, 7), (4, 3, 3, 3, 3), True, {"pads": [1, 1, 1, 1, 1, 1]}),
    ((2, 2, 7, 5, 6), (3, 2, 3, 2, 3), True, {"strides": [2, 1, 2], "pads": [1, 0, 2, 0, 1, 1]}),
    ((1, 4, 8, 6, 6), (4, 2, 2, 3, 3), False, {"group": 2, "dilations": [3, 2, 1], "pads": [2, 1, 0, 1, 2, 1]}),
    ((1, 6, 6, 5, 5), (6, 1, 3, 3, 3), True, {"group": 6, "strides": [2, 2, 1], "pads": [1, 1, 1, 1, 1, 1]}),
    ((1, 3, 7, 6, 5), (4, 3, 3, 3, 2), True, {"auto_pad": "SAME_UPPER", "strides": [2, 2, 1]}),
    ((1, 3, 6, 6, 5), (4, 3, 4, 2, 3), False, {"auto_pad": "SAME_LOWER", "strides": [3, 1, 2]}),
    ((2, 3, 6, 5, 7), (2, 3, 3, 2, 3), True, {"auto_pad": "VALID", "strides": [1, 2, 2], "kernel_shape": [3, 2, 3]}),
    ((1, 4, 5, 6, 6), (3, 4, 1, 3, 3), True, {"pads": [0, 1, 1, 0, 1, 1]}),                      # kD = 1
    ((1, 2, 1, 6, 5), (3, 2, 1, 2, 2), False, {}),                                                # D = 1
    ((1, 8, 4, 4, 4), (4, 4, 2, 1, 1), True, {"group": 2, "strides": [2, 1, 1]}),                 # 1x1 in H/W
]


def _ids(c):
    return f"{c[0]}-w{c[1]}-{'b' if c[2] else 'nob'}-{sorted(c[3])}"


@pytest.mark.ocl_every(2)
@pytest.mark.parametrize("case", CONV3D, ids=_ids)
def test_conv3d(engine, rng, case):
    xs, ws, bias, attrs = case
    inits = {"W": randn(rng, ws)}
    inputs = [("x", xs), "W"]
    if bias:
        inits["B"] = randn(rng, ws[:1])
        inputs.append("B")
    m = model("Conv", 11, inputs, attrs, inits)
    check(engine, m, {"x": randn(rng, xs)}, rtol=1e-4, atol=1e-4)


def test_conv3d_runtime_weights(engine, rng):
    """W and B are graph inputs: the weights are reordered by a Permute at run time."""
    xs, ws = (1, 4, 5, 4, 5), (6, 2, 2, 3, 2)
    m = model("Conv", 22, [("x", xs), ("W", ws), ("B", (6,))], {"group": 2, "pads": [1, 1, 0, 0, 1, 1]})
    check(engine, m, {"x": randn(rng, xs), "W": randn(rng, ws), "B": randn(rng, (6,))}, rtol=1e-4, atol=1e-4)


CONVT3D = [
    # x shape, W shape, bias, attrs
    ((1, 2, 3, 3, 3), (2, 3, 3, 3, 3), False, {}),
    ((1, 3, 3, 4, 3), (3, 2, 3, 3, 2), True, {"strides": [2, 2, 1], "pads": [1, 1, 0, 1, 0, 1],
                                              "output_padding": [1, 1, 0]}),
    ((2, 2, 4, 3, 3), (2, 2, 2, 3, 3), True, {"strides": [3, 1, 2], "dilations": [2, 1, 2]}),
    ((1, 4, 3, 3, 4), (4, 2, 3, 2, 2), True, {"group": 2, "strides": [2, 2, 2], "pads": [2, 0, 1, 1, 1, 0]}),
    ((1, 4, 3, 4, 3), (4, 1, 3, 3, 3), False, {"group": 4, "strides": [2, 1, 1], "pads": [1, 1, 1, 1, 1, 1]}),
    ((1, 2, 3, 3, 2), (2, 2, 3, 3, 3), True, {"strides": [3, 2, 2], "output_shape": [10, 8, 6]}),   # larger
    ((1, 2, 3, 3, 2), (2, 2, 3, 3, 3), False, {"strides": [2, 2, 2], "output_shape": [5, 6, 4]}),   # smaller
    ((1, 2, 3, 4, 3), (2, 3, 3, 2, 3), True, {"strides": [2, 2, 3], "auto_pad": "SAME_UPPER"}),
    ((1, 2, 3, 4, 3), (2, 3, 3, 3, 3), False, {"strides": [2, 2, 2], "auto_pad": "SAME_LOWER"}),
    ((1, 2, 3, 3, 3), (2, 2, 2, 3, 2), True, {"auto_pad": "VALID", "strides": [2, 1, 2]}),
    ((1, 3, 4, 3, 3), (3, 2, 1, 3, 3), True, {"strides": [2, 1, 1], "pads": [0, 1, 1, 0, 1, 1]}),   # kD = 1
    ((1, 2, 4, 3, 3), (2, 2, 2, 2, 2), False, {"pads": [2, 0, 0, 2, 0, 0]}),   # D pads > kernel extent - 1
]


@pytest.mark.ocl_every(2)
@pytest.mark.parametrize("case", CONVT3D, ids=_ids)
def test_conv_transpose3d(engine, rng, case):
    xs, ws, bias, attrs = case
    groups = attrs.get("group", 1)
    inits = {"W": randn(rng, ws)}
    inputs = [("x", xs), "W"]
    if bias:
        inits["B"] = randn(rng, (ws[1] * groups,))
        inputs.append("B")
    m = model("ConvTranspose", 11, inputs, attrs, inits)
    check(engine, m, {"x": randn(rng, xs)}, rtol=1e-4, atol=1e-4)


def test_conv_transpose3d_runtime_weights(engine, rng):
    xs, ws = (1, 4, 3, 3, 2), (4, 3, 2, 2, 3)
    m = model("ConvTranspose", 22, [("x", xs), ("W", ws), ("B", (6,))],
              {"group": 2, "strides": [2, 1, 2], "pads": [1, 0, 1, 0, 1, 0]})
    check(engine, m, {"x": randn(rng, xs), "W": randn(rng, ws), "B": randn(rng, (6,))}, rtol=1e-4, atol=1e-4)


def test_conv3d_refusals(rng):
    """4-D spatial inputs are still refused; a kernel_shape differing from W is named."""
    m = model("Conv", 11, [("x", (1, 2, 3, 3, 3, 3)), "W"], {}, {"W": randn(rng, (3, 2, 2, 2, 2, 2))})
    with pytest.raises(cl.UnsupportedError, match=r"Conv .*4-D spatial input .* is not supported \(only 1-D/2-D/3-D"):
        load_onnx(m)
    m = model("ConvTranspose", 11, [("x", (1, 2, 3, 3, 3)), "W"], {"kernel_shape": [2, 2, 3]},
              {"W": randn(rng, (2, 1, 2, 2, 2))})
    with pytest.raises(cl.UnsupportedError, match=r"ConvTranspose .*kernel_shape \[2, 2, 3\] differs"):
        load_onnx(m)
