"""fold_layer_norm: a LayerNorm spelled out in elementwise nodes (opset < 17 exports) becomes one MVN node, in each
form the pass knows (Activation square or d·d, division or multiplication by the reciprocal, with or without ε, γ and
β in either operand order), with the float64 LayerNorm's result on poisoned outputs; graphs that only look like it
stay as they are."""

from __future__ import annotations

import numpy as np
import pytest

import cldnn_py as cl
from tests.helpers import assert_close, f32

SHAPE = (2, 9, 20)


def layer_norm_ref(x, axes, eps, gamma=None, beta=None):
    """(x − mean) / sqrt(var + ε) · γ + β in float64 over ``axes``."""
    x = x.astype(np.float64)
    mean = x.mean(axis=axes, keepdims=True)
    y = (x - mean) / np.sqrt(((x - mean) ** 2).mean(axis=axes, keepdims=True) + eps)
    if gamma is not None:
        y = y * gamma
    if beta is not None:
        y = y + beta
    return y


def decomposed(topo, x, axes, eps=1e-5, square="act", divide="div", gamma=None, beta=None, swap=False,
               extra_user=False):
    """Add ReduceMean → Sub → square → ReduceMean → [+ε] → Sqrt → divide → [·γ] → [+β] after ``x``; returns the
    last id."""
    topo.add(cl.Reduce("m", x, mode="mean", axes=axes), cl.Eltwise("d", ["x", "m"], mode="sub"))
    topo.add(cl.Activation("s", "d", "square") if square == "act" else cl.Eltwise("s", ["d", "d"], mode="prod"))
    topo.add(cl.Reduce("v", "s", mode="mean", axes=axes))
    var = "v"
    if eps:
        topo.add(cl.Data("eps", f32(np.array([eps]))), cl.Eltwise("e", ["eps", "v"] if swap else ["v", "eps"]))
        var = "e"
    topo.add(cl.Activation("r", var, "sqrt"))
    if divide == "div":
        topo.add(cl.Eltwise("y", ["d", "r"], mode="div"))
    else:
        topo.add(cl.Activation("rr", "r", "reciprocal"), cl.Eltwise("y", ["rr", "d"] if swap else ["d", "rr"],
                                                                   mode="prod"))
    last = "y"
    if gamma is not None:
        topo.add(cl.Data("g", gamma), cl.Eltwise("yg", ["g", last] if swap else [last, "g"], mode="prod"))
        last = "yg"
    if beta is not None:
        topo.add(cl.Data("b", beta), cl.Eltwise("yb", [last, "b"]))
        last = "yb"
    if extra_user:
        topo.add(cl.Activation("dd", "d", "relu"), cl.Eltwise("out", [last, "dd"]))
        last = "out"
    return last


FORMS = [
    # axes, eps, square, divide, γ, β, operand order swapped
    ((-1,), 1e-5, "act", "div", True, True, False),       # torch's opset-13 export
    ((-1,), 1e-6, "prod", "rec", True, True, True),       # d·d and d·(1/r), γ and ε first
    ((1, 2), 1e-3, "act", "div", False, False, False),    # two trailing axes, no affine
    ((2,), 0.0, "act", "rec", True, False, False),        # no ε, γ only
    ((-1,), 1e-5, "act", "div", False, True, True),       # β only
]


@pytest.mark.parametrize("form", FORMS, ids=lambda f: f"axes{f[0]}-{f[2]}-{f[3]}-g{int(f[4])}b{int(f[5])}")
def test_decomposed_layer_norm_folds(engine, rng, form):
    axes, eps, square, divide, has_g, has_b, swap = form
    x = f32(rng.standard_normal(SHAPE) * 2 + 0.7)
    nshape = SHAPE[-len(axes):] if axes != (2,) else SHAPE[-1:]
    gamma = f32(rng.standard_normal(nshape)) if has_g else None
    beta = f32(rng.standard_normal(nshape)) if has_b else None
    topo = cl.Topology(cl.InputLayout("x", cl.Layout(cl.DataType.f32, cl.Format.bfyx, SHAPE)))
    last = decomposed(topo, "x", axes, eps, square, divide, gamma, beta, swap)
    net = cl.Network(cl.Program(engine, topo))
    node = net.program.node(last)
    assert node.kind == "mvn"
    assert [d.id for d in node.dependencies] == ["x"] + (["g"] if has_g else []) + (["b"] if has_b else [])
    assert not any(n.kind in ("reduce", "eltwise", "activation") for n in net.program.order)
    net.poison()
    out = net.run({"x": x})[last]
    assert_close(out, layer_norm_ref(x, tuple(a % 3 for a in axes), eps, gamma, beta), rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("case", ["leading axis", "d has another user", "mean is an output", "variance of x"])
def test_look_alikes_stay(engine, rng, case):
    """The mean over a non-trailing axis, a difference read elsewhere, an intermediate asked for as an output, and
    a 'variance' of x rather than of x − mean: nothing folds, and the result is still right."""
    x = f32(rng.standard_normal(SHAPE))
    topo = cl.Topology(cl.InputLayout("x", cl.Layout(cl.DataType.f32, cl.Format.bfyx, SHAPE)))
    axes = (1,) if case == "leading axis" else (-1,)
    last = decomposed(topo, "x", axes, extra_user=case == "d has another user")
    outputs = [last, "m"] if case == "mean is an output" else [last]
    if case == "variance of x":
        topo = cl.Topology(cl.InputLayout("x", cl.Layout(cl.DataType.f32, cl.Format.bfyx, SHAPE)),
                           cl.Reduce("m", "x", mode="mean", axes=(-1,)), cl.Eltwise("d", ["x", "m"], mode="sub"),
                           cl.Activation("s", "x", "square"), cl.Reduce("v", "s", mode="mean", axes=(-1,)),
                           cl.Activation("r", "v", "sqrt"), cl.Eltwise("y", ["d", "r"], mode="div"))
        last, outputs = "y", ["y"]
    net = cl.Network(cl.Program(engine, topo, cl.BuildOptions(outputs=outputs)))
    assert all(n.kind != "mvn" for n in net.program.order)
    net.poison()
    out = net.run({"x": x})[last]
    x64 = x.astype(np.float64)
    if case == "variance of x":
        expect = (x64 - x64.mean(-1, keepdims=True)) / np.sqrt((x64 ** 2).mean(-1, keepdims=True))
    else:
        expect = layer_norm_ref(x, (1,) if case == "leading axis" else (2,), 1e-5)
        if case == "d has another user":
            expect = expect + np.maximum(x64 - x64.mean(-1, keepdims=True), 0)
    assert_close(out, expect, rtol=1e-4, atol=1e-4)
