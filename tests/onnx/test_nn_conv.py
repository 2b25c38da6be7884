"""Conv and ConvTranspose converters vs onnxruntime: strides, dilations, groups, asymmetric pads, auto_pad
(SAME_UPPER / SAME_LOWER / VALID), optional bias, constant or run-time weights, 1-D as 2-D, output_padding,
output_shape, opsets 7/11/22, a non-bfyx path, and the refusal of a kernel_shape mismatch (3-D:
test_conv3d_onnx.py)."""

from __future__ import annotations

import pytest

import cldnn_py as cl
from cldnn_py.frontend.onnx import load_onnx
from tests.onnx.nn_util import check, model, randn

pytest.importorskip("onnxruntime")

CONV = [
    # x shape, W shape, bias, attrs, opset
    ((1, 3, 9, 11), (5, 3, 3, 3), True, {"pads": [1, 1, 1, 1]}, 11),
    ((2, 4, 10, 9), (6, 4, 3, 2), True, {"strides": [2, 1], "pads": [0, 1, 2, 0]}, 11),
    ((1, 6, 12, 12), (6, 2, 3, 3), False, {"group": 3, "dilations": [2, 2], "pads": [2, 2, 2, 2]}, 22),
    ((1, 8, 7, 7), (8, 1, 3, 3), True, {"group": 8, "strides": [2, 2], "pads": [1, 1, 1, 1]}, 7),   # depthwise
    ((1, 3, 10, 9), (4, 3, 3, 3), True, {"auto_pad": "SAME_UPPER", "strides": [2, 2]}, 11),
    ((1, 3, 10, 9), (4, 3, 4, 2), True, {"auto_pad": "SAME_LOWER", "strides": [2, 2]}, 11),
    ((1, 3, 9, 8), (4, 3, 3, 3), False, {"auto_pad": "VALID", "strides": [2, 3], "kernel_shape": [3, 3]}, 11),
    ((2, 4, 13), (6, 2, 3), True, {"group": 2, "strides": [2], "pads": [1, 2], "dilations": [2]}, 11),   # 1-D
    ((1, 2, 11), (3, 2, 4), False, {"auto_pad": "SAME_UPPER"}, 22),                                     # 1-D
]


@pytest.mark.parametrize("case", CONV, ids=lambda c: f"{c[0]}-w{c[1]}-{sorted(c[3])}-v{c[4]}")
def test_conv_constant_weights(engine, rng, case):
    xs, ws, bias, attrs, opset = case
    inits = {"W": randn(rng, ws)}
    inputs = [("x", xs), "W"]
    if bias:
        inits["B"] = randn(rng, ws[:1])
        inputs.append("B")
    m = model("Conv", opset, inputs, attrs, inits)
    check(engine, m, {"x": randn(rng, xs)}, rtol=1e-4, atol=1e-4)


def test_conv_runtime_weights_and_bias(engine, rng):
    """W and B are graph inputs (computed at run time), as in ONNX's own conformance cases."""
    m = model("Conv", 11, [("x", (1, 4, 8, 7)), ("W", (6, 2, 3, 3)), ("B", (6,))],
              {"group": 2, "pads": [1, 0, 0, 1], "strides": [1, 2]})
    check(engine, m, {"x": randn(rng, (1, 4, 8, 7)), "W": randn(rng, (6, 2, 3, 3)), "B": randn(rng, (6,))},
          rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("fmt", [cl.Format.b_fs_yx_fsv16, cl.Format.byxf])
def test_conv_non_bfyx_input(engine, rng, fmt):
    m = model("Conv", 11, [("x", (1, 18, 7, 6)), "W", "B"], {"pads": [1, 1, 1, 1], "strides": [2, 1]},
              {"W": randn(rng, (5, 18, 3, 3)), "B": randn(rng, (5,))})
    check(engine, m, {"x": randn(rng, (1, 18, 7, 6))}, fmt=fmt, rtol=1e-4, atol=1e-4)


CONVT = [
    # x shape, W shape, bias, attrs, opset
    ((1, 1, 3, 3), (1, 2, 3, 3), False, {}, 11),
    ((2, 3, 4, 5), (3, 4, 3, 3), True, {"strides": [2, 2], "pads": [1, 1, 1, 1], "output_padding": [1, 1]}, 11),
    ((1, 2, 3, 3), (2, 3, 3, 2), True, {"strides": [3, 2], "pads": [1, 0, 2, 1], "dilations": [2, 1]}, 22),
    ((1, 4, 4, 3), (4, 3, 2, 3), True, {"group": 2, "strides": [2, 1], "dilations": [2, 3]}, 11),
    ((1, 1, 3, 3), (1, 2, 3, 3), False, {"strides": [3, 2], "output_shape": [10, 8]}, 11),   # larger: extends
    ((1, 1, 3, 3), (1, 2, 3, 3), True, {"strides": [3, 2], "output_shape": [7, 6]}, 11),     # smaller: pads
    ((1, 2, 4, 3), (2, 2, 3, 3), False, {"strides": [2, 3], "auto_pad": "SAME_UPPER"}, 11),
    ((1, 2, 4, 3), (2, 2, 3, 3), False, {"strides": [2, 3], "auto_pad": "SAME_LOWER"}, 11),
    ((1, 2, 4, 3), (2, 2, 3, 2), True, {"strides": [2, 2], "auto_pad": "SAME_UPPER", "output_shape": [7, 5]}, 11),
    ((1, 2, 3, 3), (2, 2, 3, 3), False, {"auto_pad": "VALID", "strides": [2, 2]}, 7),
    ((2, 4, 5), (4, 3, 3), True, {"strides": [2], "pads": [1, 0], "output_padding": [1], "group": 2}, 11),   # 1-D
]


@pytest.mark.ocl_every(2)
@pytest.mark.parametrize("case", CONVT, ids=lambda c: f"{c[0]}-w{c[1]}-{sorted(c[3])}-v{c[4]}")
def test_conv_transpose(engine, rng, case):
    xs, ws, bias, attrs, opset = case
    groups = attrs.get("group", 1)
    inits = {"W": randn(rng, ws)}
    inputs = [("x", xs), "W"]
    if bias:
        inits["B"] = randn(rng, (ws[1] * groups,))
        inputs.append("B")
    m = model("ConvTranspose", opset, inputs, attrs, inits)
    check(engine, m, {"x": randn(rng, xs)}, rtol=1e-4, atol=1e-4)


def test_conv_transpose_runtime_weights_non_bfyx(engine, rng):
    """Run-time W and B, the input held in b_fs_yx_fsv16."""
    m = model("ConvTranspose", 11, [("x", (1, 17, 3, 4)), ("W", (17, 2, 3, 3)), ("B", (2,))],
              {"strides": [2, 2], "pads": [0, 1, 1, 0]})
    feeds = {"x": randn(rng, (1, 17, 3, 4)), "W": randn(rng, (17, 2, 3, 3)), "B": randn(rng, (2,))}
    check(engine, m, feeds, fmt=cl.Format.b_fs_yx_fsv16, rtol=1e-4, atol=1e-4)


def test_conv_refusals(rng):
    """A kernel_shape differing from W is refused (3-D convolutions: tests/onnx/test_conv3d_onnx.py)."""
    m = model("Conv", 11, [("x", (1, 2, 5, 5)), "W"], {"kernel_shape": [3, 2]}, {"W": randn(rng, (3, 2, 3, 3))})
    with pytest.raises(cl.UnsupportedError, match=r"kernel_shape \[3, 2\] differs"):
        load_onnx(m)
