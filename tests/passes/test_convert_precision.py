"""convert_precision: which nodes run in f16 under ``BuildOptions(inference_precision="f16")``, where converting
reorders go, constants stored as half, what stays f32; and the network's results against float64 references."""

from __future__ import annotations

import numpy as np
import pytest

import cldnn_py as cl
from kernel_selector import SupportedKey
from kernel_selector.kernels.activation.activation_kernel_ref import ActivationKernelRef
from tests.ocl.half import HALF_RTOL, assert_half_close

F16, F32 = cl.DataType.f16, cl.DataType.f32
SHAPE = (1, 8, 5, 7)
REF = {"a": "activation_ref", "b": "activation_ref", "e": "eltwise_ref", "o": "activation_ref"}


def chain(c: np.ndarray | None = None) -> cl.Topology:
    """in -> a (relu) -> b (tanh) -> e = b + in (or + Data c) -> o (abs, the output)."""
    t = cl.Topology(cl.InputLayout("in", cl.Layout(F32, cl.Format.bfyx, SHAPE)),
                    cl.Activation("a", "in", func="relu"), cl.Activation("b", "a", func="tanh"))
    if c is None:
        t.add(cl.Eltwise("e", ["b", "in"], mode="sum"))
    else:
        t.add(cl.Data("c", c), cl.Eltwise("e", ["b", "c"], mode="sum"))
    t.add(cl.Activation("o", "e", func="abs"))
    return t


def build(engine, topo, precision="f16", **kw) -> cl.Program:
    opts = cl.BuildOptions(inference_precision=precision, optimize_data=False,
                           force_implementations=dict(REF) if engine.kind == "ocl" else {}, **kw)
    return cl.Program(engine, topo, opts)


def dtypes(prog: cl.Program) -> dict[str, cl.DataType]:
    return {n.id: n.layout().dtype for n in prog.order}


def run(prog: cl.Program, x: np.ndarray) -> np.ndarray:
    net = cl.Network(prog)
    net.poison()
    return net.run({"in": x})["o"]


def test_f32_by_default_changes_nothing(ocl_engine):
    d = dtypes(build(ocl_engine, chain(), precision="f32"))
    assert set(d) == {"in", "a", "b", "e", "o"} and set(d.values()) == {F32}


def test_f16_chain_converts_at_the_edges(ocl_engine, rng):
    prog = build(ocl_engine, chain())
    d = dtypes(prog)
    assert d["in"] == F32 and d["o"] == F32  # the input as fed, the output as read (a network output stays f32)
    assert d["a"] == d["b"] == d["e"] == F16
    assert d["in__to_f16"] == F16 and d["e__to_f32"] == F32  # one converting reorder per edge kind, shared
    assert prog.node("e").dependencies[1].id == "in__to_f16" and prog.node("a").dependencies[0].id == "in__to_f16"
    x = rng.standard_normal(SHAPE).astype(np.float32)
    out = run(prog, x)
    assert out.dtype == np.float32
    xh = x.astype(np.float16).astype(np.float64)
    assert_half_close(out, np.abs(np.tanh(np.maximum(xh, 0)) + xh), rtol=2 * HALF_RTOL)


def test_keep_f32_names_a_layer(ocl_engine, rng):
    prog = build(ocl_engine, chain(), keep_f32=["b"])
    d = dtypes(prog)
    assert d["a"] == F16 and d["b"] == F32 and d["e"] == F16
    assert d["a__to_f32"] == F32 and d["b__to_f16"] == F16
    x = rng.standard_normal(SHAPE).astype(np.float32)
    xh = x.astype(np.float16).astype(np.float64)
    assert_half_close(run(prog, x), np.abs(np.tanh(np.maximum(xh, 0)) + xh), rtol=2 * HALF_RTOL)


def test_unknown_keep_id_and_bad_precision_are_refused(ocl_engine):
    with pytest.raises(cl.TopologyError, match="'nope'"):
        build(ocl_engine, chain(), keep_f32=["nope"])
    with pytest.raises(ValueError, match="inference_precision must be one of f32, f16.*'bf16'"):
        cl.BuildOptions(inference_precision="bf16")
    with pytest.raises(ValueError, match="keep_f32"):
        cl.BuildOptions(keep_f32="b")


def test_constants_are_stored_as_half(ocl_engine, rng):
    c = rng.standard_normal(SHAPE).astype(np.float32)
    prog = build(ocl_engine, chain(c))
    assert prog.node("c").layout().dtype == F16  # only f16 readers: the Data itself is converted
    x = rng.standard_normal(SHAPE).astype(np.float32)
    xh = x.astype(np.float16).astype(np.float64)
    ch = c.astype(np.float16).astype(np.float64)
    assert_half_close(run(prog, x), np.abs(np.tanh(np.maximum(xh, 0)) + ch), rtol=2 * HALF_RTOL)


def test_constant_read_by_f16_and_f32_layers_gets_a_converted_copy(ocl_engine, rng):
    c = rng.standard_normal(SHAPE).astype(np.float32)
    t = chain(c)
    t.add(cl.Eltwise("e2", ["o", "c"], mode="prod"))  # e2 is the output now (f32), o runs in f16
    prog = cl.Program(ocl_engine, t, cl.BuildOptions(inference_precision="f16",
                                                     force_implementations={**REF, "e2": "eltwise_ref"}))
    d = dtypes(prog)
    assert d["c"] == F32 and d["e2"] == F32 and d["o"] == F16
    assert d["c__to_f16"] == F16 and prog.node("c__to_f16").kind == "data"  # folded by propagate_constants
    x = rng.standard_normal(SHAPE).astype(np.float32)
    net = cl.Network(prog)
    net.poison()
    out = net.run({"in": x})["e2"]
    xh = x.astype(np.float16).astype(np.float64)
    ch = c.astype(np.float16).astype(np.float64)
    assert_half_close(out, np.abs(np.tanh(np.maximum(xh, 0)) + ch) * c, rtol=3 * HALF_RTOL)


def test_softmax_stays_f32(ocl_engine):
    t = chain()
    t.add(cl.Softmax("s", "o"), cl.Activation("s2", "s", func="relu"))
    prog = build(ocl_engine, t)
    d = dtypes(prog)
    assert d["o"] == F16 and d["s"] == F32 and d["s2"] == F32
    assert d["o__to_f32"] == F32


def test_a_layer_whose_kernel_lacks_f16_stays_f32(ocl_engine, monkeypatch):
    monkeypatch.setattr(ActivationKernelRef, "supported_key", lambda self: SupportedKey())  # f32 only
    d = dtypes(build(ocl_engine, chain()))
    assert d["a"] == d["b"] == F32 and d["e"] == F16
    assert d["b__to_f16"] == F16 and not any(k.startswith("a__to") for k in d)  # only b -> e is converted


def test_cpu_engine_keeps_f32(engine, rng):
    """The CPU engine's convolution, pooling and eltwise kernels are float32 only (only its fully connected kernel
    takes half: tests/cpu/test_fc_cpu_half.py): on this chain the pass changes nothing (same results bit for
    bit)."""
    if engine.kind != "cpu":
        pytest.skip("the CPU engine's case")
    x = rng.standard_normal(SHAPE).astype(np.float32)
    p16, p32 = build(engine, chain()), build(engine, chain(), precision="f32")
    assert set(dtypes(p16).values()) == {F32}
    np.testing.assert_array_equal(run(p16, x), run(p32, x))
