"""softmax_gpu_wg (GPU tier, forced) vs the float64 references of test_softmax.py: every axis, ranks 1-6, rows shorter
and longer than the work-group, log-softmax, coerce_2d, stability, padded buffers, each tuning variant; GPU_LIKE
selection."""

from __future__ import annotations

import pytest

import cldnn_py as cl
from cldnn_py.layout import DataType, Format, Layout
from kernel_selector import Params, selector
from kernel_selector.device_caps import GPU_LIKE
from tests.helpers import assert_close, f32, run_single, typed_attrs
from tests.ocl.gpu_tier import run_gpu_padded
from tests.ocl.softmax_cases import CASES, GENERAL, softmax_general_ref
from tests.references import softmax_ref

K = "softmax_gpu_wg"
GPU = cl.BuildOptions(kernel_tier="gpu", force_implementations={"sm": K})


@pytest.fixture
def engine(ocl_engine):
    return ocl_engine


@pytest.mark.ocl_every(2)
@pytest.mark.parametrize("case", CASES + [((1, 19, 7, 9), 1), ((2, 3, 5, 5), 3), ((2, 300), 1)],
                         ids=lambda c: f"{c[0]}-axis{c[1]}")
def test_axes(engine, rng, case):
    shape, axis = case
    x = f32(rng.standard_normal(shape) * 4)
    out = run_single(engine, cl.Softmax("sm", "x", axis=axis), {"x": x}, options=GPU)
    assert_close(out, softmax_ref(x, axis), rtol=1e-4, atol=1e-6)


@pytest.mark.parametrize("case", GENERAL, ids=lambda c: f"{c[0]}-axis{c[1]}-log{int(c[2])}-c2d{int(c[3])}-"
                         f"{c[4].value}")
def test_log_and_coerce_2d(engine, rng, case):
    shape, axis, log, coerce, fmt = case
    x = f32(rng.standard_normal(shape) * 5)
    prim = cl.Softmax("sm", "x", axis=axis, log=log, coerce_2d=coerce)
    out = run_single(engine, prim, {"x": x}, fmt=fmt, out_fmt=cl.Format.bfyx if fmt != cl.Format.bfyx else None,
                     options=GPU)
    assert_close(out, softmax_general_ref(x, axis, log, coerce), rtol=1e-4, atol=1e-5)


def test_numerically_stable(engine, rng):
    shape = (2, 6, 3, 5)
    x = f32(rng.standard_normal(shape) * 50 + rng.choice([-100.0, 100.0], size=shape))
    out = run_single(engine, cl.Softmax("sm", "x", axis=1), {"x": x}, options=GPU)
    assert_close(out, softmax_ref(x, 1), rtol=1e-4, atol=1e-6)


@pytest.mark.parametrize("lws", [64, 128, 256])
@pytest.mark.parametrize("log", [False, True])
def test_padded_buffers_and_variants(engine, rng, monkeypatch, lws, log):
    shape = (2, 19, 4, 3)
    lin = cl.Layout(cl.DataType.f32, cl.Format.b_fs_yx_fsv16, shape, cl.Padding((1, 0, 2, 1), (0, 0, 1, 2)))
    lout = cl.Layout(cl.DataType.f32, cl.Format.byxf, shape, cl.Padding((0, 2, 1, 0), (1, 1, 0, 3)))
    x = f32(rng.standard_normal(shape) * 3)
    out = run_gpu_padded(monkeypatch, engine, "softmax", [lin], lout, {"axis": 1, "log": log, "coerce_2d": True},
                         [x], kernel=K, variant={"lws": lws})
    assert_close(out, softmax_general_ref(x, 1, log=log, coerce_2d=True), rtol=1e-4, atol=1e-5)


def test_selected_on_described_gpu():
    lay = Layout(DataType.f32, Format.bfyx, (1, 1000))
    p = Params("softmax", "ocl", [lay], lay, typed_attrs("softmax", {"axis": 1}), caps=GPU_LIKE, kernel_tier="gpu")
    k, kd = selector.select(p)
    assert k.name == K and kd.kernels[0].lws == (256,) and kd.kernels[0].gws == (256,)
