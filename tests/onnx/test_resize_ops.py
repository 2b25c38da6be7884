"""Resize (opsets 10-19) and Upsample (7, 9) converters vs onnxruntime: nearest with every rounding mode, linear
(4-D and 2-D), cubic (coefficient, exclude_outside), antialias, every coordinate transformation mode, scales or
sizes, axes and keep_aspect_ratio_policy, tf_crop_and_resize with extrapolation; and after a blocked convolution."""

from __future__ import annotations

import numpy as np
import pytest
from onnx import helper

import cldnn_py as cl
from tests.onnx.ort_compare import build, compare, randf32

pytest.importorskip("onnxruntime")

_F = np.float32


def _resize(opset, x, scales=None, sizes=None, roi=None, axes_attrs=None, **attrs):
    """A one-node Resize model: opset 10 takes (X, scales); 11+ (X, roi, scales, sizes) with empty names."""
    inits = {}
    if opset == 10:
        inits["scales"] = np.array(scales, _F)
        names = ["x", "scales"]
    else:
        names = ["x", "", "", ""]
        if roi is not None or opset == 11:  # opset 11: roi and scales are required (empty when unused)
            inits["roi"], names[1] = np.array(roi if roi is not None else [], _F), "roi"
        if scales is not None or opset == 11:
            inits["scales"], names[2] = np.array(scales if scales is not None else [], _F), "scales"
        if sizes is not None:
            inits["sizes"], names[3] = np.array(sizes, np.int64), "sizes"
        while names[-1] == "":
            names.pop()
    node = helper.make_node("Resize", names, ["y"], **attrs, **(axes_attrs or {}))
    return build([node], {"x": x}, inits, ["y"], opset)


CASES = [
    # opset, input shape, scales, sizes, attributes
    (10, (1, 2, 3, 4), (1, 1, 2, 1.5), None, {"mode": "nearest"}),
    (10, (1, 2, 6, 8), (1, 1, 0.5, 0.75), None, {"mode": "nearest"}),                  # downsample: ceil
    (10, (1, 2, 3, 4), (1, 1, 1.7, 2.2), None, {"mode": "linear"}),
    (11, (1, 2, 4, 5), None, (1, 2, 7, 3), {"mode": "linear", "coordinate_transformation_mode": "align_corners"}),
    (11, (1, 2, 5, 6), (1, 1, 0.6, 1.5), None, {"mode": "nearest", "nearest_mode": "round_prefer_ceil",
                                                "coordinate_transformation_mode": "asymmetric"}),
    (11, (1, 2, 4, 4), None, (1, 2, 9, 7), {"mode": "nearest", "nearest_mode": "floor"}),
    (11, (1, 2, 4, 4), None, (1, 2, 7, 9), {"mode": "nearest", "nearest_mode": "ceil",
                                            "coordinate_transformation_mode": "tf_half_pixel_for_nn"}),
    (11, (2, 3, 4, 5), (1, 1, 2, 2), None, {"mode": "cubic"}),
    (11, (1, 2, 8, 9), None, (1, 2, 3, 4), {"mode": "linear", "coordinate_transformation_mode":
                                            "pytorch_half_pixel"}),
    (13, (1, 1, 5, 6), (1, 1, 1.5, 0.7), None, {"mode": "cubic", "cubic_coeff_a": -0.5, "exclude_outside": 1}),
    (13, (5, 6), (1.6, 1.4), None, {"mode": "linear"}),                                 # 2-D
    (18, (1, 1, 9, 8), None, (1, 1, 4, 3), {"mode": "linear", "antialias": 1}),
    (18, (1, 1, 9, 8), None, (1, 1, 4, 5), {"mode": "cubic", "antialias": 1}),
    (19, (1, 1, 4, 6), (1, 1, 1.7, 0.6), None, {"mode": "linear",
                                                "coordinate_transformation_mode": "half_pixel_symmetric"}),
]


@pytest.mark.ocl_every(2)
@pytest.mark.parametrize("case", CASES, ids=lambda c: f"op{c[0]}-{c[1]}-{c[4]}")
def test_resize(engine, rng, case):
    opset, shape, scales, sizes, attrs = case
    x = randf32(rng, *shape)
    compare(engine, _resize(opset, x, scales, sizes, **attrs), {"x": x}, atol=1e-5)


def test_resize_axes_keep_aspect_ratio(engine, rng):
    x = randf32(rng, 1, 2, 4, 6)
    for policy, sizes in (("not_larger", (7, 7)), ("not_smaller", (3, 5))):
        model = _resize(18, x, sizes=sizes, axes_attrs={"axes": [3, 2]}, mode="nearest",
                        keep_aspect_ratio_policy=policy)
        compare(engine, model, {"x": x})
    compare(engine, _resize(18, x, scales=(2.0, 1.5), axes_attrs={"axes": [2, 3]}, mode="linear"), {"x": x})


def test_resize_tf_crop_and_resize(engine, rng):
    x = randf32(rng, 1, 2, 5, 6)
    model = _resize(11, x, sizes=(1, 2, 4, 5), roi=(0, 0, 0.2, -0.3, 1, 1, 1.3, 0.8), mode="linear",
                    coordinate_transformation_mode="tf_crop_and_resize", extrapolation_value=7.5)
    compare(engine, model, {"x": x})


@pytest.mark.parametrize("opset,mode,scales", [(7, "nearest", (1, 1, 2, 3)), (9, "linear", (1, 1, 2.5, 1.5)),
                                               (9, "nearest", (1, 2, 1, 2))])
def test_upsample(engine, rng, opset, mode, scales):
    x = randf32(rng, 1, 2, 3, 4)
    if opset == 7:
        node = helper.make_node("Upsample", ["x"], ["y"], mode=mode, scales=[float(v) for v in scales])
        model = build([node], {"x": x}, {}, ["y"], opset)
    else:
        model = build([helper.make_node("Upsample", ["x", "s"], ["y"], mode=mode)], {"x": x},
                      {"s": np.array(scales, _F)}, ["y"], opset)
    compare(engine, model, {"x": x})


def test_resize_after_blocked_convolution(engine, rng):
    """Resize reads the b_fs_yx_fsv16 output of a convolution directly."""
    x = randf32(rng, 1, 3, 6, 7)
    w = (rng.standard_normal((32, 3, 3, 3)) * 0.3).astype(_F)
    nodes = [helper.make_node("Conv", ["x", "w"], ["c"], pads=[1, 1, 1, 1]),
             helper.make_node("Resize", ["c", "", "s"], ["y"], mode="linear")]
    model = build(nodes, {"x": x}, {"w": w, "s": np.array([1, 1, 1.5, 2], _F)}, ["y"], 13)
    net = compare(engine, model, {"x": x}, atol=1e-4)
    if engine.kind == "ocl":  # the CPU engine has no blocked convolution kernel, so its layout optimizer keeps bfyx
        assert net.get_output_layout("c").format == cl.Format.b_fs_yx_fsv16
