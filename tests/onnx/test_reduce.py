"""ONNX ReduceMean/Sum/Max/Min and ArgMax converters vs onnxruntime: axes as attribute (old opsets) and as a
constant input (ReduceSum 13+, all 18+), keepdims, negative axes, empty axes (= all, or the identity with
noop_with_empty_axes), rank-0 results, ranks 1-6, select_last_index with ties; and axes given as a graph input
(bound as a constant by the backend)."""

from __future__ import annotations

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper

import cldnn_py as cl
from cldnn_py.frontend.onnx import load_onnx
from cldnn_py.frontend.onnx_backend import CldnnBackend

ort = pytest.importorskip("onnxruntime")


def _model(op, opset, shape, attrs, axes_input=None, axes_as_graph_input=False, out_type=TensorProto.FLOAT,
           out_shape=None):
    """One-node model: input x of ``shape``; ``axes_input`` (a list) becomes an int64 initializer, or a graph
    input named ``axes``. Without ``out_shape`` the output's dimensions are symbolic (its rank is found by
    onnxruntime first, see :func:`_declare`)."""
    inputs = [helper.make_tensor_value_info("x", TensorProto.FLOAT, shape)]
    inits = []
    names = ["x"]
    if axes_input is not None:
        names.append("axes")
        if axes_as_graph_input:
            inputs.append(helper.make_tensor_value_info("axes", TensorProto.INT64, [len(axes_input)]))
        else:
            inits.append(helper.make_tensor("axes", TensorProto.INT64, [len(axes_input)], axes_input))
    node = helper.make_node(op, names, ["y"], **attrs)
    g = helper.make_graph([node], "g", inputs, [helper.make_tensor_value_info("y", out_type, out_shape)], inits)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)], ir_version=10)
    if out_shape is not None:
        onnx.checker.check_model(m)
    return m


def _declare(model, ref):
    """The model with output y declared of onnxruntime's result shape."""
    m = onnx.ModelProto()
    m.CopyFrom(model)
    dims = m.graph.output[0].type.tensor_type.shape.dim
    del dims[:]
    for s in ref.shape:
        dims.add().dim_value = s
    onnx.checker.check_model(m)
    return m


def _ort(model, feeds):
    sess = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    return sess.run(None, feeds)[0]


def _ours(engine, model, x):
    net = cl.Network(engine, load_onnx(model))
    net.poison()
    return net.run({"x": x})["y"]


def _check_shape(got, ref):
    """Same shape, or a rank-0 reference stored as (1,)."""
    assert got.shape == ref.shape or (ref.ndim == 0 and got.shape == (1,)), f"shape {got.shape} != {ref.shape}"


REDUCE_CASES = [
    # op, opset, input shape, attributes, axes input (None: no second input)
    ("ReduceMean", 13, (2, 3, 4, 5), {"axes": [2, 3]}, None),
    ("ReduceMean", 18, (2, 3, 4, 5), {"keepdims": 0}, [-1]),
    ("ReduceMean", 11, (3, 4, 5), {"keepdims": 0}, None),                  # all axes → rank 0
    ("ReduceMean", 7, (3, 6, 5), {"axes": [1]}, None),                      # version 1 semantics
    ("ReduceSum", 11, (2, 3, 4, 5), {"axes": [1], "keepdims": 0}, None),
    ("ReduceSum", 13, (2, 3, 4, 5), {}, [0, -1]),
    ("ReduceSum", 13, (2, 3, 4), {}, None),                                 # no axes → every axis
    ("ReduceSum", 13, (2, 3, 4), {"noop_with_empty_axes": 1}, []),          # identity
    ("ReduceSum", 13, (4, 5), {"keepdims": 0}, []),                         # empty axes → all, rank 0
    ("ReduceMax", 12, (2, 3, 4, 5), {"axes": [-2]}, None),
    ("ReduceMax", 18, (2, 3, 4, 2, 3), {"keepdims": 0}, [1, 2]),            # rank 5
    ("ReduceMax", 20, (3, 4), {"keepdims": 0}, None),                       # rank 0
    ("ReduceMin", 13, (7,), {"axes": [0], "keepdims": 0}, None),            # rank 1 → rank 0
    ("ReduceMin", 18, (2, 3, 2, 2, 3, 2), {}, [3, 5]),                      # rank 6
    ("ReduceMin", 20, (2, 3, 4, 5), {"keepdims": 0}, [-3]),
]


@pytest.mark.ocl_every(2)
@pytest.mark.parametrize(("op", "opset", "shape", "attrs", "axes"), REDUCE_CASES,
                         ids=[f"{c[0]}-v{c[1]}-{c[2]}-{c[3]}-{c[4]}" for c in REDUCE_CASES])
