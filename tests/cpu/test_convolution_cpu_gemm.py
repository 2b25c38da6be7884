"""convolution_cpu_gemm (numba im2col + BLAS sgemm + numba epilogue) vs an independent float64 convolution.

Direct runs on physical buffers (plain and fsv16 data, plain and packed weights, padded input and output, groups,
fused ops; the harness is in conv_harness.py, the float64 reference in tests/references.py), the selector's choice, and
network runs on the CPU engine.
"""

from __future__ import annotations

import numpy as np
import pytest

import cldnn_py as cl
from cldnn_py.layout import DataType, Format, Padding
from tests.cpu.conv_harness import CASES, run_direct
from tests.helpers import assert_close, f32
from tests.references import conv_ref

KERNEL = "convolution_cpu_gemm"
FSV16, OSV16 = Format.b_fs_yx_fsv16, Format.os_iyx_osv16


LAYOUTS = [  # (data format, weights format, output format, padded)
    (Format.bfyx, Format.oiyx, Format.bfyx, False),
    (Format.bfyx, Format.oiyx, Format.bfyx, True),
    (Format.byxf, Format.oiyx, Format.bfyx, False),
    (FSV16, OSV16, FSV16, False),
    (FSV16, OSV16, FSV16, True),
]


@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c[0]}-oc{c[1]}-k{c[2]}-s{c[3]}-d{c[4]}-g{c[7]}")
@pytest.mark.parametrize("lay", LAYOUTS, ids=lambda v: f"{v[0].value}-{v[1].value}-{v[2].value}-pad{int(v[3])}")
def test_gemm_matches_reference(rng, case, lay):
    shape, oc, k, stride, dil, pad, pad_end, groups = case
    xfmt, wfmt, ofmt, padded = lay
    x = f32(rng.standard_normal(shape))
    w = f32(rng.standard_normal((oc, shape[1] // groups) + k))
    b = f32(rng.standard_normal(oc))
    xpad = Padding((0, 0, 1, 2), (0, 0, 0, 1)) if padded else Padding()
    opad = Padding((0, 0, 2, 1), (0, 0, 1, 1)) if padded else Padding()
    got, chosen = run_direct(KERNEL, x, w, b, stride, dil, pad, pad_end, groups, xfmt=xfmt, wfmt=wfmt, ofmt=ofmt,
                             xpad=xpad, opad=opad)
    thin = w.shape[1] * k[0] * k[1] < 64 and groups > 1  # the rule: a thin grouped GEMM goes to the numba kernel
    fsv16_ok = xfmt == ofmt == FSV16 and (groups == 1 or oc // groups % 16 == 0 or w.shape[1] == 1)
    # packed weights: the packed GEMM, unless the direct kernel takes a thin grouped shape
    depthwise = groups == shape[1] == oc and xfmt == ofmt == Format.bfyx
    # convolution_cpu_oc_blocked (priority 1) takes dense blocked layers of whole input blocks where it validates
    # (tests/cpu/test_convolution_cpu_oc_blocked.py)
    blocked = chosen == "convolution_cpu_oc_blocked"
    assert not blocked or (wfmt == OSV16 and xfmt == FSV16 and groups == 1 and shape[1] % 16 == 0)
    assert blocked or chosen == ("convolution_cpu_fsv16" if thin and fsv16_ok else "convolution_cpu_depthwise"
                                 if depthwise else "convolution_cpu_packed" if wfmt == OSV16 else KERNEL)
    assert_close(got, conv_ref(x, w, b, stride, dil, pad, pad_end, groups), rtol=1e-4, atol=1e-4)


def test_gemm_fused_residual_plain(rng):
    x = f32(rng.standard_normal((2, 40, 6, 5)))
    w = f32(rng.standard_normal((24, 40, 1, 1)))
    res = f32(rng.standard_normal((2, 24, 6, 5)))
    fused = [("eltwise", {"mode": "sum"}), ("activation", {"func": "relu"})]
    got, chosen = run_direct(KERNEL, x, w, None, (1, 1), (1, 1), (0, 0), (0, 0), 1, xfmt=Format.bfyx,
                             wfmt=Format.oiyx, ofmt=Format.bfyx, fused=fused, residual=res)
    assert chosen == KERNEL
    assert_close(got, np.maximum(conv_ref(x, w, None, (1, 1), (1, 1), (0, 0), (0, 0), 1) + res, 0), rtol=1e-4,
                 atol=1e-4)


@pytest.mark.parametrize("func,a,b,np_fn", [
    ("logistic", 0.0, 0.0, lambda v: 1 / (1 + np.exp(-v))),
    ("hard_swish", 0.0, 0.0, lambda v: v * np.clip(v + 3, 0, 6) / 6),
    ("elu", 0.7, 0.0, lambda v: np.where(v >= 0, v, 0.7 * np.expm1(v))),
    ("linear", 0.5, -0.25, lambda v: 0.5 * v - 0.25),
])
def test_gemm_fused_activations(rng, func, a, b, np_fn):
    x = f32(rng.standard_normal((1, 16, 5, 6)))
    w = f32(rng.standard_normal((20, 16, 3, 3))) * 0.2
    bias = f32(rng.standard_normal(20))
    res = f32(rng.standard_normal((1, 20, 1, 6)))  # broadcast over y
    fused = [("activation", {"func": func, "a": a, "b": b}), ("eltwise", {"mode": "sub"})]
    got, _ = run_direct(KERNEL, x, w, bias, (1, 1), (1, 1), (1, 1), (1, 1), 1, xfmt=FSV16, wfmt=OSV16, ofmt=FSV16,
                        fused=fused, residual=res)
    ref = np_fn(conv_ref(x, w, bias, (1, 1), (1, 1), (1, 1), (1, 1), 1)) - res
    assert_close(got, ref, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("fmt", [Format.bfyx, FSV16])
def test_gemm_in_network_residual_block(cpu_engine, rng, fmt):
    """conv -> +x -> relu fused by the graph passes, batch 2, whichever format the data is given in."""
    x = f32(rng.standard_normal((2, 24, 7, 9)))
    w = f32(rng.standard_normal((24, 24, 3, 3))) * 0.2
    b = f32(rng.standard_normal(24))
    topo = cl.Topology()
    topo.add(cl.InputLayout("x", cl.Layout(DataType.f32, Format.bfyx, x.shape)))
    src = "x"
    if fmt != Format.bfyx:
        topo.add(cl.Reorder("xb", "x", fmt))
        src = "xb"
    topo.add(cl.Data("w", w))
    topo.add(cl.Data("b", b))
    topo.add(cl.Convolution("conv", src, weights="w", bias="b", pad=(1, 1)))
    topo.add(cl.Eltwise("add", ["conv", src], "sum"))
    topo.add(cl.Activation("relu", "add", "relu"))
    topo.add(cl.Reorder("out", "relu", Format.bfyx))
    net = cl.Network(cl.Program(cpu_engine, topo, cl.BuildOptions(force_implementations={"conv": KERNEL})))
    net.poison()
    got = net.run({"x": x})["out"]
    ref = np.maximum(conv_ref(x, w, b, (1, 1), (1, 1), (1, 1), (1, 1), 1) + x, 0)
    assert_close(got, ref, rtol=1e-4, atol=1e-4)


def test_gemm_forced_in_network_keeps_plain_weights(cpu_engine, rng):
    """Forced (the default is convolution_cpu_packed): the BLAS kernel runs a network convolution on its plain
    weights."""
    x = f32(rng.standard_normal((1, 32, 6, 6)))
    w = f32(rng.standard_normal((16, 32, 3, 3)))
    prim = cl.Convolution("conv", "x", weights="w", pad=(1, 1))
    topo = cl.Topology()
    topo.add(cl.InputLayout("x", cl.Layout(DataType.f32, Format.bfyx, x.shape)))
    topo.add(cl.Data("w", w))
    topo.add(prim)
    net = cl.Network(cl.Program(cpu_engine, topo, cl.BuildOptions(force_implementations={"conv": KERNEL})))
    net.poison()
    got = net.run({"x": x})["conv"]
    assert_close(got, conv_ref(x, w, None, (1, 1), (1, 1), (1, 1), (1, 1), 1), rtol=1e-4, atol=1e-4)
    assert net.program.nodes["conv"].impl.kernel_name == KERNEL
    assert net.program.nodes["conv"].dependencies[1].layout().format == Format.bfyx
