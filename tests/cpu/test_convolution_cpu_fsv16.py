"""convolution_cpu_fsv16 (numba blocked direct convolution) vs an independent float64 numpy convolution.

The kernel is run directly on physical buffers built from Layouts (fsv16 data with and without a zero halo in the
padding, padded outputs, channel tails, groups, depthwise, fused activation + residual), the selector's choice is
asserted, and one network run checks it end to end on the CPU engine.
"""

from __future__ import annotations

import numpy as np
import pytest

import cldnn_py as cl
from cldnn_py.layout import DataType, Format, Padding
from tests.cpu.conv_harness import CASES, run_direct
from tests.helpers import assert_close, f32
from tests.references import conv_ref

FSV16, OSV16 = Format.b_fs_yx_fsv16, Format.os_iyx_osv16
KERNEL = "convolution_cpu_fsv16"
NO_PAD = Padding()


@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c[0]}-oc{c[1]}-k{c[2]}-s{c[3]}-d{c[4]}-g{c[7]}")
@pytest.mark.parametrize("halo", [False, True], ids=["unpadded", "halo"])
def test_fsv16_matches_reference(rng, case, halo):
    shape, oc, k, stride, dil, pad, pad_end, groups = case
    x = f32(rng.standard_normal(shape))
    w = f32(rng.standard_normal((oc, shape[1] // groups) + k))
    b = f32(rng.standard_normal(oc))
    xpad = Padding((0, 0, pad[0] + 1, pad[1]), (0, 0, pad_end[0] + 2, pad_end[1] + 1)) if halo else Padding()
    opad = Padding((0, 0, 1, 2), (0, 0, 1, 0)) if halo else Padding()
    got, chosen = run_direct(KERNEL, x, w, b, stride, dil, pad, pad_end, groups, xfmt=FSV16, wfmt=OSV16,
                             ofmt=FSV16, xpad=xpad, opad=opad)
    # the priority rule: this kernel wins thin grouped GEMMs (C/groups * KH * KW < 64, groups > 1),
    # convolution_cpu_gemm the rest
    # ... and convolution_cpu_oc_blocked (priority 1) dense layers of whole input blocks where it validates
    blocked = chosen == "convolution_cpu_oc_blocked"
    assert not blocked or (groups == 1 and shape[1] % 16 == 0)
    assert blocked or chosen == (KERNEL if w.shape[1] * k[0] * k[1] < 64 and groups > 1 else "convolution_cpu_packed")
    assert_close(got, conv_ref(x, w, b, stride, dil, pad, pad_end, groups), rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("rfmt", [Format.bfyx, FSV16])
def test_fsv16_fused_residual_and_activations(rng, rfmt):
    x = f32(rng.standard_normal((2, 19, 6, 7)))
    w = f32(rng.standard_normal((21, 19, 3, 3)))
    b = f32(rng.standard_normal(21))
    res = f32(rng.standard_normal((2, 21, 6, 7)))
    fused = [("activation", {"func": "relu_negative_slope", "a": 0.1}), ("eltwise", {"mode": "sum"}),
             ("activation", {"func": "relu"})]
    got, _ = run_direct(KERNEL, x, w, b, (1, 1), (1, 1), (1, 1), (1, 1), 1, xfmt=FSV16, wfmt=OSV16, ofmt=FSV16,
                        fused=fused, residual=res, rfmt=rfmt)
    ref = conv_ref(x, w, b, (1, 1), (1, 1), (1, 1), (1, 1), 1)
    ref = np.maximum(np.where(ref >= 0, ref, 0.1 * ref) + res, 0)
    assert_close(got, ref, rtol=1e-4, atol=1e-4)


def test_fsv16_broadcast_operand_and_no_bias(rng):
    x = f32(rng.standard_normal((1, 16, 5, 5)))
    w = f32(rng.standard_normal((16, 1, 3, 3)))
    scale = f32(rng.standard_normal((1, 16, 1, 1)))
    got, chosen = run_direct(KERNEL, x, w, None, (1, 1), (1, 1), (1, 1), (1, 1), 16, xfmt=FSV16, wfmt=OSV16,
                             ofmt=FSV16, residual=scale,
                             fused=[("eltwise", {"mode": "prod"}), ("activation", {"func": "clamp", "a": -0.5,
                                                                                    "b": 0.5})])
    assert chosen == KERNEL  # depthwise
    ref = np.clip(conv_ref(x, w, None, (1, 1), (1, 1), (1, 1), (1, 1), 16) * scale, -0.5, 0.5)
    assert_close(got, ref, rtol=1e-4, atol=1e-4)


def test_fsv16_in_network_depthwise(cpu_engine, rng):
    """End to end: a depthwise convolution with a fused relu, forced to this kernel, on fsv16 data."""
    x = f32(rng.standard_normal((1, 20, 9, 8)))
    w = f32(rng.standard_normal((20, 1, 3, 3)))
    b = f32(rng.standard_normal(20))
    topo = cl.Topology()
    topo.add(cl.InputLayout("x0", cl.Layout(DataType.f32, Format.bfyx, x.shape)))
    topo.add(cl.Reorder("x", "x0", FSV16))
    topo.add(cl.Data("w", w))
    topo.add(cl.Data("b", b))
    topo.add(cl.Reorder("wp", "w", OSV16))
    topo.add(cl.Convolution("conv", "x", weights="wp", bias="b", pad=(1, 1), groups=20))
    topo.add(cl.Activation("act", "conv", "relu"))
    topo.add(cl.Reorder("out", "act", Format.bfyx))
    opts = cl.BuildOptions(force_implementations={"conv": KERNEL})
    net = cl.Network(cl.Program(cpu_engine, topo, opts))
    net.poison()
    got = net.run({"x0": x})["out"]
    kernels = {e.id: e.kernel for e in net.get_profiling_info()} if hasattr(net, "get_profiling_info") else {}
    assert kernels.get("conv", KERNEL) == KERNEL
    assert_close(got, np.maximum(conv_ref(x, w, b, (1, 1), (1, 1), (1, 1), (1, 1), 20), 0), rtol=1e-4, atol=1e-4)
