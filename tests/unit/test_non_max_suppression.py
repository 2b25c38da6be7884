"""The host NonMaxSuppression kernel (cldnn_py/host_ops/non_max_suppression.py) against the float64 loop
reference (tests/references.py) and onnxruntime, on seeded random boxes that overlap a lot; its errors."""

from __future__ import annotations

import numpy as np
import onnxruntime as ort
import pytest
from onnx import TensorProto as T
from onnx import helper

from cldnn_py.errors import ShapeError
from cldnn_py.host_ops import non_max_suppression
from tests.references import nms_ref


def _boxes(rng, b, n, center):
    """Random boxes in a 10×10 field, sizes 0.5-4 (many overlaps), in either encoding; corner boxes with random
    diagonal order."""
    c = rng.uniform(0, 10, (b, n, 2))
    hw = rng.uniform(0.5, 4, (b, n, 2))
    if center:
        return np.concatenate([c[..., ::-1], hw[..., ::-1]], -1).astype(np.float32)   # [xc, yc, w, h]
    lo, hi = c - hw / 2, c + hw / 2
    out = np.concatenate([lo, hi], -1)
    flip = rng.random((b, n)) < 0.5
    out[flip] = out[flip][:, [2, 3, 0, 1]]
    return out.astype(np.float32)


@pytest.mark.parametrize("center", [0, 1])
@pytest.mark.parametrize("score_threshold", [None, 0.35])
@pytest.mark.parametrize("iou,max_out", [(0.3, 100), (0.6, 5), (0.0, 50)])
def test_nms_matches_the_loop_reference(rng, center, score_threshold, iou, max_out):
    boxes = _boxes(rng, 2, 60, center)
    scores = rng.random((2, 3, 60)).astype(np.float32)
    scores[0, 1, :10] = scores[0, 1, 10]       # ties: the lower index first
    got = non_max_suppression(boxes, scores, np.array([max_out]), np.array([iou], np.float32),
                              None if score_threshold is None else np.array([score_threshold], np.float32), center)
    want = nms_ref(boxes, scores, max_out, iou, score_threshold, center)
    assert got.dtype == np.int64 and got.shape == (len(want), 3)
    assert got.tolist() == want


def test_nms_matches_onnxruntime(rng):
    g = helper.make_graph(
        [helper.make_node("NonMaxSuppression", ["b", "s", "m", "i", "t"], ["sel"])], "g",
        [helper.make_tensor_value_info("b", T.FLOAT, [3, 200, 4]), helper.make_tensor_value_info("s", T.FLOAT,
                                                                                                  [3, 4, 200]),
         helper.make_tensor_value_info("m", T.INT64, [1]), helper.make_tensor_value_info("i", T.FLOAT, [1]),
         helper.make_tensor_value_info("t", T.FLOAT, [1])],
        [helper.make_tensor_value_info("sel", T.INT64, ["k", 3])])
    sess = ort.InferenceSession(helper.make_model(g, opset_imports=[helper.make_opsetid("", 11)],
                                                  ir_version=8).SerializeToString(),
                                providers=["CPUExecutionProvider"])
    boxes, scores = _boxes(rng, 3, 200, 0), rng.random((3, 4, 200)).astype(np.float32)
    m, i, t = np.array([30], np.int64), np.array([0.45], np.float32), np.array([0.2], np.float32)
    (want,) = sess.run(None, {"b": boxes, "s": scores, "m": m, "i": i, "t": t})
    np.testing.assert_array_equal(non_max_suppression(boxes, scores, m, i, t), want)


def test_nms_without_a_limit_selects_nothing(rng):
    boxes, scores = _boxes(rng, 1, 5, 0), rng.random((1, 1, 5)).astype(np.float32)
    assert non_max_suppression(boxes, scores).shape == (0, 3)


@pytest.mark.parametrize("boxes,scores,kw,match", [
    ((1, 4, 3), (1, 1, 4), {}, r"boxes: expected \(num_batches, num_boxes, 4\), got \(1, 4, 3\)"),
    ((1, 4, 4), (1, 1, 5), {}, r"scores: expected \(1, num_classes, 4\), got \(1, 1, 5\)"),
    ((1, 4, 4), (1, 1, 4), {"iou_threshold": np.array([1.5], np.float32)}, r"iou_threshold: expected a value in "
                                                                         r"\[0, 1\], got 1.5"),
    ((1, 4, 4), (1, 1, 4), {"center_point_box": 2}, "center_point_box: expected 0 or 1, got 2"),
    ((1, 4, 4), (1, 1, 4), {"max_output_boxes_per_class": np.array([1, 2])},
     "max_output_boxes_per_class must hold one value"),
])
def test_nms_bad_input(rng, boxes, scores, kw, match):
    with pytest.raises(ShapeError, match="NonMaxSuppression 'n1': " + match):
        non_max_suppression(rng.random(boxes).astype(np.float32), rng.random(scores).astype(np.float32),
                            what="NonMaxSuppression 'n1'", **{"max_output_boxes_per_class": np.array([3]), **kw})
