"""Build small ONNX models and compare cldnn_py with onnxruntime on them (shared by test_shape_ops and
test_resize_ops)."""

from __future__ import annotations

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

import cldnn_py as cl
from cldnn_py.frontend.onnx import load_onnx
from cldnn_py.frontend.onnx_context import to_device_array

_ELEM = {np.dtype(np.float32): TensorProto.FLOAT, np.dtype(np.int64): TensorProto.INT64,
         np.dtype(np.int32): TensorProto.INT32, np.dtype(np.bool_): TensorProto.BOOL,
         np.dtype(np.uint8): TensorProto.UINT8, np.dtype(np.int8): TensorProto.INT8}


def build(nodes, feeds: dict, inits: dict, outputs: list, opset: int, out_types: dict | None = None):
    """A model of ``nodes``: ``feeds`` are graph inputs (their arrays fix shape and type), ``inits`` initializers,
    ``outputs`` the graph outputs (float unless ``out_types`` says otherwise, shapes left to the runtimes)."""
    ins = [helper.make_tensor_value_info(n, _ELEM[a.dtype], a.shape) for n, a in feeds.items()]
    outs = [helper.make_tensor_value_info(o, (out_types or {}).get(o, TensorProto.FLOAT), None) for o in outputs]
    g = helper.make_graph(nodes, "g", ins, outs, [numpy_helper.from_array(np.asarray(v), k) for k, v in inits.items()])
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)], ir_version=10)


def declare(model, refs: list):
    """A copy of the model whose outputs are declared with onnxruntime's result shapes (the checker wants them)."""
    m = onnx.ModelProto()
    m.CopyFrom(model)
    for out, ref in zip(m.graph.output, refs):
        dims = out.type.tensor_type.shape.dim
        del dims[:]
        for d in np.shape(ref):
            dims.add().dim_value = d
    return m


def compare(engine, model, feeds: dict, atol: float = 1e-5) -> cl.Network:
    """Run on onnxruntime and on cldnn_py (poisoned outputs); values equal within ``atol``. Returns the network."""
    import onnxruntime as ort

    sess = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    refs = sess.run(None, feeds)
    model = declare(model, refs)
    net = cl.Network(engine, load_onnx(model))
    net.poison()
    got = net.run({k: to_device_array(v) for k, v in feeds.items() if k in net.input_ids})
    for out, ref in zip(model.graph.output, refs):
        g = got[out.name]
        assert g.shape == ref.shape or (ref.ndim == 0 and g.shape == (1,)), f"{out.name}: {g.shape} != {ref.shape}"
        np.testing.assert_allclose(g.astype(np.float64).reshape(ref.shape), ref.astype(np.float64), rtol=1e-5,
                                   atol=atol)
    return net


def randf32(rng, *shape):
    """float32 standard normal of ``shape``."""
    return rng.standard_normal(shape).astype(np.float32)
