"""ONNX element-wise converters (activations.py, binary.py) vs onnxruntime: one-node models with random data.

Covered: every activation with its attributes (given and schema defaults, old and new versions), Gelu's two
approximations, Clip with attributes (opset 6), constant, missing and run-time bounds (11+), PRelu with a constant
scalar, per-channel or run-time slope, integer Relu/Abs/Neg/Clip, the binary ops with numpy broadcasting (either
operand smaller, constant operands), integer Add/Div (truncation)/Max, Pow with mixed data types and the constant
exponent 2, variadic Max/Min/Sum/Mean with 1-3 inputs, the legacy broadcast/axis of Add-6 (vs numpy: onnxruntime
runs no opset 6), and a non-bfyx path (graph inputs reordered to b_fs_yx_fsv16 / byxf before the converted nodes).
"""

from __future__ import annotations

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper

import cldnn_py as cl
from cldnn_py.frontend.onnx import load_onnx
from cldnn_py.frontend.onnx_context import to_device_array

ort = pytest.importorskip("onnxruntime")

F, I32, I64 = TensorProto.FLOAT, TensorProto.INT32, TensorProto.INT64
_NP = {F: np.float32, I32: np.int32, I64: np.int64}
S = (2, 3, 4, 5)


def model(op, opset, inputs, attrs=None, out_type=F, inits=None):
    """One-node model. ``inputs``: list of (name, elem type, shape) graph inputs or "" (an absent optional
    input); ``inits``: {name: array} initializers, used by name in ``inputs`` as (name, None, None)."""
    inits = inits or {}
    names = [i if isinstance(i, str) else i[0] for i in inputs]
    g_inputs = [helper.make_tensor_value_info(n, t, s) for n, t, s in (i for i in inputs if not isinstance(i, str))
                if n not in inits]
    init_protos = [helper.make_tensor(n, {np.dtype(np.float32): F, np.dtype(np.int64): I64,
                                          np.dtype(np.int32): I32}[a.dtype], a.shape, a.reshape(-1).tolist())
                   for n, a in inits.items()]
    node = helper.make_node(op, names, ["y"], **(attrs or {}))
    g = helper.make_graph([node], "g", g_inputs, [helper.make_tensor_value_info("y", out_type, None)], init_protos)
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)], ir_version=10)


def run_ours(engine, m, feeds, fmt=None):
    """load_onnx + Network (poisoned outputs). With ``fmt``, every float rank-4 graph input is reordered to
    ``fmt`` before the converted nodes read it (the non-bfyx path)."""
    topo = load_onnx(m)
    if fmt is not None:
        t = cl.Topology()
        for p in topo:
            if p.type_name == "input_layout" and p.layout.rank == 4 and p.layout.dtype == cl.DataType.f32:
                t.add(cl.InputLayout(p.id + "__host", p.layout), cl.Reorder(p.id, p.id + "__host", fmt))
                feeds = {(k + "__host" if k == p.id else k): v for k, v in feeds.items()}
            else:
                t.add(p)
        t.outputs, t.output_signature = topo.outputs, topo.output_signature
        topo = t  # no input signature: the feeds in the engine's own types
        feeds = {k: to_device_array(v) for k, v in feeds.items()}
        feeds = {k: (v.reshape(1) if v.ndim == 0 else v) for k, v in feeds.items()}
    net = cl.Network(engine, topo)
    net.poison()
    return net.run(feeds)["y"]  # the model's own types in and out (int64, rank 0)


def declare(m, shape):
    """The model with output y declared of ``shape`` (the checker in load_onnx wants the output's shape)."""
    out = onnx.ModelProto()
    out.CopyFrom(m)
    dims = out.graph.output[0].type.tensor_type.shape.dim
    del dims[:]
    for d in shape:
        dims.add().dim_value = d
    return out


def check(engine, m, feeds, fmt=None, rtol=1e-4, atol=1e-6):
    """Our output equals onnxruntime's: values, shape and dtype (int64 and rank 0 as the model declares them)."""
    ref = ort.InferenceSession(m.SerializeToString(), providers=["CPUExecutionProvider"]).run(None, feeds)[0]
    got = run_ours(engine, declare(m, ref.shape), feeds, fmt)
    assert got.shape == ref.shape, f"{got.shape} != {ref.shape}"
    assert got.dtype == ref.dtype, f"{got.dtype} != {ref.dtype}"
    if ref.dtype.kind == "f":
        np.testing.assert_allclose(got.reshape(ref.shape), ref, rtol=rtol, atol=atol)
    else:
        np.testing.assert_array_equal(got.reshape(ref.shape), ref)


