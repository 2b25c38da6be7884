"""pooling_gpu_wg (GPU tier, forced) vs the float64 pooling references: both variants (window, whole-plane work-group
reduction), every mode, ceil mode, asymmetric pads, dilation, tails of the work-group; fused activations; GPU_LIKE
selection."""

from __future__ import annotations

import numpy as np
import pytest

import cldnn_py as cl
from cldnn_py.layout import DataType, Format, Layout
from kernel_selector import Params, selector
from kernel_selector.device_caps import GPU_LIKE
from tests.helpers import assert_close, f32, run_single, typed_attrs
from tests.ocl.gpu_tier import run_gpu_padded
from tests.references import pool_dilated_ref

M = cl.PoolingMode
K = "pooling_gpu_wg"
GPU = cl.BuildOptions(kernel_tier="gpu", force_implementations={"pool": K})

CASES = [
    # (N, C, H, W), kernel, stride, pad, pad_end, dilation, ceil_mode
    ((1, 19, 7, 9), (3, 3), (2, 2), (1, 1), (1, 1), (1, 1), False),
    ((2, 3, 5, 5), (2, 2), (1, 1), (0, 0), (0, 0), (1, 1), False),
    ((1, 3, 10, 9), (3, 2), (2, 3), (1, 0), (0, 1), (1, 1), True),
    ((1, 2, 9, 10), (3, 3), (2, 3), (0, 1), (1, 0), (1, 1), True),
    ((1, 2, 11, 10), (2, 2), (3, 4), (1, 0), (0, 1), (1, 1), False),
    ((1, 2, 40, 37), (3, 3), (1, 1), (1, 1), (1, 1), (1, 1), False),  # more than one work-group along x and y
    ((1, 2, 9, 11), (3, 2), (1, 2), (2, 1), (1, 0), (2, 3), True),    # dilation
]


@pytest.fixture
def engine(ocl_engine):
    return ocl_engine


@pytest.mark.ocl_every(2)
@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c[0]}-k{c[1]}-s{c[2]}-p{c[3]}{c[4]}-d{c[5]}-c{int(c[6])}")
@pytest.mark.parametrize("mode", list(M), ids=lambda m: m.value)
def test_window(engine, rng, case, mode):
    shape, k, s, pb, pe, d, ceil_mode = case
    x = f32(rng.standard_normal(shape))
    prim = cl.Pooling("pool", "x", mode=mode, kernel=k, stride=s, pad=pb, pad_end=pe, dilation=d,
                      ceil_mode=ceil_mode)
    assert_close(run_single(engine, prim, {"x": x}, options=GPU), pool_dilated_ref(x, mode, k, s, pb, pe, d, ceil_mode))


@pytest.mark.parametrize("shape", [(2, 3, 5, 5), (1, 5, 17, 19), (2, 2, 16, 16)], ids=str)
@pytest.mark.parametrize("mode", list(M), ids=lambda m: m.value)
def test_global(engine, rng, shape, mode):
    """Small planes take the window variant, H*W >= 256 the work-group reduction (one partial sum per work-item
    for 16x16, several for 17x19)."""
    x = f32(rng.standard_normal(shape))
    prim = cl.Pooling("pool", "x", mode=mode, kernel=(2, 2), global_pooling=True)
    ref = x.astype(np.float64).max(axis=(2, 3), keepdims=True) if mode == M.max else \
        x.astype(np.float64).mean(axis=(2, 3), keepdims=True)
    assert_close(run_single(engine, prim, {"x": x}, options=GPU), ref)


def test_global_variant_chosen():
    x = Layout(DataType.f32, Format.bfyx, (1, 8, 16, 16))
    y = Layout(DataType.f32, Format.bfyx, (1, 8, 1, 1))
    p = Params("pooling", "ocl", [x], y, typed_attrs("pooling", {"mode": M.average, "global_pooling": True}),
               caps=GPU_LIKE, kernel_tier="gpu")
    kd = selector.select(p, K)[1]
    assert kd.kernels[0].lws == (256, 1) and kd.kernels[0].gws == (256, 8)


@pytest.mark.parametrize("variant", [0, 1])
def test_padded_buffers(engine, rng, monkeypatch, variant):
    shape = (1, 19, 16, 17)
    lin = cl.Layout(cl.DataType.f32, cl.Format.b_fs_yx_fsv16, shape, cl.Padding((0, 0, 1, 2), (1, 0, 2, 0)))
    lout = cl.Layout(cl.DataType.f32, cl.Format.bfyx, (1, 19, 1, 1), cl.Padding((1, 2, 0, 1), (0, 3, 1, 1)))
    x = f32(rng.standard_normal(shape))
    out = run_gpu_padded(monkeypatch, engine, "pooling", [lin], lout, {"mode": M.max, "global_pooling": True}, [x],
                         kernel=K, variant={"global": variant})
    assert_close(out, x.astype(np.float64).max(axis=(2, 3), keepdims=True))


@pytest.mark.parametrize("shape", [(1, 19, 7, 9), (1, 3, 16, 20)], ids=str)
def test_fused_activations(engine, rng, shape):
    x = f32(rng.standard_normal(shape) * 4)
    glob = shape[2] * shape[3] >= 256
    t = cl.Topology()
    t.add(cl.InputLayout("x", cl.Layout(cl.DataType.f32, cl.Format.bfyx, x.shape)))
    t.add(cl.Pooling("pool", "x", mode=M.average, kernel=(3, 3), stride=(2, 2), pad=(1, 1), global_pooling=glob))
    t.add(cl.Activation("act0", "pool", func="relu_negative_slope", a=0.1))
    t.add(cl.Activation("act1", "act0", func="hard_sigmoid", a=0.2, b=0.5))
    net = cl.Network(cl.Program(engine, t, cl.BuildOptions(kernel_tier="gpu")))
    node = net.program.node("pool")
    assert node.impl.kernel_name == K and net.program.node("act1") is node and len(node.fused_ops) == 2
    net.poison()
    out = net.run({"x": x})["act1"]
    if glob:
        ref = x.astype(np.float64).mean(axis=(2, 3), keepdims=True)
    else:
        ref = pool_dilated_ref(x, M.average, (3, 3), (2, 2), (1, 1), (1, 1), (1, 1))
    ref = np.clip(0.2 * np.where(ref >= 0, ref, 0.1 * ref) + 0.5, 0, 1)
    assert_close(out, ref)


def test_selected_on_described_gpu():
    x = Layout(DataType.f32, Format.bfyx, (1, 64, 112, 112))
    y = Layout(DataType.f32, Format.bfyx, (1, 64, 56, 56))
    p = Params("pooling", "ocl", [x], y, typed_attrs("pooling", {"mode": M.max, "kernel": (3, 3), "stride": (2, 2),
                                                                  "pad": (1, 1), "pad_end": (1, 1)}),
               caps=GPU_LIKE, kernel_tier="gpu")
    assert selector.select(p)[0].name == K
