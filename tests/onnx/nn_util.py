"""Helpers of the nn-op converter tests (tests/onnx/test_nn_*.py): one-node ONNX models, onnxruntime as the
reference, cldnn_py runs with poisoned outputs, optionally with the graph inputs held in another format."""

from __future__ import annotations

import numpy as np
import onnx
from onnx import TensorProto, helper

import cldnn_py as cl
from cldnn_py.frontend.onnx import load_onnx
from cldnn_py.frontend.onnx_context import to_device_array

F = TensorProto.FLOAT


def model(op, opset, inputs, attrs=None, inits=None, outputs=("y",), out_shape=None):
    """A one-node model. ``inputs``: [(name, shape)] float graph inputs, or a name alone for an initializer in
    ``inits`` ({name: array}), or "" for an omitted optional input. Output shapes come from ONNX shape inference
    (or ``out_shape`` for every output when given)."""
    inits = inits or {}
    names, graph_inputs = [], []
    for i in inputs:
        if isinstance(i, tuple):
            names.append(i[0])
            graph_inputs.append(helper.make_tensor_value_info(i[0], F, list(i[1])))
        else:
            names.append(i)
    node = helper.make_node(op, names, list(outputs), **(attrs or {}))
    graph = helper.make_graph(
        [node], "g", graph_inputs, [helper.make_tensor_value_info(o, F, out_shape) for o in outputs if o],
        initializer=[onnx.numpy_helper.from_array(np.asarray(v), k) for k, v in inits.items()])
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)], ir_version=10)
    if out_shape is not None:
        return m
    inferred = {v.name: v for v in onnx.shape_inference.infer_shapes(m).graph.output}
    for o in m.graph.output:  # declare the inferred output shapes (the checker wants one)
        if inferred[o.name].type.tensor_type.HasField("shape"):
            o.CopyFrom(inferred[o.name])
        else:
            raise AssertionError(f"ONNX shape inference gives no shape for {op} output {o.name}")
    return m


def run_ort(m, feeds):
    """All outputs of ``m`` by onnxruntime's CPU provider."""
    import onnxruntime as ort

    opts = ort.SessionOptions()
    opts.log_severity_level = 3
    sess = ort.InferenceSession(m.SerializeToString(), opts, providers=["CPUExecutionProvider"])
    return sess.run(None, feeds)


def run_cl(engine, m, feeds, fmt=None):
    """{output name: array} by cldnn_py. With ``fmt``, every rank-4 f32 graph input is reordered to ``fmt``
    before the converted nodes read it (the non-bfyx path)."""
    topo = load_onnx(m)
    if fmt is not None:
        t = cl.Topology()
        for p in topo:
            if p.type_name == "input_layout" and p.layout.rank == 4:
                t.add(cl.InputLayout(p.id + "__host", p.layout))
                t.add(cl.Reorder(p.id, p.id + "__host", fmt))
                feeds = {(k + "__host" if k == p.id else k): v for k, v in feeds.items()}
            else:
                t.add(p)
        t.outputs = topo.outputs
        topo = t
    net = cl.Network(engine, topo)
    net.poison()
    feeds = {k: to_device_array(v) for k, v in feeds.items()}
    return net.run({k: (v.reshape(1) if v.ndim == 0 else v) for k, v in feeds.items()})  # scalars are (1,)


def check(engine, m, feeds, fmt=None, rtol=1e-4, atol=1e-5, reference=run_ort):
    """cldnn_py's outputs equal ``reference(m, feeds)``'s (onnxruntime by default) for every graph output."""
    expected = reference(m, feeds)
    got = run_cl(engine, m, feeds, fmt)
    for out, ref in zip(m.graph.output, expected):
        a = got[out.name]
        a = a.reshape(ref.shape) if a.size == ref.size and ref.ndim == 0 else a
        assert a.shape == ref.shape, f"{out.name}: shape {a.shape} != {ref.shape}"
        assert not np.isnan(a).any() or np.isnan(ref).any(), f"{out.name}: NaN (an element was not written)"
        np.testing.assert_allclose(a.astype(np.float64), ref.astype(np.float64), rtol=rtol, atol=atol,
                                   err_msg=out.name)


def randn(rng, shape, scale=1.0):
    """float32 standard normal."""
    return np.asarray(rng.standard_normal(shape) * scale, dtype=np.float32)