def test_reduce_matches_onnxruntime(engine, rng, op, opset, shape, attrs, axes):
    x = (rng.standard_normal(shape) * 3).astype(np.float32)
    m = _model(op, opset, shape, attrs, axes)
    ref = _ort(m, {"x": x})
    got = _ours(engine, _declare(m, ref), x)
    _check_shape(got, ref)
    np.testing.assert_allclose(got.reshape(ref.shape), ref, rtol=1e-5, atol=1e-5)


ARGMAX_CASES = [
    # opset, input shape, attributes
    (13, (2, 5, 4, 3), {"axis": 1}),
    (13, (3, 4, 6), {"axis": -1, "keepdims": 0, "select_last_index": 1}),
    (11, (9,), {"axis": 0, "keepdims": 0}),                                 # rank 0 result
    (12, (2, 3, 5, 4), {"axis": 2, "select_last_index": 1}),
    (7, (4, 6, 2), {"axis": 1, "keepdims": 0}),                             # version 1 semantics
    (13, (2, 3, 2, 4, 3), {"axis": 3}),                                     # rank 5
    (13, (3, 4), {}),                                                       # default axis 0
]


@pytest.mark.parametrize(("opset", "shape", "attrs"), ARGMAX_CASES,
                         ids=[f"v{c[0]}-{c[1]}-{c[2]}" for c in ARGMAX_CASES])
def test_argmax_matches_onnxruntime(engine, rng, opset, shape, attrs):
    x = (rng.integers(-2, 3, size=shape) * 0.5).astype(np.float32)  # ties: first vs last index matters
    m = _model("ArgMax", opset, shape, attrs, out_type=TensorProto.INT64)
    ref = _ort(m, {"x": x})
    got = _ours(engine, _declare(m, ref), x)
    assert got.dtype == np.int64  # the model's own type (stored as int32)
    _check_shape(got, ref)
    np.testing.assert_array_equal(got.reshape(ref.shape), ref)


def test_reduce_chain(engine, rng):
    """Relu → ReduceMean(keepdims=0) → ReduceMax over the rest: converted tensors feed each other by name."""
    x = (rng.standard_normal((2, 3, 4, 5)) * 2).astype(np.float32)
    nodes = [helper.make_node("Relu", ["x"], ["r"]),
             helper.make_node("ReduceMean", ["r", "a1"], ["m"], keepdims=0),
             helper.make_node("ReduceMax", ["m", "a2"], ["y"], keepdims=1)]
    inits = [helper.make_tensor("a1", TensorProto.INT64, [2], [1, 3]),
             helper.make_tensor("a2", TensorProto.INT64, [1], [-1])]
    g = helper.make_graph(nodes, "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, x.shape)],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)], inits)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 18)], ir_version=10)
    ref = _ort(m, {"x": x})
    got = _ours(engine, _declare(m, ref), x)
    assert got.shape == ref.shape == (2, 1)
    np.testing.assert_allclose(got, ref, rtol=1e-5, atol=1e-6)


def test_axes_graph_input_is_a_value_input(engine, rng):
    """The import needs constant axes: the topology is dynamic with 'axes' as a value input, and the Network
    builds one specialization per distinct value (the third call reuses the first)."""
    x = rng.standard_normal((3, 4, 5)).astype(np.float32)
    m = _model("ReduceSum", 13, x.shape, {"keepdims": 0}, [1], axes_as_graph_input=True, out_shape=["a", "b"])
    topo = load_onnx(m)
    assert topo.is_dynamic and topo.value_inputs == ["axes"]
    net = cl.Network(engine, topo)
    for axes in ([1], [-1], [1]):
        a = np.array(axes, dtype=np.int64)
        got = net.run({"x": x, "axes": a})["y"]
        np.testing.assert_allclose(got, _ort(m, {"x": x, "axes": a}), rtol=1e-5, atol=1e-5)
    assert len(net.specializations) == 2 and net.builds == 2


def test_axis_out_of_range_is_refused(rng):
    m = _model("ReduceMean", 13, (2, 3), {"axes": [2]}, None, out_shape=[2, 3])
    with pytest.raises(cl.errors.CldnnError, match="out of range"):
        load_onnx(m)


@pytest.mark.parametrize("op", ["ReduceMean", "ReduceSum", "ReduceMax", "ReduceMin"])
def test_rank0_result_through_the_backend(engine, rng, op):
    """keepdims=0 over every axis: stored as (1,), returned by the backend with the declared shape ()."""
    x = rng.standard_normal((3, 4)).astype(np.float32)
    m = _model(op, 18, x.shape, {"keepdims": 0}, out_shape=[])
    (got,) = CldnnBackend.prepare(m, engine=engine).run([x])
    ref = _ort(m, {"x": x})
    assert got.shape == ref.shape == ()
    np.testing.assert_allclose(got, ref, rtol=1e-5, atol=1e-6)
