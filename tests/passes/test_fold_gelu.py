"""fold_gelu: GELU spelled out as x · 0.5 · (1 + erf(x / √2)) (ONNX before opset 20) becomes one Activation gelu, in
each grouping the pass knows (Div √2 or Mul 1/√2; (x·t)·0.5, (t·0.5)·x, t·(x·0.5); operands in either order), with
float64 GELU's result on poisoned outputs; look-alikes (another constant, an intermediate read elsewhere) stay."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import special

import cldnn_py as cl
from tests.helpers import assert_close, f32

SHAPE = (2, 5, 24)


def gelu_ref(x):
    x = x.astype(np.float64)
    return 0.5 * x * special.erfc(-x / math.sqrt(2.0))


def _graph(scale="div", group="xt", swap=False, half=0.5, side=False):
    """x → p = 1.5x − 0.25 → the decomposed GELU of p; returns (topology, last id)."""
    t = cl.Topology(cl.InputLayout("x", cl.Layout(cl.DataType.f32, cl.Format.bfyx, SHAPE)),
                    cl.Activation("p", "x", "linear", a=1.5, b=-0.25),
                    cl.Data("c", f32(np.array([math.sqrt(2.0) if scale == "div" else 1 / math.sqrt(2.0)]))),
                    cl.Data("one", f32(np.array([1.0]))), cl.Data("half", f32(np.array([half]))))
    t.add(cl.Eltwise("y", ["p", "c"], mode="div" if scale == "div" else "prod"), cl.Activation("e", "y", "erf"),
          cl.Eltwise("t", ["one", "e"] if swap else ["e", "one"]))

    def pair(a, b):
        return [b, a] if swap else [a, b]

    if group == "xt":
        t.add(cl.Eltwise("m1", pair("p", "t"), mode="prod"), cl.Eltwise("out", pair("m1", "half"), mode="prod"))
    elif group == "th":
        t.add(cl.Eltwise("m1", pair("t", "half"), mode="prod"), cl.Eltwise("out", pair("m1", "p"), mode="prod"))
    else:
        t.add(cl.Eltwise("h", pair("p", "half"), mode="prod"), cl.Eltwise("out", pair("t", "h"), mode="prod"))
    last = "out"
    if side:
        t.add(cl.Activation("s", "t", "relu"), cl.Eltwise("out2", ["out", "s"]))
        last = "out2"
    return t, last


@pytest.mark.parametrize("form", [("div", "xt", False), ("prod", "th", True), ("div", "xh", True),
                                  ("prod", "xt", False)], ids=lambda f: "-".join(map(str, f)))
def test_decomposed_gelu_folds(engine, rng, form):
    x = f32(rng.standard_normal(SHAPE) * 2.5)
    t, last = _graph(*form)
    net = cl.Network(cl.Program(engine, t))
    node = net.program.node(last)
    kinds = [n.kind for n in net.program.order if not n.optimized_out and n.kind not in ("data", "input_layout")]
    assert kinds == ["activation"], kinds  # p with the gelu fused into it (an activation hosts fused activations)
    assert node.id == "p" and [(op.kind, op.act().func) for op in node.fused_ops] == [("activation", "gelu")]
    net.poison()
    assert_close(net.run({"x": x})[last], gelu_ref(1.5 * x - 0.25), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("case", ["another constant", "sum read elsewhere"])
def test_look_alikes_stay(engine, rng, case):
    x = f32(rng.standard_normal(SHAPE))
    t, last = _graph(half=0.45 if case == "another constant" else 0.5, side=case == "sum read elsewhere")
    net = cl.Network(cl.Program(engine, t))
    assert all(not (n.kind == "activation" and n.primitive.attrs().func == "gelu") for n in net.program.order)
    p = 1.5 * x.astype(np.float64) - 0.25
    t64 = 1.0 + special.erf(p / math.sqrt(2.0))
    expect = p * t64 * (0.45 if case == "another constant" else 0.5)
    if case == "sum read elsewhere":
        expect = expect + np.maximum(t64, 0)
    net.poison()
    assert_close(net.run({"x": x})[last], expect, rtol=1e-5, atol=1e-6)
