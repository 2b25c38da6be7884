"""fuse_shuffle_channels: on the CPU engine a channel shuffle after a grouped convolution (its groups, activations
only in between) folds into the convolution, whose packed GEMM stores each output row at its shuffled place; vs a
float64 convolution and explicit channel indexing, on NaN-poisoned buffers. Grouped 1×1 (in place) and 3×3 (im2col)
convolutions with 34 channels per group (tiles that straddle two groups), batch 2, a depthwise layer reading the
result; the cases that stay unfused (other groups, a fused eltwise) give the same results. The OpenCL engine's rule:
tests/passes/test_fuse_shuffle_into_stores.py."""

from __future__ import annotations

import importlib

import numpy as np
import pytest

import cldnn_py as cl
from tests.helpers import assert_close, f32
from tests.passes.test_fold_channel_shuffle import shuffle_ref
from tests.references import conv_ref

rule = importlib.import_module("cldnn_py.passes.fusing.fuse_shuffle_channels")  # the module, not the function


@pytest.fixture(scope="module")
def cpu_engine():
    """The CPU engine, whose packed GEMM takes the fused shuffle."""
    return cl.Engine("cpu")


def _net(engine, x, w, b, groups, shuffle_g, k, residual=None, act="relu"):
    """conv (groups, k×k, pad k // 2) + bias -> ``act`` (relu: the GEMM's register epilogue; logistic: the chain
    run on each stored row) [-> + residual] -> shuffle(shuffle_g) -> depthwise 3×3."""
    oc = w.shape[0]
    wd = f32(np.linspace(-1, 1, oc * 9).reshape(oc, 1, 3, 3))
    topo = cl.Topology(cl.InputLayout("x", cl.Layout(cl.DataType.f32, cl.Format.bfyx, x.shape)), cl.Data("w", w),
                       cl.Data("b", b), cl.Data("wd", wd),
                       cl.Convolution("c", "x", weights="w", bias="b", groups=groups, pad=(k // 2, k // 2)),
                       cl.Activation("r", "c", act))
    src = "r"
    if residual is not None:
        topo.add(cl.InputLayout("res", cl.Layout(cl.DataType.f32, cl.Format.bfyx, residual.shape)),
                 cl.Eltwise("s", ["r", "res"], mode="sum"))
        src = "s"
    topo.add(cl.ShuffleChannels("sh", src, group=shuffle_g),
             cl.Convolution("dw", "sh", weights="wd", pad=(1, 1), groups=oc))
    net = cl.Network(cl.Program(engine, topo))
    net.poison()
    feeds = {"x": x} if residual is None else {"x": x, "res": residual}
    got = net.run(feeds)["dw"]
    y = conv_ref(x, w, b, (1, 1), (1, 1), (k // 2, k // 2), (k // 2, k // 2), groups)
    y = np.maximum(y, 0) if act == "relu" else 1 / (1 + np.exp(-y))
    if residual is not None:
        y = y + residual
    want = conv_ref(shuffle_ref(y, shuffle_g), wd, None, (1, 1), (1, 1), (1, 1), (1, 1), oc)
    return net, got, want


def _fused(net) -> bool:
    return any(op.kind == "shuffle_channels" for n in net.program.nodes.values() for op in n.fused_ops)


@pytest.mark.parametrize("act", ["relu", "logistic"])
@pytest.mark.parametrize("k", [1, 3])
@pytest.mark.parametrize("groups,ocg", [(4, 34), (3, 8), (2, 5)])
def test_shuffle_fused_into_grouped_convolution(cpu_engine, rng, k, groups, ocg, act):
    icg = 6
    x = f32(rng.standard_normal((2, groups * icg, 7, 9)))
    w = f32(rng.standard_normal((groups * ocg, icg, k, k)))
    b = f32(rng.standard_normal(groups * ocg))
    net, got, want = _net(cpu_engine, x, w, b, groups, groups, k, act=act)
    assert _fused(net) and all(n.kind != "shuffle_channels" for n in net.program.nodes.values())
    assert net.program.nodes["c"].impl.kernel_name == "convolution_cpu_packed"
    assert_close(got, want, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("case", ["other groups", "fused eltwise", "switched off"])
def test_shuffle_kept_where_the_rule_does_not_apply(cpu_engine, rng, monkeypatch, case):
    x = f32(rng.standard_normal((1, 24, 6, 6)))
    w = f32(rng.standard_normal((24, 6, 1, 1)))
    b = f32(rng.standard_normal(24))
    res = f32(rng.standard_normal((1, 24, 6, 6))) if case == "fused eltwise" else None
    if case == "switched off":
        monkeypatch.setattr(rule, "ENABLED", False)
    net, got, want = _net(cpu_engine, x, w, b, 4, 2 if case == "other groups" else 4, 1, residual=res)
    assert not _fused(net)
    assert_close(got, want, rtol=1e-4, atol=1e-4)


def test_packed_kernel_refuses_what_it_cannot_shuffle():
    """validate: shuffle groups other than the convolution's, an eltwise before it, a padded or blocked output."""
    from cldnn_py.layout import DataType, Format, Layout, Padding
    from cldnn_py.ops import ConvolutionAttrs, FusedActivationAttrs, FusedEltwiseAttrs, ShuffleChannelsAttrs
    from kernel_selector import FusedOp
    from kernel_selector.kernels.convolution.convolution_kernel_cpu_packed import ConvolutionKernelCpuPacked
    from kernel_selector.params import Params

    lin = Layout(DataType.f32, Format.bfyx, (1, 8, 4, 4))
    lw = Layout(DataType.f32, Format.os_iyx_osv16, (8, 2, 1, 1))
    relu = FusedOp("activation", FusedActivationAttrs("relu"))

    def reason(groups, shuffle_g, out=None, before=(relu,)):
        ops = [*before, FusedOp("shuffle_channels", ShuffleChannelsAttrs(group=shuffle_g))]
        p = Params("convolution", "cpu", [lin, lw], out or lin, ConvolutionAttrs(groups=groups), fused_ops=ops,
                   layer_id="c")
        return ConvolutionKernelCpuPacked().validate(p)

    assert reason(4, 4) is None
    assert "shuffle" in reason(4, 2)
    elt = FusedOp("eltwise", FusedEltwiseAttrs("sum"), extra_inputs=[lin])
    assert "activations only" in reason(4, 4, before=(elt,))
    assert "unpadded bfyx" in reason(4, 4, out=lin.with_(padding=Padding((0, 0, 1, 1), (0, 0, 1, 1))))
    assert "unpadded bfyx" in reason(4, 4, out=lin.with_(format=Format.b_fs_yx_fsv16))