def randn(rng, shape, scale=3.0):
    return (rng.standard_normal(shape) * scale).astype(np.float32)


UNARY = [
    # op, opset, attributes, value range ("n": normal*3, "p": positive)
    ("Relu", 14, {}, "n"),
    ("LeakyRelu", 16, {"alpha": 0.3}, "n"),
    ("LeakyRelu", 6, {}, "n"),                          # default alpha 0.01
    ("Sigmoid", 13, {}, "n"),
    ("Tanh", 13, {}, "n"),
    ("Elu", 22, {"alpha": 0.7}, "n"),
    ("Selu", 22, {}, "n"),                              # defaults from the schema
    ("Selu", 6, {"alpha": 2.0, "gamma": 0.5}, "n"),
    ("HardSigmoid", 22, {"alpha": 0.3, "beta": 0.4}, "n"),
    ("HardSwish", 14, {}, "n"),
    ("Softplus", 22, {}, "n"),
    ("Erf", 13, {}, "n"),
    ("Gelu", 20, {}, "n"),
    ("Gelu", 20, {"approximate": "tanh"}, "n"),
    ("Exp", 13, {}, "n"),
    ("Log", 13, {}, "p"),
    ("Sqrt", 6, {}, "p"),
    ("Abs", 13, {}, "n"),
    ("Neg", 13, {}, "n"),
    ("Reciprocal", 13, {}, "n"),
]


@pytest.mark.ocl_every(2)
@pytest.mark.parametrize("op,opset,attrs,kind", UNARY, ids=lambda v: str(v) if not isinstance(v, dict) else "")
def test_unary(engine, rng, op, opset, attrs, kind):
    x = randn(rng, S) if kind == "n" else rng.uniform(1e-3, 10.0, S).astype(np.float32)
    check(engine, model(op, opset, [("x", F, S)], attrs), {"x": x})


@pytest.mark.parametrize("op,opset", [("Relu", 14), ("Abs", 13), ("Neg", 13)])
def test_unary_int(engine, rng, op, opset):
    """Integer inputs, int64 (stored as int32) and int32, vs numpy (onnxruntime has no integer Relu)."""
    x = rng.integers(-10**6, 10**6, S)
    ref = {"Relu": np.maximum(x, 0), "Abs": np.abs(x), "Neg": -x}[op]
    for t in (I64, I32) if op == "Relu" else (I64,):
        got = run_ours(engine, declare(model(op, opset, [("x", t, S)], out_type=t), S), {"x": x.astype(_NP[t])})
        assert got.dtype == _NP[t]  # the model's own type (int64 is stored as int32)
        np.testing.assert_array_equal(got, ref)


CLIP = [
    # opset, attributes, initializers {name: value}, inputs after x (names; "" = absent; "lo"/"hi" run-time)
    (6, {"min": -1.0, "max": 2.5}, {}, []),
    (6, {"max": 0.5}, {}, []),
    (11, {}, {"mn": np.array(-0.5, np.float32), "mx": np.array(1.0, np.float32)}, ["mn", "mx"]),
    (13, {}, {"mx": np.array(0.25, np.float32)}, ["", "mx"]),
    (13, {}, {"mn": np.array(-0.25, np.float32)}, ["mn"]),
    (13, {}, {}, []),
    (13, {}, {"mn": np.array(2.0, np.float32), "mx": np.array(1.0, np.float32)}, ["mn", "mx"]),  # min > max
    (13, {}, {}, ["lo", "hi"]),
    (13, {}, {}, ["", "hi"]),
]


@pytest.mark.parametrize("opset,attrs,inits,extra", CLIP)
def test_clip(engine, rng, opset, attrs, inits, extra):
    x = randn(rng, S)
    inputs = [("x", F, S)] + [n if n == "" else (n, F, []) for n in extra]
    feeds = {"x": x}
    if "lo" in extra:
        feeds["lo"] = np.array(-1.5, np.float32)
    if "hi" in extra:
        feeds["hi"] = np.array(0.75, np.float32)
    check(engine, model("Clip", opset, inputs, attrs, inits=inits), feeds)


def test_clip_int(engine, rng):
    x = rng.integers(-100, 100, S).astype(np.int32)
    inits = {"mn": np.array(-20, np.int32), "mx": np.array(30, np.int32)}
    m = model("Clip", 13, [("x", I32, S), ("mn", None, None), ("mx", None, None)], out_type=I32, inits=inits)
    check(engine, m, {"x": x})
    m = model("Clip", 13, [("x", I64, S), "", ("mx", I64, [])], out_type=I64)
    check(engine, m, {"x": x.astype(np.int64), "mx": np.array(7, np.int64)})


