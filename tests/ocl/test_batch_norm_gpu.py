"""batch_norm_gpu_wg and scale_gpu_wg (GPU tier) vs float64 numpy: odd shapes, formats, statistics shapes, fused
activation (batch_norm is a fusing host), padded buffers, and the selection on the described GPU."""

from __future__ import annotations

import numpy as np
import pytest

import cldnn_py as cl
from cldnn_py.layout import Layout
from tests.helpers import assert_close, f32, run_single
from tests.ocl.gpu_move import gpu, gpu_like_choice, run_gpu_padded

F = cl.Format
DT = cl.DataType
BN, SC = "batch_norm_gpu_wg", "scale_gpu_wg"


def bn_ref(x, mean, var, scale, shift, eps):
    bshape = (1, -1) + (1,) * (x.ndim - 2)

    def per_c(a):
        return np.asarray(a, np.float64).reshape(bshape)
    y = (x.astype(np.float64) - per_c(mean)) / np.sqrt(per_c(var) + eps)
    if scale is not None:
        y = y * per_c(scale)
    if shift is not None:
        y = y + per_c(shift)
    return y


@pytest.mark.ocl_every(2)
@pytest.mark.parametrize(("shape", "has_scale", "has_shift", "st"), [
    ((2, 19, 5, 7), True, True, "c"), ((1, 7, 6, 3), False, False, "c"), ((2, 5, 3, 4), True, False, "1c11"),
    ((1, 6, 4, 5), False, True, "c"), ((3, 10), True, True, "c"), ((2, 4, 9), True, True, "c")])
@pytest.mark.parametrize("fmt", [F.bfyx, F.b_fs_yx_fsv16])
def test_batch_norm_gpu(ocl_engine, rng, shape, has_scale, has_shift, st, fmt):
    c = shape[1]
    sshape = (c,) if st == "c" else (1, c, 1, 1)
    x = f32(rng.standard_normal(shape) * 3 + 1)
    stats = {"mean": f32(rng.standard_normal(sshape)), "var": f32(rng.uniform(0.05, 4.0, sshape))}
    if has_scale:
        stats["scale"] = f32(rng.standard_normal(sshape))
    if has_shift:
        stats["shift"] = f32(rng.standard_normal(sshape))
    prim = cl.BatchNorm("bn", "x", mean="mean", variance="var", scale="scale" if has_scale else None,
                        shift="shift" if has_shift else None, epsilon=1e-5)
    out = run_single(ocl_engine, prim, {"x": x}, stats, fmt=fmt, out_fmt=F.bfyx, options=gpu({"bn": BN}))
    ref = bn_ref(x, stats["mean"], stats["var"], stats.get("scale"), stats.get("shift"), 1e-5)
    assert_close(out, ref, rtol=1e-4, atol=1e-5)


def test_batch_norm_gpu_fused_relu(ocl_engine, rng):
    """Not forced (a forced node does not fuse): the gpu tier selects batch_norm_gpu_wg, which takes the ReLU."""
    shape, c = (2, 13, 5, 9), 13
    x = f32(rng.standard_normal(shape))
    stats = {"mean": f32(rng.standard_normal(c)), "var": f32(rng.uniform(0.1, 2, c)),
             "scale": f32(rng.standard_normal(c)), "shift": f32(rng.standard_normal(c))}
    topo = cl.Topology()
    topo.add(cl.InputLayout("x", cl.Layout(DT.f32, F.bfyx, shape)))
    for k, v in stats.items():
        topo.add(cl.Data(k, v))
    topo.add(cl.BatchNorm("bn", "x", mean="mean", variance="var", scale="scale", shift="shift", epsilon=1e-5))
    topo.add(cl.Activation("relu", "bn", "relu"))
    prog = cl.Program(ocl_engine, topo, gpu())
    host = prog.node(prog.resolve("relu"))
    assert host.id == "bn" and host.impl is not None and host.impl.kernel_name == BN
    net = cl.Network(prog)
    net.poison()
    out = net.run({"x": x})["relu"]
    ref = np.maximum(bn_ref(x, stats["mean"], stats["var"], stats["scale"], stats["shift"], 1e-5), 0)
    assert_close(out, ref, rtol=1e-4, atol=1e-5)


