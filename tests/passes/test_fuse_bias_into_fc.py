"""fuse_bias_into_fc and an activation fused through a reshape: a transformer's linear layer as the importer writes
it (Reshape → FullyConnected → Reshape → Add b → GELU) runs as one fully connected kernel with the bias and the GELU
in its epilogue; float64 reference on poisoned outputs. Look-alikes (a bias that varies along another axis, a
reshape that moves the output channel, a reshape read elsewhere) keep their nodes and their results."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import special

import cldnn_py as cl
from tests.helpers import assert_close, f32

T, K, M = 11, 24, 40


def _linear(rng, bias_shape=(M,), act="gelu", fc_bias=False, reshape=(1, T, M), extra_user=False):
    """x (1, T, K) → Reshape (T, K) → FullyConnected (T, M) → Reshape ``reshape`` → Add b → act; returns (topology,
    feeds, float64 expectation, last id)."""
    x = f32(rng.standard_normal((1, T, K)))
    w, b = f32(rng.standard_normal((M, K)) * 0.3), f32(rng.standard_normal(bias_shape))
    t = cl.Topology(cl.InputLayout("x", cl.Layout(cl.DataType.f32, cl.Format.bfyx, x.shape)), cl.Data("w", w),
                    cl.Data("b", b), cl.Reshape("rows", "x", shape=(T, K)))
    fb = f32(rng.standard_normal(M)) if fc_bias else None
    if fc_bias:
        t.add(cl.Data("fb", fb))
    t.add(cl.FullyConnected("fc", "rows", weights="w", bias="fb" if fc_bias else None),
          cl.Reshape("r", "fc", shape=reshape), cl.Eltwise("add", ["r", "b"]))
    y = x.reshape(T, K).astype(np.float64) @ w.T.astype(np.float64) + (fb if fc_bias else 0.0)
    y = y.reshape(reshape) + b
    last = "add"
    if act:
        t.add(cl.Activation("act", "add", act))
        y = 0.5 * y * special.erfc(-y / math.sqrt(2.0))
        last = "act"
    if extra_user:
        t.add(cl.Activation("side", "r", "relu"), cl.Eltwise("out", [last, "side"]))
        y = y + np.maximum(x.reshape(T, K).astype(np.float64) @ w.T.astype(np.float64), 0).reshape(reshape)
        last = "out"
    return t, {"x": x}, y, last


@pytest.mark.parametrize("case", ["bias", "bias (1, 1, M) + fc bias", "no activation"])
def test_linear_layer_is_one_kernel(engine, rng, case):
    t, feeds, expect, last = _linear(rng, bias_shape=(1, 1, M) if "(1, 1, M)" in case else (M,),
                                     fc_bias="fc bias" in case, act=None if case == "no activation" else "gelu")
    net = cl.Network(cl.Program(engine, t))
    net.poison()
    out = net.run(feeds)[last]
    assert_close(out, expect, rtol=1e-4, atol=1e-4)
    executed = [p.id for p in net.get_profiling_info() if p.status == "EXECUTED"]
    assert executed == ["fc"], executed
    fc = net.program.node("fc")
    assert [op.kind for op in fc.fused_ops] == ([] if case == "no activation" else ["activation"])
    assert len(fc.dependencies) == 3  # the folded bias


@pytest.mark.parametrize("case", ["bias along T", "channel moved", "reshape read elsewhere"])
def test_look_alikes_keep_their_sum(engine, rng, case):
    kw = {"bias along T": {"bias_shape": (T, 1)}, "channel moved": {"reshape": (1, M, T)},
          "reshape read elsewhere": {"extra_user": True, "act": None}}[case]
    if case == "channel moved":
        kw["bias_shape"] = (T,)
    t, feeds, expect, last = _linear(rng, **kw)
    net = cl.Network(cl.Program(engine, t))
    net.poison()
    assert_close(net.run(feeds)[last], expect, rtol=1e-4, atol=1e-4)
    assert net.program.node(net.program.resolve("add")).kind == "eltwise"