@pytest.mark.parametrize("opset,slope,runtime", [
    (16, np.array([0.25], np.float32), False),                              # one value: an activation
    (9, None, False),                                                       # per channel (3, 1, 1) constant
    (7, None, True),                                                        # run-time slope (5,)
])
def test_prelu(engine, rng, opset, slope, runtime):
    x = randn(rng, S)
    if runtime:
        s = rng.uniform(-1, 1, (5,)).astype(np.float32)
        check(engine, model("PRelu", opset, [("x", F, S), ("s", F, [5])]), {"x": x, "s": s})
        return
    s = slope if slope is not None else rng.uniform(-1, 1, (3, 1, 1)).astype(np.float32)
    check(engine, model("PRelu", opset, [("x", F, S), ("s", None, None)], inits={"s": s}), {"x": x})


BINARY = [("Add", (S, S)), ("Add", (S, (3, 1, 1))), ("Add", ((5,), S)), ("Add", ((4, 1), (3, 1, 5))),
          ("Sub", ((5,), S)), ("Mul", ((4, 1), (3, 1, 5))), ("Div", (S, (3, 1, 1))), ("Div", ((4, 1), (3, 1, 5)))]


@pytest.mark.parametrize("op,shapes", BINARY, ids=lambda v: v if isinstance(v, str) else
                         "+".join("x".join(map(str, t)) for t in v))
def test_binary(engine, rng, op, shapes):
    a = randn(rng, shapes[0])
    b = randn(rng, shapes[1]) if op != "Div" else rng.uniform(0.5, 2, shapes[1]).astype(np.float32)
    check(engine, model(op, 14, [("a", F, shapes[0]), ("b", F, shapes[1])]), {"a": a, "b": b})


@pytest.mark.parametrize("op,opset", [("Sub", 7), ("Div", 13)])
def test_binary_constant_first(engine, rng, op, opset):
    """A constant (initializer) operand first, broadcast against the graph input."""
    c = rng.uniform(0.5, 2, (3, 1, 1)).astype(np.float32)
    x = rng.uniform(0.5, 2, S).astype(np.float32)
    check(engine, model(op, opset, [("c", None, None), ("x", F, S)], inits={"c": c}), {"x": x})


@pytest.mark.parametrize("op,t", [("Add", I64), ("Div", I32), ("Div", I64), ("Mul", I32)])
def test_binary_int(engine, rng, op, t):
    """int64 (stored int32) and int32: exact integer results; Div truncates toward zero."""
    a = rng.integers(-10**6, 10**6, S)
    b = rng.integers(1, 50, (5,)) * rng.choice([-1, 1], (5,))
    m = model(op, 14, [("a", t, S), ("b", t, [5])], out_type=t)
    check(engine, m, {"a": a.astype(_NP[t]), "b": b.astype(_NP[t])})


def test_add_legacy_broadcast(engine, rng):
    """Add-6 with broadcast=1, axis=1: B (3,) lines up with A's dimension 1 (onnxruntime runs no opset 6)."""
    a, b = randn(rng, S), randn(rng, (3,))
    m = model("Add", 6, [("a", F, S), ("b", F, [3])], {"broadcast": 1, "axis": 1})
    got = run_ours(engine, declare(m, S), {"a": a, "b": b})
    np.testing.assert_allclose(got, a + b.reshape(3, 1, 1), rtol=1e-6)
    m = model("Mul", 6, [("a", F, S), ("c", None, None)], {"broadcast": 1, "axis": 2}, inits={"c": b[:2].repeat(2)})
    got = run_ours(engine, declare(m, S), {"a": a})
    np.testing.assert_allclose(got, a * b[:2].repeat(2).reshape(4, 1), rtol=1e-6)


POW = [
    # opset, base (type, shape), exponent (type, shape), exponent constant?
    (15, (F, S), (F, S), False),
    (13, (F, S), (F, (5,)), False),
    (12, (F, S), (F, ()), True),                   # constant 2: Activation square
    (15, (F, S), (I64, (5,)), False),              # integer exponent, float base (also negative bases)
    (15, (I32, S), (F, (5,)), False),              # integer base, float exponent: integer output
    (7, (F, S), (F, (4, 1)), True),
]


