"""convolution_cpu_fsv16 (numba blocked direct convolution) vs an independent float64 numpy convolution.

The kernel is run directly on physical buffers built from Layouts (fsv16 data with and without a zero halo in the
padding, padded outputs, channel tails, groups, depthwise, fused activation + residual), the selector's choice is
asserted, and one network run checks it end to end on the CPU engine.
"""

from __future__ import annotations

import numpy as np
import pytest

import cldnn_py as cl
from cldnn_py.cpu_engine import aligned_bytes
from cldnn_py.layout import DataType, Format, Layout, Padding
from cldnn_py.ops import ConvolutionAttrs, FusedActivationAttrs, FusedEltwiseAttrs
from kernel_selector.params import FusedOp, Params
from kernel_selector.selector import candidates, selector
from tests.helpers import assert_close, f32

FSV16, OSV16 = Format.b_fs_yx_fsv16, Format.os_iyx_osv16
KERNEL = "convolution_cpu_fsv16"
NO_PAD = Padding()


def conv64(x, w, b, stride, dil, pad, pad_end, groups):
    """Direct float64 convolution with zero padding, groups, stride and dilation."""
    x = np.pad(x.astype(np.float64), ((0, 0), (0, 0), (pad[0], pad_end[0]), (pad[1], pad_end[1])))
    n, c, h, wd = x.shape
    oc, icg, kh, kw = w.shape
    oh = (h - dil[0] * (kh - 1) - 1) // stride[0] + 1
    ow = (wd - dil[1] * (kw - 1) - 1) // stride[1] + 1
    out = np.zeros((n, oc, oh, ow))
    ocg = oc // groups
    for g in range(groups):
        for ky in range(kh):
            for kx in range(kw):
                patch = x[:, g * icg:(g + 1) * icg, ky * dil[0]:ky * dil[0] + stride[0] * (oh - 1) + 1:stride[0],
                          kx * dil[1]:kx * dil[1] + stride[1] * (ow - 1) + 1:stride[1]]
                out[:, g * ocg:(g + 1) * ocg] += np.einsum("ncyx,oc->noyx", patch,
                                                           w[g * ocg:(g + 1) * ocg, :, ky, kx].astype(np.float64))
    if b is not None:
        out += b.astype(np.float64)[None, :, None, None]
    return out


def run_direct(kernel, x, w, b, stride, dil, pad, pad_end, groups, *, xfmt, wfmt, ofmt, xpad=NO_PAD,
               opad=NO_PAD, fused=(), residual=None, rfmt=Format.bfyx):
    """Check ``kernel`` validates for these layouts, run its fn on NaN-poisoned physical buffers; returns (the
    logical output in float64, the name of the kernel the selector picks)."""
    oc = w.shape[0]
    oh = (x.shape[2] + pad[0] + pad_end[0] - dil[0] * (w.shape[2] - 1) - 1) // stride[0] + 1
    ow = (x.shape[3] + pad[1] + pad_end[1] - dil[1] * (w.shape[3] - 1) - 1) // stride[1] + 1
    lays = [Layout(DataType.f32, xfmt, x.shape, xpad), Layout(DataType.f32, wfmt, w.shape)]
    arrays = [x, w]
    if b is not None:
        lays.append(Layout(DataType.f32, Format.bfyx, b.shape))
        arrays.append(b)
    out = Layout(DataType.f32, ofmt, (x.shape[0], oc, oh, ow), opad)
    ops = []
    extra = []
    for kind, attrs in fused:
        if kind == "eltwise":
            rl = Layout(DataType.f32, rfmt, residual.shape)
            ops.append(FusedOp("eltwise", FusedEltwiseAttrs(**attrs), [rl], [len(lays) + len(extra)]))
            extra.append((rl, residual))
        else:
            ops.append(FusedOp("activation", FusedActivationAttrs(**attrs)))
    attrs = ConvolutionAttrs(stride=stride, dilation=dil, pad=pad, pad_end=pad_end, groups=groups)
    params = Params("convolution", "cpu", lays, out, attrs, ops)
    verdicts = {v.kernel: v for v in selector.explain(params)}
    assert verdicts[kernel].reason is None, str(verdicts[kernel])
    kd = next(k for k in candidates("convolution") if k.name == kernel).kernel_data(params)
    bufs = []
    for lay, arr in zip(lays, arrays):
        buf = aligned_bytes(lay.bytes)
        phys = lay.to_physical(arr)
        if lay.format == FSV16 and not lay.padding.is_zero:  # padding is a zero halo; block tails are garbage
            phys = np.where(lay.to_physical(np.ones(arr.shape, np.float32)) == 0, 0.0, phys).astype(np.float32)
        buf[:] = phys.view(np.uint8)
        bufs.append(buf)
    obuf = aligned_bytes(out.bytes)
    obuf.view(np.float32)[:] = np.nan
    for rl, arr in extra:
        rb = aligned_bytes(rl.bytes)
        rb[:] = rl.to_physical(arr).view(np.uint8)
        bufs.append(rb)
    kd.kernels[0].fn(*bufs[:len(lays)], obuf, *bufs[len(lays):])
    flat = obuf.view(np.float32)
    if not out.padding.is_zero:  # the padding must be left alone
        mask = out.to_physical(np.ones(out.shape, np.float32)) == 0
        assert np.isnan(flat[mask]).all(), "the kernel wrote into the output's padding"
    return out.from_physical(flat).astype(np.float64), selector.select(params)[0].name


CASES = [
    # (N, C, H, W), OC, (KH, KW), stride, dilation, pad, pad_end, groups
    ((1, 3, 9, 11), 5, (3, 3), (1, 1), (1, 1), (1, 1), (1, 1), 1),
    ((2, 20, 10, 9), 18, (3, 2), (2, 1), (1, 1), (0, 1), (2, 0), 1),
    ((1, 17, 13, 12), 33, (3, 3), (1, 1), (2, 2), (2, 2), (2, 2), 1),
    ((1, 24, 7, 7), 24, (3, 3), (2, 2), (1, 1), (1, 1), (1, 1), 24),  # depthwise, channel tail
    ((1, 8, 12, 10), 32, (3, 3), (1, 1), (1, 1), (1, 1), (1, 1), 2),  # 16 output channels per group
    ((1, 3, 15, 15), 16, (7, 7), (2, 2), (1, 1), (3, 3), (3, 3), 1),
    ((1, 32, 5, 19), 16, (1, 1), (1, 1), (1, 1), (0, 0), (0, 0), 1),
]


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
    assert chosen == (KERNEL if w.shape[1] * k[0] * k[1] < 64 and groups > 1 else "convolution_cpu_gemm")
    assert_close(got, conv64(x, w, b, stride, dil, pad, pad_end, groups), rtol=1e-4, atol=1e-4)


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
    ref = conv64(x, w, b, (1, 1), (1, 1), (1, 1), (1, 1), 1)
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
    ref = np.clip(conv64(x, w, None, (1, 1), (1, 1), (1, 1), (1, 1), 16) * scale, -0.5, 0.5)
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
    assert_close(got, np.maximum(conv64(x, w, b, (1, 1), (1, 1), (1, 1), (1, 1), 20), 0), rtol=1e-4, atol=1e-4)
