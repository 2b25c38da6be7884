"""Operators with data-dependent output sizes run as host stages inside a Network (cldnn_py/host_ops): a small
detector head (engine convolutions → NonMaxSuppression → Gather of the kept boxes → engine arithmetic on them)
against onnxruntime on both engines, with box counts that change between runs; what the stages and the profiling
info say; the errors."""

from __future__ import annotations

import numpy as np
import onnxruntime as ort
import pytest
from onnx import TensorProto as T
from onnx import helper, numpy_helper

import cldnn_py as cl
from cldnn_py.partitioned_network import EngineStage, HostStage


def _detector(rng, extra=None):
    """x (1, 3, 8, 8) → boxes (1, 64, 4) and scores (1, 2, 64) by 1×1 convolutions → NMS → the kept boxes (k, 4),
    their exp (engine, after the host stage) and the selected indices (k, 3) int64."""
    wb = numpy_helper.from_array(rng.standard_normal((4, 3, 1, 1)).astype(np.float32) * 2, "wb")
    ws = numpy_helper.from_array(rng.standard_normal((2, 3, 1, 1)).astype(np.float32), "ws")
    consts = [numpy_helper.from_array(np.array(a, np.int64), n) for n, a in
              [("shape_b", [1, 4, 64]), ("shape_s", [1, 2, 64]), ("max_out", [40]), ("col", 2), ("zero", [0])]]
    consts += [numpy_helper.from_array(np.array([v], np.float32), n) for n, v in [("iou", 0.4), ("score", 0.6)]]
    nodes = [
        helper.make_node("Conv", ["x", "wb"], ["cb"]),
        helper.make_node("Reshape", ["cb", "shape_b"], ["rb"]),
        helper.make_node("Transpose", ["rb"], ["boxes"], perm=[0, 2, 1]),
        helper.make_node("Conv", ["x", "ws"], ["cs"]),
        helper.make_node("Sigmoid", ["cs"], ["ss"]),
        helper.make_node("Reshape", ["ss", "shape_s"], ["scores"]),
        helper.make_node("NonMaxSuppression", ["boxes", "scores", "max_out", "iou", "score"], ["sel"]),
        helper.make_node("Gather", ["sel", "col"], ["idx"], axis=1),
        helper.make_node("Squeeze", ["boxes", "zero"], ["boxes2"]),
        helper.make_node("Gather", ["boxes2", "idx"], ["kept"], axis=0),
        helper.make_node("Exp", ["kept"], ["kept_exp"]),
    ] + (extra or [])
    outs = [helper.make_tensor_value_info("sel", T.INT64, ["k", 3]),
            helper.make_tensor_value_info("kept", T.FLOAT, ["k", 4]),
            helper.make_tensor_value_info("kept_exp", T.FLOAT, ["k", 4])]
    g = helper.make_graph(nodes, "det", [helper.make_tensor_value_info("x", T.FLOAT, [1, 3, 8, 8])], outs,
                          [wb, ws] + consts)
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)], ir_version=8)


def test_detector_head_with_nms_matches_onnxruntime_as_counts_change(engine, rng):
    m = _detector(rng)
    sess = ort.InferenceSession(m.SerializeToString(), providers=["CPUExecutionProvider"])
    topo = cl.load_onnx(m)
    kinds = [type(s).__name__ + ("" if isinstance(s, EngineStage) else f":{s.runner}") for s in topo.stages]
    assert kinds == ["EngineStage", "HostStage:host", "EngineStage"], kinds
    host = topo.stages[1]
    assert isinstance(host, HostStage) and any(op.startswith("NonMaxSuppression") for op in host.ops)
    assert any(op.startswith("Gather") for op in host.ops)   # the index plumbing followed it onto the host
    net = cl.Network(engine, topo)
    counts = set()
    for _ in range(4):
        x = rng.standard_normal((1, 3, 8, 8)).astype(np.float32)
        want = dict(zip(["sel", "kept", "kept_exp"], sess.run(None, {"x": x})))
        net.poison()
        got = net.run({"x": x})
        counts.add(want["sel"].shape[0])
        assert got["sel"].dtype == np.int64
        np.testing.assert_array_equal(got["sel"], want["sel"])
        np.testing.assert_allclose(got["kept"], want["kept"], rtol=1e-5, atol=1e-5)
        np.testing.assert_allclose(got["kept_exp"], want["kept_exp"], rtol=1e-5, atol=1e-5)
    assert len(counts) > 1, f"the seeded inputs kept the same number of boxes every time: {counts}"
    prof = [p for p in net.get_profiling_info() if p.type == "host"]
    assert len(prof) == 1 and "NonMaxSuppression" in prof[0].kernel and prof[0].time_us > 0


def test_nms_model_with_an_unsupported_node_lists_only_that_node_without_fallback(rng):
    extra = [helper.make_node("Det", ["kept"], ["d"])]   # not an operator the engine or the host runs
    m = _detector(rng, extra)
    m.graph.output.append(helper.make_tensor_value_info("d", T.FLOAT, []))
    with pytest.raises(cl.UnsupportedError, match=r"1 unsupported node\(s\):\n  Det ") as e:
        cl.load_onnx(m)
    assert "NonMaxSuppression (" not in str(e.value).split("supported operators")[0]


def test_bad_boxes_at_run_time_name_the_node(engine):
    g = helper.make_graph(
        [helper.make_node("NonMaxSuppression", ["b", "s"], ["sel"], name="nms0")], "g",
        [helper.make_tensor_value_info("b", T.FLOAT, [1, "n", "four"]),
         helper.make_tensor_value_info("s", T.FLOAT, [1, 1, "n"])],
        [helper.make_tensor_value_info("sel", T.INT64, ["k", 3])])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 11)], ir_version=8)
    net = cl.Network(engine, cl.load_onnx(m))
    with pytest.raises(cl.ShapeError, match=r"NonMaxSuppression 'nms0': boxes: expected \(num_batches, "
                                            r"num_boxes, 4\), got \(1, 5, 3\)"):
        net.run({"b": np.ones((1, 5, 3), np.float32), "s": np.ones((1, 1, 5), np.float32)})
