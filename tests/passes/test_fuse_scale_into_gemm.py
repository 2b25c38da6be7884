"""fuse_scale_into_gemm: an attention block's scores scaled after q·kᵀ (Mul by 1/√d or Div by √d) become the
Gemm's alpha, on both engines, with numpy's result on poisoned outputs; a scalar divided by the product, a
non-scalar factor and a Gemm with C keep their eltwise."""

from __future__ import annotations

import numpy as np
import pytest

import cldnn_py as cl
from tests.helpers import assert_close, f32

A, B = (2, 3, 9, 8), (2, 3, 8, 11)


def _net(engine, mode, order, c, with_c=False):
    t = cl.Topology(cl.InputLayout("a", cl.Layout(cl.DataType.f32, cl.Format.bfyx, A)),
                    cl.InputLayout("b", cl.Layout(cl.DataType.f32, cl.Format.bfyx, B)),
                    cl.Data("c", f32(np.asarray(c).reshape(-1) if np.ndim(c) == 0 else np.asarray(c))))
    ins = ["a", "b"]
    if with_c:
        t.add(cl.Data("cc", f32(np.full((9, 11), 0.5))))
        ins.append("cc")
    t.add(cl.Gemm("g", ins), cl.Eltwise("s", ["g", "c"] if order == "gc" else ["c", "g"], mode=mode))
    return cl.Network(cl.Program(engine, t))


@pytest.mark.parametrize("mode, order", [("prod", "gc"), ("prod", "cg"), ("div", "gc")])
def test_scale_becomes_alpha(engine, rng, mode, order):
    a, b = f32(rng.standard_normal(A)), f32(rng.standard_normal(B))
    net = _net(engine, mode, order, 8.0)
    assert net.program.resolve("s") == "g"
    net.poison()
    prod = a.astype(np.float64) @ b.astype(np.float64)
    assert_close(net.run({"a": a, "b": b})["s"], prod * 8.0 if mode == "prod" else prod / 8.0, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("case", ["scalar over product", "row factor", "gemm with C"])
def test_look_alikes_keep_their_eltwise(engine, rng, case):
    a, b = f32(rng.standard_normal(A)), f32(rng.standard_normal(B)) + 3.0
    c = f32(rng.standard_normal(11)) if case == "row factor" else 2.0
    net = _net(engine, "div" if case == "scalar over product" else "prod", "cg", c, with_c=case == "gemm with C")
    assert net.program.resolve("s") == "s"
    prod = a.astype(np.float64) @ b.astype(np.float64) + (0.5 if case == "gemm with C" else 0.0)
    expect = 2.0 / prod if case == "scalar over product" else prod * np.asarray(c, np.float64)
    net.poison()
    assert_close(net.run({"a": a, "b": b})["s"], expect, rtol=1e-4, atol=1e-4)
