"""Bad input, feeds: ``set_input_data`` with arrays that are not plain C-ordered native ndarrays (a strided view,
read-only, Fortran-ordered, big-endian, np.matrix, a masked array), with NaN/Inf, a Python list or a 0-d array gives
numpy's answer or a clear error, never a wrong answer; on both engines, for a static Network and a DynamicNetwork.
Part of the bad-input catalogue (tests/*/test_bad_input_*.py)."""

from __future__ import annotations

import numpy as np
import pytest
from onnx import TensorProto, helper, numpy_helper

import cldnn_py as cl

SHAPE = (4, 5)
pytestmark = pytest.mark.filterwarnings("ignore::PendingDeprecationWarning")  # np.matrix is a case here


def _network(engine, kind):
    """y = 2x + 1 on a (4, 5) float32 input: a Topology (static) or an ONNX model with a dynamic first dimension."""
    if kind == "static":
        topo = cl.Topology(cl.InputLayout("x", cl.Layout(cl.DataType.f32, cl.Format.bfyx, SHAPE)),
                           cl.Activation("y", "x", func="linear", a=2.0, b=1.0))
        return cl.Network(cl.Program(engine, topo))
    g = helper.make_graph([helper.make_node("Mul", ["x", "two"], ["t"]), helper.make_node("Add", ["t", "one"], ["y"])],
                          "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", SHAPE[1]])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["N", SHAPE[1]])],
                          [numpy_helper.from_array(np.array(2, np.float32), "two"),
                           numpy_helper.from_array(np.array(1, np.float32), "one")])
    return cl.Network(engine, cl.load_onnx(helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)],
                                                             ir_version=10)))


def _feed(case, x):
    if case == "strided":
        wide = np.repeat(x, 2, axis=1)
        wide[:, 1::2] = -7
        return wide[:, ::2]
    if case == "read_only":
        x = x.copy()
        x.setflags(write=False)
        return x
    if case == "fortran":
        return np.asfortranarray(x)
    if case == "big_endian":
        return x.astype(">f4")
    if case == "matrix":
        return np.asmatrix(x)
    if case == "masked_nothing_masked":
        return np.ma.masked_array(x, mask=np.zeros(SHAPE, bool))
    if case == "nan_inf":
        x = x.copy()
        x[0, :3] = [np.nan, np.inf, -np.inf]
        return x
    raise ValueError(case)


@pytest.mark.parametrize("kind", ["static", "dynamic"])
@pytest.mark.parametrize("case", ["strided", "read_only", "fortran", "big_endian", "matrix", "masked_nothing_masked",
                                  "nan_inf"])
def test_unusual_arrays_give_numpys_answer(engine, rng, kind, case):
    x = rng.standard_normal(SHAPE).astype(np.float32)
    fed = _feed(case, x)
    net = _network(engine, kind)
    net.set_input_data("x", fed)
    got = net.execute()["y"].numpy()
    assert type(got) is np.ndarray and got.dtype == np.float32 and got.shape == SHAPE
    np.testing.assert_array_equal(got, 2 * np.asarray(fed, dtype=np.float32) + 1)


@pytest.mark.parametrize("kind", ["static", "dynamic"])
def test_unusable_feeds_are_refused_clearly(engine, rng, kind):
    x = rng.standard_normal(SHAPE).astype(np.float32)
    net = _network(engine, kind)
    masked = np.ma.masked_array(x, mask=np.zeros(SHAPE, bool))
    masked[1, 2] = np.ma.masked
    with pytest.raises(cl.DTypeError, match=r"'x': a masked array with 1 masked value\(s\)"):
        net.set_input_data("x", masked)
    with pytest.raises(cl.DTypeError, match=r"'x'.*dtype: expected float32.*got float64"):
        net.set_input_data("x", x.tolist())
    with pytest.raises(cl.DTypeError, match=r"'x'.*dtype: expected float32.*got object"):
        net.set_input_data("x", np.array([[object()] * 5] * 4, dtype=object))
    with pytest.raises(cl.ShapeError, match=r"'x'.*got (0 )?\(\)"):
        net.set_input_data("x", np.float32(1.0))
    net.set_input_data("x", x)  # nothing half-set: the network still runs on a good feed
    np.testing.assert_array_equal(net.execute()["y"].numpy(), 2 * x + 1)
