"""The fuse_gated_activation rule of prepare_primitive_fusing: x · sigmoid(x) becomes swish and
x · hard_sigmoid(x; 1/6, 1/2) becomes hard_swish, then fuses into the convolution producing x; results match the
float64 reference on both engines; forms that are not these gates (another hard_sigmoid, a gate that is also an
output, a product with a third tensor) are left alone."""

from __future__ import annotations

import numpy as np
import pytest

import cldnn_py as cl
from tests.helpers import assert_close, f32
from tests.references import conv_ref


def _net(engine, rng, gate: str, gate_a: float = 0.0, gate_b: float = 0.0, outputs=None, other=False):
    """x -> conv -> act = gate(conv) -> y = conv * act (or act * another conv's output when ``other``)."""
    x = f32(rng.standard_normal((1, 5, 6, 7)))
    w = f32(rng.standard_normal((20, 5, 3, 3)) / 6)
    topo = cl.Topology(cl.InputLayout("x", cl.Layout(cl.DataType.f32, cl.Format.bfyx, x.shape)), cl.Data("w", w),
                       cl.Convolution("conv", "x", weights="w", pad=(1, 1)))
    if gate == "hard_sigmoid":
        topo.add(cl.Activation("act", "conv", gate, a=gate_a, b=gate_b))
    else:
        topo.add(cl.Activation("act", "conv", gate))
    left = "conv"
    if other:
        topo.add(cl.Convolution("conv2", "x", weights="w", pad=(1, 1)))
        left = "conv2"
    topo.add(cl.Eltwise("y", [left, "act"], mode="prod"))
    net = cl.Network(cl.Program(engine, topo, cl.BuildOptions(outputs=outputs)))
    net.poison()
    c = conv_ref(x, w, None, (1, 1), (1, 1), (1, 1), (1, 1), 1)
    return net, net.run({"x": x}), c


def test_silu_becomes_swish_fused_into_the_conv(engine, rng):
    net, out, c = _net(engine, rng, "logistic")
    assert net.program.resolve("y") == "conv"  # rewritten to one activation, then fused into the conv
    assert [op.kind for op in net.program.node("conv").fused_ops] == ["activation"]
    assert_close(out["y"], c / (1 + np.exp(-c)), rtol=1e-4, atol=1e-5)


def test_hard_swish_from_hard_sigmoid(engine, rng):
    net, out, c = _net(engine, rng, "hard_sigmoid", 1 / 6, 0.5)
    assert net.program.resolve("y") == "conv"
    assert_close(out["y"], c * np.clip(c / 6 + 0.5, 0, 1), rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("case", ["other hard_sigmoid", "gate is an output", "gate of another tensor"])
def test_forms_left_alone(engine, rng, case):
    """Still correct, still a product."""
    if case == "other hard_sigmoid":
        net, out, c = _net(engine, rng, "hard_sigmoid", 0.2, 0.5)
        want = c * np.clip(0.2 * c + 0.5, 0, 1)
    elif case == "gate is an output":
        net, out, c = _net(engine, rng, "logistic", outputs=["y", "act"])
        want = c / (1 + np.exp(-c))
        assert_close(out["act"], 1 / (1 + np.exp(-c)), rtol=1e-4, atol=1e-5)
    else:
        net, out, c = _net(engine, rng, "logistic", other=True)
        want = c / (1 + np.exp(-c))  # conv2 has conv's weights: the same values, another node
    y = net.program.node("y")  # a product: its own eltwise, or a fused eltwise of a convolution's epilogue
    assert y.kind == "eltwise" or [op.kind for op in y.fused_ops] == ["eltwise"], (y.kind, y.fused_ops)
    assert_close(out["y"], want, rtol=1e-4, atol=1e-5)