@pytest.mark.parametrize("opset,base,exp,const", POW)
def test_pow(engine, rng, opset, base, exp, const):
    if base[0] == F:
        x = rng.uniform(0.2, 3.0, base[1]).astype(np.float32)
        if exp[0] != F:
            x = x * rng.choice([-1, 1], base[1]).astype(np.float32)
    else:
        x = rng.integers(1, 6, base[1]).astype(_NP[base[0]])
    if exp[0] == F:
        e = np.array(2.0, np.float32) if exp[1] == () else rng.uniform(0.0 if base[0] != F else -2, 2.5,
                                                                         exp[1]).astype(np.float32)
    else:
        e = rng.integers(-3, 4, exp[1]).astype(_NP[exp[0]])
    if const:
        m = model("Pow", opset, [("x", base[0], base[1]), ("e", None, None)], out_type=base[0], inits={"e": e})
        check(engine, m, {"x": x})
    else:
        m = model("Pow", opset, [("x", base[0], base[1]), ("e", exp[0], exp[1])], out_type=base[0])
        check(engine, m, {"x": x, "e": e})


ONE, TWO, THREE = [S], [S, (3, 1, 1)], [(5,), S, (4, 5)]
VARIADIC = [("Max", 13, ONE), ("Mean", 8, ONE), ("Max", 13, TWO), ("Sum", 8, TWO), ("Max", 8, THREE),
            ("Min", 13, THREE), ("Sum", 13, THREE), ("Mean", 13, THREE)]


@pytest.mark.parametrize("op,opset,shapes", VARIADIC, ids=lambda v: str(len(v)) if isinstance(v, list) else str(v))
def test_variadic(engine, rng, op, opset, shapes):
    names = [f"x{i}" for i in range(len(shapes))]
    feeds = {n: randn(rng, s) for n, s in zip(names, shapes)}
    m = model(op, opset, [(n, F, s) for n, s in zip(names, shapes)])
    check(engine, m, feeds)


def test_max_int(engine, rng):
    shapes = [S, (5,), (4, 1)]
    feeds = {f"x{i}": rng.integers(-10**8, 10**8, s).astype(np.int64) for i, s in enumerate(shapes)}
    check(engine, model("Max", 13, [(n, I64, a.shape) for n, a in feeds.items()], out_type=I64), feeds)


@pytest.mark.parametrize("case,fmt", [("prelu", cl.Format.b_fs_yx_fsv16), ("add", cl.Format.byxf),
                                      ("clip", cl.Format.b_fs_yx_fsv16), ("gelu", cl.Format.byxf)])
def test_non_bfyx_inputs(engine, rng, fmt, case):
    """The converted nodes reading inputs held in another format (the output keeps the input's format)."""
    x = randn(rng, (2, 19, 3, 4))
    if case == "prelu":
        s = rng.uniform(-1, 1, (19, 1, 1)).astype(np.float32)
        m = model("PRelu", 16, [("x", F, x.shape), ("s", None, None)], inits={"s": s})
        check(engine, m, {"x": x}, fmt=fmt)
    elif case == "add":
        m = model("Add", 14, [("x", F, x.shape), ("b", F, [4])])
        check(engine, m, {"x": x, "b": randn(rng, (4,))}, fmt=fmt)
    elif case == "clip":
        m = model("Clip", 13, [("x", F, x.shape), ("lo", F, []), ("hi", F, [])])
        check(engine, m, {"x": x, "lo": np.array(-1, np.float32), "hi": np.array(2, np.float32)}, fmt=fmt)
    else:
        check(engine, model("Gelu", 20, [("x", F, x.shape)], {"approximate": "tanh"}), {"x": x}, fmt=fmt)


def test_unsupported_messages(engine):
    """Float-only operators reject integer inputs at import, naming the node; a bad Gelu approximation too."""
    with pytest.raises(cl.UnsupportedError, match="Sigmoid '.*': input 'x' has data type i32"):
        load_onnx(declare(model("Sigmoid", 13, [("x", I32, S)], out_type=I32), S))
    m = declare(model("Gelu", 20, [("x", F, S)], {"approximate": "fast"}), S)
    m.graph.node[0].name = "g1"
    with pytest.raises(cl.UnsupportedError, match="Gelu 'g1': approximate='fast'"):
        load_onnx(m)


@pytest.mark.parametrize("op,opset", [("Floor", 13), ("Ceil", 6), ("Round", 11), ("Sign", 13)])
def test_rounding_and_sign(engine, rng, op, opset):
    """Floor, Ceil, Round (halves to even), Sign (0, -0 and NaN kept) vs onnxruntime, with halves, zeros, NaN."""
    x = randn(rng, S)
    x.flat[:7] = [0.5, 1.5, -2.5, -0.0, 0.0, np.nan, 2.5]
    ref = ort.InferenceSession(model(op, opset, [("x", F, S)]).SerializeToString(),
                               providers=["CPUExecutionProvider"]).run(None, {"x": x})[0]
    got = run_ours(engine, declare(model(op, opset, [("x", F, S)]), S), {"x": x})
    np.testing.assert_array_equal(got, ref)