def test_batch_norm_gpu_padded(ocl_engine, rng):
    shape, c = (2, 19, 3, 4), 19
    pad = cl.Padding
    lx = Layout(DT.f32, F.b_fs_yx_fsv16, shape, pad((1, 0, 1, 2), (0, 0, 2, 1)))
    stats = [Layout(DT.f32, F.bfyx, (c,), pad((3, 0, 0, 0), (2, 0, 0, 0))),
             Layout(DT.f32, F.byxf, (1, c, 1, 1), pad((0, 2, 1, 0), (1, 1, 0, 2))),
             Layout(DT.f32, F.bfyx, (1, 1, c), pad((0, 1, 2, 1), (1, 0, 1, 0))),
             Layout(DT.f32, F.yxfb, (1, 1, 1, c), pad((1, 0, 0, 2), (0, 1, 1, 3)))]
    lout = Layout(DT.f32, F.bfyx, shape, pad((0, 1, 2, 0), (1, 2, 0, 3)))
    x = f32(rng.standard_normal(shape))
    mean, var, scale, shift = (f32(rng.standard_normal(lay.shape)) for lay in stats)
    var = np.abs(var) + f32(0.1)
    attrs = {"epsilon": 1e-3, "has_scale": True, "has_shift": True}
    out = run_gpu_padded(ocl_engine, "batch_norm", [lx] + stats, lout, attrs, [x, mean, var, scale, shift], BN)
    assert_close(out, bn_ref(x, mean, var, scale, shift, 1e-3), rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize(("xs", "ss", "bs"), [((2, 19, 5, 7), (1, 19, 1, 1), (19, 1, 1)),
                                              ((1, 4, 3, 5), (1, 4, 3, 5), None), ((3, 7), (7,), (1, 7))])
@pytest.mark.parametrize("fmt", [F.bfyx, F.b_fs_yx_fsv16])
def test_scale_gpu(ocl_engine, rng, xs, ss, bs, fmt):
    x, s = f32(rng.standard_normal(xs)), f32(rng.standard_normal(ss))
    b = f32(rng.standard_normal(bs)) if bs else None
    prim = cl.Scale("sc", "x", scale="s", bias="b" if bs else None)
    data = {"s": s} | ({"b": b} if bs else {})
    out = run_single(ocl_engine, prim, {"x": x}, data, fmt=fmt, out_fmt=F.bfyx, options=gpu({"sc": SC}))
    ref = x.astype(np.float64) * s + (b if b is not None else 0)
    assert_close(out, ref)


def test_scale_gpu_padded(ocl_engine, rng):
    x, s, b = (f32(rng.standard_normal(sh)) for sh in [(2, 3, 4, 5), (3, 1, 1), (1, 3, 1, 5)])
    lx = Layout(DT.f32, F.bfyx, x.shape, cl.Padding((1, 1, 2, 0), (0, 2, 1, 2)))
    ls = Layout(DT.f32, F.byxf, s.shape, cl.Padding((1, 1, 0, 0), (0, 2, 1, 0)))
    lb = Layout(DT.f32, F.bfyx, b.shape, cl.Padding((0, 0, 1, 1), (0, 1, 0, 2)))
    prim = cl.Scale("sc", "x", scale="s", bias="b")
    lout = prim.calc_output_layout([lx, ls, lb]).with_(padding=cl.Padding((0, 1, 1, 1), (1, 0, 0, 3)))
    out = run_gpu_padded(ocl_engine, "scale", [lx, ls, lb], lout, prim.attrs(), [x, s, b], SC)
    assert_close(out, x.astype(np.float64) * s + b)


def test_per_channel_gpu_selected_on_described_gpu():
    x = Layout(DT.f32, F.b_fs_yx_fsv16, (1, 116, 28, 28))
    st = Layout(DT.f32, F.bfyx, (116,))
    attrs = {"epsilon": 1e-5, "has_scale": True, "has_shift": True}
    assert gpu_like_choice("batch_norm", [x, st, st, st, st], x, attrs) == BN
    s = Layout(DT.f32, F.bfyx, (1, 116, 1, 1))
    assert gpu_like_choice("scale", [x, s, s], x, {}) == SC
