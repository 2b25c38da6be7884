"""BatchPredictor without Ray, on both engines: rows split into compiled batches, short batches padded and trimmed,
passthrough columns, errors, and no pickling. Outputs are checked against onnxruntime on fresh random rows and,
bit for bit, against a single-process Network of the same batch size."""

from __future__ import annotations

import pickle

import numpy as np
import onnxruntime as ort
import pytest

import cldnn_py as cl
from cldnn_py.integrations import BatchPredictor

from .small_cnn import SHAPE, network_rows, small_cnn


@pytest.fixture(scope="module")
def model() -> bytes:
    return small_cnn(seed=3)


def _device(engine: cl.Engine) -> str:
    return str(engine.info.spec)  # "cpu" or "cl:P:D"


@pytest.mark.parametrize("rows", [1, 8, 21])
def test_rows_match_network_and_onnxruntime(engine, rng, model, rows):
    pred = BatchPredictor(model, device=_device(engine), batch_size=8)
    x = rng.standard_normal((rows, *SHAPE)).astype(np.float32)
    ids = rng.integers(0, 1 << 30, rows)
    out = pred({"image": x, "id": ids})
    assert sorted(out) == ["id", "logits", "probs"]
    np.testing.assert_array_equal(out["id"], ids)
    ref = dict(zip(["logits", "probs"], ort.InferenceSession(model).run(None, {"image": x}), strict=True))
    net = network_rows(model, _device(engine), 8, x)
    for k in ("logits", "probs"):
        assert out[k].shape == (rows, 10) and np.isfinite(out[k]).all()
        np.testing.assert_allclose(out[k], ref[k], rtol=1e-4, atol=1e-5)
        np.testing.assert_array_equal(out[k], net[k])  # bitwise: same compiled batch, same device kind


def test_float64_rows_are_converted_and_empty_batch(engine, rng, model):
    pred = BatchPredictor(model, device=_device(engine), batch_size=4, worker_column="w", passthrough=False)
    x = rng.standard_normal((5, *SHAPE))
    out = pred({"image": x, "other": np.arange(5)})
    assert sorted(out) == ["logits", "probs", "w"] and set(out["w"]) == {pred.worker}
    ref = ort.InferenceSession(model).run(None, {"image": x.astype(np.float32)})[0]
    np.testing.assert_allclose(out["logits"], ref, rtol=1e-4, atol=1e-5)
    empty = pred({"image": np.zeros((0, *SHAPE), np.float32)})
    assert empty["logits"].shape == (0, 10) and empty["probs"].dtype == np.float32


def test_input_column_mapping(engine, rng, model):
    pred = BatchPredictor(model, device=_device(engine), batch_size=2, inputs={"image": "pixels"})
    x = rng.standard_normal((3, *SHAPE)).astype(np.float32)
    out = pred({"pixels": x})
    assert sorted(out) == ["logits", "probs"]
    np.testing.assert_allclose(out["logits"], ort.InferenceSession(model).run(None, {"image": x})[0],
                               rtol=1e-4, atol=1e-5)


def test_bad_batches_name_the_input(ocl_engine, rng, model):
    pred = BatchPredictor(model, batch_size=2)
    x = rng.standard_normal((3, *SHAPE)).astype(np.float32)
    with pytest.raises(cl.TopologyError, match=r"input_layout 'image': the batch has no column 'image'"):
        pred({"img": x})
    with pytest.raises(cl.ShapeError, match=r"row shape: expected \(3, 16, 16\), got \(3, 16, 8\)"):
        pred({"image": x[..., :8]})
    with pytest.raises(cl.DTypeError, match="expected float32, got int64"):
        pred({"image": x.astype(np.int64)})
    with pytest.raises(cl.TopologyError, match="'probs' is both a model output and a passthrough column"):
        pred({"image": x, "probs": np.arange(3)})
    ragged = np.empty(2, dtype=object)
    ragged[0], ragged[1] = x[0], x[1, :, :8]
    with pytest.raises(cl.ShapeError, match="rows of different shapes"):
        pred({"image": ragged})
    assert pred({"image": x})["logits"].shape == (3, 10)  # still usable after the errors


def test_construction_errors(model):
    with pytest.raises(cl.ShapeError, match="batch dimension is dynamic; pass batch_size"):
        BatchPredictor(model)
    with pytest.raises(ValueError, match="batch_size must be >= 1"):
        BatchPredictor(model, batch_size=0)
    with pytest.raises(cl.TopologyError, match=r"inputs maps \['x'\], which are not model inputs"):
        BatchPredictor(model, batch_size=2, inputs={"x": "image"})
    with pytest.raises(cl.OnnxImportError):
        BatchPredictor(b"not a model", batch_size=2)


def test_predictor_refuses_pickling_with_what_to_pass(model):
    pred = BatchPredictor(model, batch_size=2)
    with pytest.raises(TypeError, match=r"pass the class and its constructor arguments .*fn_constructor_kwargs"):
        pickle.dumps(pred)
    for obj, what in [(pred.network, "pass the Topology"), (pred.network.program, "pass the Topology"),
                      (pred.network.engine, "pass the device spec")]:
        with pytest.raises(TypeError, match=what):
            pickle.dumps(obj)


def test_model_with_a_fixed_batch_says_how_to_fix_it():
    from onnx import TensorProto, helper, numpy_helper

    graph = helper.make_graph(
        [helper.make_node("Reshape", ["x", "shape"], ["y"])], "fixed",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 4, 2])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 8])],
        [numpy_helper.from_array(np.array([1, 8], np.int64), "shape")])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    with pytest.raises(cl.UnsupportedError, match="compiles the model at batch_size=4; a model whose graph fixes"):
        BatchPredictor(model.SerializeToString(), batch_size=4)
    rows = np.random.default_rng(7).standard_normal((3, 4, 2)).astype(np.float32)
    out = BatchPredictor(model.SerializeToString())({"x": rows})  # its own batch of 1: one row per execution
    np.testing.assert_array_equal(out["y"], rows.reshape(3, 8))
