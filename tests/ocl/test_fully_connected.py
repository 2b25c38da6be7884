"""fully_connected vs a float64 numpy reference: inputs of rank 2-4 flattened in logical NCHW order whatever their
format (bfyx, byxf, b_fs_yx_fsv16, padded), weights (M, K), with and without bias, batch > 1."""

from __future__ import annotations

import time

import numpy as np
import pytest

import cldnn_py as cl
from tests.helpers import assert_close, f32, run_single
from tests.ocl.padded import run_kernel_padded
from tests.references import fc_ref

CASES = [
    # input shape, M, bias
    ((3, 20), 7, True),
    ((2, 5, 3, 4), 9, True),
    ((1, 19, 2, 3), 16, False),
    ((2, 6, 5), 5, True),   # rank 3: (N, C, H)
]


@pytest.mark.ocl_every(2)
@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c[0]}-m{c[1]}-bias{int(c[2])}")
@pytest.mark.parametrize("fmt", [cl.Format.bfyx, cl.Format.b_fs_yx_fsv16, cl.Format.byxf])
def test_fully_connected_matches_reference(engine, rng, case, fmt):
    shape, m, bias = case
    x = f32(rng.standard_normal(shape))
    k = int(np.prod(shape[1:]))
    w = f32(rng.standard_normal((m, k)))
    b = f32(rng.standard_normal(m)) if bias else None
    prim = cl.FullyConnected("fc", "x", weights="w", bias="b" if bias else None)
    data = {"w": w} | ({"b": b} if bias else {})
    out = run_single(engine, prim, {"x": x}, data, fmt=fmt)
    assert_close(out, fc_ref(x, w, b), rtol=1e-4, atol=1e-4)


def test_fully_connected_bias_row(engine, rng):
    """A (1, M) bias (as ONNX Gemm's C) is read by logical element."""
    x, w, b = f32(rng.standard_normal((2, 11))), f32(rng.standard_normal((6, 11))), f32(rng.standard_normal((1, 6)))
    out = run_single(engine, cl.FullyConnected("fc", "x", weights="w", bias="b"), {"x": x}, {"w": w, "b": b})
    assert_close(out, fc_ref(x, w, b), rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("fmt", [cl.Format.bfyx, cl.Format.b_fs_yx_fsv16])
def test_fully_connected_padded_buffers(engine, rng, fmt):
    shape, m = (2, 17, 3, 5), 8
    x = f32(rng.standard_normal(shape))
    w = f32(rng.standard_normal((m, int(np.prod(shape[1:])))))
    b = f32(rng.standard_normal(m))
    pad_f = 0 if fmt.is_blocked else 2
    lin = cl.Layout(cl.DataType.f32, fmt, shape, cl.Padding((0, pad_f, 1, 2), (1, 0, 2, 1)))
    lw = cl.Layout(cl.DataType.f32, cl.Format.bfyx, w.shape, cl.Padding((0, 0, 0, 0), (0, 3, 0, 0)))
    lb = cl.Layout(cl.DataType.f32, cl.Format.bfyx, b.shape)
    prim = cl.FullyConnected("fc", "x", weights="w", bias="b")
    lout = prim.calc_output_layout([lin, lw, lb]).with_(padding=cl.Padding((1, 2, 0, 0), (0, 1, 0, 0)))
    out = run_kernel_padded(engine, "fully_connected", [lin, lw, lb], lout, prim.attrs(), [x, w, b])
    assert_close(out, fc_ref(x, w, b), rtol=1e-4, atol=1e-4)


def test_fully_connected_alexnet_fc6_size(engine, rng):
    """AlexNet FC6 (9216 -> 4096) after a convolution in b_fs_yx_fsv16: right, and not absurdly slow."""
    x = f32(rng.standard_normal((1, 256, 6, 6)))
    w = f32(rng.standard_normal((4096, 9216)) * 0.01)
    b = f32(rng.standard_normal(4096))
    topo = cl.Topology(cl.InputLayout("x", cl.Layout(cl.DataType.f32, cl.Format.bfyx, x.shape)),
                       cl.Reorder("xb", "x", cl.Format.b_fs_yx_fsv16), cl.Data("w", w), cl.Data("b", b),
                       cl.FullyConnected("fc", "xb", weights="w", bias="b"))
    net = cl.Network(cl.Program(engine, topo))
    net.run({"x": x})  # warm-up
    net.poison()
    t0 = time.perf_counter()
    out = net.run({"x": x})["fc"]
    elapsed = time.perf_counter() - t0
    assert_close(out, fc_ref(x, w, b), rtol=1e-4, atol=1e-4)
    assert elapsed < 2.0, f"FC6 took {elapsed:.2f} s"


def test_fully_connected_rank5_input(engine, rng):
    """A rank-5 bfyx input (trailing dims folded into x by the layout) flattens in row-major order too."""
    x, w = f32(rng.standard_normal((2, 3, 2, 2, 3))), f32(rng.standard_normal((5, 36)))
    out = run_single(engine, cl.FullyConnected("fc", "x", weights="w"), {"x": x}, {"w": w})
    assert_close(out, fc_ref(x, w, None), rtol=1e-4, atol=1e-4)
