"""batch_norm_b_fs_yx_fsv16 (the CPU-tier blocked batch norm) vs the float64 reference: channel counts with and
without a block tail, rows narrower and wider than its pixel block, optional scale/shift, a fused relu and a fused
residual sum; the node is checked to run this kernel and its output is poisoned first."""

from __future__ import annotations

import numpy as np
import pytest

import cldnn_py as cl
from tests.helpers import assert_close, f32
from tests.references import batch_norm_ref

KERNEL = "batch_norm_b_fs_yx_fsv16"
FSV16 = cl.Format.b_fs_yx_fsv16


def _net(engine, x, stats, eps, relu=False, residual=None):
    """x (fsv16) -> bn [-> + residual] [-> relu] -> bfyx; bn's kernel left to the selector (tier cpu)."""
    lay = cl.Layout(cl.DataType.f32, cl.Format.bfyx, x.shape)
    topo = cl.Topology(cl.InputLayout("x", lay), cl.Reorder("xb", "x", format=FSV16))
    for k, v in stats.items():
        topo.add(cl.Data(k, v))
    topo.add(cl.BatchNorm("bn", "xb", mean="mean", variance="var", scale="scale" if "scale" in stats else None,
                          shift="shift" if "shift" in stats else None, epsilon=eps))
    last = "bn"
    feeds = {"x": x}
    if residual is not None:
        topo.add(cl.InputLayout("r", lay), cl.Reorder("rb", "r", format=FSV16),
                 cl.Eltwise("sum", ["bn", "rb"], mode="sum"))
        feeds["r"] = residual
        last = "sum"
    if relu:
        topo.add(cl.Activation("act", last, "relu"))
        last = "act"
    topo.add(cl.Reorder("out", last, format=cl.Format.bfyx))
    net = cl.Network(cl.Program(engine, topo, cl.BuildOptions(kernel_tier="cpu")))
    net.poison()
    return net.run(feeds)["out"], net.program.node("bn")


@pytest.mark.ocl_every(2)
@pytest.mark.parametrize("shape", [(1, 16, 3, 9), (2, 37, 4, 3), (1, 5, 2, 1), (1, 48, 1, 5)])
@pytest.mark.parametrize("scale_shift", [(True, True), (False, False), (True, False)])
def test_bn_fsv16_matches_reference(ocl_engine, rng, shape, scale_shift):
    c = shape[1]
    x = f32(rng.standard_normal(shape) * 2 + 0.5)
    stats = {"mean": f32(rng.standard_normal(c)), "var": f32(rng.uniform(0.05, 3.0, c))}
    if scale_shift[0]:
        stats["scale"] = f32(rng.standard_normal(c))
    if scale_shift[1]:
        stats["shift"] = f32(rng.standard_normal(c))
    out, node = _net(ocl_engine, x, stats, 1e-3)
    assert node.impl.kernel_name == KERNEL
    ref = batch_norm_ref(x, stats["mean"], stats["var"], stats.get("scale"), stats.get("shift"), 1e-3)
    assert_close(out, ref, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("residual", [False, True])
def test_bn_fsv16_fused_ops(ocl_engine, rng, residual):
    """DenseNet's BN -> ReLU fused into the kernel's epilogue; with a residual sum after the BN (which fuses into
    convolutions only) the relu goes to the sum and the BN runs alone."""
    shape = (1, 21, 5, 6)
    c = shape[1]
    x = f32(rng.standard_normal(shape))
    r = f32(rng.standard_normal(shape)) if residual else None
    stats = {"mean": f32(rng.standard_normal(c)), "var": f32(rng.uniform(0.1, 2.0, c)),
             "scale": f32(rng.standard_normal(c)), "shift": f32(rng.standard_normal(c))}
    out, node = _net(ocl_engine, x, stats, 1e-5, relu=True, residual=r)
    assert node.impl.kernel_name == KERNEL
    assert [op.kind for op in node.fused_ops] == ([] if residual else ["activation"])
    ref = batch_norm_ref(x, stats["mean"], stats["var"], stats["scale"], stats["shift"], 1e-5)
    if residual:
        ref = ref + r
    assert_close(out, np.maximum(ref, 0.0), rtol=1e-4, atol=1e-5)
