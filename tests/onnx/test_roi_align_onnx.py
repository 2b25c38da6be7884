"""ONNX RoiAlign vs onnxruntime: versions 10 (output_half_pixel behaviour) and 16 (half_pixel default, both modes
explicit), avg and max, fixed and adaptive sampling, rois and int64 batch_indices as graph inputs and as constants;
an empty RoI list; the refusals (an undefined mode, constant batch indices outside the batch)."""

from __future__ import annotations

import numpy as np
import onnx
import pytest
from onnx import TensorProto as T
from onnx import helper

import cldnn_py as cl
from tests.onnx.nn_util import run_ort


def _model(opset, xshape, n_rois, attrs, consts=None):
    """A one-node RoiAlign model; ``consts`` ({"rois" / "batch_indices": array}) become initializers, the rest graph
    inputs (X float, rois float, batch_indices int64)."""
    consts = consts or {}
    decl = {"X": (T.FLOAT, list(xshape)), "rois": (T.FLOAT, [n_rois, 4]), "batch_indices": (T.INT64, [n_rois])}
    ins = [helper.make_tensor_value_info(k, t, s) for k, (t, s) in decl.items() if k not in consts]
    node = helper.make_node("RoiAlign", ["X", "rois", "batch_indices"], ["Y"], **attrs)
    out = [n_rois, xshape[1], attrs.get("output_height", 1), attrs.get("output_width", 1)]
    g = helper.make_graph([node], "g", ins, [helper.make_tensor_value_info("Y", T.FLOAT, out)],
                          initializer=[onnx.numpy_helper.from_array(v, k) for k, v in consts.items()])
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)], ir_version=10)


def _inputs(rng, xshape, n_rois, scale):
    """X, rois (some reaching past the image, some degenerate) and int64 batch indices."""
    n, _, h, w = xshape
    x = rng.standard_normal(xshape).astype(np.float32)
    lo = rng.uniform(-0.3, 1.0, (n_rois, 2)) * (w, h) / scale
    size = rng.uniform(-0.1, 0.9, (n_rois, 2)) * (w, h) / scale
    rois = np.concatenate([lo, lo + size], axis=1).astype(np.float32)
    return x, rois, rng.integers(0, n, n_rois).astype(np.int64)


def _run(engine, m, feeds):
    net = cl.Network(engine, cl.load_onnx(m))
    net.poison()
    return net.run(feeds)["Y"]


CASES = [
    # opset, attributes
    (10, dict(output_height=3, output_width=4, sampling_ratio=2, spatial_scale=0.5)),
    (10, dict(output_height=2, output_width=2, mode="max", spatial_scale=0.25)),
    (16, dict(output_height=3, output_width=2, spatial_scale=0.5)),
    (16, dict(output_height=2, output_width=3, sampling_ratio=3, mode="max",
              coordinate_transformation_mode="half_pixel")),
    (16, dict(output_height=4, output_width=3, sampling_ratio=1, coordinate_transformation_mode="output_half_pixel",
              spatial_scale=0.25)),
]


@pytest.mark.parametrize("opset, attrs", CASES, ids=lambda c: str(c))
def test_roi_align_vs_onnxruntime(engine, rng, opset, attrs):
    xshape, n_rois = (2, 5, 7, 9), 6
    x, rois, bi = _inputs(rng, xshape, n_rois, attrs.get("spatial_scale", 1.0))
    m = _model(opset, xshape, n_rois, attrs)
    feeds = {"X": x, "rois": rois, "batch_indices": bi}
    ref = run_ort(m, feeds)[0]
    got = _run(engine, m, feeds)
    assert got.shape == ref.shape and not np.isnan(got).any()
    np.testing.assert_allclose(got, ref, rtol=1e-4, atol=1e-5)


def test_roi_align_constant_rois_and_indices(engine, rng):
    xshape, n_rois = (3, 19, 6, 5), 4
    x, rois, bi = _inputs(rng, xshape, n_rois, 1.0)
    m = _model(16, xshape, n_rois, dict(output_height=2, output_width=2), {"rois": rois, "batch_indices": bi})
    ref = run_ort(m, {"X": x})[0]
    np.testing.assert_allclose(_run(engine, m, {"X": x}), ref, rtol=1e-4, atol=1e-5)


def test_roi_align_no_rois_gives_an_empty_output(engine, rng):
    m = _model(16, (1, 3, 4, 4), 0, dict(output_height=2, output_width=2),
               {"rois": np.zeros((0, 4), np.float32), "batch_indices": np.zeros((0,), np.int64)})
    out = _run(engine, m, {"X": rng.standard_normal((1, 3, 4, 4)).astype(np.float32)})
    assert out.shape == (0, 3, 2, 2)


def test_roi_align_refusals():
    bad_mode = _model(16, (1, 3, 4, 4), 1, dict(mode="sum"))
    bad_mode.graph.node[0].name = "ra"
    with pytest.raises(cl.UnsupportedError, match="RoiAlign 'ra'.*mode 'sum'"):
        cl.load_onnx(bad_mode)
    far = _model(16, (2, 3, 4, 4), 2, {}, {"rois": np.zeros((2, 4), np.float32),
                                           "batch_indices": np.array([0, 2], np.int64)})
    with pytest.raises(cl.ShapeError, match=r"batch_indices: expected in \[0, 2\), got \[0, 2\]"):
        cl.load_onnx(far)
