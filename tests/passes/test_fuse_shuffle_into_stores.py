"""fuse_shuffle_into_stores: on the OpenCL engine a channel shuffle after a convolution (activations only in between)
becomes the convolution's last fused op, and ``convolution_b_fs_yx_fsv16`` stores each channel at its shuffled
place; vs a float64 convolution and explicit channel indexing (tests/passes/test_fuse_shuffle_channels.py's network:
conv → activation → shuffle → depthwise 3×3, whose padding pads the fused output), on NaN-poisoned buffers.
Grouped layers densified with channel counts that are not multiples of 16 (ShuffleNet's 112 = 4 × 28), a dense
layer shuffled in other groups, batch 2, f16 storage; the cases that stay unfused give the same results."""

from __future__ import annotations

import importlib

import numpy as np
import pytest

import cldnn_py as cl
from tests.helpers import assert_close, f32
from tests.passes.test_fold_channel_shuffle import shuffle_ref
from tests.passes.test_fuse_shuffle_channels import _fused, _net
from tests.references import conv_ref

rule = importlib.import_module("cldnn_py.passes.fuse_shuffle_into_stores")


def _gone(net) -> bool:
    return all(n.kind != "shuffle_channels" for n in net.program.nodes.values())


@pytest.mark.parametrize("permute_max_c", [0, 32], ids=["stores", "permuted"])
@pytest.mark.parametrize("groups,shuffle_g,icg,ocg,k", [(4, 4, 6, 28, 1), (3, 3, 20, 20, 1), (1, 2, 24, 40, 1),
                                                        (1, 4, 16, 12, 3)])
def test_shuffle_fused_into_blocked_convolution(ocl_engine, rng, monkeypatch, permute_max_c, groups, shuffle_g, icg,
                                                ocg, k):
    """Both forms: the shuffle as the convolution's last fused op (scattered stores), or, for a layer with at most
    PERMUTE_MAX_C input channels, its output channels permuted at build time (no fused op, block_diagonal 1)."""
    monkeypatch.setattr(rule, "PERMUTE_MAX_C", permute_max_c)
    x = f32(rng.standard_normal((2, groups * icg, 7, 9)))
    w = f32(rng.standard_normal((groups * ocg, icg, k, k)))
    b = f32(rng.standard_normal(groups * ocg))
    net, got, want = _net(ocl_engine, x, w, b, groups, shuffle_g, k)
    permuted = groups * icg <= permute_max_c
    assert _gone(net) and _fused(net) != permuted
    conv = net.program.nodes["c"]
    assert conv.impl.kernel_name == "convolution_b_fs_yx_fsv16"
    assert not permuted or conv.primitive.block_diagonal == 1
    assert_close(got, want, rtol=1e-4, atol=1e-4)


def test_shuffle_fused_with_f16_storage(ocl_engine, rng, monkeypatch):
    """BuildOptions(inference_precision="f16"): the scattered stores write halves."""
    monkeypatch.setattr(rule, "PERMUTE_MAX_C", 0)
    x = f32(rng.standard_normal((1, 24, 6, 10)))
    w = f32(rng.standard_normal((60, 8, 1, 1)))
    b = f32(rng.standard_normal(60))
    wd = f32(np.linspace(-1, 1, 60 * 9).reshape(60, 1, 3, 3))
    topo = cl.Topology(cl.InputLayout("x", cl.Layout(cl.DataType.f32, cl.Format.bfyx, x.shape)), cl.Data("w", w),
                       cl.Data("b", b), cl.Data("wd", wd), cl.Convolution("c", "x", weights="w", bias="b", groups=3),
                       cl.Activation("r", "c", "relu"), cl.ShuffleChannels("sh", "r", group=3),
                       cl.Convolution("dw", "sh", weights="wd", pad=(1, 1), groups=60))
    half = cl.Network(cl.Program(ocl_engine, topo, cl.BuildOptions(inference_precision="f16")))
    half.poison()
    assert _fused(half)  # 24 input channels would be permuted: PERMUTE_MAX_C is 0 here
    y = np.maximum(conv_ref(x, w, b, (1, 1), (1, 1), (0, 0), (0, 0), 3), 0)
    want = conv_ref(shuffle_ref(y, 3), wd, None, (1, 1), (1, 1), (1, 1), (1, 1), 60)
    assert_close(half.run({"x": x})["dw"], want, rtol=2e-2, atol=2e-2)


