"""densify_grouped_convolutions: grouped convolutions whose groups no fast kernel takes (channels per group not a
multiple of 16, groups 2-8) run as block-diagonal dense convolutions on the blocked kernel, and give the float64
reference's result; depthwise, many-group and user-forced convolutions stay grouped; on an engine with a fast
grouped kernel nothing changes."""

from __future__ import annotations

import numpy as np
import pytest

import cldnn_py as cl
from cldnn_py.passes.densify_grouped_convolutions import MAX_GROUPS, dense_weights
from tests.helpers import assert_close, f32
from tests.references import conv_ref


def run_conv(engine, x, w, b, groups, stride=1, pad=0, relu=False, force=None):
    """x -> conv [-> relu]; returns (output, conv node)."""
    topo = cl.Topology(cl.InputLayout("x", cl.Layout(cl.DataType.f32, cl.Format.bfyx, x.shape)),
                       cl.Data("w", w), cl.Data("b", b),
                       cl.Convolution("c", "x", weights="w", bias="b", stride=(stride, stride), pad=(pad, pad),
                                      groups=groups))
    out = "c"
    if relu:
        topo.add(cl.Activation("r", "c", "relu"))
        out = "r"
    net = cl.Network(cl.Program(engine, topo, cl.BuildOptions(force_implementations=force or {})))
    net.poison()
    return net.run({"x": x})[out], net.program.node("c")


CASES = [
    # (N, C, H, W), OC, groups, kernel, stride, pad: ShuffleNet-like grouped 1x1 and a strided grouped 3x3
    ((1, 136, 9, 11), 136, 4, 1, 1, 0),
    ((2, 24, 13, 7), 48, 3, 3, 2, 1),
    ((1, 20, 8, 8), 30, 5, 3, 1, 1),
]


@pytest.mark.parametrize("case", CASES, ids=lambda c: f"c{c[0][1]}-oc{c[1]}-g{c[2]}-k{c[3]}")
def test_grouped_conv_densified_matches_reference(ocl_engine, rng, case):
    """On OpenCL the node runs dense (groups 1) on a non-reference kernel, with the relu fused, and matches the
    grouped float64 reference."""
    shape, oc, groups, k, stride, pad = case
    x = f32(rng.standard_normal(shape))
    w = f32(rng.standard_normal((oc, shape[1] // groups, k, k)) / np.sqrt(k * k * shape[1] / groups))
    b = f32(rng.standard_normal(oc))
    out, node = run_conv(ocl_engine, x, w, b, groups, stride, pad, relu=True)
    assert node.primitive.groups == 1
    assert not node.impl.kernel_name.endswith("_ref"), node.impl.kernel_name
    expect = np.maximum(conv_ref(x, w, b, (stride, stride), (1, 1), (pad, pad), (pad, pad), groups), 0.0)
    assert_close(out, expect, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("groups, why", [(16, "more than MAX_GROUPS"), (12, "depthwise")])
def test_what_stays_grouped(ocl_engine, rng, groups, why):
    """Too many groups (the dense form would cost 16x) or depthwise: the node keeps its groups, still correct."""
    c = 32 if why != "depthwise" else groups
    x = f32(rng.standard_normal((1, c, 6, 5)))
    w = f32(rng.standard_normal((c, c // groups, 3, 3)))
    b = f32(rng.standard_normal(c))
    assert groups > MAX_GROUPS or why == "depthwise"
    out, node = run_conv(ocl_engine, x, w, b, groups, pad=1)
    assert node.primitive.groups == groups
    assert_close(out, conv_ref(x, w, b, (1, 1), (1, 1), (1, 1), (1, 1), groups), rtol=1e-4, atol=1e-4)


def test_forced_kernel_keeps_groups(ocl_engine, rng):
    """A user-forced kernel is the user's choice: no rewrite."""
    x = f32(rng.standard_normal((1, 12, 5, 5)))
    w = f32(rng.standard_normal((12, 4, 1, 1)))
    b = f32(rng.standard_normal(12))
    out, node = run_conv(ocl_engine, x, w, b, 3, force={"c": "convolution_ref"})
    assert node.primitive.groups == 3 and node.impl.kernel_name == "convolution_ref"
    assert_close(out, conv_ref(x, w, b, (1, 1), (1, 1), (0, 0), (0, 0), 3), rtol=1e-4, atol=1e-4)


def test_grouped_conv_on_both_engines(engine, rng):
    """Whatever each engine decides, the result is the grouped reference's."""
    x = f32(rng.standard_normal((1, 34, 7, 6)))
    w = f32(rng.standard_normal((34, 17, 3, 3)) / 12)
    b = f32(rng.standard_normal(34))
    out, _ = run_conv(engine, x, w, b, 2, pad=1)
    assert_close(out, conv_ref(x, w, b, (1, 1), (1, 1), (1, 1), (1, 1), 2), rtol=1e-4, atol=1e-4)


def test_dense_weights_is_block_diagonal(rng):
    """dense_weights against its definition, element by element: W_dense[o, i] = W[o, i - g*ICg] inside o's group
    g, 0 outside."""
    w = rng.standard_normal((6, 2, 3, 1))
    d = dense_weights(w, 3)
    assert d.shape == (6, 6, 3, 1)
    for o in range(6):
        for i in range(6):
            g = o // 2
            want = w[o, i - 2 * g] if i // 2 == g else np.zeros((3, 1))
            np.testing.assert_array_equal(d[o, i], want)
