"""Residual networks on the CPU engine's blocked convolutions: ``convolution_cpu_oc_blocked`` takes a fused residual
sum of a b_fs_yx_fsv16 operand, so a bottleneck's last 1×1 stays blocked with the addition in its epilogue
(kernel_params.fast_blocked_for reads the operand blocked), and the layout optimizer keeps such a layer blocked only
while the region its operand belongs to is blocked too (passes/blocked_regions.reads_as_operand). Every network is
run on poisoned buffers against a float64 numpy reference."""

from __future__ import annotations

import numpy as np
import pytest

import cldnn_py as cl
from cldnn_py.layout import DataType, Format
from kernel_selector.kernels.convolution import convolution_kernel_cpu_oc_blocked as ocb
from tests.helpers import assert_close, f32
from tests.references import conv_ref, lrn_ref

FSV16 = Format.b_fs_yx_fsv16
KERNEL = "convolution_cpu_oc_blocked"


def _conv(topo, rng, ref, cid, src, cin, cout, k, stride=1):
    w = f32(rng.standard_normal((cout, cin, k, k)) / np.sqrt(cin * k * k))
    b = f32(rng.standard_normal(cout) * 0.1)
    p = k // 2
    topo.add(cl.Data(f"{cid}_w", w), cl.Data(f"{cid}_b", b),
             cl.Convolution(cid, src, weights=f"{cid}_w", bias=f"{cid}_b", stride=(stride, stride), pad=(p, p)))
    ref[cid] = conv_ref(ref[src], w, b, (stride, stride), (1, 1), (p, p), (p, p), 1)


def _bottleneck(topo, rng, ref, name, src, c, mid):
    """src → 1×1 (mid) → relu → 3×3 (mid) → relu → 1×1 (c) → + src → relu."""
    _conv(topo, rng, ref, f"{name}a", src, c, mid, 1)
    topo.add(cl.Activation(f"{name}ar", f"{name}a", "relu"))
    ref[f"{name}ar"] = np.maximum(ref[f"{name}a"], 0)
    _conv(topo, rng, ref, f"{name}b", f"{name}ar", mid, mid, 3)
    topo.add(cl.Activation(f"{name}br", f"{name}b", "relu"))
    ref[f"{name}br"] = np.maximum(ref[f"{name}b"], 0)
    _conv(topo, rng, ref, f"{name}c", f"{name}br", mid, c, 1)
    topo.add(cl.Eltwise(f"{name}s", [f"{name}c", src], "sum"), cl.Activation(f"{name}r", f"{name}s", "relu"))
    ref[f"{name}r"] = np.maximum(ref[f"{name}c"] + ref[src], 0)


def _net(rng, tail):
    """x (3 ch) → 3×3 stem (32) → relu → two bottlenecks → ``tail`` ("conv": a 1×1 head, the network output;
    "lrn": the second bottleneck's input also read by an LRN, a second output)."""
    x = f32(rng.standard_normal((1, 3, 20, 22)))
    ref = {"x": x.astype(np.float64)}
    topo = cl.Topology(cl.InputLayout("x", cl.Layout(DataType.f32, Format.bfyx, x.shape)))
    _conv(topo, rng, ref, "stem", "x", 3, 32, 3)
    topo.add(cl.Activation("stemr", "stem", "relu"))
    ref["stemr"] = np.maximum(ref["stem"], 0)
    _bottleneck(topo, rng, ref, "b1", "stemr", 32, 16)
    _bottleneck(topo, rng, ref, "b2", "b1r", 32, 16)
    _conv(topo, rng, ref, "head", "b2r", 32, 16, 1)
    outs = ["head"]
    if tail == "lrn":
        topo.add(cl.LRN("norm", "b1r", size=3, alpha=1e-2, beta=0.75, k=1.0))
        ref["norm"] = lrn_ref(ref["b1r"], 3, 1e-2, 0.75, 1.0)
        outs.append("norm")
    return topo, x, ref, outs


def _run(cpu_engine, topo, x, ref, outs):
    net = cl.Network(cl.Program(cpu_engine, topo))
    net.poison()
    got = net.run({"x": x})
    for o in outs:
        assert_close(got[o], ref[o], rtol=1e-4, atol=1e-4)
    return net


def test_bottlenecks_run_blocked_with_the_residual_fused(cpu_engine, rng):
    topo, x, ref, outs = _net(rng, "conv")
    net = _run(cpu_engine, topo, x, ref, outs)
    for name in ("b1", "b2"):
        last = net.program.node(f"{name}c")
        assert (last.impl.kernel_name, last.layout().format) == (KERNEL, FSV16)
        assert [op.kind for op in last.fused_ops][:1] == ["eltwise"], last.fused_ops
    assert net.program.node("stem").layout().format == FSV16


def test_residual_of_a_plain_region_keeps_its_reader_plain(cpu_engine, rng, monkeypatch):
    """The first bottleneck's output is also read by an LRN (no blocked CPU kernel): its region stays plain, so the
    second bottleneck's last 1×1, which takes that output as its residual, stays bfyx too (the blocked kernel reads a
    residual blocked only); without the rule (reads_as_operand) it would be made blocked and fall to the GEMM with a
    plain residual. Values as the reference either way."""
    from cldnn_py.passes import blocked_regions

    topo, x, ref, outs = _net(rng, "lrn")
    net = _run(cpu_engine, topo, x, ref, outs)
    assert net.program.node("b1c").layout().format == Format.bfyx
    assert net.program.node("b2a").layout().format == FSV16  # a data input reads either format
    assert net.program.node("b2c").layout().format == Format.bfyx
    monkeypatch.setattr(blocked_regions, "reads_as_operand", lambda reader, members: False)
    net = _run(cpu_engine, topo, x, ref, outs)
    last = net.program.node("b2c")
    assert last.layout().format == FSV16 and last.impl.kernel_name != KERNEL


@pytest.mark.parametrize("batch", [1, 2])
def test_any_shape_only_at_batch_1(batch):
    """ANY_SHAPE: a 1×1 layer convolution_cpu_packed runs on its pixel-vector GEMM (56×56, K 256, 64 outputs) is
    taken into a blocked output at batch 1 only."""
    from cldnn_py.layout import Layout
    from cldnn_py.ops import ConvolutionAttrs
    from kernel_selector.params import Params

    x = Layout(DataType.f32, FSV16, (batch, 256, 56, 56))
    w = Layout(DataType.f32, Format.os_iyx_osv16, (64, 256, 1, 1))
    out = Layout(DataType.f32, FSV16, (batch, 64, 56, 56))
    p = Params("convolution", "cpu", [x, w], out, ConvolutionAttrs(), [])
    assert not ocb.plain_tiles(p)
    why = ocb.ConvolutionKernelCpuOcBlocked().validate(p)
    assert (why is None) == (batch == 1), why