@pytest.mark.parametrize("case", ["fused eltwise", "switched off", "second user"])
def test_shuffle_kept_where_the_rule_does_not_apply(ocl_engine, rng, monkeypatch, case):
    """Neither form applies (32 input channels: the permuted form would be eligible)."""
    x = f32(rng.standard_normal((1, 32, 6, 6)))
    w = f32(rng.standard_normal((32, 8, 1, 1)))
    b = f32(rng.standard_normal(32))
    res = f32(rng.standard_normal((1, 32, 6, 6))) if case == "fused eltwise" else None
    if case == "switched off":
        monkeypatch.setattr(rule, "ENABLED", False)
    if case == "second user":
        topo = cl.Topology(cl.InputLayout("x", cl.Layout(cl.DataType.f32, cl.Format.bfyx, x.shape)), cl.Data("w", w),
                           cl.Data("b", b), cl.Convolution("c", "x", weights="w", bias="b", groups=4),
                           cl.ShuffleChannels("sh", "c", group=4), cl.Eltwise("out", ["sh", "c"], mode="sum"))
        net = cl.Network(cl.Program(ocl_engine, topo))
        net.poison()
        y = conv_ref(x, w, b, (1, 1), (1, 1), (0, 0), (0, 0), 4)
        got, want = net.run({"x": x})["out"], shuffle_ref(y, 4) + y
    else:
        net, got, want = _net(ocl_engine, x, w, b, 4, 4, 1, residual=res)
    assert not _fused(net) and not _gone(net)
    assert_close(got, want, rtol=1e-4, atol=1e-4)


def test_shared_weights_are_not_permuted(ocl_engine, rng):
    """Two convolutions reading one weight tensor: the one whose output is shuffled keeps the weights as they are
    (the other reads them too) and stores shuffled instead; both results exact."""
    x = f32(rng.standard_normal((1, 16, 5, 6)))
    w, b = f32(rng.standard_normal((32, 16, 1, 1))), f32(rng.standard_normal(32))
    topo = cl.Topology(cl.InputLayout("x", cl.Layout(cl.DataType.f32, cl.Format.bfyx, x.shape)), cl.Data("w", w),
                       cl.Data("b", b), cl.Convolution("c", "x", weights="w", bias="b"),
                       cl.Convolution("c2", "x", weights="w", bias="b"), cl.ShuffleChannels("sh", "c", group=4),
                       cl.Eltwise("out", ["sh", "c2"], mode="sum"))
    net = cl.Network(cl.Program(ocl_engine, topo))
    net.poison()
    y = conv_ref(x, w, b, (1, 1), (1, 1), (0, 0), (0, 0), 1)
    assert _gone(net) and _fused(net)
    assert_close(net.run({"x": x})["out"], shuffle_ref(y, 4) + y, rtol=1e-4, atol=1e-4)


def test_blocked_kernel_refuses_what_it_cannot_shuffle():
    """validate: a plain output, channels the groups do not divide."""
    from cldnn_py.layout import DataType, Format, Layout
    from cldnn_py.ops import ConvolutionAttrs, FusedActivationAttrs, ShuffleChannelsAttrs
    from kernel_selector import FusedOp
    from kernel_selector.kernels.convolution.convolution_kernel_b_fs_yx_fsv16 import ConvolutionKernelBFsYxFsv16
    from kernel_selector.params import Params

    lin = Layout(DataType.f32, Format.b_fs_yx_fsv16, (1, 24, 4, 4))
    lw = Layout(DataType.f32, Format.os_iyx_osv16, (24, 24, 1, 1))
    relu = FusedOp("activation", FusedActivationAttrs("relu"))

    def reason(shuffle_g, out=lin, before=(relu,)):
        ops = [*before, FusedOp("shuffle_channels", ShuffleChannelsAttrs(group=shuffle_g))]
        p = Params("convolution", "ocl", [lin, lw], out, ConvolutionAttrs(), fused_ops=ops, layer_id="c")
        return ConvolutionKernelBFsYxFsv16().validate(p)

    assert reason(3) is None
    assert "divisible" in reason(5)
    assert "b_fs_yx_fsv16 output" in reason(3, out=lin.with_(format=Format.bfyx))


def test_only_kernels_that_store_shuffled_take_the_fused_shuffle():
    """The selector refuses a fused shuffle for a kernel whose epilogue has no form for it (the reference's scalar
    FUSED_OPS), naming the op, and the blocked kernel takes it."""
    from cldnn_py.layout import DataType, Format, Layout
    from cldnn_py.ops import ConvolutionAttrs, ShuffleChannelsAttrs
    from kernel_selector import FusedOp, selector
    from kernel_selector.params import Params

    ops = [FusedOp("shuffle_channels", ShuffleChannelsAttrs(group=2))]

    def verdicts(fmt, wfmt, fused_ops):
        x = Layout(DataType.f32, fmt, (1, 32, 4, 4))
        p = Params("convolution", "ocl", [x, Layout(DataType.f32, wfmt, (32, 32, 1, 1))], x, ConvolutionAttrs(),
                   fused_ops=fused_ops, layer_id="c")
        return {v.kernel: v.reason for v in selector.explain(p)}

    assert verdicts(Format.bfyx, Format.oiyx, [])["convolution_ref"] is None
    assert "fused shuffle_channels" in verdicts(Format.bfyx, Format.oiyx, ops)["convolution_ref"]
    assert verdicts(Format.b_fs_yx_fsv16, Format.os_iyx_osv16, ops)["convolution_b_fs_yx_fsv16"] is None
